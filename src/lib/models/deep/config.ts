/**
 * The deep family's loop settings per protocol mode (PROTOCOL.md §7.2, §7.6): one place for the
 * `rsb` / `readme` values, so the estimator, the tests and the bench build the same trainer.
 */
import type { ProtocolMode, Quirks } from '../../types.ts';
import { FT_SIZES, type FTSize, type FTSizeName } from './ftTransformer.ts';
import type { TrainerConfig } from './trainer.ts';

export interface DeepOptions {
  /** Network size: 'rsb' (8 × 192, ≈ 2.4 M parameters) or 'tiny' (tests, classroom), or explicit. */
  size?: FTSizeName | FTSize;
  mode?: ProtocolMode;
  /** Default: 'rsb' in rsb mode, 'fixed' in readme (§7.5). */
  quirks?: Quirks;
  /** Optimiser steps S (rsb 1 000, readme 10 000). */
  steps?: number;
  /** Labeled batch (64). */
  batchL?: number;
  /** Base learning rate (rsb: Adam 1e-4; readme: SGD 5e-4 before the cosine). */
  lr?: number;
  /** EMA decay of the shadow used for prediction (0.999). */
  emaDecay?: number;
  /** Network init seed (rsb: 0 for every run; readme: the run seed). */
  initSeed?: number;
  /** Read loss scalars back every N steps (progress events). */
  progressEvery?: number;
  /** Checkpoint every N steps (0: never). */
  checkpointEvery?: number;
  /** Training-mode dropout rates (§7.3: attention 0.2, FFN 0.1). */
  dropoutAttention?: number;
  dropoutFfn?: number;
  /**
   * Gradient checkpointing per block (default: at the rsb size where the kept activations of a
   * step would exceed the FT-Transformer's budget, ftTransformer.ts; off for smaller sizes).
   */
  recompute?: boolean;
}

export function resolveSize(size: DeepOptions['size'] = 'rsb'): FTSize & { name: string } {
  if (typeof size === 'string') {
    const s = FT_SIZES[size];
    if (!s)
      throw new RangeError(`Unknown network size '${size}'. Known: ${Object.keys(FT_SIZES).join(', ')}.`);
    return { ...s, name: size };
  }
  return { ...size, name: 'custom' };
}

/** The full trainer configuration for d features and `classes` outputs. */
export function trainerConfig(features: number, classes: number, o: DeepOptions = {}): TrainerConfig {
  const mode = o.mode ?? 'rsb';
  const { name, ...size } = resolveSize(o.size);
  const readme = mode === 'readme';
  return {
    shape: { ...size, features, classes },
    steps: o.steps ?? (readme ? 10_000 : 1_000),
    batchL: o.batchL ?? 64,
    optimizer: readme ? 'sgd' : 'adam',
    lr: o.lr ?? (readme ? 5e-4 : 1e-4),
    cosineFraction: 7 / 16,
    weightDecay: 1e-5,
    emaDecay: o.emaDecay ?? 0.999,
    noiseWeak: 0.1,
    noiseStrong: 0.2,
    dropoutAttention: o.dropoutAttention ?? 0.2,
    dropoutFfn: o.dropoutFfn ?? 0.1,
    initSeed: o.initSeed ?? 0,
    quirks: o.quirks ?? (readme ? 'fixed' : 'rsb'),
    progressEvery: o.progressEvery ?? 25,
    checkpointEvery: o.checkpointEvery ?? 0,
    recompute: o.recompute ?? (name === 'rsb' ? 'auto' : false),
  };
}
