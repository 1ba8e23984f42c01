/**
 * FitContext for long work: the run seed and its named streams, `initSeed`, typed progress and
 * `tick()` (abort check + report + a turn of the event loop). `createFitContext` is what the
 * harness (runCell) builds; `completeFitContext` fills in what a test's bare `{ rng }` leaves out,
 * so every estimator body can rely on `ctx.tick()` and `ctx.stream()`.
 */
import { deriveSeed, MT19937 } from '../protocol/rng.ts';
import { AbortError, type FitContext, type LiveFitContext, type Progress } from './estimator.ts';
import { yieldToEventLoop } from './yieldToEventLoop.ts';

export interface FitContextOptions {
  seed: number;
  /** The model stream; default MT(seed) (PROTOCOL.md §3.5 may start it elsewhere: protocol/modelStream.ts). */
  rng?: MT19937;
  initSeed?: number;
  signal?: AbortSignal;
  onProgress?: (p: Progress) => void;
  quirks?: 'rsb' | 'fixed';
  /** A monotonic clock in ms. With one, `tick` yields at most every `yieldEveryMs`; without, every call. */
  now?: () => number;
  yieldEveryMs?: number;
  /**
   * Called at every `tick()`, before its throttle: a step-based fit ticks once per step, so the
   * harness can show it is alive from its first step (its typed reports come every N steps only).
   */
  onTick?: () => void;
}

/** The generator of stream `name` under run seed `seed` (independent of MT(seed) and of other names). */
export function streamSeed(seed: number, name: string): number {
  return deriveSeed(seed, `stream:${name}`);
}

function makeTick(
  signal: AbortSignal | undefined,
  onProgress: ((p: Progress) => void) | undefined,
  now?: () => number,
  yieldEveryMs = 8,
  onTick?: () => void,
) {
  let last = now ? now() : 0;
  return async (p?: Progress): Promise<void> => {
    if (signal?.aborted) throw new AbortError();
    onTick?.();
    if (p && onProgress) onProgress(p);
    if (now) {
      const t = now();
      if (t - last < yieldEveryMs) return;
      last = t;
    }
    await yieldToEventLoop();
    if (signal?.aborted) throw new AbortError();
  };
}

function makeStreams(seed: number): (name: string) => MT19937 {
  const streams = new Map<string, MT19937>();
  return (name: string) => {
    if (typeof name !== 'string' || name === '')
      throw new TypeError('FitContext.stream: the stream needs a non-empty name.');
    let s = streams.get(name);
    if (!s) streams.set(name, (s = new MT19937(streamSeed(seed, name))));
    return s;
  };
}

/** The context runCell hands to `fit`: `rng` is the model stream (MT(seed) unless given). */
export function createFitContext(o: FitContextOptions): LiveFitContext {
  return {
    rng: o.rng ?? new MT19937(o.seed),
    seed: o.seed,
    initSeed: o.initSeed ?? o.seed,
    signal: o.signal,
    onProgress: o.onProgress,
    quirks: o.quirks ?? 'rsb',
    stream: makeStreams(o.seed),
    tick: makeTick(o.signal, o.onProgress, o.now, o.yieldEveryMs, o.onTick),
  };
}

/** Fills in the optional parts of a caller's context (keeps its rng, signal and callbacks). */
export function completeFitContext(ctx: FitContext): LiveFitContext {
  const seed = ctx.seed ?? 0;
  return {
    ...ctx,
    seed,
    initSeed: ctx.initSeed ?? seed,
    quirks: ctx.quirks ?? 'rsb',
    stream: ctx.stream ?? makeStreams(seed),
    tick: ctx.tick ?? makeTick(ctx.signal, ctx.onProgress),
  };
}
