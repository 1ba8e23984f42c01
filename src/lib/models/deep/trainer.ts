/**
 * The one trainer of the deep family (PROTOCOL.md §7.2), in the spirit of USB's AlgorithmBase:
 * it owns the weights, the optimiser, the EMA shadow, batching, checkpoints and progress; a method
 * (methods/*.ts) supplies only its unsupervised loss and its state, a network (network.ts: the
 * FT-Transformer, a head over bank features) its parameters and forward, and a view source
 * (views.ts: Gaussian noise on table rows, a feature bank's views) the step's inputs.
 *
 * Step stages: drawBatch → method.beforeStep (host draws) → the step's views (views.ts: one
 * upload of row ids and noise, gathered on the device) → named views of the flat weights
 * (flatParams.ts) → method.prepare (teacher forwards, no tape) → gradient of L_s + λ_u·r(it)·L_u
 * with respect to those views (one student forward over labeled + student rows) → one flat
 * gradient → optimiser (coupled L2) and EMA shadow in one update (optim.ts) → progress /
 * checkpoint hooks. No host read-back happens inside a step; scalars are read every
 * `progressEvery` steps only (docs/ARCHITECTURE.md: what crosses host ↔ device per step).
 */
import * as tf from '@tensorflow/tfjs';
import type { MT19937 } from '../../protocol/rng.ts';
import type { Matrix, Quirks } from '../../types.ts';
import { installWasmBatchMatMul } from './batchMatMul.ts';
import { installWasmSlice } from './wasmSlice.ts';
import { dropoutSeed } from './dropout.ts';
import type { FTShape } from './ftTransformer.ts';
import { ceRows, meanAll } from './losses.ts';
import type { DeepMethod, StepIO } from './methods/types.ts';
import { ftNetwork, type DeepNetwork } from './network.ts';
import { noiseViews, type ViewDraw, type ViewSource } from './views.ts';
import { FlatLayout } from './flatParams.ts';
import { SlotOptimizer, variableFrom, type OptimizerKind, type OptimizerState } from './optim.ts';
import { loadMT, saveMT, type MTState } from './streams.ts';

export interface TrainerConfig {
  /** The FT-Transformer's shape (tabular); ignored when `network` is given. */
  shape?: FTShape;
  /** The network to train (default: the FT-Transformer of `shape`). */
  network?: DeepNetwork;
  steps: number;
  /** Labeled batch (64); the unlabeled batch is method.mu × this. */
  batchL: number;
  optimizer: OptimizerKind;
  /** Base learning rate: Adam constant (rsb 1e-4); SGD: lr·max(0, cos(π·cosineFraction·it/S)). */
  lr: number;
  cosineFraction: number;
  weightDecay: number;
  emaDecay: number;
  noiseWeak: number;
  noiseStrong: number;
  dropoutAttention: number;
  dropoutFfn: number;
  initSeed: number;
  quirks: Quirks;
  progressEvery: number;
  /** 0 = no checkpoints. */
  checkpointEvery: number;
  /**
   * Recompute block activations in the backward pass (less memory, ≈ +⅓ compute); 'auto': only
   * where the network's kept activations would exceed its memory budget (network.ts).
   */
  recompute: boolean | 'auto';
}

/** One step's host draws: batch row ids and each view's draws (noise, or bank view indices). */
export interface BatchDraw {
  idxL: Int32Array;
  idxU: Int32Array;
  /** [the labeled view's draw if it is weak, then one per unlabeled view] (views.ts). */
  noise: ViewDraw[];
}

/** Where each step's randomness comes from: named MT19937 streams (checkpointed), dropout seed. */
export interface TrainerStreams {
  labeled: MT19937;
  unlabeled: MT19937;
  noise: MT19937;
  method: MT19937;
  /** Dropout masks are derived from (this seed, step, call): nothing to checkpoint. */
  dropoutSeed: number;
}

export interface StepReport {
  step: number;
  steps: number;
  lossS: number;
  lossU: number;
  loss: number;
  maskRate: number;
  lr: number;
  ramp: number;
}

