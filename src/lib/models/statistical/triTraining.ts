/**
 * Tri-Training with three copies of the XGBoost baseline (PROTOCOL.md §7.1; LAMDA-SSL's
 * `Tri_Training`, Zhou & Li 2005).
 *
 * - Each learner is fitted on its own bootstrap of L (|L| draws with replacement, ctx.rng).
 *   e′ = 0.5 and l′ = 0 for all three. Every fit trains all k classes.
 * - One pass: for learner i with the other two j, h: e_i = #(j wrong ∧ j = h)/#(j = h) on L
 *   (NaN when j and h never agree: no update). If e_i < e′_i: L_i = rows of U where j and h
 *   agree, labeled with that label; if l′_i = 0, l′_i = ⌊e_i/(e′_i − e_i) + 1⌋; if l′_i < |L_i|:
 *   update when e_i·|L_i| < e′_i·l′_i, else if l′_i > e_i/(e′_i − e_i) keep ⌊e′_i l′_i/e_i − 1⌋ rows
 *   of L_i drawn with replacement and update.
 * - After the pass, each updated learner is refitted on L ∪ L_i (the original L, not its
 *   bootstrap), with e′_i = e_i and l′_i = |L_i|. Stop after a pass with no update.
 * - Predict: learner 1's label, replaced by learner 2's where learners 2 and 3 agree. As
 *   probabilities: learner 2's row where learners 2 and 3 agree, else learner 1's (so the argmax
 *   is exactly that label).
 *
 * @see Z.-H. Zhou, M. Li, "Tri-Training: Exploiting Unlabeled Data Using Three Classifiers", TKDE 2005.
 * @example
 * const m = new TriTraining();
 * await m.fit(Xl, yl, Xu, 3, { rng: mt(0) });
 * const p = await m.predictProba(Xtest); // n × 3
 */
import type { Matrix } from '../../types.ts';
import { argmaxRows, checkFitInputs, NotFittedError, throwIfAborted, type Estimator, type FitContext, type FitInfo } from '../estimator.ts';
import { integerIn, validateParams, type ConstraintTable } from '../params.ts';
import { checkPredictInput, GBDT_CONSTRAINTS, GBDT_DEFAULTS, GBDTClassifier, type GBDTParams } from './gbdt.ts';

export interface TriTrainingParams {
  /** Safety cap on passes (the rule terminates by itself: each e′ strictly decreases). Default 1000. */
  maxIter: number;
  /** Hyperparameters of the three XGBoost learners. Default: the baseline's. */
  base: Partial<GBDTParams>;
}

export const TRI_TRAINING_DEFAULTS: Readonly<TriTrainingParams> = Object.freeze({ maxIter: 1000, base: {} });

export const TRI_TRAINING_CONSTRAINTS: ConstraintTable = { maxIter: integerIn(1) };

/** Rows of a row-major matrix, gathered. */
export function takeRows(X: Matrix, rows: ArrayLike<number>): Matrix {
  const d = X.cols;
  const data = new Float32Array(rows.length * d);
  for (let i = 0; i < rows.length; i++) data.set(X.data.subarray(rows[i] * d, rows[i] * d + d), i * d);
  return { data, rows: rows.length, cols: d };
}

/** Vertical concatenation of two matrices with the same columns. */
export function stackRows(a: Matrix, b: Matrix): Matrix {
  const data = new Float32Array((a.rows + b.rows) * a.cols);
  data.set(a.data.subarray(0, a.rows * a.cols));
  data.set(b.data.subarray(0, b.rows * b.cols), a.rows * a.cols);
  return { data, rows: a.rows + b.rows, cols: a.cols };
}

