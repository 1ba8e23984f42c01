/** FT-Transformer supervised baseline: un-noised labeled batches, no unlabeled loss (§7.4). */
import * as tf from '@tensorflow/tfjs';
import type { DeepMethod } from './types.ts';

export function supervised(): DeepMethod {
  return {
    id: 'ftt',
    mu: 0,
    labeledView: 'raw',
    views: [],
    lambdaU: 0,
    warmup: null,
    hyper: {},
    prepare: () => ({ student: [], aux: [] }),
    unsupervised: () => ({ lu: tf.scalar(0), mask: tf.scalar(0) }),
  };
}
