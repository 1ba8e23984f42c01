/**
 * Tri-Training as LAMDA-SSL's `Tri_Training` ran in the original benchmark (PROTOCOL.md §7.1,
 * spec 1.1.0; Zhou & Li 2005).
 *
 * - Learners [XGBoost baseline, SVC, SVC]: learners 2 and 3 are LAMDA-SSL's config
 *   `SVC(C=1, kernel='rbf', gamma='auto', probability=True)` (one-vs-one, libsvm's vote). Each
 *   learner predicts labels. XGBoost trains the classes 0..max seen; an SVC the classes present.
 * - One run generator (ctx.rng), in this order: boot₁ = |L| × randint(|L|), fit XGBoost; boot₂,
 *   fit SVC₂, one randint(2147483647) (scikit-learn's SVC.fit draws a libsvm seed); boot₃, fit
 *   SVC₃, one draw. A one-class SVC bootstrap raises in the original: the initial fits restart from
 *   boot₁ on the continuing stream (`info().tt_restart`, a documented guess).
 * - One pass: for learner i with the other two j, h: e_i = #(j wrong ∧ j = h)/#(j = h) on L
 *   (NaN when j and h never agree: no update). If e_i < e′_i: L_i = rows of U where j and h
 *   agree, labeled with that label; if l′_i = 0, l′_i = ⌊e_i/(e′_i − e_i) + 1⌋; if l′_i < |L_i|:
 *   update when e_i·|L_i| < e′_i·l′_i, else if l′_i > e_i/(e′_i − e_i) keep ⌊e′_i l′_i/e_i − 1⌋ rows
 *   of L_i drawn with replacement (randint(|L_i|) each) and update.
 * - After the pass, each updated learner (in order 1, 2, 3) is refitted on L ∪ L_i (the original
 *   L, not its bootstrap), with e′_i = e_i and l′_i = |L_i|; one draw after each SVC refit. Stop
 *   after a pass with no update.
 * - Predict: learner 1's label, replaced by learner 2's where learners 2 and 3 agree; one-hot rows.
 *
 * @see Z.-H. Zhou, M. Li, "Tri-Training: Exploiting Unlabeled Data Using Three Classifiers", TKDE 2005.
 * @example
 * const m = new TriTraining();
 * await m.fit(Xl, yl, Xu, 3, { rng: mt(0) });
 * const p = await m.predictProba(Xtest); // n × 3, one-hot
 */
import type { Matrix } from '../../types.ts';
import { argmaxRows, NotFittedError, type FitContext, type LiveFitContext } from '../estimator.ts';
import { BaseEstimator } from '../baseEstimator.ts';
import { integerIn, nestedParams, type ConstraintTable } from '../params.ts';
import type { MT19937 } from '../../protocol/rng.ts';
import { GBDT_CONSTRAINTS, GBDT_DEFAULTS, GBDTClassifier, type GBDTParams } from './gbdt.ts';
import { fitOvoSvcTicking, OneClassError, predictOvoSvc, type OvoSvcModel } from './svm/ovoSvc.ts';

export interface TriTrainingParams {
  /** Safety cap on passes (the rule terminates by itself: each e′ strictly decreases). Default 1000. */
  maxIter: number;
  /** Hyperparameters of the XGBoost learner (learner 1). Default: the baseline's. */
  base: Partial<GBDTParams>;
}

export const TRI_TRAINING_DEFAULTS: Readonly<TriTrainingParams> = Object.freeze({ maxIter: 1000, base: {} });

export const TRI_TRAINING_CONSTRAINTS: ConstraintTable = {
  maxIter: integerIn(1),
  base: nestedParams(GBDT_CONSTRAINTS),
};

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
    if (lp > e / (ePrime - e))
      return { update: true, lPrime: lp, subsample: Math.floor((ePrime * lp) / e - 1) };
  }
  return { update: false, lPrime: lp, subsample: null };
}

/**
 * The prediction rule on probabilities: learner 2's row where learners 2 and 3 agree on the
 * argmax, learner 1's row elsewhere.
 */
export function triTrainingVote(
  p1: Float32Array,
  p2: Float32Array,
  p3: Float32Array,
  n: number,
  k: number,
): Float32Array {
  const l2 = argmaxRows(p2, n, k);
  const l3 = argmaxRows(p3, n, k);
  const out = new Float32Array(p1);
  for (let r = 0; r < n; r++) {
    if (l2[r] === l3[r]) out.set(p2.subarray(r * k, r * k + k), r * k);
  }
  return out;
}

