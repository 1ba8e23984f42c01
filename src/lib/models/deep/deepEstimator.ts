/**
 * The deep family behind the estimator contract: `createDeepEstimator(method, options)` gives an
 * Estimator whose fit trains the FT-Transformer with that method (trainer.ts) and whose
 * predictProba scores rows with the EMA shadow in eval mode. A catalogue entry is one call.
 *
 * @example
 *   const est = createDeepEstimator('fixmatch', { size: 'tiny', steps: 200 });
 *   await est.fit(Xl, yl, Xu, k, { rng: mt(seed), quirks: 'rsb' });
 *   const proba = await est.predictProba(Xtest);
 */
import * as tf from '@tensorflow/tfjs';
import type { Matrix } from '../../types.ts';
import { BaseEstimator } from '../baseEstimator.ts';
import type { FitInfo, LiveFitContext } from '../estimator.ts';
import { integerIn, interval, oneOf, ParamError, validateParams, type ConstraintTable } from '../params.ts';
import { batchMatMulCounts, deepWasmFlavour } from './batchMatMul.ts';
import { resolveSize, trainerConfig, type DeepOptions } from './config.ts';
import { trainerStreams, type DeepFitContext } from './context.ts';
import { countParams } from './ftTransformer.ts';
import { createMethod, DEEP_METHOD_IDS, DEEP_METHODS, type DeepMethodId } from './methods/index.ts';
import { DeepTrainer } from './trainer.ts';

export interface DeepEstimatorOptions extends DeepOptions {
  /** Method hyperparameter overrides (thresholds, λ_u, …). */
  methodParams?: Record<string, number>;
  /** Rows per prediction batch. */
  predictBatch?: number;
}

/** The options' schema; `size` and `methodParams` are checked in `validate` (a name or an object). */
const CONSTRAINTS: ConstraintTable = {
  size: oneOf('rsb', 'tiny'),
  mode: oneOf('rsb', 'readme'),
  quirks: oneOf('rsb', 'fixed'),
  steps: integerIn(1, 100_000_000),
  batchL: integerIn(1, 1_000_000),
  lr: interval(0, 1, 'right'),
  emaDecay: interval(0, 1, 'left'),
  initSeed: integerIn(0, 2 ** 32 - 1),
  progressEvery: integerIn(1),
  checkpointEvery: integerIn(0),
  dropoutAttention: interval(0, 1, 'left'),
  dropoutFfn: interval(0, 1, 'left'),
  recompute: oneOf(true, false),
  predictBatch: integerIn(1, 1_000_000),
};
const SIZE_CONSTRAINTS: ConstraintTable = {
  blocks: integerIn(1, 64),
  dToken: integerIn(1, 4096),
  heads: integerIn(1, 256),
  ffnHidden: integerIn(1, 65_536),
};

/**
 * The deep family on the estimator shell (BaseEstimator): the shell gives every deep entry the
 * same contract as the statistical ones (param and input checks, busy guard, NotFittedError, the
 * predict shape check, a complete FitContext with named streams and a throttled tick), so the
 * catalogue's contract tests and runCell treat both families alike.
 */
export class DeepEstimator extends BaseEstimator<DeepEstimatorOptions> {
  readonly name: string;
  readonly className: string;
  protected readonly constraints = CONSTRAINTS;
  protected override readonly readsUnlabeled: boolean;
  private trainer: DeepTrainer | null = null;

  constructor(
    readonly method: DeepMethodId,
    options: DeepEstimatorOptions = {},
  ) {
    super({}, options);
    if (!DEEP_METHOD_IDS.includes(method)) {
      throw new RangeError(`Unknown deep method '${method}'. Known: ${DEEP_METHOD_IDS.join(', ')}.`);
    }
    this.name = method;
    this.className = DEEP_METHODS[method].className;
    this.readsUnlabeled = method !== 'ftt';
  }

  protected override validate(): void {
    const { size, methodParams, ...rest } = this.params;
    validateParams(this.className, CONSTRAINTS, rest);
    if (typeof size === 'object' && size !== null)
      validateParams(`${this.className}.size`, SIZE_CONSTRAINTS, size as unknown as Record<string, unknown>);
    else if (size !== undefined) validateParams(this.className, CONSTRAINTS, { size });
    if (methodParams !== undefined) {
      if (typeof methodParams !== 'object' || methodParams === null || Array.isArray(methodParams))
        throw new ParamError(
          `The 'methodParams' parameter of ${this.className} must be an object of parameters. Got ${String(methodParams)} instead.`,
        );
      const known = Object.keys(createMethod(this.method, this.params.mode ?? 'rsb').hyper);
      for (const [key, v] of Object.entries(methodParams)) {
        if (!known.includes(key))
          throw new ParamError(
            `'${key}' is not a parameter of ${this.className}'s loss. Valid parameters: ${known.join(', ') || 'none'}.`,
          );
        if (typeof v !== 'number' || !Number.isFinite(v))
          throw new ParamError(
            `The '${key}' parameter of ${this.className} must be a finite number. Got ${String(v)} instead.`,
          );
      }
    }
  }

