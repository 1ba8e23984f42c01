/** Loss pieces shared by the deep methods (PROTOCOL.md §7.4–7.5). Call inside a tidy or tape. */
import * as tf from '@tensorflow/tfjs';
import type { Quirks } from '../../types.ts';

/** Stop-gradient (PyTorch's .detach()): the value passes, the gradient is zero. */
const sgOp = tf.customGrad(((x: tf.Tensor) => ({
  value: tf.clone(x),
  gradFunc: (dy: tf.Tensor) => tf.zerosLike(dy),
})) as unknown as Parameters<typeof tf.customGrad>[0]);
export const sg = <T extends tf.Tensor>(x: T): T => sgOp(x) as T;

/**
 * Σ_j −t_j·log softmax(z)_j per row, with its gradient (softmax(z)·Σ_j t_j − t)·dy written out: one
 * tape node instead of tfjs's chain, whose Sum and Mean gradients upload arrays of ones each step.
 * The targets are constants (no gradient).
 */
function softCe(logits: tf.Tensor2D, target: tf.Tensor2D): tf.Tensor1D {
  const f = tf.customGrad(((z: tf.Tensor2D, save: tf.GradSaveFunc) => {
    const ls = tf.logSoftmax(z);
    save([ls, target]); // kept for the backward pass (the target may be made inside the tape)
    return {
      value: tf.neg(tf.sum(tf.mul(target, ls), 1)),
      gradFunc: (dy: tf.Tensor1D, [lsS, t]: tf.Tensor[]) =>
        tf.mul(tf.sub(tf.mul(tf.exp(lsS), tf.sum(t, 1, true)), t), tf.expandDims(dy, 1)),
    };
  }) as unknown as Parameters<typeof tf.customGrad>[0]) as unknown as (z: tf.Tensor) => tf.Tensor1D;
  return f(logits);
}

/** Per-row cross-entropy with hard labels (int32). */
export function ceRows(logits: tf.Tensor2D, labels: tf.Tensor1D, k: number): tf.Tensor1D {
  return softCe(logits, tf.oneHot(labels, k) as tf.Tensor2D);
}

/**
 * Per-row Σ −target·log softmax(logits). Under quirks 'rsb' the targets are cast to integers first
 * (truncation toward zero): only entries exactly 1.0 survive, as in the original.
 */
export function softCeRows(logits: tf.Tensor2D, target: tf.Tensor2D, quirks: Quirks): tf.Tensor1D {
  const t = quirks === 'rsb' ? tf.floor(target) : target; // targets are in [0, 1]: floor = trunc
  return softCe(logits, t as tf.Tensor2D);
}

/** Mean of all entries, with its gradient as a device-side broadcast (no host array of ones). */
export function meanAll(x: tf.Tensor): tf.Scalar {
  const f = tf.customGrad(((a: tf.Tensor) => ({
    value: tf.mean(a),
    gradFunc: (dy: tf.Scalar) => tf.broadcastTo(tf.mul(dy, 1 / a.size), a.shape),
  })) as unknown as Parameters<typeof tf.customGrad>[0]) as unknown as (a: tf.Tensor) => tf.Scalar;
  return f(x);
}

/** max and argmax per row of a probability matrix. */
export function maxArg(p: tf.Tensor2D): { max: tf.Tensor1D; arg: tf.Tensor1D } {
  return { max: tf.max(p, 1) as tf.Tensor1D, arg: tf.argMax(p, 1) as tf.Tensor1D };
}

/** 1.0 where x ≥ thr (a number or per-row tensor), else 0.0 (float32). */
export function geMask(x: tf.Tensor, thr: number | tf.Tensor): tf.Tensor1D {
  return tf.cast(tf.greaterEqual(x, thr), 'float32') as tf.Tensor1D;
}
