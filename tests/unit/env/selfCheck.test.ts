import { describe, expect, it } from 'vitest';
import { matmulPlain, maxAbsDiff, testMatrix } from '../../../src/lib/env/selfCheck.ts';

describe('self-check reference', () => {
  it('multiplies a known 2×2 product', () => {
    const a = Float32Array.from([1, 2, 3, 4]);
    const b = Float32Array.from([5, 6, 7, 8]);
    expect(Array.from(matmulPlain(a, b, 2))).toEqual([19, 22, 43, 50]);
  });
  it('builds deterministic, distinct test matrices in [-0.5, 0.5)', () => {
    const a = testMatrix(64, 1);
    expect(Array.from(testMatrix(64, 1))).toEqual(Array.from(a));
    expect(maxAbsDiff(a, testMatrix(64, 2))).toBeGreaterThan(0.5);
    expect(Math.min(...a)).toBeGreaterThanOrEqual(-0.5);
    expect(Math.max(...a)).toBeLessThan(0.5);
    // Values are on a 1/1000 grid, so float32 holds them to ~1e-8.
    expect(new Set(Array.from(a, (x) => Math.round(x * 1000))).size).toBeGreaterThan(900);
  });
  it('reports the largest absolute difference and propagates NaN', () => {
    expect(maxAbsDiff([1, 2, 3], [1, 2.5, 2])).toBe(1);
    expect(maxAbsDiff([1, NaN, 3], [1, 2, 3])).toBeNaN();
    expect(() => maxAbsDiff([1], [1, 2])).toThrow(
      'maxAbsDiff: expected arrays of equal length, got 1 and 2.',
    );
  });
});
