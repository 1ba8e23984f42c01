/**
 * The network seam of the deep trainer (trainer.ts): what it optimises is any `DeepNetwork` —
 * named parameters with their decay group and initial values, and a forward to logits. The
 * FT-Transformer is one (the tabular suite), a classification head over cached backbone features
 * another (the image and text `features` and `classroom` tiers, head.ts); ResNet-50 (with BatchNorm
 * running statistics, `buffers`) and RoBERTa in `finetune` (backbone/resnet.ts, roberta.ts) others.
 * The trainer imports no network.
 */
import type * as tf from '@tensorflow/tfjs';
import { activationBudget } from './activationBudget.ts';
import {
  blockCacheBytes,
  forward,
  initWeights,
  paramSpecs,
  type FTShape,
  type ParamSpec,
} from './ftTransformer.ts';

export type { ParamSpec } from './ftTransformer.ts';

export interface NetworkForwardOptions {
  /**
   * Training-mode dropout; null = eval mode. Rates by role: `attention` on attention
   * probabilities, `ffn` on hidden activations (a head uses `ffn`); `seed` for this call's masks.
   */
  dropout?: { attention: number; ffn: number; seed: number } | null;
  /** Recompute activations in the backward pass where the network supports it. */
  recompute?: boolean;
  /** No gradient will be taken (teacher, shadow and prediction forwards). */
  noGrad?: boolean;
  /**
   * Training-mode normalisation (BatchNorm with batch statistics; PyTorch's `model.train()`).
   * Default `!noGrad`: a gradient forward is the student's, a no-grad one a prediction; teacher
   * forwards that run in training mode (PROTOCOL-IMAGE-TEXT.md §7.3) pass `true`. Networks without
   * BatchNorm ignore it (their dropout is `dropout`).
   */
  training?: boolean;
}

export interface DeepNetwork {
  /** For records and messages, e.g. 'ft-transformer', 'head-mlp-2048-256-10'. */
  readonly id: string;
  /** Input width (features per row). */
  readonly inputDim: number;
  readonly classes: number;
  /** Every parameter in init order; `decay` marks the weight-decay group. */
  specs(): ParamSpec[];
  /** Initial values from the init seed (deterministic per seed). */
  init(initSeed: number): Map<string, Float32Array>;
  forward(P: Record<string, tf.Tensor>, x: tf.Tensor2D, opts?: NetworkForwardOptions): tf.Tensor2D;
  /**
   * Optional: whether a gradient forward of `rows` rows should recompute activations, because
   * keeping them would exceed the network's memory budget (the trainer's `recompute: 'auto'`;
   * without it, 'auto' recomputes).
   */
  recomputeFor?(rows: number): boolean;
  /**
   * Optional: running statistics that training-mode forwards update as a side effect (ResNet's
   * BatchNorm buffers, by torchvision name). The trainer keeps them in its checkpoints, restores
   * them around the forwards PyTorch runs under LAMDA's `Bn_Controller`, and orders the updates of
   * teacher forwards as PyTorch does (trainer.ts); prediction uses them as they are (eval mode).
   */
  readonly buffers?: ReadonlyMap<string, tf.Variable>;
  /** The buffers' update momentum m: b ← (1 − m)·b + m·batch statistic (PyTorch BatchNorm: 0.1). */
  readonly bufferMomentum?: number;
  /** Host copies of the buffers (checkpoints). */
  readBuffers?(): Promise<Record<string, Float32Array>>;
  /** Sets the buffers (a checkpoint's). */
  writeBuffers?(values: Record<string, Float32Array>): void;
  /** Frees what the network keeps on the device beyond the trainer's parameters (its buffers). */
  dispose?(): void;
}

/** The FT-Transformer of the tabular suite (PROTOCOL.md §7.3) as a trainer network. */
export function ftNetwork(shape: FTShape): DeepNetwork {
  return {
    id: 'ft-transformer',
    inputDim: shape.features,
    classes: shape.classes,
    specs: () => paramSpecs(shape),
    init: (seed) => initWeights(shape, seed),
    forward: (P, x, opts) => forward(shape, P, x, opts),
    recomputeFor: (rows) => blockCacheBytes(shape, rows) > activationBudget(),
  };
}
