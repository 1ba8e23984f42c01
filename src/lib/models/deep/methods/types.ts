/**
 * What a deep SSL method supplies to the one trainer (trainer.ts): its batch shape and views,
 * λ_u and warm-up, its unsupervised loss, and its own state. Everything else (sampling, noise,
 * the network, the optimiser, the EMA shadow, checkpoints) is the trainer's.
 */
import type * as tf from '@tensorflow/tfjs';
import type { MT19937 } from '../../../protocol/rng.ts';
import type { Quirks } from '../../../types.ts';

/** weak = x + N(0, 0.1²), strong = x + N(0, 0.2²) (§7.2). */
export type View = 'weak' | 'strong';

import type { DeepMethodId } from './registry.ts';
export type { DeepMethodId } from './registry.ts';

/** The trainer's view of one step, handed to the method's hooks. */
export interface StepIO {
  it: number;
  steps: number;
  k: number;
  quirks: Quirks;
  /** Labeled batch (raw or weak view) and its labels (int32). */
  xl: tf.Tensor2D;
  yl: tf.Tensor1D;
  /** Unlabeled batch views, in the method's `views` order. */
  u: tf.Tensor2D[];
  /** Row ids (in U) of the unlabeled batch, host and device (int32). */
  idxU: Int32Array;
  idxUT: tf.Tensor1D;
  /** Training-mode (dropout on) forwards without gradient: current weights and EMA shadow. */
  teacher(x: tf.Tensor2D): tf.Tensor2D;
  shadow(x: tf.Tensor2D): tf.Tensor2D;
  /** The method's own stream (ICT's λ and permutation). */
  rng: MT19937;
}

/** What `prepare` returns: unlabeled rows for the gradient forward, and detached targets. */
export interface Prepared {
  student: tf.Tensor2D[];
  aux: tf.Tensor[];
}

export interface UnsupTerms {
  lu: tf.Scalar;
  /** Mean mask (or weight) over the unlabeled batch: the "mask rate" of progress events. */
  mask: tf.Scalar;
}

export interface DeepMethod {
  readonly id: DeepMethodId;
  /** Unlabeled batch = mu × labeled batch (0: no unlabeled rows). */
  readonly mu: number;
  readonly labeledView: 'raw' | 'weak';
  readonly views: readonly View[];
  readonly lambdaU: number;
  /** Warm-up fraction w of r(it) = clamp(it/(w·S), 0, 1); null: r = 1. */
  readonly warmup: number | null;
  /** Effective method hyperparameters, for the result record. */
  readonly hyper: Record<string, unknown>;
  /** Allocate state sized by k and |U|. */
  init?(k: number, nU: number): void;
  /** Host-side draws for this step (before any tensor work). */
  beforeStep?(io: Pick<StepIO, 'it' | 'steps' | 'k' | 'idxU' | 'rng'>): void;
  /** Outside the gradient tape: teacher forwards, targets, state that depends only on them. */
  prepare(io: StepIO): Prepared;
  /** Inside the tape: L_u from the student's logits (labeled first, then `student` rows in order). */
  unsupervised(io: StepIO, aux: tf.Tensor[], logitsU: tf.Tensor2D[], logitsL: tf.Tensor2D): UnsupTerms;
  saveState?(): Promise<Record<string, unknown>>;
  loadState?(s: Record<string, unknown>): void;
  dispose?(): void;
}
