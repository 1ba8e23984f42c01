/**
 * UDA (Xie et al. 2020): soft targets softmax(f(u_w)/T) on the strong view, where the weak view's
 * confidence reaches the threshold; no TSA (§7.4: τ 0.8, T 0.4, μ 7, λ_u 1). Quirk 'rsb' truncates
 * the soft targets, so only classes whose sharpened probability is exactly 1.0 keep a hard CE.
 */
import * as tf from '@tensorflow/tfjs';
import { geMask, meanAll, softCeRows } from '../losses.ts';
import type { DeepMethod } from './types.ts';
import { methodDefaults } from './registry.ts';

export interface UdaParams {
  threshold: number;
  temperature: number;
  lambdaU: number;
  mu: number;
}
/** The registry's defaults (registry.ts: one record per method). */
export const UDA_DEFAULTS: Readonly<UdaParams> = Object.freeze(methodDefaults('uda') as unknown as UdaParams);

export function uda(p: Partial<UdaParams> = {}): DeepMethod {
  const h = { ...UDA_DEFAULTS, ...p };
  return {
    id: 'uda',
    mu: h.mu,
    labeledView: 'weak',
    views: ['weak', 'strong'],
    lambdaU: h.lambdaU,
    warmup: null,
    hyper: h,
    prepare(io) {
      const lw = io.teacher(io.u[0]);
      const mask = geMask(tf.max(tf.softmax(lw), 1), h.threshold);
      return { student: [io.u[1]], aux: [mask, tf.softmax(tf.div(lw, h.temperature))] };
    },
    unsupervised(io, [mask, target], [ls]) {
      return {
        lu: meanAll(tf.mul(mask, softCeRows(ls, target as tf.Tensor2D, io.quirks))),
        mask: tf.mean(mask),
      };
    },
  };
}
