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
import { BaseEstimator } from '../baseEstimator.ts';
import {
  checkFitInputs,
  InputError,
  throwIfAborted,
  type FitContext,
  type LiveFitContext,
} from '../estimator.ts';
import { integerIn, interval, type ConstraintTable } from '../params.ts';
import {
  predictBoosterProba,
  trainBooster,
  trainBoosterAsync,
  type BoosterModel,
  type BoostParams,
} from './gbdtBooster.ts';

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

function checkWeights(estimator: string, X: Matrix, weights: Float64Array | null): void {
  if (!weights) return;
  if (weights.length !== X.rows) {
    throw new InputError(
      `${estimator}.fit: weights has ${weights.length} values; expected one per row (${X.rows}).`,
    );
  }
  for (let i = 0; i < weights.length; i++) {
    if (!(weights[i] >= 0) || !Number.isFinite(weights[i])) {
      throw new InputError(
        `${estimator}.fit: weights must be finite and ≥ 0. Got ${weights[i]} at row ${i} instead.`,
      );
    }
  }
}

/** Input checks shared by the XGBoost-based estimators (sklearn-style messages). */
export function checkLabeled(
  estimator: string,
  X: Matrix,
  y: Int32Array,
  k: number,
  weights?: Float64Array | null,
): void {
  checkFitInputs(estimator, X, y, null, k);
  checkWeights(estimator, X, weights ?? null);
}

export function checkPredictInput(estimator: string, X: Matrix, d: number): void {
  if (X.cols !== d) {
    throw new InputError(`X has ${X.cols} features, but ${estimator} is expecting ${d} features as input.`);
  }
  if (X.data.length !== X.rows * X.cols) {
    throw new InputError(
      `${estimator}.predictProba: X.data has ${X.data.length} values; expected rows × cols = ${X.rows * X.cols}.`,
    );
  }
}

const noRows = (cols: number): Matrix => ({ data: new Float32Array(0), rows: 0, cols });

export class GBDTClassifier extends BaseEstimator<GBDTParams> {
  readonly name = 'xgb';
  readonly className = 'GBDTClassifier';
  protected readonly constraints = GBDT_CONSTRAINTS;
  /** Labeled rows only: Xu is neither read nor checked. */
  protected override readonly readsUnlabeled = false;
  private fitted: BoosterModel | null = null;
  /** Sample weights of the fit in progress (set by fitWeighted for the duration of one fit). */
  private pendingWeights: Float64Array | null = null;

  constructor(params: Partial<GBDTParams> = {}) {
    super(GBDT_DEFAULTS, params);
  }

  override get hyper(): Record<string, unknown> {
    return {
      ...this.params,
      treeMethod: 'exact',
      objective: 'binary:logistic (k=2) | multi:softprob (k>2)',
      numClass: 'k',
    };
  }

  /** Baseline fit: labeled rows only (Xu is not used); one `ctx.tick()` per boosting round. */
  protected async fitImpl(
    Xl: Matrix,
    yl: Int32Array,
    _Xu: Matrix,
    k: number,
    ctx: LiveFitContext,
  ): Promise<void> {
    const weights = this.pendingWeights;
    const w = weights ? Float32Array.from(weights) : null;
    const n = this.params.nEstimators;
    this.fitted = await trainBoosterAsync(Xl.data, Xl.rows, Xl.cols, yl, w, k, this.params, (r) =>
      ctx.tick(
        r % 10 === 9 || r === n - 1
          ? { fraction: (r + 1) / n, step: r + 1, total: n, message: `round ${r + 1}` }
          : undefined,
      ),
    );
    this.lastInfo = this.fitInfo(yl, k, weights !== null);
  }

  /** Fit with optional per-row sample weights (stored as float32, as in a DMatrix). */
  async fitWeighted(
    X: Matrix,
    y: Int32Array,
    weights: Float64Array | null,
    k: number,
    ctx: FitContext,
  ): Promise<this> {
    checkWeights(this.className, X, weights);
    this.pendingWeights = weights;
    try {
      return await this.fit(X, y, noRows(X.cols), k, ctx);
    } finally {
      this.pendingWeights = null;
    }
  }

  /** Synchronous fit (no ticks: abort is checked between rounds, but nothing yields, so a cancel
   *  message cannot land during it). Prefer fitWeighted. */
  fitSync(X: Matrix, y: Int32Array, weights: Float64Array | null, k: number, ctx: FitContext): this {
    this.validate();
    checkLabeled(this.className, X, y, k, weights);
    throwIfAborted(ctx.signal);
    this.dispose();
    const w = weights ? Float32Array.from(weights) : null;
    const n = this.params.nEstimators;
    this.fitted = trainBooster(X.data, X.rows, X.cols, y, w, k, this.params, {
      afterRound: (r) => {
        throwIfAborted(ctx.signal);
        if (ctx.onProgress && (r % 10 === 9 || r === n - 1))
          ctx.onProgress({ fraction: (r + 1) / n, message: `round ${r + 1}` });
      },
    });
    this.lastInfo = this.fitInfo(y, k, weights !== null);
    this.markFitted(X.cols);
    return this;
  }

  private fitInfo(y: Int32Array, k: number, weighted: boolean) {
    const counts = new Array<number>(k).fill(0);
    for (let i = 0; i < y.length; i++) counts[y[i]]++;
    return {
      nIter: this.params.nEstimators,
      nTrees: this.fitted!.trees.nTrees,
      objective: this.fitted!.objective,
      numClass: k,
      absentClasses: counts.flatMap((c, i) => (c === 0 ? [i] : [])),
      weighted,
    };
  }

  protected async predictImpl(X: Matrix): Promise<Float32Array> {
    return predictBoosterProba(this.fitted!, X.data, X.rows);
  }

  predictProbaSync(X: Matrix): Float32Array {
    this.checkPredictInput(X);
    return predictBoosterProba(this.fitted!, X.data, X.rows);
  }

  /** The fitted trees (for debugging against xgboost's dumps). */
  get model(): BoosterModel | null {
    return this.fitted;
  }

  protected release(): void {
    this.fitted = null;
  }
}
