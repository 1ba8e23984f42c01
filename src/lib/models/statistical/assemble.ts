/**
 * Assemble (ASSEMBLE.AdaBoost) with the XGBoost baseline as base learner (PROTOCOL.md §7.1;
 * LAMDA-SSL's `Assemble`, Bennett, Demiriz & Maclin 2002).
 *
 * - U is pseudo-labeled by 3-NN on L. Weights β/|L| on L and (1−β)/|U| on U; f₁ is fitted on
 *   L ∪ U with sample weights weight·(|L|+|U|).
 * - Round t (at most T learners): ε = Σ weights of the rows of L ∪ U where f disagrees with the
 *   current labels; w = ½ ln((1−ε)/(ε+1e-8)); append (f, w); stop if ε > 0.5 (after appending);
 *   P = Σ w·f.proba on L ∪ U; relabel U by argmax P; weights ∝ exp(−α·max_c P) + 1e-8,
 *   normalised (α = 1 gives the protocol's exp(−max_c P)); draw |L| rows without replacement
 *   with these probabilities (ctx.rng, numpy's choice(replace=False, p) algorithm); fit the next f
 *   on them with weight·|L|.
 * - Predict: argmax Σ w·proba. predictProba returns Σ w·proba / Σ w when Σ w > 0 (rows sum to
 *   1), else the raw weighted sum (same argmax). Sums run in float32 and the resampling weights use
 *   numpy's pairwise sum, as LAMDA-SSL's numpy code computed them (checked per seed against a port).
 * - Every fit trains all k classes. With U empty, the L weights are 1/|L| and nothing is relabeled.
 *
 * @see K. P. Bennett, A. Demiriz, R. Maclin, "Exploiting unlabeled data in ensemble methods", KDD 2002.
 * @example
 * const m = new Assemble({ T: 30 });
 * await m.fit(Xl, yl, Xu, 3, { rng: mt(0) });
 * const p = await m.predictProba(Xtest); // n × 3
 */
import type { Matrix } from '../../types.ts';
import { argmaxRows, throwIfAborted, type FitContext, type LiveFitContext } from '../estimator.ts';
import { BaseEstimator } from '../baseEstimator.ts';
import { integerIn, interval, nestedParams, type ConstraintTable } from '../params.ts';
import { GBDT_CONSTRAINTS, GBDT_DEFAULTS, GBDTClassifier, type GBDTParams } from './gbdt.ts';
import { knnPredict } from './knn.ts';
import { stackRows, takeRows } from './triTraining.ts';

export interface AssembleParams {
  /** Maximum number of base learners (LAMDA-SSL `T`). Default 30. */
  T: number;
  /** Scale of the margin in the resampling weights exp(−α·max_c P). Default 1. */
  alpha: number;
  /** Share of the initial weight on L (U gets 1 − β). Default 0.9. */
  beta: number;
  /** Neighbours of the initial pseudo-labels. Default 3. */
  nNeighbors: number;
  /** Hyperparameters of the XGBoost learners. Default: the baseline's. */
  base: Partial<GBDTParams>;
}

export const ASSEMBLE_DEFAULTS: Readonly<AssembleParams> = Object.freeze({
  T: 30,
  alpha: 1,
  beta: 0.9,
  nNeighbors: 3,
  base: {},
});

export const ASSEMBLE_CONSTRAINTS: ConstraintTable = {
  T: integerIn(1, 10_000),
  alpha: interval(0, undefined, 'left'),
  beta: interval(0, 1, 'both'),
  nNeighbors: integerIn(1),
  base: nestedParams(GBDT_CONSTRAINTS),
};

/**
 * |want| distinct indices drawn with probabilities ∝ p exactly as numpy's legacy
 * `RandomState.choice(n, want, replace=False, p=p)` (LAMDA-SSL's Assemble draws with it): in rounds,
 * draw `want − found` uniforms (random_sample), zero the found entries of p, cdf = cumsum(p) / its last
 * entry, take searchsorted(cdf, x, 'right') for each, keep the new distinct indices in order of first
 * occurrence; repeat until `want` are found. Same stream use, same indices, same order.
 */