export interface DeepCheckpoint {
  format: 'rac-deep-checkpoint/1';
  method: string;
  /** The next step to run. */
  step: number;
  params: Record<string, Float32Array>;
  shadow: Record<string, Float32Array>;
  optimizer: OptimizerState;
  streams: { labeled: MTState; unlabeled: MTState; noise: MTState; method: MTState; dropoutSeed: number };
  methodState: Record<string, unknown> | null;
}

export interface TrainHooks {
  onProgress?(r: StepReport): void;
  onCheckpoint?(c: DeepCheckpoint): void | Promise<void>;
  /** Awaited between steps: yields to the event loop and throws when the fit is aborted. */
  tick?(step: number): Promise<void>;
  /** Replaces the stream draws (fixtures pass PyTorch's batch indices and noise). */
  drawBatch?(step: number): BatchDraw;
}

/** r(it) = clamp(it/(w·S), 0, 1); 1 when the method has no warm-up. */
export function rampAt(it: number, steps: number, w: number | null): number {
  if (w === null) return 1;
  return Math.min(1, Math.max(0, it / (w * steps)));
}

export function lrAt(
  cfg: Pick<TrainerConfig, 'optimizer' | 'lr' | 'cosineFraction' | 'steps'>,
  it: number,
): number {
  if (cfg.optimizer === 'adam') return cfg.lr;
  return cfg.lr * Math.max(0, Math.cos((Math.PI * cfg.cosineFraction * it) / cfg.steps));
}

export class DeepTrainer {
  /** Every parameter in one flat buffer (flatParams.ts), and its EMA shadow in the same layout. */
  private readonly theta: tf.Variable;
  private readonly shadowFlat: tf.Variable;
  private readonly layout: FlatLayout;
  private readonly opt: SlotOptimizer;
  private step = 0;
  private disposed = false;

  readonly network: DeepNetwork;
  private readonly views: ViewSource;
  /** Whether `views` was made here (then the trainer disposes it). */
  private readonly ownViews: boolean;
  /** The labels of L on the device (uploaded on first use). */
  private ylT: tf.Tensor1D | null = null;

  /**
   * `data`: the labels of L and k, and either the raw rows (Xl, Xu: tabular views with Gaussian
   * noise) or a `views` source (a feature bank's views).
   */
  constructor(
    readonly cfg: TrainerConfig,
    readonly method: DeepMethod,
    private readonly data: { Xl?: Matrix; yl: Int32Array; Xu?: Matrix; k: number; views?: ViewSource },
    private streams: TrainerStreams,
    initial?: Map<string, Float32Array>,
  ) {
    // tfjs-wasm's batched products (attention) run a scalar loop; swap in the SIMD kernel.
    if (tf.getBackend() === 'wasm') {
      installWasmBatchMatMul();
      installWasmSlice();
    }
    if (!cfg.network && !cfg.shape)
      throw new Error('DeepTrainer: the config needs a network or an FT shape.');
    this.network = cfg.network ?? ftNetwork(cfg.shape!);
    if (data.views) this.views = data.views;
    else if (data.Xl && data.Xu) this.views = noiseViews(data.Xl, data.Xu, cfg.noiseWeak, cfg.noiseStrong);
    else throw new Error('DeepTrainer: the data needs Xl and Xu, or a view source.');
    this.ownViews = !data.views;
    if (this.views.dim !== this.network.inputDim)
      throw new Error(
        `DeepTrainer: the views are ${this.views.dim} wide; ${this.network.id} takes ${this.network.inputDim}.`,
      );
    const w = initial ?? this.network.init(cfg.initSeed);
    const specs = this.network.specs();
    this.layout = new FlatLayout(specs);
    const flat = this.layout.pack(w);
    this.theta = variableFrom(tf.tensor1d(flat, 'float32'), true, `deep/theta/${uid()}`);
    this.shadowFlat = variableFrom(tf.tensor1d(flat, 'float32'), false);
    const decays = new Set(specs.filter((s) => s.decay).map((s) => s.name));
    this.opt = new SlotOptimizer(
      { kind: cfg.optimizer, weightDecay: cfg.weightDecay },
      this.theta,
      this.layout,
      decays,
    );
    if (method.mu > 0 && this.views.nU === 0)
      throw new Error(`${method.id} needs unlabeled rows; Xu is empty.`);
    method.init?.(data.k, this.views.nU);
  }

