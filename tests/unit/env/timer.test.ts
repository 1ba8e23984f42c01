/**
 * after(): delays past setTimeout's 32-bit limit wait instead of firing at once (the watchdog of a
 * million-step deep fit killed its lane as soon as it started), and cancel works at every step.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { after, MAX_TIMER_MS } from '../../../src/lib/env/timer.ts';

describe('after', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('fires once at the delay, also past 2^31 − 1 ms', () => {
    for (const ms of [0, 5, MAX_TIMER_MS, MAX_TIMER_MS + 1, 3 * MAX_TIMER_MS + 17]) {
      const fn = vi.fn();
      after(ms, fn);
      if (ms > 0) vi.advanceTimersByTime(ms - 1);
      expect(fn, `${ms} ms: not before`).not.toHaveBeenCalled();
      vi.advanceTimersByTime(1);
      expect(fn, `${ms} ms: at the delay`).toHaveBeenCalledTimes(1);
      vi.advanceTimersByTime(2 * MAX_TIMER_MS);
      expect(fn).toHaveBeenCalledTimes(1);
    }
  });

  it('setTimeout itself fires at once past the limit (why after() exists)', () => {
    const fn = vi.fn();
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    vi.useRealTimers();
    return new Promise<void>((resolve) => {
      const h = setTimeout(fn, MAX_TIMER_MS + 1);
      setTimeout(() => {
        expect(fn).toHaveBeenCalledTimes(1);
        clearTimeout(h);
        warn.mockRestore();
        resolve();
      }, 20);
    });
  });

  it('cancels before the first step and between steps; Infinity never fires', () => {
    const a = vi.fn();
    after(10, a)();
    const b = vi.fn();
    const cancelB = after(2 * MAX_TIMER_MS + 10, b);
    vi.advanceTimersByTime(MAX_TIMER_MS + 5);
    cancelB();
    const c = vi.fn();
    after(Infinity, c);
    vi.advanceTimersByTime(4 * MAX_TIMER_MS);
    expect(a).not.toHaveBeenCalled();
    expect(b).not.toHaveBeenCalled();
    expect(c).not.toHaveBeenCalled();
  });
});