export function weightedSampleWithoutReplacement(
  p: Float64Array,
  want: number,
  rng: FitContext['rng'],
): Int32Array {
  const n = p.length;
  if (want > n) throw new Error(`weightedSampleWithoutReplacement: cannot take ${want} rows from ${n}.`);
  let positive = 0;
  for (let i = 0; i < n; i++) if (p[i] > 0) positive++;
  if (positive < want)
    throw new Error(
      `weightedSampleWithoutReplacement: fewer non-zero entries in p (${positive}) than size (${want}).`,
    );
  const w = Float64Array.from(p);
  const out = new Int32Array(want);
  const cdf = new Float64Array(n);
  let found = 0;
  while (found < want) {
    const x = new Float64Array(want - found);
    for (let i = 0; i < x.length; i++) x[i] = rng.random();
    for (let i = 0; i < found; i++) w[out[i]] = 0;
    let acc = 0;
    for (let i = 0; i < n; i++) cdf[i] = acc += w[i];
    const last = cdf[n - 1];
    for (let i = 0; i < n; i++) cdf[i] /= last;
    const seen = new Set<number>();
    for (const xi of x) {
      // searchsorted(side='right'): the first index whose cdf exceeds xi.
      let lo = 0;
      let hi = n;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (cdf[mid] <= xi) lo = mid + 1;
        else hi = mid;
      }
      if (!seen.has(lo)) {
        seen.add(lo);
        out[found + seen.size - 1] = lo;
      }
    }
    found += seen.size;
  }
  return out;
}

/**
 * acc += w · p the way numpy 1.x did it for a float64 scalar w and float32 arrays (value-based
 * casting): w rounded to float32, product and sum in float32.
 */
export function accumulateWeighted(acc: Float32Array, w: number, p: Float32Array): void {
  const w32 = Math.fround(w);
  for (let i = 0; i < acc.length; i++) acc[i] = Math.fround(acc[i] + Math.fround(w32 * p[i]));
}

/** numpy's pairwise summation of a contiguous float64 array (`ndarray.sum`), bit for bit. */
export function numpyPairwiseSum(a: Float64Array, start = 0, n = a.length): number {
  if (n < 8) {
    let res = 0;
    for (let i = 0; i < n; i++) res += a[start + i];
    return res;
  }
  if (n <= 128) {
    const r = [0, 1, 2, 3, 4, 5, 6, 7].map((j) => a[start + j]);
    let i = 8;
    for (; i < n - (n % 8); i += 8) for (let j = 0; j < 8; j++) r[j] += a[start + i + j];
    let res = r[0] + r[1] + (r[2] + r[3]) + (r[4] + r[5] + (r[6] + r[7]));
    for (; i < n; i++) res += a[start + i];
    return res;
  }
  let n2 = Math.floor(n / 2);
  n2 -= n2 % 8;
  return numpyPairwiseSum(a, start, n2) + numpyPairwiseSum(a, start + n2, n - n2);
}

interface AssembleMember {
  model: GBDTClassifier;
  w: number;
}

export class Assemble extends BaseEstimator<AssembleParams> {
  readonly name = 'assemble';
  readonly className = 'Assemble';
  protected readonly constraints = ASSEMBLE_CONSTRAINTS;
  private members: AssembleMember[] | null = null;
  private k = 0;

  constructor(params: Partial<AssembleParams> = {}) {
    super(ASSEMBLE_DEFAULTS, params);
  }

  override get hyper(): Record<string, unknown> {
    const { base, ...rest } = this.params;
    return { ...rest, base: { ...GBDT_DEFAULTS, ...base } };
  }

