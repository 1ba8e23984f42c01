/**
 * Integral forms of the RAC metrics (README definitions), exact for the piecewise-linear
 * interpolation A(t) of the 6 points (PROTOCOL.md §8.1).
 */
import { T_GRID } from '../types.ts';
import { assertCurve, clampCorrelation, deltas, isFlat, STEP } from './curve.ts';
import { copyPT, expectedAccuracy, UNIFORM_PT, validatePT, type PT } from './pt.ts';

export interface IntegralMetrics {
  /** ∫A (trapezoid). */
  auc: number;
  /** EA(P_T) = ∫P_T·A; equals `auc` for the uniform P_T. */
  ea: number;
  /** The P_T this EA was computed with (always stored with it). */
  pt: PT;
  /** min_t A(t) = min aᵢ. */
  wa: number;
  /** ∫|A′| = Σ|Δᵢ|. */
  evm: number;
  /** ∫(A′ − ∫A′)² = 25·var_pop(Δ). */
  vs: number;
  /** Pearson correlation of t ~ U[0,1] and A(t), in [−1, 1]; NaN for a flat curve. */
  rcc: number;
  /** ∫A². */
  intA2: number;
  /** ∫tA. */
  intTA: number;
}

/** ∫u² and ∫t·u over [0, 1] for the piecewise-linear u through the points `u`. */
function segmentMoments(u: readonly number[]): { int2: number; intT: number } {
  const h = STEP;
  let int2 = 0;
  let intT = 0;
  for (let i = 0; i + 1 < u.length; i++) {
    const p = u[i];
    const q = u[i + 1];
    int2 += (h * (p * p + p * q + q * q)) / 3;
    intT += h * ((T_GRID[i] * (p + q)) / 2 + (h * (p + 2 * q)) / 6);
  }
  return { int2, intT };
}

/** The integral forms of a 6-point curve `a` (fractions), with EA under `pt` (default uniform). */
export function integralMetrics(a: readonly number[], pt: PT = UNIFORM_PT): IntegralMetrics {
  assertCurve(a, 'integralMetrics');
  validatePT(pt);
  const h = STEP;
  const d = deltas(a);
  let auc = 0;
  for (let i = 0; i + 1 < a.length; i++) auc += (h * (a[i] + a[i + 1])) / 2;
  const meanSlope = a[a.length - 1] - a[0]; // ∫A′
  let vs = 0;
  for (const di of d) vs += h * (di / h - meanSlope) ** 2;
  const { int2: intA2, intT: intTA } = segmentMoments(a);
  // RCC from the curve centred on its mean: the same value, without the cancellation of ∫A² − (∫A)².
  let rcc = Number.NaN;
  if (!isFlat(a)) {
    const centred = segmentMoments(a.map((v) => v - auc));
    const variance = centred.int2;
    const covariance = centred.intT; // ∫(t−½)(A−auc) = ∫t(A−auc), since ∫(A−auc) = 0
    rcc =
      variance > 0 ? clampCorrelation(covariance / (Math.sqrt(1 / 12) * Math.sqrt(variance))) : Number.NaN;
  }
  return {
    auc,
    ea: expectedAccuracy(a, pt, auc),
    pt: copyPT(pt),
    wa: Math.min(...a),
    evm: d.reduce((s, v) => s + Math.abs(v), 0),
    vs,
    rcc,
    intA2,
    intTA,
  };
}
