/**
 * P_T, the weighting over inconsistency degrees t for the expected accuracy EA (PROTOCOL.md §8.1):
 * uniform on [0, 1] (EA = AUC), a Beta(α, β) density, or point masses on the 6 grid points.
 */
import { regularizedIncompleteBeta } from './incompleteBeta.ts';
import { CURVE_POINTS, MetricInputError, STEP } from './curve.ts';
import { T_GRID } from '../types.ts';

export type PT =
  { kind: 'uniform' } | { kind: 'beta'; alpha: number; beta: number } | { kind: 'grid'; weights: number[] };

export const UNIFORM_PT: PT = Object.freeze({ kind: 'uniform' });

/**
 * The Beta shapes the numerics are tested for: the incomplete beta is checked against mpmath from
 * 1e-6 to 3e300 (tests/unit/metrics/largeBetaGoldens.json); outside that a P_T is refused rather
 * than trusted. Beyond about 1e15 the weight is a point mass at α/(α+β) anyway.
 */
export const PT_BETA_RANGE = Object.freeze({ min: 1e-6, max: 1e300 });

/** Why `v` cannot be the Beta shape `name` (α or β), or null when it can. */
export function betaShapeError(v: unknown, name: string): string | null {
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0)
    return `${name} must be a finite number > 0, got ${String(v)}.`;
  if (v < PT_BETA_RANGE.min || v > PT_BETA_RANGE.max) {
    return `${name} must be between ${PT_BETA_RANGE.min} and ${PT_BETA_RANGE.max} (the range the incomplete beta is tested for), got ${v}.`;
  }
  return null;
}

/**
 * Why `v` cannot be a grid weight, or null when it can: 0, or a finite *normal* positive number.
 * Subnormal weights (below 2.2e-308, e.g. 5e-324) are refused: w·a rounds to w itself at that
 * scale, so a curve at 0.933 would score EA 1.000. Large finite weights are fine: the EA scales
 * the weights by their maximum first, so 1e308 six times is the plain mean, not ∞/∞.
 */
export function gridWeightError(v: unknown): string | null {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0)
    return `must be a finite number ≥ 0, got ${String(v)}.`;
  if (v > 0 && v < MIN_NORMAL)
    return `must be 0 or at least ${MIN_NORMAL} (a normal double: smaller weights lose their precision), got ${v}.`;
  return null;
}

/** The smallest positive normal double (2^-1022). */
export const MIN_NORMAL = 2.2250738585072014e-308;

/** Throws a MetricInputError unless `pt` is a well-formed P_T. */
export function validatePT(pt: unknown): asserts pt is PT {
  if (pt === null || typeof pt !== 'object') {
    throw new MetricInputError(
      `P_T: expected an object like { kind: 'uniform' }, got ${pt === null ? 'null' : typeof pt}.`,
    );
  }
  const p = pt as Record<string, unknown>;
  switch (p.kind) {
    case 'uniform':
      return;
    case 'beta':
      for (const key of ['alpha', 'beta'] as const) {
        const error = betaShapeError(p[key], key);
        if (error) throw new MetricInputError(`P_T beta: ${error}`);
      }
      return;
    case 'grid': {
      const w = p.weights;
      if (!Array.isArray(w) || w.length !== CURVE_POINTS) {
        const got = Array.isArray(w) ? `${w.length} weights` : String(w);
        throw new MetricInputError(
          `P_T grid: expected exactly ${CURVE_POINTS} weights (one per t), got ${got}.`,
        );
      }
      w.forEach((v, i) => {
        const error = gridWeightError(v);
        if (error) throw new MetricInputError(`P_T grid: weight ${i} ${error}`);
      });
      if (!(w as number[]).some((v) => v > 0)) {
        throw new MetricInputError('P_T grid: the weights sum to 0; at least one weight must be positive.');
      }
      return;
    }
    default:
      throw new MetricInputError(
        `P_T: unknown kind ${JSON.stringify(p.kind)}; expected 'uniform', 'beta' or 'grid'.`,
      );
  }
}

/** A plain copy of a validated P_T (stored with every EA). */
export function copyPT(pt: PT): PT {
  if (pt.kind === 'beta') return { kind: 'beta', alpha: pt.alpha, beta: pt.beta };
  if (pt.kind === 'grid') return { kind: 'grid', weights: [...pt.weights] };
  return { kind: 'uniform' };
}

/**
 * ∫ P_T(t) A(t) dt for the piecewise-linear A through `a` under a Beta(α, β) density. PROTOCOL.md
 * writes segment i as cᵢ + sᵢt with ∫ t·p(t) dt = G = α/(α+β) · I_t(α+1, β); we sum the same integral
 * as aᵢ·ΔF + sᵢ·(ΔG − tᵢ·ΔF), which avoids the cancellation of the large cᵢ against sᵢ·ΔG.
 */
function betaExpectedAccuracy(a: readonly number[], alpha: number, beta: number): number {
  const F = T_GRID.map((t) => regularizedIncompleteBeta(t, alpha, beta));
  const G = T_GRID.map((t) => (alpha / (alpha + beta)) * regularizedIncompleteBeta(t, alpha + 1, beta));
  let ea = 0;
  for (let i = 0; i + 1 < CURVE_POINTS; i++) {
    const s = (a[i + 1] - a[i]) / STEP;
    const dF = F[i + 1] - F[i];
    const dG = G[i + 1] - G[i];
    ea += a[i] * dF + s * (dG - T_GRID[i] * dF);
  }
  return ea;
}

/** EA(P_T) of a checked curve; `auc` is its trapezoid AUC (EA under the uniform P_T). */
export function expectedAccuracy(a: readonly number[], pt: PT, auc: number): number {
  switch (pt.kind) {
    case 'uniform':
      return auc;
    case 'beta':
      return betaExpectedAccuracy(a, pt.alpha, pt.beta);
    case 'grid': {
      // Scaled by the largest weight, so the sum of six weights near 1.8e308 cannot overflow to ∞
      // (validatePT has refused the subnormal weights that would lose their precision).
      const max = Math.max(...pt.weights);
      let num = 0;
      let den = 0;
      for (let i = 0; i < CURVE_POINTS; i++) {
        const w = pt.weights[i] / max;
        num += w * a[i];
        den += w;
      }
      return num / den;
    }
  }
}