  get currentStep(): number {
    return this.step;
  }

  /** Default draws: labeled then unlabeled row ids (with replacement), then the views' draws. */
  private drawBatch(): BatchDraw {
    const { batchL } = this.cfg;
    const m = this.method;
    const bU = m.mu * batchL;
    const idxL = new Int32Array(batchL);
    for (let i = 0; i < batchL; i++) idxL[i] = this.streams.labeled.randint(this.views.nL);
    const idxU = new Int32Array(bU);
    for (let i = 0; i < bU; i++) idxU[i] = this.streams.unlabeled.randint(this.views.nU);
    const noise = this.views.draw(batchL, bU, m.labeledView, m.views, this.streams.noise);
    return { idxL, idxU, noise };
  }

  /** Runs steps until `cfg.steps` (or `until`), with hooks between steps. */
  async run(hooks: TrainHooks = {}, until = this.cfg.steps): Promise<void> {
    const { cfg } = this;
    while (this.step < Math.min(until, cfg.steps)) {
      const it = this.step;
      const wantReport = !!hooks.onProgress && ((it + 1) % cfg.progressEvery === 0 || it + 1 === cfg.steps);
      const terms = this.trainStep(it, hooks.drawBatch?.(it) ?? this.drawBatch(), { keepTerms: wantReport });
      this.step++;
      if (terms) {
        const [ls, lu, mask] = await Promise.all(terms.map((t) => t.data()));
        tf.dispose(terms);
        const lr = lrAt(cfg, it),
          ramp = rampAt(it, cfg.steps, this.method.warmup);
        hooks.onProgress!({
          step: it + 1,
          steps: cfg.steps,
          lossS: ls[0],
          lossU: lu[0],
          loss: ls[0] + this.method.lambdaU * ramp * lu[0],
          maskRate: mask[0],
          lr,
          ramp,
        });
      }
      if (
        hooks.onCheckpoint &&
        cfg.checkpointEvery > 0 &&
        this.step % cfg.checkpointEvery === 0 &&
        this.step < cfg.steps
      ) {
        await hooks.onCheckpoint(await this.checkpoint());
      }
      await hooks.tick?.(this.step);
    }
  }

