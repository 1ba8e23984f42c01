/**
 * Π-model (Laine & Aila 2017): two weak views; squared difference of the student's softmax and
 * the detached softmax of the other view, mean over batch × classes (§7.4: λ_u 10 rsb / 1 readme, w 0.4).
 */
import * as tf from '@tensorflow/tfjs';
import { meanAll } from '../losses.ts';
import type { DeepMethod } from './types.ts';
import { methodDefaults } from './registry.ts';

export interface PiModelParams {
  lambdaU: number;
  warmup: number;
}

export function piModel(p: Partial<PiModelParams> & { mode?: 'rsb' | 'readme' } = {}): DeepMethod {
  const defaults = methodDefaults('pimodel', p.mode ?? 'rsb');
  const h: PiModelParams = { lambdaU: p.lambdaU ?? defaults.lambdaU, warmup: p.warmup ?? defaults.warmup };
  return {
    id: 'pimodel',
    mu: 1,
    labeledView: 'weak',
    views: ['weak', 'weak'],
    lambdaU: h.lambdaU,
    warmup: h.warmup,
    hyper: { ...h },
    // The second view's forward runs without gradient (sg), in training mode.
    prepare: (io) => ({ student: [io.u[0]], aux: [tf.softmax(io.teacher(io.u[1]))] }),
    unsupervised: (_io, [target], [lu]) => ({
      lu: meanAll(tf.squaredDifference(tf.softmax(lu), target)),
      mask: tf.scalar(1),
    }),
  };
}
