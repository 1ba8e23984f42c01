/**
 * The synthetic deep-training fixture the step benches (deepKernels, deepStep, deepProfile,
 * deepCost, modalStep, scripts/device/bench.ts) and the trainer tests share: standard-normal feature
 * rows from a seeded MT19937, labels i mod k, and fixed RNG streams, so that every bench and test
 * measures the same step on the same data.
 */
import * as tf from '@tensorflow/tfjs';
import type { TrainerStreams } from '../../src/lib/models/deep/trainer.ts';
import { MT19937 } from '../../src/lib/protocol/rng.ts';
import type { Matrix } from '../../src/lib/types.ts';

/** `rows` × `cols` standard normals drawn from `rng` row by row (the draws continue across calls). */
export function normalRows(rng: MT19937, rows: number, cols: number): Matrix {
  return { rows, cols, data: Float32Array.from({ length: rows * cols }, () => rng.normal()) };
}

/** Labels 0, 1, …, k − 1, 0, 1, … for `n` rows: every class present, balanced. */
export const cyclicLabels = (n: number, k: number): Int32Array =>
  Int32Array.from({ length: n }, (_, i) => i % k);

/** The trainer's RNG streams: labeled 1, unlabeled 2, noise 3, method 4, dropout seed 5. */
export function fixedStreams(): TrainerStreams {
  return {
    labeled: new MT19937(1),
    unlabeled: new MT19937(2),
    noise: new MT19937(3),
    method: new MT19937(4),
    dropoutSeed: 5,
  };
}

/**
 * One rsb-size step's data for d features and k classes: 256 labeled rows (labels i mod k), then
 * 4096 unlabeled, standard normals of seed 0 (or from `rng`, which a bench may go on drawing from).
 */
export function stepData(
  d: number,
  k: number,
  rng = new MT19937(0),
): { Xl: Matrix; yl: Int32Array; Xu: Matrix; k: number } {
  const Xl = normalRows(rng, 256, d);
  const Xu = normalRows(rng, 4096, d);
  return { Xl, yl: cyclicLabels(256, k), Xu, k };
}

/**
 * Waits until the backend has done the work queued so far, without reading anything back (a
 * read-back would time a transfer, and on wasm a 2.4 M-float copy and its garbage). WebGPU: end
 * tfjs' open compute pass, submit its command encoder (tfjs batches dispatches into one), then
 * wait for the queue. wasm and cpu run each kernel synchronously: the step is done on return.
 */
export async function settleBackend(): Promise<void> {
  const b = tf.backend() as unknown as {
    commandEncoder?: unknown;
    endComputePassEncoder?: () => void;
    submitQueue?: () => void;
    device?: { queue: { onSubmittedWorkDone(): Promise<void> } };
  };
  if (typeof b.submitQueue === 'function' && b.device) {
    if (b.commandEncoder) {
      b.endComputePassEncoder?.();
      b.submitQueue();
    }
    await b.device.queue.onSubmittedWorkDone();
  }
}
