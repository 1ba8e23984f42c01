/**
 * FlexMatch (Zhang et al. 2021): FixMatch with class-wise thresholds from curriculum pseudo-
 * labelling (§7.4: τ 0.95, threshold warm-up on, hard labels, no distribution alignment).
 * State σ_j ∈ {−1, 0..k−1} per unlabeled row, on the device (no per-step read-back):
 *   β_c = #{σ = c} / max over values incl. −1 (β = 0 while every σ = −1)
 *   mask = max p ≥ τ·β_ĉ/(2 − β_ĉ);  rows with max p ≥ τ set σ_j = ĉ  (p unsharpened)
 */
import * as tf from '@tensorflow/tfjs';
import { ceRows, geMask, maxArg, meanAll } from '../losses.ts';
import { variableFrom } from '../optim.ts';
import type { DeepMethod } from './types.ts';
import { methodDefaults } from './registry.ts';

export interface FlexMatchParams {
  threshold: number;
  lambdaU: number;
  mu: number;
}
/** The registry's defaults (registry.ts: one record per method). */
export const FLEXMATCH_DEFAULTS: Readonly<FlexMatchParams> = Object.freeze(
  methodDefaults('flexmatch') as unknown as FlexMatchParams,
);

/**
 * For each batch position, the value that row's σ gets: ĉ of the LAST selected occurrence of the
 * same row id in the batch (sampling is with replacement), else its old σ. All duplicates then
 * write the same value, so the scatter's order does not matter.
 */
function lastSelectedWrite(
  idx: tf.Tensor1D,
  select: tf.Tensor1D,
  chat: tf.Tensor1D,
  old: tf.Tensor1D,
): tf.Tensor1D {
  const n = idx.shape[0];
  // same[a, b] = 1 where rows a and b of the batch are the same row of U (on the device).
  const same = tf.cast(tf.equal(tf.expandDims(idx, 1), tf.expandDims(idx, 0)), 'float32');
  const order = tf.add(tf.range(0, n, 1, 'float32'), 1); // position + 1
  const score = tf.mul(same, tf.expandDims(tf.mul(select, order), 0)); // [n, n]
  const best = tf.argMax(score, 1);
  const has = tf.greater(tf.max(score, 1), 0);
  return tf.where(has, tf.gather(chat, best), old) as tf.Tensor1D;
}

export function flexMatch(p: Partial<FlexMatchParams> = {}): DeepMethod {
  const h = { ...FLEXMATCH_DEFAULTS, ...p };
  let sigma: tf.Variable | null = null; // float32 holding integers −1..k−1
  let k = 0;
  return {
    id: 'flexmatch',
    mu: h.mu,
    labeledView: 'weak',
    views: ['weak', 'strong'],
    lambdaU: h.lambdaU,
    warmup: null,
    hyper: h,
    init(kk, nU) {
      k = kk;
      sigma?.dispose();
      sigma = variableFrom(tf.fill([nU], -1, 'float32'), false);
    },
    prepare(io) {
      const s = sigma!;
      const counts = tf.sum(tf.oneHot(tf.cast(tf.add(s, 1), 'int32'), k + 1), 0); // [k+1]: −1, 0..k−1
      // β = 0 while every σ = −1 (a product, not tf.where: its condition does not broadcast).
      const anyUsed = tf.cast(tf.less(tf.slice(counts, [0], [1]), s.size), 'float32');
      const beta = tf.mul(tf.div(tf.slice(counts, [1], [k]), tf.max(counts)), anyUsed);
      const { max, arg } = maxArg(tf.softmax(io.teacher(io.u[0])));
      const bc = tf.gather(beta, arg);
      const mask = geMask(max, tf.div(tf.mul(bc, h.threshold), tf.sub(2, bc)));
      const select = geMask(max, h.threshold);
      const old = tf.gather(s, io.idxUT) as tf.Tensor1D;
      const write = lastSelectedWrite(io.idxUT, select, tf.cast(arg, 'float32') as tf.Tensor1D, old);
      s.assign(tf.tensorScatterUpdate(s, tf.expandDims(io.idxUT, 1), write));
      return { student: [io.u[1]], aux: [mask, arg] };
    },
    unsupervised(io, [mask, label], [ls]) {
      return { lu: meanAll(tf.mul(mask, ceRows(ls, label as tf.Tensor1D, io.k))), mask: tf.mean(mask) };
    },
    async saveState() {
      return { sigma: int16From(await sigma!.data()) };
    },
    loadState(st) {
      const a = st.sigma as Int16Array;
      if (!sigma || a.length !== sigma.size) throw new Error('FlexMatch checkpoint: σ has the wrong length.');
      tf.tidy(() => sigma!.assign(tf.tensor1d(Float32Array.from(a), 'float32')));
    },
    dispose() {
      sigma?.dispose();
      sigma = null;
    },
  };
}

/** σ fits in int16 for any k the benchmark has (≤ 26). */
function int16From(a: ArrayLike<number>): Int16Array {
  return Int16Array.from(a as ArrayLike<number>);
}
