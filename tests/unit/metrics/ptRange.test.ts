/** P_T Beta shapes: refused outside the range the numerics are checked for; huge ones compute (issue 12, row 6). */
import { describe, expect, it } from 'vitest';
import { curveMetrics, PT_BETA_RANGE, validatePT } from '../../../src/lib/metrics/index.ts';
import { readHash } from '../../../src/lib/share/urlState.ts';

const A = [0.9, 0.85, 0.8, 0.7, 0.65, 0.6];

describe('P_T Beta range', () => {
  it('refuses shapes outside [1e-6, 1e300] with a message naming the range', () => {
    expect(PT_BETA_RANGE).toEqual({ min: 1e-6, max: 1e300 });
    expect(() => validatePT({ kind: 'beta', alpha: 1e301, beta: 1 })).toThrow(
      'P_T beta: alpha must be between 0.000001 and 1e+300 (the range the incomplete beta is tested for), got 1e+301.',
    );
    expect(() => validatePT({ kind: 'beta', alpha: 1, beta: 1e-7 })).toThrow(
      /beta must be between 0\.000001 and 1e\+300/,
    );
    expect(() => validatePT({ kind: 'beta', alpha: 1e300, beta: 1e-6 })).not.toThrow();
  });

  it('huge shapes compute: Beta(1e100, 1e100) puts all weight at t = 0.5, so EA = A(0.5)', () => {
    const ea = curveMetrics(A, { pt: { kind: 'beta', alpha: 1e100, beta: 1e100 } }).integral.ea;
    expect(Math.abs(ea - (0.8 + 0.7) / 2)).toBeLessThan(1e-12);
    // Beta(1e9, 3e9): the mean is 0.25, between t = 0.2 and 0.4.
    const ea2 = curveMetrics(A, { pt: { kind: 'beta', alpha: 1e9, beta: 3e9 } }).integral.ea;
    expect(Math.abs(ea2 - (0.85 - 0.05 * (0.05 / 0.2)))).toBeLessThan(1e-6); // A(0.25) = 0.8375
  });

  it('a link with an unsupported Beta falls back to uniform with a notice that says why', () => {
    const r = readHash('#/results?v=1&pt=beta:1e301,2');
    expect(r.fields.pt).toEqual({ kind: 'uniform' });
    expect(r.notices.join(' ')).toContain('alpha must be between 0.000001 and 1e+300');
  });
});
