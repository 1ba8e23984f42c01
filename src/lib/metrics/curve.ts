/**
 * A robustness curve: six seed-mean accuracies (fractions) at the grid T = [0, 0.2, …, 1]
 * (PROTOCOL.md §8). Shared input checks and small helpers of both metric forms.
 */
import { T_GRID } from '../types.ts';

/** Number of points of every curve (the grid T). */
export const CURVE_POINTS = T_GRID.length;
/** Grid step h. */
export const STEP = 0.2;

/** Bad input to a metric: says what, where, what was expected and what came. */
export class MetricInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MetricInputError';
  }
}

/**
 * Checks that `a` is a curve: exactly 6 finite accuracies in [0, 1] (fractions, not percent).
 * @param where the caller's name, for the message
 */
export function assertCurve(a: readonly number[], where: string): void {
  if (!Array.isArray(a)) {
    throw new MetricInputError(`${where}: expected an array of ${CURVE_POINTS} accuracies, got ${typeof a}.`);
  }
  if (a.length !== CURVE_POINTS) {
    throw new MetricInputError(
      `${where}: expected exactly ${CURVE_POINTS} accuracies (one per t in [${T_GRID.join(', ')}]), got ${a.length}.`,
    );
  }
  for (let i = 0; i < a.length; i++) {
    const v = a[i];
    if (typeof v !== 'number' || Number.isNaN(v)) {
      throw new MetricInputError(
        `${where}: accuracy a[${i}] (t=${T_GRID[i]}) is ${String(v)}; expected a number in [0, 1].`,
      );
    }
    if (!(v >= 0 && v <= 1)) {
      throw new MetricInputError(
        `${where}: accuracy a[${i}] (t=${T_GRID[i]}) is ${v}; expected a fraction in [0, 1] (not percent).`,
      );
    }
  }
}

/** Δᵢ = a_{i+1} − aᵢ, i = 0..4. */
export function deltas(a: readonly number[]): number[] {
  const d: number[] = [];
  for (let i = 0; i + 1 < a.length; i++) d.push(a[i + 1] - a[i]);
  return d;
}

/** True when every point equals a₀ exactly (RCC is then undefined: NaN). */
export function isFlat(a: readonly number[]): boolean {
  return a.every((v) => v === a[0]);
}

/** Pearson correlations are clamped to [−1, 1] against rounding; NaN passes through. */
export function clampCorrelation(r: number): number {
  return r > 1 ? 1 : r < -1 ? -1 : r;
}
