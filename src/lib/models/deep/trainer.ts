/**
 * The one trainer of the deep family (PROTOCOL.md §7.2), in the spirit of USB's AlgorithmBase:
 * it owns the weights, the optimiser, the EMA shadow, batching, checkpoints and progress; a method
 * (methods/*.ts) supplies only its unsupervised loss and its state, a network (network.ts: the
 * FT-Transformer, a head over bank features) its parameters and forward, and a view source
 * (views.ts: Gaussian noise on table rows, a feature bank's views) the step's inputs.
 *
 * Step stages: drawBatch → method.beforeStep (host draws) → method.prepare (teacher forwards, no
 * tape) → gradient of L_s + λ_u·r(it)·L_u (one student forward over labeled + student rows) →
 * optimiser (coupled L2) → EMA shadow → progress / checkpoint hooks.
 * No host read-back happens inside a step; scalars are read every `progressEvery` steps only.
 */
import * as tf from '@tensorflow/tfjs';
import type { MT19937 } from '../../protocol/rng.ts';
import type { Matrix, Quirks } from '../../types.ts';
import { installWasmBatchMatMul } from './batchMatMul.ts';
import { dropoutSeed } from './dropout.ts';
import type { FTShape } from './ftTransformer.ts';
import { ceRows } from './losses.ts';
import type { DeepMethod, StepIO } from './methods/types.ts';
import { ftNetwork, type DeepNetwork } from './network.ts';
import { noiseViews, type ViewDraw, type ViewSource } from './views.ts';
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
  /** Recompute block activations in the backward pass (less memory, ≈ +⅓ compute). */
  recompute: boolean;
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
  readonly params = new Map<string, tf.Variable>();
  readonly shadow = new Map<string, tf.Variable>();
  private readonly opt: SlotOptimizer;
  private step = 0;
  private disposed = false;

  readonly network: DeepNetwork;
  private readonly views: ViewSource;

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
    if (tf.getBackend() === 'wasm') installWasmBatchMatMul();
    if (!cfg.network && !cfg.shape)
      throw new Error('DeepTrainer: the config needs a network or an FT shape.');
    this.network = cfg.network ?? ftNetwork(cfg.shape!);
    if (data.views) this.views = data.views;
    else if (data.Xl && data.Xu) this.views = noiseViews(data.Xl, data.Xu, cfg.noiseWeak, cfg.noiseStrong);
    else throw new Error('DeepTrainer: the data needs Xl and Xu, or a view source.');
    if (this.views.dim !== this.network.inputDim)
      throw new Error(
        `DeepTrainer: the views are ${this.views.dim} wide; ${this.network.id} takes ${this.network.inputDim}.`,
      );
    const w = initial ?? this.network.init(cfg.initSeed);
    const decays = new Set<string>();
    for (const s of this.network.specs()) {
      const a = w.get(s.name);
      if (!a) throw new Error(`Initial weights lack ${s.name}.`);
      this.params.set(
        s.name,
        variableFrom(tf.tensor(a, s.shape, 'float32'), true, `deep/${s.name}/${uid()}`),
      );
      this.shadow.set(s.name, variableFrom(tf.tensor(a, s.shape, 'float32'), false));
      if (s.decay) decays.add(s.name);
    }
    this.opt = new SlotOptimizer({ kind: cfg.optimizer, weightDecay: cfg.weightDecay }, this.params, decays);
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
    const P = Object.fromEntries(this.params) as Record<string, tf.Tensor>;
    const S = Object.fromEntries(this.shadow) as Record<string, tf.Tensor>;
    const lr = lrAt(cfg, it);
    const coef = method.lambdaU * rampAt(it, cfg.steps, method.warmup);

    method.beforeStep?.({ it, steps: cfg.steps, k, idxU: draw.idxU, rng: this.streams.method });
    let kept: tf.Scalar[] | null = null;
    tf.tidy(() => {
      let z = 0;
      const xl = this.views.labeled(
        draw.idxL,
        this.views.drawsLabeled(method.labeledView) ? draw.noise[z++] : null,
      );
      const yl = tf.tensor1d(
        Int32Array.from(draw.idxL, (i) => this.data.yl[i]),
        'int32',
      );
      const u = method.views.map((v) => this.views.unlabeled(draw.idxU, v, draw.noise[z++]));
      const io: StepIO = {
        it,
        steps: cfg.steps,
        k,
        quirks: cfg.quirks,
        xl,
        yl,
        u,
        idxU: draw.idxU,
        idxUT: tf.tensor1d(draw.idxU, 'int32'),
        teacher: (x) => net.forward(P, x, { dropout: dropout(), noGrad: true }),
        shadow: (x) => net.forward(S, x, { dropout: dropout(), noGrad: true }),
        rng: this.streams.method,
      };
      const prep = method.prepare(io);
      const nL = draw.idxL.length;
      const sizes = [nL, ...prep.student.map((s) => s.shape[0])];
      const input = prep.student.length ? tf.concat([xl, ...prep.student], 0) : xl;
      const studentDrop = dropout();
      const vars = [...this.params.values()];
      const { value, grads } = tf.variableGrads(() => {
        const logits = net.forward(P, input, { dropout: studentDrop, recompute: cfg.recompute });
        const parts = sizes.length > 1 ? tf.split(logits, sizes, 0) : [logits];
        const ls = tf.mean(ceRows(parts[0] as tf.Tensor2D, yl, k)) as tf.Scalar;
        const { lu, mask } = method.unsupervised(
          io,
          prep.aux,
          parts.slice(1) as tf.Tensor2D[],
          parts[0] as tf.Tensor2D,
        );
        if (keepTerms) kept = [tf.keep(ls), tf.keep(lu), tf.keep(mask)];
        return tf.add(ls, tf.mul(lu, coef)) as tf.Scalar;
      }, vars);
      value.dispose();
      const byName: Record<string, tf.Tensor> = {};
      for (const [name, v] of this.params) byName[name] = grads[v.name];
      onGrads?.(byName);
      if (!update) return;
      this.opt.step(byName, lr);
      const a = cfg.emaDecay;
      for (const [name, s] of this.shadow)
        s.assign(tf.add(tf.mul(s, a), tf.mul(this.params.get(name)!, 1 - a)));
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
    const read = async (m: Map<string, tf.Variable>) => {
      const o: Record<string, Float32Array> = {};
      for (const [k, v] of m) o[k] = (await v.data()) as Float32Array;
      return o;
    };
    const s = this.streams;
    return {
      format: 'rac-deep-checkpoint/1',
      method: this.method.id,
      step: this.step,
      params: await read(this.params),
      shadow: await read(this.shadow),
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
    const put = (m: Map<string, tf.Variable>, o: Record<string, Float32Array>) => {
      for (const [k, v] of m) {
        const a = o[k];
        if (!a || a.length !== v.size)
          throw new Error(`Checkpoint tensor ${k} is missing or has the wrong size.`);
        tf.tidy(() => v.assign(tf.tensor(a, v.shape, 'float32')));
      }
    };
    put(this.params, c.params);
    put(this.shadow, c.shadow);
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

  /** Host copies of the weights or the shadow. */
  async weights(which: 'params' | 'shadow' = 'params'): Promise<Record<string, Float32Array>> {
    const o: Record<string, Float32Array> = {};
    for (const [k, v] of which === 'params' ? this.params : this.shadow)
      o[k] = (await v.data()) as Float32Array;
    return o;
  }

  /** Eval-mode logits with the EMA shadow (or the raw weights), in batches. */
  async predictLogits(X: Matrix, batch = 512, which: 'shadow' | 'params' = 'shadow'): Promise<Float32Array> {
    const k = this.data.k;
    const out = new Float32Array(X.rows * k);
    const W = Object.fromEntries(which === 'shadow' ? this.shadow : this.params) as Record<string, tf.Tensor>;
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
    return out;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const v of this.params.values()) v.dispose();
    for (const v of this.shadow.values()) v.dispose();
    this.opt.dispose();
    this.method.dispose?.();
  }
}

let uidCounter = 0;
/** Variable names must be unique per engine; several trainers may live side by side. */
function uid(): number {
  return ++uidCounter;
}