function concatLabels(a: Int32Array, b: Int32Array): Int32Array {
  const out = new Int32Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** The Tri-Training update decision for one learner (pure; exported for tests). */
export function triTrainingDecision(
  e: number,
  ePrime: number,
  lPrime: number,
  nAgree: number,
): { update: boolean; lPrime: number; subsample: number | null } {
  if (!(e < ePrime)) return { update: false, lPrime, subsample: null };
  let lp = lPrime;
  if (lp === 0) lp = Math.floor(e / (ePrime - e) + 1);
  if (lp < nAgree) {
    if (e * nAgree < ePrime * lp) return { update: true, lPrime: lp, subsample: null };
    if (lp > e / (ePrime - e)) return { update: true, lPrime: lp, subsample: Math.floor((ePrime * lp) / e - 1) };
  }
  return { update: false, lPrime: lp, subsample: null };
}

/**
 * The prediction rule on probabilities: learner 2's row where learners 2 and 3 agree on the
 * argmax, learner 1's row elsewhere.
 */
export function triTrainingVote(p1: Float32Array, p2: Float32Array, p3: Float32Array, n: number, k: number): Float32Array {
  const l2 = argmaxRows(p2, n, k);
  const l3 = argmaxRows(p3, n, k);
  const out = new Float32Array(p1);
  for (let r = 0; r < n; r++) {
    if (l2[r] === l3[r]) out.set(p2.subarray(r * k, r * k + k), r * k);
  }
  return out;
}

export class TriTraining implements Estimator {
  readonly name = 'tritraining';
  readonly params: TriTrainingParams;
  private learners: GBDTClassifier[] | null = null;
  private d = 0;
  private k = 0;
  private lastInfo: FitInfo = {};

  constructor(params: Partial<TriTrainingParams> = {}) {
    this.params = { ...TRI_TRAINING_DEFAULTS, ...params };
  }

  get hyper(): Record<string, unknown> {
    return { maxIter: this.params.maxIter, base: { ...GBDT_DEFAULTS, ...this.params.base } };
  }

  async fit(Xl: Matrix, yl: Int32Array, Xu: Matrix, k: number, ctx: FitContext): Promise<this> {
    validateParams('TriTraining', TRI_TRAINING_CONSTRAINTS, { maxIter: this.params.maxIter });
    validateParams('TriTraining.base', GBDT_CONSTRAINTS, this.params.base);
    checkFitInputs('TriTraining', Xl, yl, Xu, k);
    if (Xu.cols !== Xl.cols) {
      throw new Error(`TriTraining.fit: Xu has ${Xu.cols} features; expected ${Xl.cols} like Xl.`);
    }
    const { rng } = ctx;
    // Inner fits share the abort signal but not the progress callback (this fit reports its own).
    const inner: FitContext = { rng, signal: ctx.signal };
    const nl = Xl.rows;
    const learners = [0, 1, 2].map(() => new GBDTClassifier(this.params.base));
    const bootstrapMissingClasses: number[][] = [];
    for (const h of learners) {
      throwIfAborted(ctx.signal);
      const boot = new Int32Array(nl);
      for (let i = 0; i < nl; i++) boot[i] = rng.randint(nl);
      const yb = new Int32Array(nl);
      for (let i = 0; i < nl; i++) yb[i] = yl[boot[i]];
      h.fitSync(takeRows(Xl, boot), yb, null, k, inner); // all k outputs even if yb misses a class
      const seen = new Set(yb);
      bootstrapMissingClasses.push(Array.from({ length: k }, (_, c) => c).filter((c) => !seen.has(c)));
    }
    const predict = (h: GBDTClassifier, X: Matrix) => argmaxRows(h.predictProbaSync(X), X.rows, k);

    const ePrime = [0.5, 0.5, 0.5];
    const lPrime = [0, 0, 0];
    const e = [0, 0, 0];
    const nUpdates = [0, 0, 0];
    let nIter = 0;
    let converged = false;
    const history: { e: number[]; sizes: number[]; updated: boolean[] }[] = [];
    while (nIter < this.params.maxIter) {
      nIter++;
      throwIfAborted(ctx.signal);
      const predL = learners.map((h) => predict(h, Xl));
      const predU = Xu.rows > 0 ? learners.map((h) => predict(h, Xu)) : null;
      const update = [false, false, false];
      const newRows: Int32Array[] = [new Int32Array(0), new Int32Array(0), new Int32Array(0)];
      for (let i = 0; i < 3; i++) {
        const [j, h] = [0, 1, 2].filter((v) => v !== i);
        let wrong = 0;
        let agree = 0;
        for (let r = 0; r < nl; r++) {
          if (predL[j][r] === predL[h][r]) {
            agree++;
            if (predL[j][r] !== yl[r]) wrong++;
          }
        }
        e[i] = wrong / agree; // NaN when j and h never agree: then e < e′ is false
        if (!(e[i] < ePrime[i])) continue;
        const agreeU: number[] = [];
        if (predU) for (let r = 0; r < Xu.rows; r++) if (predU[j][r] === predU[h][r]) agreeU.push(r);
        const dec = triTrainingDecision(e[i], ePrime[i], lPrime[i], agreeU.length);
        lPrime[i] = dec.lPrime;
        if (!dec.update) continue;
        update[i] = true;
        if (dec.subsample === null) newRows[i] = Int32Array.from(agreeU);
        else {
          const pick = new Int32Array(dec.subsample);
          for (let s = 0; s < pick.length; s++) pick[s] = agreeU[rng.randint(agreeU.length)];
          newRows[i] = pick;
        }
      }
      history.push({ e: e.slice(), sizes: newRows.map((r) => r.length), updated: update.slice() });
      for (let i = 0; i < 3; i++) {
        if (!update[i]) continue;
        throwIfAborted(ctx.signal);
        const [j] = [0, 1, 2].filter((v) => v !== i);
        const rows = newRows[i];
        const yNew = new Int32Array(rows.length);
        for (let s = 0; s < rows.length; s++) yNew[s] = predU![j][rows[s]];
        learners[i].fitSync(stackRows(Xl, takeRows(Xu, rows)), concatLabels(yl, yNew), null, k, inner);
        ePrime[i] = e[i];
        lPrime[i] = rows.length;
        nUpdates[i]++;
      }
      ctx.onProgress?.({ fraction: Math.min(0.99, nIter / 20), message: `Tri-Training pass ${nIter}` });
      if (!update.some(Boolean)) {
        converged = true;
        break;
      }
    }
    this.learners = learners;
    this.d = Xl.cols;
    this.k = k;
    this.lastInfo = {
      nIter,
      converged,
      warnings: converged ? [] : [`TriTraining stopped at maxIter=${this.params.maxIter} passes with updates pending.`],
      nUpdates,
      bootstrapMissingClasses,
      finalErrors: ePrime.slice(),
      finalPseudoLabeled: lPrime.slice(),
      history,
    };
    ctx.onProgress?.({ fraction: 1, message: 'Tri-Training fitted' });
    return this;
  }

  async predictProba(X: Matrix): Promise<Float32Array> {
    if (!this.learners) throw new NotFittedError('TriTraining');
    checkPredictInput('TriTraining', X, this.d);
    const [p1, p2, p3] = this.learners.map((h) => h.predictProbaSync(X));
    return triTrainingVote(p1, p2, p3, X.rows, this.k);
  }

  info(): FitInfo {
    return { ...this.lastInfo };
  }

  dispose(): void {
    this.learners = null;
  }
}
