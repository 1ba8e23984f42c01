/**
 * `after(ms, fn)` on the host's timers for any delay. setTimeout takes a signed 32-bit delay: past
 * 2^31 − 1 ms (24.8 days) it fires at once. A watchdog sized from a long fit's expected time (a
 * deep fit of a million steps: 30 × 20 h) passes that, and the lane would be killed as "silent"
 * the moment it started; so long delays are waited out in steps no longer than the limit.
 */

/** setTimeout's largest delay: 2^31 − 1 ms. */
export const MAX_TIMER_MS = 0x7fffffff;

/** Calls `fn` once after `ms` (clamped to ≥ 0; Infinity never fires); returns a cancel function. */
export function after(ms: number, fn: () => void): () => void {
  let handle: ReturnType<typeof setTimeout> | undefined;
  let cancelled = false;
  if (ms === Infinity) return () => {};
  const due = Math.max(0, ms);
  let left = due;
  const wait = () => {
    const step = Math.min(left, MAX_TIMER_MS);
    left -= step;
    handle = setTimeout(() => {
      if (cancelled) return;
      if (left > 0) wait();
      else fn();
    }, step);
  };
  wait();
  return () => {
    cancelled = true;
    clearTimeout(handle);
  };
}
