/** Loss pieces shared by the deep methods (PROTOCOL.md §7.4–7.5). Call inside a tidy or tape. */
import * as tf from '@tensorflow/tfjs';
import type { Quirks } from '../../types.ts';

/** Stop-gradient (PyTorch's .detach()): the value passes, the gradient is zero. */
const sgOp = tf.customGrad(((x: tf.Tensor) => ({
  value: tf.clone(x),
  gradFunc: (dy: tf.Tensor) => tf.zerosLike(dy),
})) as unknown as Parameters<typeof tf.customGrad>[0]);
export const sg = <T extends tf.Tensor>(x: T): T => sgOp(x) as T;

/** Per-row cross-entropy with hard labels (int32). */
export function ceRows(logits: tf.Tensor2D, labels: tf.Tensor1D, k: number): tf.Tensor1D {
  return tf.neg(tf.sum(tf.mul(tf.oneHot(labels, k), tf.logSoftmax(logits)), 1)) as tf.Tensor1D;
}

/**
 * Per-row Σ −target·log softmax(logits). Under quirks 'rsb' the targets are cast to integers first
 * (truncation toward zero): only entries exactly 1.0 survive, as in the original.
 */
export function softCeRows(logits: tf.Tensor2D, target: tf.Tensor2D, quirks: Quirks): tf.Tensor1D {
  const t = quirks === 'rsb' ? tf.floor(target) : target; // targets are in [0, 1]: floor = trunc
  return tf.neg(tf.sum(tf.mul(t, tf.logSoftmax(logits)), 1)) as tf.Tensor1D;
}

/** max and argmax per row of a probability matrix. */
export function maxArg(p: tf.Tensor2D): { max: tf.Tensor1D; arg: tf.Tensor1D } {
  return { max: tf.max(p, 1) as tf.Tensor1D, arg: tf.argMax(p, 1) as tf.Tensor1D };
}

/** 1.0 where x ≥ thr (a number or per-row tensor), else 0.0 (float32). */
export function geMask(x: tf.Tensor, thr: number | tf.Tensor): tf.Tensor1D {
  return tf.cast(tf.greaterEqual(x, thr), 'float32') as tf.Tensor1D;
}
