/**
 * Mean Teacher (Tarvainen & Valpola 2017): squared difference of the student's softmax on one weak
 * view and the EMA shadow's softmax on another, mean over batch × classes (§7.4: λ_u 50 rsb /
 * 1 readme, w 0.4). Quirk 'rsb': the student logits are detached too, so L_u has no gradient.
 */
import * as tf from '@tensorflow/tfjs';
import { meanAll } from '../losses.ts';
import type { DeepMethod } from './types.ts';
import { methodDefaults } from './registry.ts';

export interface MeanTeacherParams {
  lambdaU: number;
  warmup: number;
}

export function meanTeacher(p: Partial<MeanTeacherParams> & { mode?: 'rsb' | 'readme' } = {}): DeepMethod {
  const defaults = methodDefaults('meanteacher', p.mode ?? 'rsb');
  const h: MeanTeacherParams = {
    lambdaU: p.lambdaU ?? defaults.lambdaU,
    warmup: p.warmup ?? defaults.warmup,
  };
  return {
    id: 'meanteacher',
    mu: 1,
    labeledView: 'weak',
    views: ['weak', 'weak'],
    lambdaU: h.lambdaU,
    warmup: h.warmup,
    hyper: { ...h },
    prepare(io) {
      const teacher = tf.softmax(io.shadow(io.u[0]));
      // Detached student (quirk rsb): its forward needs no gradient, so it runs outside the tape.
      if (io.quirks === 'rsb') return { student: [], aux: [teacher, tf.softmax(io.teacher(io.u[1]))] };
      return { student: [io.u[1]], aux: [teacher] };
    },
    unsupervised(io, aux, logitsU) {
      const student = io.quirks === 'rsb' ? aux[1] : tf.softmax(logitsU[0]);
      return { lu: meanAll(tf.squaredDifference(student, aux[0])), mask: tf.scalar(1) };
    },
  };
}
