/**
 * RAC metrics of one curve in both forms (PROTOCOL.md §8): "integral" (README definitions) and
 * "code" (the original's tables). Supervised baselines are flattened to a₀ before either form.
 */
import { assertCurve } from './curve.ts';
import { codeMetrics, type CodeMetrics } from './code.ts';
import { integralMetrics, type IntegralMetrics } from './integral.ts';
import { UNIFORM_PT, type PT } from './pt.ts';

export { codeMetrics, type CodeMetrics } from './code.ts';
export { integralMetrics, type IntegralMetrics } from './integral.ts';
export { betaShapeError, gridWeightError, PT_BETA_RANGE, validatePT, UNIFORM_PT, type PT } from './pt.ts';
export { regularizedIncompleteBeta, logBeta, logGamma } from './incompleteBeta.ts';
export { MetricInputError, CURVE_POINTS } from './curve.ts';

/** A baseline's curve as scored: aᵢ := a₀ for every i (its models never see t). */
export function flattenBaseline(a: readonly number[]): number[] {
  assertCurve(a, 'flattenBaseline');
  return a.map(() => a[0]);
}

export interface CurveMetricsOptions {
  /** True for supervised baselines (XGBoost, FT-T): the curve is flattened to a₀ first. */
  baseline?: boolean;
  /** P_T for the integral EA; default uniform. */
  pt?: PT;
}

export interface CurveMetrics {
  integral: IntegralMetrics;
  code: CodeMetrics;
  /** Whether the curve was flattened to a₀ (baselines) before scoring. */
  flattened: boolean;
}

/** Both metric forms of one curve. */
export function curveMetrics(
  a: readonly number[],
  { baseline = false, pt = UNIFORM_PT }: CurveMetricsOptions = {},
): CurveMetrics {
  assertCurve(a, 'curveMetrics');
  const scored = baseline ? flattenBaseline(a) : [...a];
  return { integral: integralMetrics(scored, pt), code: codeMetrics(scored), flattened: baseline };
}
