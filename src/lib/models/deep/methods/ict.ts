/**
 * Interpolation Consistency Training (Verma et al. 2019): the student on a mixup of the weak
 * batch with its permutation, against the same mixup of the EMA shadow's softmax (§7.4:
 * λ ~ Beta(0.5, 0.5) per step without max(λ, 1−λ), λ_u 100, w 1/64). Quirk 'rsb' truncates the
 * soft targets, so L_u is practically 0 and ICT reduces to supervised + weak noise + EMA.
 */
import * as tf from '@tensorflow/tfjs';
import { meanAll, softCeRows } from '../losses.ts';
import { betaJohnk } from '../streams.ts';
import type { DeepMethod } from './types.ts';
import { methodDefaults } from './registry.ts';

export interface IctParams {
  alpha: number;
  lambdaU: number;
  warmup: number;
}
/** The registry's defaults (registry.ts: one record per method). */
export const ICT_DEFAULTS: Readonly<IctParams> = Object.freeze(methodDefaults('ict') as unknown as IctParams);

export function ict(p: Partial<IctParams> = {}): DeepMethod {
  const h = { ...ICT_DEFAULTS, ...p };
  let lam = 1;
  let perm = new Int32Array(0);
  return {
    id: 'ict',
    mu: 1,
    labeledView: 'weak',
    views: ['weak'],
    lambdaU: h.lambdaU,
    warmup: h.warmup,
    hyper: h,
    beforeStep(io) {
      // λ first, then the permutation, both from the method's own stream.
      lam = betaJohnk(io.rng, h.alpha, h.alpha);
      perm = Int32Array.from(io.rng.permutation(io.idxU.length));
    },
    prepare(io) {
      const u = io.u[0];
      const pi = tf.tensor1d(perm, 'int32');
      const p = tf.softmax(io.shadow(u));
      const mix = <T extends tf.Tensor>(a: T) =>
        tf.add(tf.mul(a, lam), tf.mul(tf.gather(a, pi), 1 - lam)) as T;
      return { student: [mix(u)], aux: [mix(p)] };
    },
    unsupervised: (io, [target], [lu]) => ({
      lu: meanAll(softCeRows(lu, target as tf.Tensor2D, io.quirks)),
      mask: tf.scalar(1),
    }),
  };
}
