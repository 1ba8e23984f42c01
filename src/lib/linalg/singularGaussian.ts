/**
 * A multivariate normal whose covariance may be singular, with the rule of scipy's
 * `multivariate_normal(allow_singular=True)` (scipy 1.10 `_PSD`), as fixed in PROTOCOL.md §7.1:
 * eigenvalues ≤ cutoff = 1e6·2⁻⁵²·max|λ| count as zero; the pseudo-inverse and pseudo-determinant
 * use the rest; a point whose component in the null space has norm ≥ 1e3·cutoff is outside the
 * support (log density −∞) unless the support test is switched off.
 */
import { symEig } from './symEig.ts';

const EPS = 2 ** -52;
const LOG_2PI = Math.log(2 * Math.PI);

export interface SingularGaussian {
  d: number;
  mean: Float64Array;
  /** Numerical rank of the covariance. */
  rank: number;
  /** log of the pseudo-determinant (sum of log of the kept eigenvalues). */
  logPdet: number;
  /** Eigenvalue cutoff 1e6·2⁻⁵²·max|λ|. */
  cutoff: number;
  /** Whitening rows: rank × d, row r = v_r / sqrt(λ_r); maha = ‖W (x − μ)‖². */
  whiten: Float64Array;
  /** Null-space basis rows: (d − rank) × d. */
  nullBasis: Float64Array;
}

/** @param cov row-major d × d symmetric positive semi-definite matrix */
export function singularGaussian(mean: Float64Array, cov: ArrayLike<number>, d: number): SingularGaussian {
  const { values, vectors } = symEig(cov, d);
  let maxAbs = 0;
  for (let i = 0; i < d; i++) maxAbs = Math.max(maxAbs, Math.abs(values[i]));
  const cutoff = 1e6 * EPS * maxAbs;
  const kept: number[] = [];
  const dropped: number[] = [];
  for (let j = 0; j < d; j++) (values[j] > cutoff ? kept : dropped).push(j);
  const whiten = new Float64Array(kept.length * d);
  let logPdet = 0;
  kept.forEach((j, r) => {
    logPdet += Math.log(values[j]);
    const s = 1 / Math.sqrt(values[j]);
    for (let i = 0; i < d; i++) whiten[r * d + i] = vectors[i * d + j] * s;
  });
  const nullBasis = new Float64Array(dropped.length * d);
  dropped.forEach((j, r) => {
    for (let i = 0; i < d; i++) nullBasis[r * d + i] = vectors[i * d + j];
  });
  return { d, mean: Float64Array.from(mean), rank: kept.length, logPdet, cutoff, whiten, nullBasis };
}

/**
 * log N(x | μ, Σ) with the pseudo-inverse; −∞ outside the support when `checkSupport`.
 * @param x the point, read from x[offset .. offset + d)
 */
export function logDensity(
  g: SingularGaussian,
  x: ArrayLike<number>,
  offset: number,
  checkSupport: boolean,
  work: Float64Array = new Float64Array(g.d),
): number {
  const d = g.d;
  for (let i = 0; i < d; i++) work[i] = x[offset + i] - g.mean[i];
  if (checkSupport && g.rank < d) {
    let res = 0;
    const m = d - g.rank;
    for (let r = 0; r < m; r++) {
      let s = 0;
      for (let i = 0; i < d; i++) s += g.nullBasis[r * d + i] * work[i];
      res += s * s;
    }
    if (Math.sqrt(res) >= 1e3 * g.cutoff) return -Infinity;
  }
  // Two whitened coordinates at a time (two independent sums in flight); each still sums over i in
  // order and maha adds their squares in order r, so the result is bit-identical to one at a time.
  let maha = 0;
  const W = g.whiten;
  let r = 0;
  for (; r + 2 <= g.rank; r += 2) {
    const o0 = r * d;
    const o1 = o0 + d;
    let s0 = 0;
    let s1 = 0;
    for (let i = 0; i < d; i++) {
      const wi = work[i];
      s0 += W[o0 + i] * wi;
      s1 += W[o1 + i] * wi;
    }
    maha += s0 * s0;
    maha += s1 * s1;
  }
  for (; r < g.rank; r++) {
    let s = 0;
    for (let i = 0; i < d; i++) s += W[r * d + i] * work[i];
    maha += s * s;
  }
  return -0.5 * (g.rank * LOG_2PI + g.logPdet + maha);
}
