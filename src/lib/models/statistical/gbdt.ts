/**
 * The XGBoost baseline: gradient-boosted trees reproducing xgboost 1.7's defaults exactly
 * (PROTOCOL.md §7.1): 100 rounds, exact greedy splits, max_depth 6, η 0.3, λ 1, α 0, γ 0,
 * min_child_weight 1, no subsampling, base_score 0.5; `multi:softprob` (one tree per class per
 * round) for k > 2, `binary:logistic` for k = 2; predict = argmax of the probabilities.
 *
 * The estimator fits on the labeled rows only (Xu is ignored). The model always has k outputs:
 * unlike XGBClassifier, which re-encodes labels and rejects a missing middle class, a class with no
 * labeled row stays an output that the boosting only pushes down (`info().absentClasses`).
 * Fits are deterministic (no randomness); `fitWeighted` takes sample weights (Assemble).
 * Parity with Debian's python3-xgboost 1.7.4 is tested against tests/fixtures/xgb.
 *
 * @see T. Chen, C. Guestrin, "XGBoost: A Scalable Tree Boosting System", KDD 2016.
 * @example
 * const m = new GBDTClassifier();
 * await m.fit(Xl, yl, Xu, 3, { rng: mt(0) });
 * const p = await m.predictProba(Xtest); // n × 3
 */
import type { Matrix } from '../../types.ts';
import { NotFittedError, checkFitInputs, throwIfAborted, type Estimator, type FitContext, type FitInfo } from '../estimator.ts';
import { integerIn, interval, validateParams, type ConstraintTable } from '../params.ts';
import { predictBoosterProba, trainBooster, type BoosterModel, type BoostParams } from './gbdtBooster.ts';

/** Hyperparameters, xgboost's names in brackets (documented on BoostParams). */
export type GBDTParams = BoostParams;

export const GBDT_DEFAULTS: Readonly<GBDTParams> = Object.freeze({
  nEstimators: 100,
  maxDepth: 6,
  learningRate: 0.3,
  regLambda: 1,
  regAlpha: 0,
  gamma: 0,
  minChildWeight: 1,
  baseScore: 0.5,
});

export const GBDT_CONSTRAINTS: ConstraintTable = {
  nEstimators: integerIn(1, 10_000),
  maxDepth: integerIn(1, 16),
  learningRate: interval(0, 1, 'right'),
  regLambda: interval(0, undefined, 'left'),
  regAlpha: interval(0, undefined, 'left'),
  gamma: interval(0, undefined, 'left'),
  minChildWeight: interval(0, undefined, 'left'),
  baseScore: interval(0, 1, 'neither'),
};

/** Input checks shared by the XGBoost-based estimators (sklearn-style messages). */
export function checkLabeled(estimator: string, X: Matrix, y: Int32Array, k: number, weights?: Float64Array | null): void {
  checkFitInputs(estimator, X, y, null, k);
  if (weights) {
    if (weights.length !== X.rows) {
      throw new Error(`${estimator}.fit: weights has ${weights.length} values; expected one per row (${X.rows}).`);
    }
    for (let i = 0; i < weights.length; i++) {
      if (!(weights[i] >= 0) || !Number.isFinite(weights[i])) {
        throw new Error(`${estimator}.fit: weights must be finite and ≥ 0. Got ${weights[i]} at row ${i} instead.`);
      }
    }
  }
}

export function checkPredictInput(estimator: string, X: Matrix, d: number): void {
  if (X.cols !== d) {
    throw new Error(`${estimator}.predictProba: X has ${X.cols} features, but the model was fitted with ${d} features.`);
  }
  if (X.data.length !== X.rows * X.cols) {
    throw new Error(`${estimator}.predictProba: X.data has ${X.data.length} values; expected rows × cols = ${X.rows * X.cols}.`);
  }
}

export class GBDTClassifier implements Estimator {
  readonly name = 'xgb';
  readonly params: GBDTParams;
  private fitted: BoosterModel | null = null;
  private lastInfo: FitInfo = {};

  constructor(params: Partial<GBDTParams> = {}) {
    this.params = { ...GBDT_DEFAULTS, ...params };
  }

  get hyper(): Record<string, unknown> {
    return { ...this.params, treeMethod: 'exact', objective: 'binary:logistic (k=2) | multi:softprob (k>2)', numClass: 'k' };
  }

  /** Baseline fit: labeled rows only (Xu is not used). */
  async fit(Xl: Matrix, yl: Int32Array, _Xu: Matrix, k: number, ctx: FitContext): Promise<this> {
    return this.fitWeighted(Xl, yl, null, k, ctx);
  }

  /** Fit with optional per-row sample weights (stored as float32, as in a DMatrix). */
  async fitWeighted(X: Matrix, y: Int32Array, weights: Float64Array | null, k: number, ctx: FitContext): Promise<this> {
    this.fitSync(X, y, weights, k, ctx);
    return this;
  }

  /** Synchronous fit, for the ensembles that run many of them inside one `fit`. */
  fitSync(X: Matrix, y: Int32Array, weights: Float64Array | null, k: number, ctx: FitContext): this {
    validateParams('GBDTClassifier', GBDT_CONSTRAINTS, { ...this.params });
    checkLabeled('GBDTClassifier', X, y, k, weights);
    throwIfAborted(ctx.signal);
    const w = weights ? Float32Array.from(weights) : null;
    const n = this.params.nEstimators;
    this.fitted = trainBooster(X.data, X.rows, X.cols, y, w, k, this.params, {
      afterRound: (r) => {
        throwIfAborted(ctx.signal);
        if (ctx.onProgress && (r % 10 === 9 || r === n - 1)) ctx.onProgress({ fraction: (r + 1) / n, message: `round ${r + 1}` });
      },
    });
    const counts = new Array<number>(k).fill(0);
    for (let i = 0; i < y.length; i++) counts[y[i]]++;
    this.lastInfo = {
      nIter: n,
      nTrees: this.fitted.trees.nTrees,
      objective: this.fitted.objective,
      numClass: k,
      absentClasses: counts.flatMap((c, i) => (c === 0 ? [i] : [])),
      weighted: weights !== null,
    };
    return this;
  }

  async predictProba(X: Matrix): Promise<Float32Array> {
    return this.predictProbaSync(X);
  }

  predictProbaSync(X: Matrix): Float32Array {
    if (!this.fitted) throw new NotFittedError('GBDTClassifier');
    checkPredictInput('GBDTClassifier', X, this.fitted.d);
    return predictBoosterProba(this.fitted, X.data, X.rows);
  }

  /** The fitted trees (for debugging against xgboost's dumps). */
  get model(): BoosterModel | null {
    return this.fitted;
  }

  info(): FitInfo {
    return { ...this.lastInfo };
  }

  dispose(): void {
    this.fitted = null;
  }
}