  /**
   * One optimiser step; returns [L_s, L_u, mask rate] scalars when asked (the caller disposes).
   * `update: false` computes the loss and gradients only (fixtures; method state still advances).
   */
  trainStep(
    it: number,
    draw: BatchDraw,
    {
      keepTerms = false,
      update = true,
      onGrads,
    }: { keepTerms?: boolean; update?: boolean; onGrads?: (g: Record<string, tf.Tensor>) => void } = {},
  ): tf.Scalar[] | null {
    const { cfg, method } = this;
    const k = this.data.k;
    let dropCall = 0;
    const dropout = () =>
      cfg.dropoutAttention > 0 || cfg.dropoutFfn > 0
        ? {
            attention: cfg.dropoutAttention,
            ffn: cfg.dropoutFfn,
            seed: dropoutSeed(this.streams.dropoutSeed, it, dropCall++),
          }
        : null;
    const net = this.network;
    const lr = lrAt(cfg, it);
    const coef = method.lambdaU * rampAt(it, cfg.steps, method.warmup);

    method.beforeStep?.({ it, steps: cfg.steps, k, idxU: draw.idxU, rng: this.streams.method });
    let kept: tf.Scalar[] | null = null;
    tf.tidy(() => {
      // Named views of the flat weights (a few kernels), outside the gradient tape: the gradient is
      // taken with respect to the views and flattened back into one buffer for the update.
      const P = this.layout.views(this.theta);
      let S: Record<string, tf.Tensor> | null = null;
      // The step's inputs: on the device from one upload where the view source can (views.ts).
      let xl: tf.Tensor2D, u: tf.Tensor2D[], yl: tf.Tensor1D, idxUT: tf.Tensor1D;
      if (this.views.render) {
        const r = this.views.render(draw.idxL, draw.idxU, method.labeledView, method.views, draw.noise);
        ({ xl, u } = r);
        yl = tf.gather((this.ylT ??= tf.keep(tf.tensor1d(this.data.yl, 'int32'))), r.idxL);
        idxUT = r.idxU;
      } else {
        let z = 0;
        xl = this.views.labeled(
          draw.idxL,
          this.views.drawsLabeled(method.labeledView) ? draw.noise[z++] : null,
        );
        yl = tf.tensor1d(
          Int32Array.from(draw.idxL, (i) => this.data.yl[i]),
          'int32',
        );
        u = method.views.map((v) => this.views.unlabeled(draw.idxU, v, draw.noise[z++]));
        idxUT = tf.tensor1d(draw.idxU, 'int32');
      }
      const io: StepIO = {
        it,
        steps: cfg.steps,
        k,
        quirks: cfg.quirks,
        xl,
        yl,
        u,
        idxU: draw.idxU,
        idxUT,
        teacher: (x) => net.forward(P, x, { dropout: dropout(), noGrad: true }),
        shadow: (x) =>
          net.forward((S ??= this.layout.views(this.shadowFlat)), x, { dropout: dropout(), noGrad: true }),
        rng: this.streams.method,
      };
      const prep = method.prepare(io);
      const nL = draw.idxL.length;
      const sizes = [nL, ...prep.student.map((s) => s.shape[0])];
      const input = prep.student.length ? tf.concat([xl, ...prep.student], 0) : xl;
      const studentDrop = dropout();
      const recompute =
        cfg.recompute === 'auto' ? (net.recomputeFor?.(input.shape[0]) ?? true) : cfg.recompute;
      const names = this.layout.names;
      const { value, grads } = tf.engine().gradients(
        () => {
          const logits = net.forward(P, input, { dropout: studentDrop, recompute });
          const parts = sizes.length > 1 ? tf.split(logits, sizes, 0) : [logits];
          const ls = meanAll(ceRows(parts[0] as tf.Tensor2D, yl, k));
          const { lu, mask } = method.unsupervised(
            io,
            prep.aux,
            parts.slice(1) as tf.Tensor2D[],
            parts[0] as tf.Tensor2D,
          );
          if (keepTerms) kept = [tf.keep(ls), tf.keep(lu), tf.keep(mask)];
          return tf.add(ls, tf.mul(lu, coef)) as tf.Scalar;
        },
        names.map((n) => P[n]),
        undefined,
        true,
      );
      value.dispose();
      const byName: Record<string, tf.Tensor | null> = {};
      names.forEach((n, i) => (byName[n] = grads[i] ?? null));
      if (onGrads) onGrads(Object.fromEntries(names.map((n, i) => [n, grads[i] ?? tf.zerosLike(P[n])])));
      if (!update) return;
      this.opt.step(this.layout.flatten(byName), lr, { shadow: this.shadowFlat, decay: cfg.emaDecay });
    });
    return kept;
  }

  /** Gradients (with coupled L2 not yet added) and [L_s, L_u, mask] of a step, without updating. */
  async gradients(
    it: number,
    draw: BatchDraw,
  ): Promise<{ grads: Record<string, Float32Array>; terms: number[] }> {
    let captured: Record<string, tf.Tensor> = {};
    const terms = this.trainStep(it, draw, {
      keepTerms: true,
      update: false,
      onGrads: (g) => {
        captured = Object.fromEntries(Object.entries(g).map(([k, t]) => [k, tf.keep(t.clone())]));
      },
    })!;
    const grads: Record<string, Float32Array> = {};
    for (const [k, t] of Object.entries(captured)) grads[k] = (await t.data()) as Float32Array;
    const out = await Promise.all(terms.map(async (t) => (await t.data())[0]));
    tf.dispose([...Object.values(captured), ...terms]);
    return { grads, terms: out };
  }

