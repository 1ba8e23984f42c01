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
import { checkFitInputs, NotFittedError, type Estimator, type FitInfo } from '../estimator.ts';
import type { Matrix } from '../../types.ts';
import { resolveSize, trainerConfig, type DeepOptions } from './config.ts';
import { tickOf, trainerStreams, type DeepFitContext } from './context.ts';
import { countParams } from './ftTransformer.ts';
import { createMethod, DEEP_METHOD_IDS, type DeepMethodId } from './methods/index.ts';
import { DeepTrainer } from './trainer.ts';

export interface DeepEstimatorOptions extends DeepOptions {
  /** Method hyperparameter overrides (thresholds, λ_u, …). */
  methodParams?: Record<string, number>;
  /** Rows per prediction batch. */
  predictBatch?: number;
}

export class DeepEstimator implements Estimator {
  readonly name: string;
  private trainer: DeepTrainer | null = null;
  private last: FitInfo = {};
  private fitting = false;

  constructor(
    readonly method: DeepMethodId,
    private readonly options: DeepEstimatorOptions = {},
  ) {
    if (!DEEP_METHOD_IDS.includes(method)) {
      throw new RangeError(`Unknown deep method '${method}'. Known: ${DEEP_METHOD_IDS.join(', ')}.`);
    }
    this.name = method;
  }

  get hyper(): Record<string, unknown> {
    const o = this.options;
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

  async fit(Xl: Matrix, yl: Int32Array, Xu: Matrix, k: number, ctx: DeepFitContext): Promise<this> {
    if (this.fitting) throw new Error(`${this.name}.fit: a fit is already running on this estimator.`);
    checkFitInputs(this.name, Xl, yl, Xu, k);
    this.fitting = true;
    try {
      this.trainer?.dispose();
      this.trainer = null;
      const cfg = trainerConfig(Xl.cols, k, {
        ...this.options,
        initSeed: ctx.initSeed ?? this.options.initSeed,
        quirks: ctx.quirks ?? this.options.quirks,
      });
      const method = createMethod(this.method, this.options.mode ?? 'rsb', this.options.methodParams);
      const trainer = new DeepTrainer(cfg, method, { Xl, yl, Xu, k }, trainerStreams(ctx));
      this.trainer = trainer;
      if (ctx.resumeFrom) trainer.restore(ctx.resumeFrom);
      const tick = tickOf(ctx);
      await trainer.run({
        onProgress: (r) => {
          ctx.onDeepProgress?.(r);
          ctx.onProgress?.({
            fraction: r.step / r.steps,
            message: `step ${r.step}/${r.steps} loss ${r.loss.toFixed(4)} mask ${r.maskRate.toFixed(2)}`,
          });
        },
        onCheckpoint: ctx.onCheckpoint,
        tick: () => tick(),
      });
      this.last = {
        nIter: cfg.steps,
        steps: cfg.steps,
        backend: tf.getBackend(),
        params: countParams(cfg.shape),
        size: resolveSize(this.options.size).name,
        init_seed: cfg.initSeed,
        quirks: cfg.quirks,
        resumedFrom: ctx.resumeFrom?.step ?? null,
      };
      return this;
    } catch (e) {
      this.trainer?.dispose();
      this.trainer = null;
      throw e;
    } finally {
      this.fitting = false;
    }
  }

  async predictProba(X: Matrix): Promise<Float32Array> {
    if (!this.trainer) throw new NotFittedError(this.name);
    const logits = await this.trainer.predictLogits(X, this.options.predictBatch ?? 512);
    return softmaxRows(logits, X.rows, logits.length / Math.max(X.rows, 1));
  }

  info(): FitInfo {
    return { ...this.last };
  }

  dispose(): void {
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
