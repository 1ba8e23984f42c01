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
import { ceRows, meanAll, sg } from './losses.ts';
import type { DeepMethod, StepIO } from './methods/types.ts';
import { ftNetwork, type DeepNetwork } from './network.ts';
import { noiseViews, type ViewDraw, type ViewSource } from './views.ts';
import { FlatLayout } from './flatParams.ts';
import { SlotOptimizer, variableFrom, type OptimizerKind, type OptimizerState } from './optim.ts';
import { loadMT, saveMT, type MTState } from './streams.ts';
import { RunningStats } from './runningStats.ts';

/**
 * Methods whose unlabeled forwards run apart from the labeled one, with the BatchNorm running
 * statistics restored afterwards (LAMDA's Bn_Controller; PROTOCOL-IMAGE-TEXT.md §7.3). The others
 * (FixMatch, FlexMatch, SoftMatch, UDA; Supervised forwards L alone) run one forward of
 * concat(L_weak, U_weak, U_strong): batch statistics over all of it. Only networks with running
 * statistics see the difference.
 */
const SEPARATE_FORWARD_METHODS: ReadonlySet<string> = new Set([
  'pseudolabel',
  'pimodel',
  'meanteacher',
  'ict',
]);

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
  /** The network's running statistics (BatchNorm buffers), when it has any (network.ts). */
  buffers?: Record<string, Float32Array>;
}

export interface TrainHooks {
  onProgress?(r: StepReport): void;
  onCheckpoint?(c: DeepCheckpoint): void | Promise<void>;
  /** Whether to checkpoint after `step` steps (default: every `cfg.checkpointEvery`); e.g. by time. */
  checkpointDue?(step: number): boolean;
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
  /** Steps (since this trainer was built) whose gradient forward recomputed its blocks (fit info). */
  recomputedSteps = 0;

