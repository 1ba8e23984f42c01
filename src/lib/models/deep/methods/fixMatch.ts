/**
 * FixMatch (Sohn et al. 2020): hard pseudo-labels from the sharpened weak-view prediction, where
 * the sharpened confidence reaches the threshold (sharpen then threshold), CE on the strong view
 * (§7.4: τ 0.95, T 0.5, μ 7, λ_u 1).
 */
import * as tf from '@tensorflow/tfjs';
import { ceRows, geMask, maxArg, meanAll } from '../losses.ts';
import type { DeepMethod } from './types.ts';
import { methodDefaults } from './registry.ts';

export interface FixMatchParams {
  threshold: number;
  temperature: number;
  lambdaU: number;
  mu: number;
}
/** The registry's defaults (registry.ts: one record per method). */
export const FIXMATCH_DEFAULTS: Readonly<FixMatchParams> = Object.freeze(
  methodDefaults('fixmatch') as unknown as FixMatchParams,
);

export function fixMatch(p: Partial<FixMatchParams> = {}): DeepMethod {
  const h = { ...FIXMATCH_DEFAULTS, ...p };
  return {
    id: 'fixmatch',
    mu: h.mu,
    labeledView: 'weak',
    views: ['weak', 'strong'],
    lambdaU: h.lambdaU,
    warmup: null,
    hyper: h,
    prepare(io) {
      const { max, arg } = maxArg(tf.softmax(tf.div(io.teacher(io.u[0]), h.temperature)) as tf.Tensor2D);
      return { student: [io.u[1]], aux: [geMask(max, h.threshold), arg] };
    },
    unsupervised(io, [mask, label], [ls]) {
      return { lu: meanAll(tf.mul(mask, ceRows(ls, label as tf.Tensor1D, io.k))), mask: tf.mean(mask) };
    },
  };
}
