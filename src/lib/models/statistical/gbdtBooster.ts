/**
 * Gradient boosting as xgboost 1.7's `gbtree` with `binary:logistic` (k = 2, one tree per round)
 * or `multi:softprob` (k > 2, one tree per class per round), in float32 wherever xgboost is:
 *
 * - margins start at base_score (softprob: 0.5 per class; logistic: logit(0.5) = 0) and each
 *   round's leaf values are added in float32, tree after tree (the predictor's order);
 * - gradients of a round come from the margins before the round: softmax with xgboost's quirks
 *   (max seeded with FLT_MIN, float64 sum of float32 exps), g = p − [y = c], h = max(2p(1−p), 1e-16),
 *   both times the sample weight; logistic: g = p − y, h = max(p(1−p), 1e-16) · w;
 * - the model always has k outputs, also when a class has no row (it only gets pushed down),
 *   which is how xgboost behaves with `num_class = k` set explicitly.
 */
import { Forest, growTree, sortColumns, TreeWorkspace, type TreeParams } from './gbdtTree.ts';

const f32 = Math.fround;
const FLT_MIN = 1.1754943508222875e-38;
const EPS16 = Math.fround(1e-16);

/** xgboost 1.7 defaults in brackets; GBDTClassifier's params are exactly these. */
export interface BoostParams {
  /** Boosting rounds (xgboost `n_estimators`). Default 100. */
  nEstimators: number;
  /** Maximum tree depth (`max_depth`). Default 6. */
  maxDepth: number;
  /** Shrinkage η (`learning_rate`/`eta`), applied in float32. Default 0.3. */
  learningRate: number;
  /** L2 penalty λ on leaf weights (`reg_lambda`). Default 1. */
  regLambda: number;
  /** L1 penalty α on leaf weights (`reg_alpha`). Default 0. */
  regAlpha: number;
  /** Minimum loss change to keep a split (`gamma`/`min_split_loss`). Default 0. */
  gamma: number;
  /** Minimum hessian sum in each child (`min_child_weight`). Default 1. */
  minChildWeight: number;
  /** Initial prediction (`base_score`), in (0, 1). Default 0.5. */
  baseScore: number;
}

export interface BoosterModel {
  k: number;
  d: number;
  /** k = 2: one tree per round; otherwise k trees per round, tree r·k + c for class c. */
  trees: Forest;
  /** Margin every row starts from (per output). */
  baseMargin: number;
  objective: 'binary:logistic' | 'multi:softprob';
}

/** expf, correctly rounded in nearly every case (float64 exp, then to float32). */
const expf = (x: number): number => f32(Math.exp(x));

function treeParams(p: BoostParams): TreeParams {
  return {
    maxDepth: p.maxDepth,
    eta: f32(p.learningRate),
    regLambda: f32(p.regLambda),
    regAlpha: f32(p.regAlpha),
    gamma: f32(p.gamma),
    minChildWeight: f32(p.minChildWeight),
  };
}

export function baseMarginOf(p: BoostParams, k: number): number {
  if (k === 2) {
    const b = f32(p.baseScore);
    return f32(-Math.log(f32(f32(1 / b) - 1)));
  }
  return f32(p.baseScore);
}

/** Softmax gradients of one row into grad/hess (class-major: index c·n + r). */
function softmaxGradients(
  margins: Float32Array,
  y: Int32Array,
  w: Float32Array | null,
  n: number,
  k: number,
  grad: Float32Array,
  hess: Float32Array,
): void {
  for (let r = 0; r < n; r++) {
    const o = r * k;
    let wmax = FLT_MIN;
    for (let c = 0; c < k; c++) wmax = Math.max(margins[o + c], wmax);
    let wsum = 0;
    for (let c = 0; c < k; c++) wsum += expf(f32(margins[o + c] - wmax));
    const sum32 = f32(wsum);
    const wt = w ? w[r] : 1;
    const label = y[r];
    for (let c = 0; c < k; c++) {
      const p = f32(expf(f32(margins[o + c] - wmax)) / sum32);
      const h = Math.max(f32(f32(f32(2 * p) * f32(1 - p)) * wt), EPS16);
      const g = label === c ? f32(p - 1) : p;
      grad[c * n + r] = f32(g * wt);
      hess[c * n + r] = h;
    }
  }
}

function sigmoid(x: number): number {
  return f32(1 / f32(expf(f32(-x)) + 1));
}

function logisticGradients(
  margins: Float32Array,
  y: Int32Array,
  w: Float32Array | null,
  n: number,
  grad: Float32Array,
  hess: Float32Array,
): void {
  for (let r = 0; r < n; r++) {
    const p = sigmoid(margins[r]);
    const wt = w ? w[r] : 1;
    grad[r] = f32(f32(p - y[r]) * wt);
    hess[r] = f32(Math.max(f32(p * f32(1 - p)), EPS16) * wt);
  }
}

export interface BoostHooks {
  /** Called after every round (for abort checks and progress); throwing stops the fit. */
  afterRound?: (round: number) => void;
}