  async checkpoint(): Promise<DeepCheckpoint> {
    const s = this.streams;
    return {
      format: 'rac-deep-checkpoint/1',
      method: this.method.id,
      step: this.step,
      params: await this.weights('params'),
      shadow: await this.weights('shadow'),
      optimizer: await this.opt.save(),
      streams: {
        labeled: saveMT(s.labeled),
        unlabeled: saveMT(s.unlabeled),
        noise: saveMT(s.noise),
        method: saveMT(s.method),
        dropoutSeed: s.dropoutSeed,
      },
      methodState: this.method.saveState ? await this.method.saveState() : null,
    };
  }

  /** Continue from a checkpoint of the same method, shape and data. */
  restore(c: DeepCheckpoint): void {
    if (c.format !== 'rac-deep-checkpoint/1')
      throw new Error(`Unknown checkpoint format ${String(c.format)}.`);
    if (c.method !== this.method.id)
      throw new Error(`Checkpoint is for ${c.method}; this fit is ${this.method.id}.`);
    const put = (v: tf.Variable, o: Record<string, Float32Array>) => {
      for (const k of this.layout.names)
        if (!o[k] || o[k].length !== this.layout.sizeOf(k))
          throw new Error(`Checkpoint tensor ${k} is missing or has the wrong size.`);
      const flat = this.layout.pack(o);
      tf.tidy(() => v.assign(tf.tensor1d(flat, 'float32')));
    };
    put(this.theta, c.params);
    put(this.shadowFlat, c.shadow);
    this.opt.load(c.optimizer);
    this.streams = {
      labeled: loadMT(c.streams.labeled),
      unlabeled: loadMT(c.streams.unlabeled),
      noise: loadMT(c.streams.noise),
      method: loadMT(c.streams.method),
      dropoutSeed: c.streams.dropoutSeed,
    };
    if (c.methodState) this.method.loadState?.(c.methodState);
    this.step = c.step;
  }

  /** Host copies of the weights or the shadow (one read-back of the flat buffer). */
  async weights(which: 'params' | 'shadow' = 'params'): Promise<Record<string, Float32Array>> {
    const v = which === 'params' ? this.theta : this.shadowFlat;
    return this.layout.unpack((await v.data()) as Float32Array);
  }

  /** Eval-mode logits with the EMA shadow (or the raw weights), in batches. */
  async predictLogits(X: Matrix, batch = 512, which: 'shadow' | 'params' = 'shadow'): Promise<Float32Array> {
    const k = this.data.k;
    const out = new Float32Array(X.rows * k);
    const W = tf.tidy(() => this.layout.views(which === 'shadow' ? this.shadowFlat : this.theta));
    try {
      for (let r0 = 0; r0 < X.rows; r0 += batch) {
        const r1 = Math.min(X.rows, r0 + batch);
        const t = tf.tidy(() =>
          this.network.forward(W, tf.tensor2d(X.data.subarray(r0 * X.cols, r1 * X.cols), [r1 - r0, X.cols]), {
            noGrad: true,
          }),
        );
        out.set((await t.data()) as Float32Array, r0 * k);
        t.dispose();
      }
    } finally {
      tf.dispose(Object.values(W));
    }
    return out;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.theta.dispose();
    this.shadowFlat.dispose();
    this.ylT?.dispose();
    if (this.ownViews) this.views.dispose?.();
    this.opt.dispose();
    this.method.dispose?.();
  }
}

let uidCounter = 0;
/** Variable names must be unique per engine; several trainers may live side by side. */
function uid(): number {
  return ++uidCounter;
}