  protected async fitImpl(
    Xl: Matrix,
    yl: Int32Array,
    Xu: Matrix,
    k: number,
    ctx: LiveFitContext,
  ): Promise<void> {
    const { base, ...own } = this.params;
    const { T, alpha, beta, nNeighbors } = own;
    // Inner fits share the abort signal and ticks but not the progress callback (this fit reports its own).
    const inner: FitContext = { rng: ctx.rng, signal: ctx.signal, tick: () => ctx.tick() };
    const l = Xl.rows;
    const u = Xu.rows;
    const n = l + u;
    const Xall = stackRows(Xl, Xu);
    const yAll = new Int32Array(n);
    yAll.set(yl);
    if (u > 0) yAll.set(knnPredict(Xl, yl, k, Xu, nNeighbors), l);

    const weight = new Float64Array(n);
    for (let i = 0; i < l; i++) weight[i] = u > 0 ? beta / l : 1 / l;
    for (let i = l; i < n; i++) weight[i] = (1 - beta) / u;
    let f = new GBDTClassifier(base);
    await f.fitWeighted(
      Xall,
      yAll,
      weight.map((v) => v * n),
      k,
      inner,
    );

    const members: AssembleMember[] = [];
    const P = new Float32Array(n * k); // numpy: float64 scalar w × float32 proba stays float32
    const epsilons: number[] = [];
    let stoppedEarly = false;
    for (let t = 0; t < T; t++) {
      throwIfAborted(ctx.signal);
      const proba = f.predictProbaSync(Xall);
      const pred = argmaxRows(proba, n, k);
      let eps = 0;
      for (let i = 0; i < n; i++) if (pred[i] !== yAll[i]) eps += weight[i];
      const w = 0.5 * Math.log((1 - eps) / (eps + 1e-8));
      members.push({ model: f, w });
      epsilons.push(eps);
      ctx.onProgress?.({ fraction: (t + 1) / T, message: `Assemble learner ${t + 1}` });
      if (eps > 0.5) {
        stoppedEarly = true;
        break;
      }
      if (t === T - 1) break; // the last learner is never followed by a resampling
      accumulateWeighted(P, w, proba);
      // Relabel U by the ensemble, reweight every row by its (low) confidence. As numpy computed
      // it: max of the float32 sum, exp in float32, α·that + 1e-8 in float64, ÷ numpy's pairwise sum.
      for (let i = 0; i < n; i++) {
        let best = 0;
        let mx = P[i * k];
        for (let c = 1; c < k; c++) {
          if (P[i * k + c] > mx) {
            mx = P[i * k + c];
            best = c;
          }
        }
        if (i >= l) yAll[i] = best;
        weight[i] = alpha * Math.fround(Math.exp(-mx)) + 1e-8;
      }
      const total = numpyPairwiseSum(weight);
      for (let i = 0; i < n; i++) weight[i] /= total;
      const pick = weightedSampleWithoutReplacement(weight, l, ctx.rng);
      const ys = new Int32Array(l);
      const ws = new Float64Array(l);
      for (let s = 0; s < l; s++) {
        ys[s] = yAll[pick[s]];
        ws[s] = weight[pick[s]] * l;
      }
      f = new GBDTClassifier(base);
      await f.fitWeighted(takeRows(Xall, pick), ys, ws, k, inner);
    }
    this.members = members;
    this.k = k;
    this.lastInfo = {
      nIter: members.length,
      nLearners: members.length,
      stoppedEarly,
      epsilons,
      learnerWeights: members.map((m) => m.w),
      nNeighbors: Math.min(nNeighbors, l),
    };
    ctx.onProgress?.({ fraction: 1, message: 'Assemble fitted' });
  }

  protected async predictImpl(X: Matrix): Promise<Float32Array> {
    const k = this.k;
    const acc = new Float32Array(X.rows * k);
    let wsum = 0;
    for (const { model, w } of this.members!) {
      accumulateWeighted(acc, w, model.predictProbaSync(X));
      wsum += w;
    }
    const scale = wsum > 0 ? 1 / wsum : 1;
    return Float32Array.from(acc, (v) => v * scale);
  }

  protected release(): void {
    this.members = null;
  }
}
