/**
 * The one place where the deep trainer meets the fit context. Today's contract (estimator.ts)
 * gives one generator, a signal and a fraction callback; the coming FitContext adds an init seed,
 * named streams, typed progress and `tick()`. This adapter takes either, so switching over is here.
 */
import { AbortError, type FitContext } from '../estimator.ts';
import { yieldToEventLoop } from '../yieldToEventLoop.ts';
import type { MT19937 } from '../../protocol/rng.ts';
import { MT19937 as MT } from '../../protocol/rng.ts';
import type { DeepCheckpoint, StepReport, TrainerStreams } from './trainer.ts';

/** The richer context members the deep trainer uses when present. */
export interface DeepContextExtras {
  /** Network init seed (rsb: 0 for every run; readme: the run seed). */
  initSeed?: number;
  /** Named, independent generators ('deep/labeled', 'deep/unlabeled', 'deep/noise', 'deep/method', 'deep/dropout'). */
  stream?(name: string): MT19937;
  /** Awaited between steps; throws on abort. */
  tick?(): Promise<void>;
  /** Typed progress of a deep fit. */
  onDeepProgress?(r: StepReport): void;
  /** Called every `checkpointEvery` steps (or when `checkpointDue` says); store it to resume a long fit. */
  onCheckpoint?(c: DeepCheckpoint): void | Promise<void>;
  /** When to checkpoint (runCell: by time or steps, suite/cellCheckpoint.ts); default: every `checkpointEvery`. */
  checkpointDue?(step: number): boolean;
  /**
   * Resume from this checkpoint (same method, data and options: the caller checks its fingerprint;
   * the trainer checks the tensors).
   */
  resumeFrom?: DeepCheckpoint;
  /** The trainer refused `resumeFrom` (a damaged record): the fit starts from step 0 instead. */
  onResumeRejected?(reason: string): void;
}

export type DeepFitContext = FitContext & DeepContextExtras;

const STREAMS = ['labeled', 'unlabeled', 'noise', 'method', 'dropout'] as const;

/**
 * The trainer's streams. With named streams, each comes from its own name; otherwise each gets a
 * seed drawn from ctx.rng in a fixed order (labeled, unlabeled, noise, method, dropout), so labeled
 * batches, unlabeled batches and noise never share a generator (§7.5: ICT flat in t).
 */
export function trainerStreams(ctx: DeepFitContext): TrainerStreams {
  const get = (name: (typeof STREAMS)[number]): MT19937 =>
    ctx.stream ? ctx.stream(`deep/${name}`) : new MT(ctx.rng.nextU32());
  const s = STREAMS.map(get);
  return { labeled: s[0], unlabeled: s[1], noise: s[2], method: s[3], dropoutSeed: s[4].nextU32() };
}

/** tick(): the context's own, else yield to the event loop and honour the abort signal. */
export function tickOf(ctx: DeepFitContext): () => Promise<void> {
  if (ctx.tick) return ctx.tick.bind(ctx);
  return async () => {
    await yieldToEventLoop();
    if (ctx.signal?.aborted) throw new AbortError();
  };
}