/** The original's rule on labels: learner 1's label, learner 2's where learners 2 and 3 agree. */
export function triTrainingVoteLabels(p1: Int32Array, p2: Int32Array, p3: Int32Array): Int32Array {
  const out = Int32Array.from(p1);
  for (let r = 0; r < out.length; r++) if (p2[r] === p3[r]) out[r] = p2[r];
  return out;
}

/** LAMDA-SSL's config SVC for learners 2 and 3 (PROTOCOL.md §7.1). */
export const TRI_TRAINING_SVC = Object.freeze({
  C: 1,
  kernel: 'rbf',
  gamma: 'auto',
  probability: true,
  tol: 1e-3,
  shrinking: true,
});

/** scikit-learn's `SVC.fit` draws `randint(np.iinfo('i').max)` for libsvm even when it is unused. */
const SVC_SEED_RANGE = 2147483647;

/** Rows per prediction block between two ticks. */
const PREDICT_BLOCK = 256;

/** `h.predict(X)` in blocks of rows, ticking between blocks; the same labels as one call. */
async function predictTicking(h: LabelLearner, X: Matrix, tick: () => Promise<void>): Promise<Int32Array> {
  if (X.rows <= PREDICT_BLOCK) return h.predict(X);
  const out = new Int32Array(X.rows);
  for (let r0 = 0; r0 < X.rows; r0 += PREDICT_BLOCK) {
    const r1 = Math.min(X.rows, r0 + PREDICT_BLOCK);
    const block: Matrix = { data: X.data.subarray(r0 * X.cols, r1 * X.cols), rows: r1 - r0, cols: X.cols };
    out.set(h.predict(block), r0);
    await tick();
  }
  return out;
}

/** One learner as Tri-Training sees it: fit on labeled rows (ticking: abort lands), predict labels. */
interface LabelLearner {
  fit(X: Matrix, y: Int32Array): Promise<void>;
  predict(X: Matrix): Int32Array;
}

/** XGBoost training the classes 0..max seen (at least 2 outputs: binary:logistic), predicting argmax labels. */
class XgbLearner implements LabelLearner {
  private readonly model: GBDTClassifier;
  private k = 2;
  constructor(
    params: Partial<GBDTParams>,
    private readonly ctx: FitContext,
  ) {
    this.model = new GBDTClassifier(params);
  }
  async fit(X: Matrix, y: Int32Array): Promise<void> {
    let max = 0;
    for (const v of y) if (v > max) max = v;
    this.k = Math.max(2, max + 1);
    await this.model.fitWeighted(X, y, null, this.k, this.ctx); // one tick per boosting round
  }
  predict(X: Matrix): Int32Array {
    return argmaxRows(this.model.predictProbaSync(X), X.rows, this.k);
  }
}

/** The config SVC; every fit of a valid (≥ 2 classes) set draws one number from the run stream. */
class SvcLearner implements LabelLearner {
  private model: OvoSvcModel | null = null;
  constructor(
    private readonly rng: MT19937,
    private readonly tick: () => Promise<void>,
  ) {}
  async fit(X: Matrix, y: Int32Array): Promise<void> {
    await this.tick();
    this.model = await fitOvoSvcTicking(
      X,
      y,
      { C: TRI_TRAINING_SVC.C, gamma: 'auto', smo: { tol: TRI_TRAINING_SVC.tol, shrinking: true } },
      this.tick,
    );
    this.rng.randint(SVC_SEED_RANGE);
  }
  predict(X: Matrix): Int32Array {
    if (!this.model) throw new NotFittedError('TriTraining SVC');
    return predictOvoSvc(this.model, X);
  }
}

export class TriTraining extends BaseEstimator<TriTrainingParams> {
  readonly name = 'tritraining';
  readonly className = 'TriTraining';
  protected readonly constraints = TRI_TRAINING_CONSTRAINTS;
  private learners: LabelLearner[] | null = null;
  private k = 0;

  constructor(params: Partial<TriTrainingParams> = {}) {
    super(TRI_TRAINING_DEFAULTS, params);
  }

  override get hyper(): Record<string, unknown> {
    return {
      maxIter: this.params.maxIter,
      learners: ['xgb', 'svc', 'svc'],
      base: { ...GBDT_DEFAULTS, ...this.params.base },
      svc: { ...TRI_TRAINING_SVC },
    };
  }

