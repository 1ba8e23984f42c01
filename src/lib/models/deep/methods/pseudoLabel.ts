/**
 * Pseudo-Label (Lee 2013): hard pseudo-labels from the student's own weak-view prediction,
 * kept where its confidence reaches the threshold (§7.4: τ 0.95, λ_u 1, w 0.4).
 */
import * as tf from '@tensorflow/tfjs';
import { ceRows, geMask, maxArg, meanAll, sg } from '../losses.ts';
import type { DeepMethod } from './types.ts';
import { methodDefaults } from './registry.ts';

export interface PseudoLabelParams {
  threshold: number;
  lambdaU: number;
  warmup: number;
}
/** The registry's defaults (registry.ts: one record per method). */
export const PSEUDO_LABEL_DEFAULTS: Readonly<PseudoLabelParams> = Object.freeze(
  methodDefaults('pseudolabel') as unknown as PseudoLabelParams,
);

export function pseudoLabel(p: Partial<PseudoLabelParams> = {}): DeepMethod {
  const h = { ...PSEUDO_LABEL_DEFAULTS, ...p };
  return {
    id: 'pseudolabel',
    mu: 1,
    labeledView: 'weak',
    views: ['weak'],
    lambdaU: h.lambdaU,
    warmup: h.warmup,
    hyper: h,
    prepare: (io) => ({ student: [io.u[0]], aux: [] }),
    unsupervised(io, _aux, [lu]) {
      const { max, arg } = maxArg(tf.softmax(sg(lu)));
      const mask = geMask(max, h.threshold);
      return { lu: meanAll(tf.mul(mask, ceRows(lu, arg, io.k))), mask: tf.mean(mask) };
    },
  };
}
