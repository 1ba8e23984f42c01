/**
 * Grid P_T weights at the ends of the double range (issue 21, item 8): subnormal weights are
 * refused (with the usual link notice), huge finite ones are scaled by their maximum.
 */
import { describe, expect, it } from 'vitest';
import { curveMetrics, gridWeightError, validatePT } from '../../../src/lib/metrics/index.ts';
import { readHash } from '../../../src/lib/share/urlState.ts';

const A = [0.933, 0.9, 0.85, 0.8, 0.75, 0.7];
const mean = A.reduce((s, x) => s + x, 0) / A.length;

describe('grid P_T at the ends of the double range', () => {
  it('refuses a subnormal weight (5e-324 scored a 0.933 curve as EA 1.000)', () => {
    expect(() => validatePT({ kind: 'grid', weights: [5e-324, 0, 0, 0, 0, 0] })).toThrow(
      'P_T grid: weight 0 must be 0 or at least 2.2250738585072014e-308 (a normal double: smaller weights lose their precision), got 5e-324.',
    );
    expect(gridWeightError(1e-307)).toBeNull();
    expect(gridWeightError(0)).toBeNull();
    expect(gridWeightError(Infinity)).toMatch(/finite number ≥ 0, got Infinity/);
  });

  it('a link with a subnormal weight falls back to uniform with a notice that says why', () => {
    const r = readHash('#/results?v=1&pt=grid:5e-324,0,0,0,0,0');
    expect(r.fields.pt).toEqual({ kind: 'uniform' });
    expect(r.notices).toHaveLength(1);
    expect(r.notices[0]).toContain(
      'Ignored pt="grid:5e-324,0,0,0,0,0" (P_T grid: weight 0 must be 0 or at least',
    );
    expect(readHash('#/results?v=1&pt=grid:1e400,1,1,1,1,1').notices[0]).toContain(
      'weight 0 must be a finite number ≥ 0, got Infinity',
    );
  });

  it('scales by the maximum: 1e308 at every t is the plain mean (it was ∞/∞, shown as "—")', () => {
    const w = 1e308;
    const ea = curveMetrics(A, { pt: { kind: 'grid', weights: [w, w, w, w, w, w] } }).integral.ea;
    expect(ea).toBeCloseTo(mean, 15);
    const link = readHash('#/results?v=1&pt=grid:1e308,1e308,1e308,1e308,1e308,1e308');
    expect(link.notices).toEqual([]);
    expect(link.fields.pt).toEqual({ kind: 'grid', weights: [w, w, w, w, w, w] });
    // A point mass stays exact, and a weight 1e-600 times the largest counts as 0.
    expect(curveMetrics(A, { pt: { kind: 'grid', weights: [1e300, 0, 0, 0, 0, 0] } }).integral.ea).toBe(
      0.933,
    );
    expect(curveMetrics(A, { pt: { kind: 'grid', weights: [1e-300, 1e300, 0, 0, 0, 0] } }).integral.ea).toBe(
      0.9,
    );
  });
});
