/**
 * SSGMM: semi-supervised Gaussian mixture, one full-covariance component per class, fitted by EM
 * where labeled rows keep their class and unlabeled rows get responsibilities (PROTOCOL.md §7.1;
 * LAMDA-SSL's `SSGMM`).
 *
 * - Init from L: α_c = n_c/|L|, μ_c = class mean, Σ_c = MLE covariance (÷ n_c, usually singular).
 * - Densities use the singular-tolerant rule of scipy's `multivariate_normal(allow_singular=True)`
 *   (see linalg/singularGaussian.ts); option `ssgmmSupport: 'ignore'` skips the support test.
 * - E-step on U only: γ_jc = α_c N_c(x_j) / Σ α N; a zero denominator gives γ_jc = α_c/k (not
 *   normalised, as the original). The E-step is the same under both quirks.
 * - M-step as §7.1; stop when every |Δα_c/α_c| ≤ tol (relative to the previous α_c).
 * - Predict: p(c|x) ∝ N_c(x) without α under quirks 'rsb', α_c N_c(x) via log-sum-exp under 'fixed'.
 *   Rows whose unstabilised scores are all 0 (or NaN) are degenerate: counted in info().nNanRows and
 *   given a uniform row (argmax → the first class), under 'fixed' only when every log score is −∞.
 * - Classes with no labeled row (covertype class 3) are *absent*: α_c = 0 for the whole fit, they
 *   receive no responsibility, have density 0, probability 0, and are skipped by the stop rule;
 *   uniform rows spread over the present classes only. Listed in info().absentClasses.
 *
 * @see X. Zhu, "Semi-supervised learning literature survey" §3 (generative models); LAMDA-SSL SSGMM.
 * @example
 * const m = new SSGMM({ tol: 1e-5 });
 * await m.fit(Xl, yl, Xu, 3, { rng: mt(0) });
 * const p = await m.predictProba(Xtest); // n × 3
 */
import { logDensity, singularGaussian, type SingularGaussian } from '../../linalg/singularGaussian.ts';
import type { Matrix } from '../../types.ts';
import { throwIfAborted, type LiveFitContext } from '../estimator.ts';
import { BaseEstimator } from '../baseEstimator.ts';
import { integerIn, interval, oneOf, type ConstraintTable } from '../params.ts';
import { yieldToEventLoop } from '../yieldToEventLoop.ts';

export interface SSGMMParams {
  /** Stop when every |Δα_c/α_c| ≤ tol. Default 1e-5. */
  tol: number;
  /** Maximum EM iterations. Default 300. */
  maxIter: number;
  /** 'zero': points off a singular covariance's support have density 0 (scipy); 'ignore': no test. */
  ssgmmSupport: 'zero' | 'ignore';
}

export const SSGMM_DEFAULTS: Readonly<SSGMMParams> = Object.freeze({
  tol: 1e-5,
  maxIter: 300,
  ssgmmSupport: 'zero',
});

export const SSGMM_CONSTRAINTS: ConstraintTable = {
  tol: interval(0, undefined, 'left'),
  maxIter: integerIn(1),
  ssgmmSupport: oneOf('zero', 'ignore'),
};

interface SSGMMFitted {
  k: number;
  d: number;
  alpha: Float64Array;
  /** One Gaussian per class, null for absent classes. */
  comps: (SingularGaussian | null)[];
  quirks: 'rsb' | 'fixed';
}

export class SSGMM extends BaseEstimator<SSGMMParams> {
  readonly name = 'ssgmm';
  readonly className = 'SSGMM';
  protected readonly constraints = SSGMM_CONSTRAINTS;
  private fitted: SSGMMFitted | null = null;

  constructor(params: Partial<SSGMMParams> = {}) {
    super(SSGMM_DEFAULTS, params);
  }