  protected async fitImpl(
    Xl: Matrix,
    yl: Int32Array,
    Xu: Matrix,
    k: number,
    ctx: LiveFitContext,
  ): Promise<void> {
    const { rng } = ctx;
    // Inner fits share the abort signal and ticks but not the progress callback (this fit reports its own).
    const tick = () => ctx.tick();
    const inner: FitContext = { rng, signal: ctx.signal, tick };
    const nl = Xl.rows;
    const make = (): LabelLearner[] => [
      new XgbLearner(this.params.base, inner),
      new SvcLearner(rng, tick),
      new SvcLearner(rng, tick),
    ];
    const bootstrapMissingClasses: number[][] = [];
    const initialFits = async (learners: LabelLearner[]) => {
      bootstrapMissingClasses.length = 0;
      for (const h of learners) {
        await ctx.tick();
        const boot = new Int32Array(nl);
        for (let i = 0; i < nl; i++) boot[i] = rng.randint(nl);
        const yb = new Int32Array(nl);
        for (let i = 0; i < nl; i++) yb[i] = yl[boot[i]];
        const seen = new Set(yb);
        bootstrapMissingClasses.push(Array.from({ length: k }, (_, c) => c).filter((c) => !seen.has(c)));
        await h.fit(takeRows(Xl, boot), yb);
      }
    };
    let learners = make();
    let restarted = false;
    try {
      await initialFits(learners);
    } catch (err) {
      if (!(err instanceof OneClassError)) throw err;
      // The original raises here; PROTOCOL.md §7.1 restarts from boot₁ on the continuing stream.
      restarted = true;
      learners = make();
      await initialFits(learners);
    }

    const ePrime = [0.5, 0.5, 0.5];
    const lPrime = [0, 0, 0];
    const e = [0, 0, 0];
    const nUpdates = [0, 0, 0];
    let nIter = 0;
    let converged = false;
    const history: { e: number[]; sizes: number[]; updated: boolean[] }[] = [];
    while (nIter < this.params.maxIter) {
      nIter++;
      await ctx.tick();
      // Predictions in row blocks with a tick between (3 learners × L and U is the longest stretch
      // without one otherwise: hundreds of ms on letter-sized U); per-row, so the labels are the same.
      const predL: Int32Array[] = [];
      for (const h of learners) predL.push(await predictTicking(h, Xl, tick));
      const predU: Int32Array[] | null = Xu.rows > 0 ? [] : null;
      if (predU) for (const h of learners) predU.push(await predictTicking(h, Xu, tick));
      const update = [false, false, false];
      const newRows: Int32Array[] = [new Int32Array(0), new Int32Array(0), new Int32Array(0)];
      const newLabels: Int32Array[] = [new Int32Array(0), new Int32Array(0), new Int32Array(0)];
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
        newLabels[i] = newRows[i].map((r) => predU![j][r]);
      }
      history.push({ e: e.slice(), sizes: newRows.map((r) => r.length), updated: update.slice() });
      for (let i = 0; i < 3; i++) {
        if (!update[i]) continue;
        await ctx.tick();
        await learners[i].fit(stackRows(Xl, takeRows(Xu, newRows[i])), concatLabels(yl, newLabels[i]));
        ePrime[i] = e[i];
        lPrime[i] = newRows[i].length;
        nUpdates[i]++;
      }
      ctx.onProgress?.({ fraction: Math.min(0.99, nIter / 20), message: `Tri-Training pass ${nIter}` });
      if (!update.some(Boolean)) {
        converged = true;
        break;
      }
    }
    this.learners = learners;
    this.k = k;
    const warnings = converged
      ? []
      : [`TriTraining stopped at maxIter=${this.params.maxIter} passes with updates pending.`];
    if (restarted)
      warnings.push(
        'TriTraining restarted its initial fits after a one-class SVC bootstrap (PROTOCOL.md §7.1).',
      );
    this.lastInfo = {
      nIter,
      converged,
      warnings,
      nUpdates,
      bootstrapMissingClasses,
      finalErrors: ePrime.slice(),
      finalPseudoLabeled: lPrime.slice(),
      history,
      ...(restarted ? { tt_restart: true } : {}),
    };
    ctx.onProgress?.({ fraction: 1, message: 'Tri-Training fitted' });
  }

  /** The three learners' labels, one row each (learner 1, 2, 3). */
  predictLabels(X: Matrix): Int32Array {
    this.checkPredictInput(X);
    const [p1, p2, p3] = this.learners!.map((h) => h.predict(X));
    return triTrainingVoteLabels(p1, p2, p3);
  }

  protected async predictImpl(X: Matrix): Promise<Float32Array> {
    const labels = this.predictLabels(X);
    const out = new Float32Array(X.rows * this.k);
    for (let r = 0; r < X.rows; r++)
      if (labels[r] >= 0 && labels[r] < this.k) out[r * this.k + labels[r]] = 1;
    return out;
  }

  protected release(): void {
    this.learners = null;
  }
}
