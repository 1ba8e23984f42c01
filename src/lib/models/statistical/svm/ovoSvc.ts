/**
 * Multi-class RBF C-SVC predicting labels the way scikit-learn's `SVC.predict` does (libsvm's
 * `svm_predict`): one binary machine per pair of the classes present in the training rows (sorted),
 * each trained on that pair's rows (class i first, stable order) with the libsvm-equivalent SMO,
 * and a one-vs-one vote: pair (i, j), i < j, votes i when libsvm's decision value is > 0 (ours is
 * its exact negation, so: when ours is < 0), else j; the most votes wins, ties to the smallest class.
 * Platt probabilities are never used (`probability=True` only adds a CV whose seed draw the caller
 * accounts for; the decision function is the same). PROTOCOL.md §7.1 (Tri-Training, spec 1.1.0).
 *
 * @example
 * const m = fitOvoSvc(X, y, { gamma: 'auto' });   // SVC(C=1, kernel='rbf', gamma='auto')
 * const labels = predictOvoSvc(m, Xtest);          // Int32Array of class labels
 */
import type { Matrix } from '../../../types.ts';
import { RbfKernel, rbf, scaleGamma } from './kernel.ts';
import type { SmoOptions } from './smo.ts';
import { fitBinarySvc, type BinarySvcModel } from './svc.ts';

export interface OvoSvcOptions {
  /** C (same for every row). Default 1. */
  C?: number;
  /** 'auto' = 1/d, 'scale' = 1/(d·Var X), or a number. Default 'scale' (sklearn's default). */
  gamma?: 'auto' | 'scale' | number;
  smo?: SmoOptions;
}

export interface OvoSvcModel {
  /** The classes present in the training rows, ascending (sklearn's classes_). */
  classes: Int32Array;
  /**
   * Machines in libsvm's pair order (0,1), (0,2), …, (1,2), …; `a` < `b` index `classes`;
   * `svSlot[v]`: the pair's support vector v as a row of `svX`.
   */
  pairs: { a: number; b: number; model: BinarySvcModel; svSlot: Int32Array }[];
  /** The distinct support vectors of all pairs (a training row is one slot however many pairs use it). */
  svX: Float64Array;
  d: number;
  gamma: number;
  nIter: number;
}

/** scikit-learn's message for a one-class training set (BaseLibSVM._validate_targets). */
export class OneClassError extends Error {
  constructor(nClasses: number) {
    super(`The number of classes has to be greater than one; got ${nClasses} class`);
    this.name = 'OneClassError';
  }
}

export function fitOvoSvc(X: Matrix, y: Int32Array, opts: OvoSvcOptions = {}): OvoSvcModel {
  const steps = ovoSvcSteps(X, y, opts);
  for (let r = steps.next(); ; r = steps.next()) if (r.done) return r.value;
}

/**
 * The same fit with `tick` awaited between the pair solves, so an abort lands within one binary
 * solve instead of after all k(k−1)/2 of them (Tri-Training's learners).
 */
export async function fitOvoSvcTicking(
  X: Matrix,
  y: Int32Array,
  opts: OvoSvcOptions,
  tick: () => Promise<void>,
): Promise<OvoSvcModel> {
  const steps = ovoSvcSteps(X, y, opts);
  for (let r = steps.next(); ; r = steps.next()) {
    if (r.done) return r.value;
    await tick();
  }
}

/** The one-vs-one fit as a generator: it yields after each pair's binary solve. */
function* ovoSvcSteps(X: Matrix, y: Int32Array, opts: OvoSvcOptions): Generator<void, OvoSvcModel> {
  const { rows: n, cols: d } = X;
  if (y.length !== n)
    throw new RangeError(`fitOvoSvc: y has ${y.length} labels; expected one per row (${n}).`);
  const C = opts.C ?? 1;
  if (!(C > 0) || !Number.isFinite(C))
    throw new RangeError(`fitOvoSvc: C must be a positive finite number; got ${C}.`);
  const classes = Int32Array.from(new Set(y)).sort();
  if (classes.length < 2) throw new OneClassError(classes.length);
  const g = opts.gamma ?? 'scale';
  const gamma = g === 'auto' ? 1 / d : g === 'scale' ? scaleGamma(X.data, n, d) : g;
  const byClass = Array.from(classes, (c) => {
    const rows: number[] = [];
    for (let r = 0; r < n; r++) if (y[r] === c) rows.push(r);
    return rows;
  });
  const pairs: OvoSvcModel['pairs'] = [];
  const slotOf = new Map<number, number>(); // training row → row of svX
  const svRows: number[] = [];
  let nIter = 0;
  for (let a = 0; a < classes.length; a++) {
    for (let b = a + 1; b < classes.length; b++) {
      const rows = [...byClass[a], ...byClass[b]];
      const m = rows.length;
      const sub = new Float64Array(m * d);
      rows.forEach((r, i) => {
        for (let f = 0; f < d; f++) sub[i * d + f] = X.data[r * d + f];
      });
      const yy = new Int8Array(m);
      for (let i = 0; i < m; i++) yy[i] = i < byClass[a].length ? -1 : 1; // class a = sklearn's first class (−1)
      const model = fitBinarySvc(new RbfKernel(sub, m, d, gamma), yy, new Float64Array(m).fill(C), opts.smo);
      nIter += model.nIter;
      const svSlot = Int32Array.from(model.support, (i) => {
        const row = rows[i];
        let slot = slotOf.get(row);
        if (slot === undefined) {
          slot = svRows.length;
          slotOf.set(row, slot);
          svRows.push(row);
        }
        return slot;
      });
      pairs.push({ a, b, model, svSlot });
      yield;
    }
  }
  const svX = new Float64Array(svRows.length * d);
  svRows.forEach((r, slot) => {
    for (let f = 0; f < d; f++) svX[slot * d + f] = X.data[r * d + f];
  });
  return { classes, pairs, svX, d, gamma, nIter };
}

/** libsvm's one-vs-one vote; returns class labels (values of `classes`). */
export function predictOvoSvc(model: OvoSvcModel, X: Matrix): Int32Array {
  if (X.cols !== model.d)
    throw new RangeError(`predictOvoSvc: X has ${X.cols} features; the model was fitted with ${model.d}.`);
  const n = X.rows;
  const k = model.classes.length;
  const votes = new Int32Array(n * k);
  // One kernel value per distinct support vector and row, shared by every pair (libsvm's
  // svm_predict does the same over model->SV); each pair then sums its dual coefficients over
  // those values in its own order, so decisions equal svcDecision's pair by pair.
  const { svX, d, gamma } = model;
  const nsv = svX.length / d;
  const kv = new Float64Array(nsv);
  const Xd = X.data;
  for (let r = 0; r < n; r++) {
    const off = r * d;
    for (let v = 0; v < nsv; v++) kv[v] = rbf(svX, v * d, Xd, off, d, gamma);
    for (const { a, b, model: m, svSlot } of model.pairs) {
      const coef = m.dualCoef;
      let s = 0;
      for (let v = 0; v < coef.length; v++) s += coef[v] * kv[svSlot[v]];
      const dec = s + m.intercept;
      // libsvm's value is −dec: it votes a when −dec > 0, else b.
      votes[r * k + (-dec > 0 ? a : b)]++;
    }
  }
  const out = new Int32Array(n);
  for (let r = 0; r < n; r++) {
    let best = 0;
    for (let c = 1; c < k; c++) if (votes[r * k + c] > votes[r * k + best]) best = c;
    out[r] = model.classes[best];
  }
  return out;
}