  protected async fitImpl(
    Xl: Matrix,
    yl: Int32Array,
    Xu: Matrix,
    k: number,
    ctx: LiveFitContext,
  ): Promise<void> {
    const { tol, maxIter, ssgmmSupport } = this.params;
    const quirks = ctx.quirks ?? 'rsb';
    const checkSupport = ssgmmSupport === 'zero';
    const d = Xl.cols;
    const nl = Xl.rows;
    const nu = Xu.rows;
    const xl = Float64Array.from(Xl.data);
    const xu = Float64Array.from(Xu.data);

    const counts = new Float64Array(k);
    for (let i = 0; i < nl; i++) counts[yl[i]]++;
    const present: number[] = [];
    for (let c = 0; c < k; c++) if (counts[c] > 0) present.push(c);
    const absentClasses = Array.from({ length: k }, (_, c) => c).filter((c) => counts[c] === 0);

    const alpha = new Float64Array(k);
    for (const c of present) alpha[c] = counts[c] / nl;
    const gamma = new Float64Array(nu * k);
    // Initial components: labeled rows only (γ = 0).
    let comps = mStep(xl, yl, xu, gamma, counts, present, k, d, null);

    const num = new Float64Array(k);
    const work = new Float64Array(d);
    let nIter = 0;
    let converged = false;
    let nZeroDenominator = 0;
    for (let it = 0; it < maxIter; it++) {
      throwIfAborted(ctx.signal);
      if (ctx.signal && it % 10 === 9) await yieldToEventLoop();
      // E-step on U.
      nZeroDenominator = 0;
      for (let j = 0; j < nu; j++) {
        let denom = 0;
        for (const c of present) {
          num[c] = alpha[c] * Math.exp(logDensity(comps[c]!, xu, j * d, checkSupport, work));
          denom += num[c];
        }
        if (denom === 0) nZeroDenominator++;
        for (let c = 0; c < k; c++) {
          if (counts[c] === 0) gamma[j * k + c] = 0;
          else gamma[j * k + c] = denom === 0 ? alpha[c] / k : num[c] / denom;
        }
      }
      // M-step.
      const newAlpha = new Float64Array(k);
      comps = mStep(xl, yl, xu, gamma, counts, present, k, d, newAlpha);
      nIter = it + 1;
      let done = true;
      for (const c of present) {
        if (!(Math.abs((newAlpha[c] - alpha[c]) / alpha[c]) <= tol)) done = false;
      }
      alpha.set(newAlpha);
      ctx.onProgress?.({ fraction: nIter / maxIter, message: `EM iteration ${nIter}` });
      if (done) {
        converged = true;
        break;
      }
    }

    this.fitted = { k, d, alpha, comps, quirks };
    const warnings: string[] = [];
    if (!converged) warnings.push(`SSGMM did not converge in maxIter=${maxIter} EM iterations.`);
    this.lastInfo = {
      nIter,
      converged,
      warnings,
      ssgmmSupport,
      quirks,
      absentClasses,
      alpha: Array.from(alpha),
      ranks: comps.map((g) => (g ? g.rank : 0)),
      nZeroDenominatorLastEStep: nZeroDenominator,
    };
    ctx.onProgress?.({ fraction: 1, message: 'SSGMM fitted' });
  }

  protected async predictImpl(X: Matrix): Promise<Float32Array> {
    const f = this.fitted!;
    const { k, d, alpha, comps, quirks } = f;
    const checkSupport = this.params.ssgmmSupport === 'zero';
    const present = comps.map((g, c) => (g ? c : -1)).filter((c) => c >= 0);
    const out = new Float32Array(X.rows * k);
    const logs = new Float64Array(k);
    const lin = new Float64Array(k);
    const work = new Float64Array(d);
    let nNanRows = 0;
    for (let i = 0; i < X.rows; i++) {
      let linSum = 0;
      let maxLog = -Infinity;
      for (const c of present) {
        const l = logDensity(comps[c]!, X.data, i * d, checkSupport, work);
        // 'rsb' scores the density alone (the original's missing prior); 'fixed' adds log α_c.
        logs[c] = quirks === 'fixed' ? l + Math.log(alpha[c]) : l;
        lin[c] = quirks === 'fixed' ? alpha[c] * Math.exp(l) : Math.exp(l);
        linSum += lin[c];
        if (logs[c] > maxLog) maxLog = logs[c];
      }
      const degenerate = !(linSum > 0) || !Number.isFinite(linSum);
      if (degenerate) nNanRows++;
      const row = i * k;
      if (quirks === 'rsb' && !degenerate) {
        for (const c of present) out[row + c] = lin[c] / linSum;
      } else if (quirks === 'fixed' && maxLog > -Infinity && Number.isFinite(maxLog)) {
        let s = 0;
        for (const c of present) s += Math.exp(logs[c] - maxLog);
        for (const c of present) out[row + c] = Math.exp(logs[c] - maxLog) / s;
      } else {
        for (const c of present) out[row + c] = 1 / present.length;
      }
    }
    this.lastInfo = { ...this.lastInfo, nNanRows };
    return out;
  }