  override get hyper(): Record<string, unknown> {
    const o = this.params;
    const size = resolveSize(o.size);
    const probe = createMethod(this.method, o.mode ?? 'rsb', o.methodParams);
    const cfg = trainerConfig(1, 2, o);
    return {
      size: size.name,
      blocks: size.blocks,
      dToken: size.dToken,
      heads: size.heads,
      ffnHidden: size.ffnHidden,
      mode: o.mode ?? 'rsb',
      steps: cfg.steps,
      batchL: cfg.batchL,
      optimizer: cfg.optimizer,
      lr: cfg.lr,
      schedule: cfg.optimizer === 'sgd' ? `cosine ${cfg.cosineFraction}` : 'none',
      weightDecay: cfg.weightDecay,
      emaDecay: cfg.emaDecay,
      noiseWeak: cfg.noiseWeak,
      noiseStrong: cfg.noiseStrong,
      dropoutAttention: cfg.dropoutAttention,
      dropoutFfn: cfg.dropoutFfn,
      warmup_form: 'min',
      mu: probe.mu,
      lambdaU: probe.lambdaU,
      warmup: probe.warmup,
      ...probe.hyper,
    };
  }

  protected async fitImpl(
    Xl: Matrix,
    yl: Int32Array,
    Xu: Matrix,
    k: number,
    live: LiveFitContext,
  ): Promise<void> {
    const ctx = live as LiveFitContext & DeepFitContext;
    const o = this.params;
    // An explicit option (tests, bench) wins over the context's value (runCell's plan).
    const cfg = trainerConfig(Xl.cols, k, {
      ...o,
      initSeed: o.initSeed ?? ctx.initSeed,
      quirks: o.quirks ?? ctx.quirks,
    });
    // Drawn once: a trainer built again after a refused checkpoint starts from the same streams.
    const streams = trainerStreams(ctx);
    const build = () =>
      new DeepTrainer(
        cfg,
        createMethod(this.method, o.mode ?? 'rsb', o.methodParams),
        { Xl, yl, Xu, k },
        streams,
      );
    let trainer = build();
    const simdBefore = batchMatMulCounts.simd;
    this.trainer = trainer;
    let resumedFrom: number | null = null;
    if (ctx.resumeFrom) {
      try {
        trainer.restore(ctx.resumeFrom);
        resumedFrom = ctx.resumeFrom.step;
      } catch (e) {
        // restore() may have written part of the state before it found the damage: start afresh
        // on a new trainer rather than train from a mix.
        trainer.dispose();
        this.trainer = trainer = build();
        ctx.onResumeRejected?.((e as Error).message);
      }
    }
    // The supervised baseline has no unsupervised term and no mask: report neither (the live
    // chart would draw two flat zero lines).
    const supervisedOnly = this.method === 'ftt';
    await trainer.run({
      onProgress: (r) => {
        ctx.onDeepProgress?.(r);
        ctx.onProgress?.({
          fraction: r.step / r.steps,
          message: supervisedOnly
            ? `step ${r.step}/${r.steps} loss ${r.loss.toFixed(4)}`
            : `step ${r.step}/${r.steps} loss ${r.loss.toFixed(4)} mask ${r.maskRate.toFixed(2)}`,
          step: r.step,
          total: r.steps,
          losses: supervisedOnly
            ? { supervised: r.lossS, total: r.loss }
            : { supervised: r.lossS, unsupervised: r.lossU, total: r.loss },
          scalars: supervisedOnly ? { lr: r.lr } : { maskRate: r.maskRate, lr: r.lr, ramp: r.ramp },
        });
      },
      onCheckpoint: ctx.onCheckpoint,
      checkpointDue: ctx.checkpointDue,
      tick: () => ctx.tick(),
    });
    this.lastInfo = {
      nIter: cfg.steps,
      steps: cfg.steps,
      backend: tf.getBackend(),
      // Batched products (attention) served by the SIMD kernel of batchMatMul.ts on wasm: 0 says
      // tfjs's own scalar loop ran them (another backend, or no WebAssembly SIMD).
      wasmSimdProducts: batchMatMulCounts.simd - simdBefore,
      // Which build of the deep wasm kernels ran (batchMatMul.ts): 'relaxed-simd' (FMA), 'simd'.
      wasmKernels: tf.getBackend() === 'wasm' ? deepWasmFlavour() : null,
      // Whether the gradient forwards kept their activations or recomputed each block in the
      // backward pass (the environment's activation budget, activationBudget.ts): the same
      // weights either way, at different memory and time.
      activations: trainer.recomputedSteps > 0 ? 'recomputed' : 'kept',
      params: countParams(cfg.shape!),
      size: resolveSize(o.size).name,
      init_seed: cfg.initSeed,
      quirks: cfg.quirks,
      resumedFrom,
    } satisfies FitInfo;
  }

  protected async predictImpl(X: Matrix): Promise<Float32Array> {
    const logits = await this.trainer!.predictLogits(X, this.params.predictBatch ?? 512);
    return softmaxRows(logits, X.rows, logits.length / Math.max(X.rows, 1));
  }

  protected release(): void {
    this.trainer?.dispose();
    this.trainer = null;
  }
}

function softmaxRows(z: Float32Array, n: number, k: number): Float32Array {
  const out = new Float32Array(z.length);
  for (let i = 0; i < n; i++) {
    let m = -Infinity;
    for (let c = 0; c < k; c++) m = Math.max(m, z[i * k + c]);
    let s = 0;
    for (let c = 0; c < k; c++) s += out[i * k + c] = Math.exp(z[i * k + c] - m);
    for (let c = 0; c < k; c++) out[i * k + c] /= s;
  }
  return out;
}

export function createDeepEstimator(method: DeepMethodId, options: DeepEstimatorOptions = {}): DeepEstimator {
  return new DeepEstimator(method, options);
}