  readonly network: DeepNetwork;
  private readonly views: ViewSource;
  /** Whether `views` was made here (then the trainer disposes it). */
  private readonly ownViews: boolean;
  /** The labels of L on the device (uploaded on first use). */
  private ylT: tf.Tensor1D | null = null;
  /** The network's running statistics, when it has any (BatchNorm: the finetune tier). */
  private readonly stats: RunningStats | null;

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
    const buffers = this.network.buffers;
    this.stats = buffers?.size ? new RunningStats(buffers, this.network.bufferMomentum ?? 0.1) : null;
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
        this.step < cfg.steps &&
        (hooks.checkpointDue
          ? hooks.checkpointDue(this.step)
          : cfg.checkpointEvery > 0 && this.step % cfg.checkpointEvery === 0)
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
        // Teacher forwards run in training mode (dropout on; BatchNorm on batch statistics, §7.3).
        teacher: (x) => net.forward(P, x, { dropout: dropout(), noGrad: true, training: true }),
        shadow: (x) =>
          net.forward((S ??= this.layout.views(this.shadowFlat)), x, {
            dropout: dropout(),
            noGrad: true,
            training: true,
          }),
        rng: this.streams.method,
      };
      const stats = this.stats;
      const separate = SEPARATE_FORWARD_METHODS.has(method.id);
      // With running statistics (§7.3): the current weights' teacher forwards are frozen
      // (PiModel's second view, MeanTeacher's detached student); the shadow's update their
      // statistics after the labeled forward, as in PyTorch (runningStats.ts).
      const deferred: tf.Tensor[][] = [];
      const ioPrep: StepIO =
        stats && separate
          ? {
              ...io,
              teacher: (x) => stats.frozen(() => io.teacher(x)),
              shadow: (x) => {
                const { value, contribution } = stats.deferred(() => io.shadow(x));
                deferred.push(contribution);
                return value;
              },
            }
          : io;
      // The FixMatch type on a network with running statistics takes its weak-view targets from
      // the one joint forward inside the gradient (below), so `prepare` runs there.
      const joint = !!stats && !separate;
      const prep = joint ? null : method.prepare(ioPrep);
      const nL = draw.idxL.length;
      const studentRows = joint ? u : prep!.student;
      const sizes = [nL, ...studentRows.map((s) => s.shape[0])];
      const input = studentRows.length && !(stats && separate) ? tf.concat([xl, ...studentRows], 0) : xl;
      const studentDrop = dropout();
      const recompute =
        cfg.recompute === 'auto' ? (net.recomputeFor?.(input.shape[0]) ?? true) : cfg.recompute;
      if (recompute) this.recomputedSteps++;
      const names = this.layout.names;
      /** The labeled logits, then the logits of each student input (joint: each unlabeled view). */
      const studentLogits = (): tf.Tensor2D[] => {
        const logits = net.forward(P, input, { dropout: studentDrop, recompute });
        const parts = sizes.length > 1 && input !== xl ? tf.split(logits, sizes, 0) : [logits];
        if (!(stats && separate) || !studentRows.length) return parts as tf.Tensor2D[];
        // Separate forwards of the unlabeled rows, their statistics updates undone (Bn_Controller).
        const rest = stats.frozen(() =>
          studentRows.map((x) => net.forward(P, x, { dropout: dropout(), recompute })),
        );
        return [logits, ...rest];
      };
      const { value, grads } = tf.engine().gradients(
        () => {
          const parts = studentLogits();
          let aux: tf.Tensor[];
          let io2 = io;
          let uLogits = parts.slice(1);
          if (joint) {
            // Targets from the joint forward's weak-view logits, detached; students by identity.
            const byInput = (x: tf.Tensor2D, what: string): tf.Tensor2D => {
              const i = u.indexOf(x);
              if (i < 0)
                throw new Error(
                  `${method.id}: its ${what} input is not one of the step's views; a network with running statistics needs the joint forward of §7.3.`,
                );
              return parts[1 + i];
            };
            io2 = {
              ...io,
              teacher: (x) => sg(byInput(x, 'teacher')),
              shadow: () => {
                throw new Error(`${method.id}: a shadow forward inside the joint forward is not supported.`);
              },
            };
            const p = method.prepare(io2);
            aux = p.aux;
            uLogits = p.student.map((x) => byInput(x, 'student'));
          } else aux = prep!.aux;
          const ls = meanAll(ceRows(parts[0], yl, k));
          const { lu, mask } = method.unsupervised(io2, aux, uLogits, parts[0]);
          if (keepTerms) kept = [tf.keep(ls), tf.keep(lu), tf.keep(mask)];
          return tf.add(ls, tf.mul(lu, coef)) as tf.Scalar;
        },
        names.map((n) => P[n]),
        undefined,
        true,
      );
      value.dispose();
      // The shadow forwards' statistics updates, after the labeled forward's (PyTorch's order).
      if (stats) for (const c of deferred) stats.apply(c);
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
      ...(this.network.readBuffers && this.stats ? { buffers: await this.network.readBuffers() } : {}),
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
    if (this.stats) {
      if (!c.buffers || !this.network.writeBuffers)
        throw new Error(
          `Checkpoint has no running statistics; ${this.network.id} keeps BatchNorm statistics, so it cannot resume from it.`,
        );
    }
    put(this.theta, c.params);
    put(this.shadowFlat, c.shadow);
    if (this.stats) this.network.writeBuffers!(c.buffers!);
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
    return this.predictRows(X.rows, (r0, r1) => X.data.subarray(r0 * X.cols, r1 * X.cols), batch, which);
  }

  /**
   * Eval-mode logits of `n` rows rendered batch by batch (`rows(r0, r1)`: rows r0…r1−1, each
   * `network.inputDim` wide), so a test set never has to sit in memory at once (finetune's images).
   * Running statistics, if any, are used as they are (§7.2: BN = the live buffers).
   */
  async predictRows(
    n: number,
    rows: (r0: number, r1: number) => Float32Array,
    batch = 512,
    which: 'shadow' | 'params' = 'shadow',
  ): Promise<Float32Array> {
    const k = this.data.k;
    const d = this.network.inputDim;
    const out = new Float32Array(n * k);
    const W = tf.tidy(() => this.layout.views(which === 'shadow' ? this.shadowFlat : this.theta));
    try {
      for (let r0 = 0; r0 < n; r0 += batch) {
        const r1 = Math.min(n, r0 + batch);
        const x = rows(r0, r1);
        if (x.length !== (r1 - r0) * d)
          throw new RangeError(
            `predictRows: rows ${r0}…${r1 - 1} gave ${x.length} values; expected ${(r1 - r0) * d}.`,
          );
        const t = tf.tidy(() => this.network.forward(W, tf.tensor2d(x, [r1 - r0, d]), { noGrad: true }));
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