/** One boosting run, round by round, so that a sync and an async driver share every line of it. */
class BoosterTraining {
  private readonly tp: TreeParams;
  private readonly nOut: number;
  private readonly baseMargin: number;
  private readonly margins: Float32Array;
  private readonly grad: Float32Array;
  private readonly hess: Float32Array;
  private readonly cols: ReturnType<typeof sortColumns>;
  private readonly ws: TreeWorkspace;
  private readonly trees = new Forest();

  constructor(
    private readonly X: Float32Array,
    private readonly n: number,
    private readonly d: number,
    private readonly y: Int32Array,
    private readonly weights: Float32Array | null,
    private readonly k: number,
    p: BoostParams,
  ) {
    this.tp = treeParams(p);
    this.nOut = k === 2 ? 1 : k;
    this.baseMargin = baseMarginOf(p, k);
    this.margins = new Float32Array(n * this.nOut).fill(this.baseMargin);
    this.grad = new Float32Array(n * this.nOut);
    this.hess = new Float32Array(n * this.nOut);
    this.cols = sortColumns(X, n, d);
    this.ws = new TreeWorkspace(n, d, p.maxDepth);
  }

  round(): void {
    const { X, n, d, y, weights, k, nOut, margins, grad, hess, trees } = this;
    if (k === 2) logisticGradients(margins, y, weights, n, grad, hess);
    else softmaxGradients(margins, y, weights, n, k, grad, hess);
    for (let c = 0; c < nOut; c++) {
      const t = trees.push(
        this.ws,
        growTree(
          this.cols,
          grad.subarray(c * n, (c + 1) * n),
          hess.subarray(c * n, (c + 1) * n),
          this.tp,
          this.ws,
        ),
      );
      for (let r = 0; r < n; r++) {
        margins[r * nOut + c] = f32(margins[r * nOut + c] + trees.leafValue(t, X, r * d));
      }
    }
  }

  finish(): BoosterModel {
    this.trees.trim();
    const { k, d, trees, baseMargin } = this;
    return { k, d, trees, baseMargin, objective: k === 2 ? 'binary:logistic' : 'multi:softprob' };
  }
}

/**
 * Trains a booster on row-major float32 X (n × d) with labels 0..k−1 and optional sample weights
 * (float32, as a DMatrix stores them).
 */
export function trainBooster(
  X: Float32Array,
  n: number,
  d: number,
  y: Int32Array,
  weights: Float32Array | null,
  k: number,
  p: BoostParams,
  hooks: BoostHooks = {},
): BoosterModel {
  const training = new BoosterTraining(X, n, d, y, weights, k, p);
  for (let round = 0; round < p.nEstimators; round++) {
    training.round();
    hooks.afterRound?.(round);
  }
  return training.finish();
}

/** trainBooster with an awaited hook after every round (FitContext.tick: abort, progress, yield). */
export async function trainBoosterAsync(
  X: Float32Array,
  n: number,
  d: number,
  y: Int32Array,
  weights: Float32Array | null,
  k: number,
  p: BoostParams,
  afterRound: (round: number) => Promise<void>,
): Promise<BoosterModel> {
  const training = new BoosterTraining(X, n, d, y, weights, k, p);
  for (let round = 0; round < p.nEstimators; round++) {
    training.round();
    await afterRound(round);
  }
  return training.finish();
}

/** Raw margins (n × outputs; outputs = 1 for k = 2), float32 sums in tree order. */
export function predictMargins(model: BoosterModel, X: Float32Array, n: number): Float32Array {
  const { d, trees } = model;
  const nOut = model.k === 2 ? 1 : model.k;
  const out = new Float32Array(n * nOut).fill(model.baseMargin);
  for (let r = 0; r < n; r++) {
    const o = r * nOut;
    const off = r * d;
    for (let t = 0; t < trees.nTrees; t++) {
      const c = t % nOut;
      out[o + c] = f32(out[o + c] + trees.leafValue(t, X, off));
    }
  }
  return out;
}

/** n × k probabilities: softmax (xgboost's float32 Softmax) or [1 − p, p] for k = 2. */
export function predictBoosterProba(model: BoosterModel, X: Float32Array, n: number): Float32Array {
  const k = model.k;
  const m = predictMargins(model, X, n);
  const out = new Float32Array(n * k);
  if (k === 2) {
    for (let r = 0; r < n; r++) {
      const p1 = sigmoid(m[r]);
      out[r * 2] = f32(1 - p1);
      out[r * 2 + 1] = p1;
    }
    return out;
  }
  for (let r = 0; r < n; r++) {
    const o = r * k;
    let wmax = m[o];
    for (let c = 1; c < k; c++) wmax = Math.max(m[o + c], wmax);
    let wsum = 0;
    for (let c = 0; c < k; c++) {
      const e = expf(f32(m[o + c] - wmax));
      out[o + c] = e;
      wsum += e;
    }
    const s = f32(wsum);
    for (let c = 0; c < k; c++) out[o + c] = f32(out[o + c] / s);
  }
  return out;
}