  protected release(): void {
    this.fitted = null;
  }
}

/**
 * M-step (also the init when γ ≡ 0): weights 1 for labeled rows of class c, γ_jc for unlabeled row j.
 * Writes α_c = N_c/(|L|+|U|) into `alphaOut` when given.
 */
function mStep(
  xl: Float64Array,
  yl: Int32Array,
  xu: Float64Array,
  gamma: Float64Array,
  counts: Float64Array,
  present: number[],
  k: number,
  d: number,
  alphaOut: Float64Array | null,
): (SingularGaussian | null)[] {
  const nl = yl.length;
  const nu = gamma.length / k;
  const comps: (SingularGaussian | null)[] = new Array(k).fill(null);
  const diff = new Float64Array(d);
  const diff2 = new Float64Array(d);
  for (const c of present) {
    let Nc = counts[c];
    for (let j = 0; j < nu; j++) Nc += gamma[j * k + c];
    const mu = new Float64Array(d);
    for (let i = 0; i < nl; i++) {
      if (yl[i] !== c) continue;
      for (let a = 0; a < d; a++) mu[a] += xl[i * d + a];
    }
    for (let j = 0; j < nu; j++) {
      const g = gamma[j * k + c];
      if (g === 0) continue;
      for (let a = 0; a < d; a++) mu[a] += g * xu[j * d + a];
    }
    for (let a = 0; a < d; a++) mu[a] /= Nc;
    const cov = new Float64Array(d * d);
    const addScatter = (x: Float64Array, off: number, w: number): void => {
      for (let a = 0; a < d; a++) diff[a] = x[off + a] - mu[a];
      for (let a = 0; a < d; a++) {
        const wa = w * diff[a];
        for (let b = a; b < d; b++) cov[a * d + b] += wa * diff[b];
      }
    };
    for (let i = 0; i < nl; i++) if (yl[i] === c) addScatter(xl, i * d, 1);
    // Unlabeled rows two at a time: each entry still receives row j's term, then row j′'s, in row
    // order (bit-identical to one row at a time), with one load and store of cov per pair.
    let pending = -1;
    for (let j = 0; j < nu; j++) {
      const g = gamma[j * k + c];
      if (g === 0) continue;
      if (pending < 0) {
        pending = j;
        continue;
      }
      const g0 = gamma[pending * k + c];
      const o0 = pending * d;
      const o1 = j * d;
      for (let a = 0; a < d; a++) {
        diff[a] = xu[o0 + a] - mu[a];
        diff2[a] = xu[o1 + a] - mu[a];
      }
      for (let a = 0; a < d; a++) {
        const wa0 = g0 * diff[a];
        const wa1 = g * diff2[a];
        for (let b = a; b < d; b++) cov[a * d + b] = cov[a * d + b] + wa0 * diff[b] + wa1 * diff2[b];
      }
      pending = -1;
    }
    if (pending >= 0) addScatter(xu, pending * d, gamma[pending * k + c]);
    for (let a = 0; a < d; a++) {
      for (let b = a; b < d; b++) {
        cov[a * d + b] /= Nc;
        cov[b * d + a] = cov[a * d + b];
      }
    }
    comps[c] = singularGaussian(mu, cov, d);
    if (alphaOut) alphaOut[c] = Nc / (nl + nu);
  }
  return comps;
}
