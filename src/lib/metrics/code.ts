/**
 * Code forms of the RAC metrics: what the original benchmark's tables report (PROTOCOL.md §8.2).
 * They differ from the integral forms: AUC is the plain mean, EVM a mean, VS a std, RCC a 6-point Pearson.
 */
import { T_GRID } from '../types.ts';
import { assertCurve, clampCorrelation, deltas, isFlat } from './curve.ts';

export interface CodeMetrics {
  /** mean(a) (not the trapezoid). */
  auc: number;
  /** a₀, reported in place of EA. */
  accT0: number;
  /** min a. */
  wa: number;
  /** mean|Δ| = integral EVM / 5. */
  evm: number;
  /** Population std of Δ = √(integral VS) / 5. */
  vs: number;
  /** Pearson(a, T) over the 6 points, in [−1, 1]; NaN when a is constant. */
  rcc: number;
}

function mean(xs: readonly number[]): number {
  return xs.reduce((s, v) => s + v, 0) / xs.length;
}

/** Pearson correlation; NaN when either side is constant. */
function pearson(x: readonly number[], y: readonly number[]): number {
  const mx = mean(x);
  const my = mean(y);
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < x.length; i++) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) ** 2;
    syy += (y[i] - my) ** 2;
  }
  return sxx > 0 && syy > 0 ? sxy / Math.sqrt(sxx * syy) : Number.NaN;
}

/** The code forms of a 6-point curve `a` (fractions). */
export function codeMetrics(a: readonly number[]): CodeMetrics {
  assertCurve(a, 'codeMetrics');
  const d = deltas(a);
  const md = mean(d);
  return {
    auc: mean(a),
    accT0: a[0],
    wa: Math.min(...a),
    evm: mean(d.map(Math.abs)),
    vs: Math.sqrt(mean(d.map((v) => (v - md) ** 2))),
    rcc: isFlat(a) ? Number.NaN : clampCorrelation(pearson(a, T_GRID)),
  };
}
