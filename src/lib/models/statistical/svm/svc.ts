/**
 * Binary RBF C-SVC with per-sample C, equivalent to scikit-learn's SVC(kernel='rbf') fitted with
 * sample_weight (libsvm bounds α_i by C·w_i). Labels are ±1 with +1 the positive class, so that
 * decision > 0 means +1, as sklearn's decision_function with classes_ = [−1, +1].
 *
 * libsvm treats the first class (sklearn sorts: −1) as its internal +1; we hand the solver −y to
 * walk the same path (tie-breaks in working-set selection depend on the sign), and flip back.
 */
import { RbfKernel, rbf } from './kernel.ts';
import { solveSmo, type SmoOptions, type SmoWarmStart } from './smo.ts';

export interface BinarySvcModel {
  gamma: number;
  d: number;
  /** Indices of the support vectors (α_i > 0) in the training rows, ascending. */
  support: Int32Array;
  /** y_i α_i for each support vector (sklearn's dual_coef_). */
  dualCoef: Float64Array;
  /** sklearn's intercept_ (= libsvm ρ of the internal problem). */
  intercept: number;
  /** Decision values of all training rows, read from the solver's gradient. */
  trainingDecision: Float64Array;
  nIter: number;
  converged: boolean;
  /** Support-vector rows, row-major (support.length × d), for prediction. */
  svX: Float64Array;
  /** The dual solution α (by training row), to warm-start the next solve on the same rows. */
  alpha: Float64Array;
  /** The solver's gradient pieces u, v (SmoWarmStart, solver labels −y), for warmAfterFlips. */
  u: Float64Array;
  v: Float64Array;
}

/**
 * Warm start for the next solve on the same kernel rows after the labels of `rows` flipped (±1
 * labels `yNew`) and their α became `alphaNew[rows]` (bounds C unchanged): u and v are updated
 * with one kernel row per changed row instead of one per support vector.
 */
export function warmAfterFlips(
  model: BinarySvcModel,
  kernel: RbfKernel,
  yOld: Int8Array,
  yNew: Int8Array,
  alphaNew: Float64Array,
  C: Float64Array,
  rows: number[],
): SmoWarmStart {
  const u = Float64Array.from(model.u);
  const v = Float64Array.from(model.v);
  const n = kernel.n;
  for (const i of rows) {
    // Solver labels are −y (see fitBinarySvc).
    const du = -yNew[i] * alphaNew[i] + yOld[i] * model.alpha[i];
    const dv = (alphaNew[i] >= C[i] ? -yNew[i] * C[i] : 0) - (model.alpha[i] >= C[i] ? -yOld[i] * C[i] : 0);
    if (du === 0 && dv === 0) continue;
    const Ki = kernel.row(i);
    for (let j = 0; j < n; j++) {
      u[j] += du * Ki[j];
      v[j] += dv * Ki[j];
    }
  }
  return { alpha: alphaNew, u, v };
}

/**
 * @param kernel RBF kernel over the training rows (gamma already chosen; see scaleGamma)
 * @param y labels ±1 (+1 positive)
 * @param C per-sample bounds (C · sample_weight)
 */
export function fitBinarySvc(
  kernel: RbfKernel,
  y: Int8Array,
  C: Float64Array,
  opts: SmoOptions = {},
): BinarySvcModel {
  const n = kernel.n;
  const yInt = new Int8Array(n);
  for (let i = 0; i < n; i++) {
    if (y[i] !== 1 && y[i] !== -1)
      throw new RangeError(`fitBinarySvc: labels must be ±1; got ${y[i]} at row ${i}.`);
    if (!(C[i] > 0)) throw new RangeError(`fitBinarySvc: per-sample C must be > 0; got ${C[i]} at row ${i}.`);
    yInt[i] = -y[i];
  }
  // sklearn hands libsvm the rows grouped by class (classes_[0] = −1 first), stable within a class.
  const order = new Int32Array(n);
  let w = 0;
  for (let i = 0; i < n; i++) if (y[i] === -1) order[w++] = i;
  for (let i = 0; i < n; i++) if (y[i] === 1) order[w++] = i;
  const res = solveSmo(kernel, yInt, C, { order, ...opts });
  const sv: number[] = [];
  for (let i = 0; i < n; i++) if (res.alpha[i] > 0) sv.push(i);
  const support = Int32Array.from(sv);
  const dualCoef = new Float64Array(sv.length);
  const d = kernel.d;
  const svX = new Float64Array(sv.length * d);
  sv.forEach((i, r) => {
    dualCoef[r] = y[i] * res.alpha[i];
    svX.set(kernel.x.subarray(i * d, (i + 1) * d), r * d);
  });
  // Internal decision: Σ α_i yInt_i K_ij − ρ = yInt_j (G_j + 1) − ρ; ours is its negative.
  const trainingDecision = new Float64Array(n);
  for (let j = 0; j < n; j++) trainingDecision[j] = -(yInt[j] * (res.G[j] + 1) - res.rho);
  return {
    gamma: kernel.gamma,
    d,
    support,
    dualCoef,
    intercept: res.rho,
    trainingDecision,
    nIter: res.nIter,
    converged: res.converged,
    svX,
    alpha: res.alpha,
    u: res.u,
    v: res.v,
  };
}

/** Decision values Σ dualCoef_i K(sv_i, x) + intercept for each row of X (row-major n × d). */
export function svcDecision(model: BinarySvcModel, X: ArrayLike<number>, n: number): Float64Array {
  const { d, svX, dualCoef, gamma, intercept } = model;
  const out = new Float64Array(n);
  const nsv = dualCoef.length;
  for (let r = 0; r < n; r++) {
    const off = r * d;
    let s = 0;
    for (let v = 0; v < nsv; v++) s += dualCoef[v] * rbf(svX, v * d, X, off, d, gamma);
    out[r] = s + intercept;
  }
  return out;
}

export { RbfKernel };
