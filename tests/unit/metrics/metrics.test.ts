import { describe, expect, it } from 'vitest';
import {
  codeMetrics,
  curveMetrics,
  flattenBaseline,
  integralMetrics,
  MetricInputError,
  validatePT,
  type PT,
} from '../../../src/lib/metrics/index.ts';
import goldens from './goldens.json' with { type: 'json' };

const E1 = [0.9, 0.85, 0.8, 0.8, 0.7, 0.6];
const E2 = [0.6, 0.7, 0.65, 0.75, 0.7, 0.8];
const E3 = [0.8, 0.8, 0.8, 0.8, 0.8, 0.8];
const TOL = 1e-12;

function close(actual: number, expected: number, tol = TOL): void {
  expect(Math.abs(actual - expected), `${actual} vs ${expected}`).toBeLessThanOrEqual(tol);
}

// PROTOCOL.md §8.3, every number of the worked-examples table, typed in from the spec.
describe('§8.3 worked examples', () => {
  const table = [
    {
      a: E1,
      aucI: 0.78,
      aucC: 0.775,
      t0: 0.9,
      wa: 0.6,
      evmI: 0.3,
      evmC: 0.06,
      vsI: 0.035,
      vsC: 0.0374165738677,
      rccI: -0.962708943886,
      rccC: -0.961571661807,
      intA2: 0.614666666667,
      intTA: 0.368,
      eaBeta: 0.833773714286,
      eaGrid: 0.80625,
    },
    {
      a: E2,
      aucI: 0.7,
      aucC: 0.7,
      t0: 0.6,
      wa: 0.6,
      evmI: 0.4,
      evmC: 0.08,
      vsI: 0.135,
      vsC: 0.0734846922835,
      rccI: 0.862975823953,
      rccC: 0.83152184062,
      intA2: 0.491833333333,
      intTA: 0.360666666667,
      eaBeta: 0.676438857143,
      eaGrid: 0.675,
    },
    {
      a: E3,
      aucI: 0.8,
      aucC: 0.8,
      t0: 0.8,
      wa: 0.8,
      evmI: 0,
      evmC: 0,
      vsI: 0,
      vsC: 0,
      rccI: NaN,
      rccC: NaN,
      intA2: 0.64,
      intTA: 0.4,
      eaBeta: 0.8,
      eaGrid: 0.8,
    },
  ];
  // The table prints 12 significant digits; those columns are compared to 1e-12 with the
  // half-unit of the last printed digit allowed (5e-13), the exact ones to 1e-12 directly.
  it.each(table.map((r, i) => [`E${i + 1}`, r] as const))('%s', (_name, r) => {
    const I = integralMetrics(r.a);
    const C = codeMetrics(r.a);
    close(I.auc, r.aucI);
    close(I.ea, r.aucI);
    expect(I.pt).toEqual({ kind: 'uniform' });
    close(C.auc, r.aucC);
    close(C.accT0, r.t0);
    close(I.wa, r.wa);
    close(C.wa, r.wa);
    close(I.evm, r.evmI);
    close(C.evm, r.evmC);
    close(I.vs, r.vsI);
    close(C.vs, r.vsC);
    if (Number.isNaN(r.rccI)) {
      expect(I.rcc).toBeNaN();
      expect(C.rcc).toBeNaN();
    } else {
      close(I.rcc, r.rccI);
      close(C.rcc, r.rccC);
    }
    close(I.intA2, r.intA2);
    close(I.intTA, r.intTA);
    const beta = integralMetrics(r.a, { kind: 'beta', alpha: 2, beta: 5 });
    close(beta.ea, r.eaBeta);
    expect(beta.pt).toEqual({ kind: 'beta', alpha: 2, beta: 5 });
    expect(beta.auc).toBe(I.auc);
    close(integralMetrics(r.a, { kind: 'grid', weights: [3, 1, 1, 1, 1, 1] }).ea, r.eaGrid);
  });
});

// Full-precision goldens from mpmath (make_goldens.py): quadrature of the interpolated curve,
// so they check the closed-form segment formulas independently.
describe('mpmath goldens (full precision)', () => {
  const curves = goldens.curves as unknown as Record<
    string,
    {
      a: number[];
      integral: Record<string, number | null> & {
        eaBeta: Record<string, number>;
        eaGrid: Record<string, number>;
      };
      code: Record<string, number | null>;
    }
  >;
  for (const [name, g] of Object.entries(curves)) {
    it(name, () => {
      const I = integralMetrics(g.a);
      for (const key of ['auc', 'wa', 'evm', 'vs', 'rcc', 'intA2', 'intTA'] as const) {
        const want = g.integral[key] as number | null;
        if (want === null) expect(I[key], key).toBeNaN();
        else close(I[key], want, 1e-14);
      }
      for (const [ab, want] of Object.entries(g.integral.eaBeta)) {
        const [alpha, beta] = ab.split(',').map(Number);
        close(integralMetrics(g.a, { kind: 'beta', alpha, beta }).ea, want, 1e-14);
      }
      for (const [w, want] of Object.entries(g.integral.eaGrid)) {
        close(integralMetrics(g.a, { kind: 'grid', weights: w.split(',').map(Number) }).ea, want, 2e-16);
      }
      const C = codeMetrics(g.a);
      for (const key of ['auc', 'accT0', 'wa', 'evm', 'vs', 'rcc'] as const) {
        const want = g.code[key];
        if (want === null) expect(C[key], key).toBeNaN();
        else close(C[key], want, 1e-14);
      }
    });
  }
});

describe('relations between the forms', () => {
  const curves = [E1, E2, [0.512, 0.733, 0.291, 0.944, 0.05, 0.377], [1, 0, 1, 0, 1, 0]];
  it.each(curves.map((a) => [a.join(',')]))(
    'code EVM = integral/5, code VS = √(integral VS)/5 for %s',
    (s) => {
      const a = s.split(',').map(Number);
      const I = integralMetrics(a);
      const C = codeMetrics(a);
      close(C.evm, I.evm / 5, 1e-15);
      close(C.vs, Math.sqrt(I.vs) / 5, 1e-15);
    },
  );

  it('beta(1,1) EA equals the uniform EA (= AUC)', () => {
    for (const a of curves) {
      const I = integralMetrics(a);
      close(integralMetrics(a, { kind: 'beta', alpha: 1, beta: 1 }).ea, I.auc, 5e-15);
    }
  });

  it('grid EA with equal weights is the plain mean (= code AUC)', () => {
    for (const a of curves) {
      for (const w of [1, 0.5, 7]) {
        close(
          integralMetrics(a, { kind: 'grid', weights: [w, w, w, w, w, w] }).ea,
          codeMetrics(a).auc,
          1e-15,
        );
      }
    }
  });

  it('grid EA with one point mass picks that point', () => {
    expect(integralMetrics(E1, { kind: 'grid', weights: [0, 0, 0, 5, 0, 0] }).ea).toBe(0.8);
    expect(integralMetrics(E2, { kind: 'grid', weights: [0, 0, 0, 0, 0, 1] }).ea).toBe(0.8);
  });

  it('a mirrored Beta mirrors the curve: EA_{β(5,2)}(a) = EA_{β(2,5)}(reversed a)', () => {
    const rev = [...E1].reverse();
    close(
      integralMetrics(E1, { kind: 'beta', alpha: 5, beta: 2 }).ea,
      integralMetrics(rev, { kind: 'beta', alpha: 2, beta: 5 }).ea,
      1e-15,
    );
  });

  it('RCC is ±1 for straight lines and stays inside [−1, 1]', () => {
    const up = [0, 0.2, 0.4, 0.6, 0.8, 1.0];
    expect(integralMetrics(up).rcc).toBeCloseTo(1, 14);
    expect(integralMetrics(up).rcc).toBeLessThanOrEqual(1);
    expect(codeMetrics(up).rcc).toBeLessThanOrEqual(1);
    expect(codeMetrics([...up].reverse()).rcc).toBeGreaterThanOrEqual(-1);
    expect(integralMetrics([...up].reverse()).rcc).toBeCloseTo(-1, 14);
  });

  it('RCC does not depend on a constant shift (computed centred)', () => {
    const tiny = [0.5, 0.5 + 1e-9, 0.5, 0.5 + 2e-9, 0.5, 0.5 + 3e-9];
    const I = integralMetrics(tiny);
    const J = integralMetrics(tiny.map((v) => v - 0.5));
    close(I.rcc, J.rcc, 1e-6);
    expect(Number.isFinite(I.rcc)).toBe(true);
  });
});

describe('flat curves and baselines', () => {
  it('a flat curve has NaN RCC in both forms and zero EVM / VS', () => {
    for (const v of [0, 0.37, 1]) {
      const a = [v, v, v, v, v, v];
      const r = curveMetrics(a);
      expect(r.integral.rcc).toBeNaN();
      expect(r.code.rcc).toBeNaN();
      expect(r.integral.evm).toBe(0);
      expect(r.code.vs).toBe(0);
      expect(r.integral.auc).toBeCloseTo(v, 15);
    }
  });

  it('flattenBaseline sets every point to a₀', () => {
    expect(flattenBaseline([0.8, 0.81, 0.79, 0.8, 0.82, 0.78])).toEqual(E3);
    expect(flattenBaseline(E1)).toEqual([0.9, 0.9, 0.9, 0.9, 0.9, 0.9]);
  });

  it('§8.3 flattening check: a baseline [0.8, 0.81, 0.79, 0.8, 0.82, 0.78] is scored as E3', () => {
    const raw = [0.8, 0.81, 0.79, 0.8, 0.82, 0.78];
    const pt: PT = { kind: 'beta', alpha: 2, beta: 5 };
    const asBaseline = curveMetrics(raw, { baseline: true, pt });
    const e3 = curveMetrics(E3, { pt });
    expect(asBaseline.flattened).toBe(true);
    expect(asBaseline.integral).toEqual(e3.integral);
    expect(asBaseline.code).toEqual(e3.code);
    expect(asBaseline.integral.rcc).toBeNaN();
    const notBaseline = curveMetrics(raw);
    expect(notBaseline.flattened).toBe(false);
    expect(notBaseline.code.auc).not.toBe(e3.code.auc);
    expect(notBaseline.integral.rcc).not.toBeNaN();
  });

  it('does not mutate its input', () => {
    const a = [0.8, 0.81, 0.79, 0.8, 0.82, 0.78];
    curveMetrics(a, { baseline: true });
    flattenBaseline(a);
    expect(a).toEqual([0.8, 0.81, 0.79, 0.8, 0.82, 0.78]);
  });
});

describe('input validation', () => {
  const cases: [string, unknown, RegExp][] = [
    ['5 points', [0.1, 0.2, 0.3, 0.4, 0.5], /exactly 6 accuracies.*got 5/],
    ['7 points', [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7], /exactly 6 accuracies.*got 7/],
    ['empty', [], /exactly 6 accuracies.*got 0/],
    ['NaN entry', [0.9, 0.8, NaN, 0.7, 0.6, 0.5], /a\[2\] \(t=0.4\) is NaN/],
    ['string entry', [0.9, 0.8, 0.7, '0.7', 0.6, 0.5], /a\[3\] \(t=0.6\) is 0.7; expected a number/],
    [
      'percent',
      [90, 85, 80, 80, 70, 60],
      /a\[0\] \(t=0\) is 90; expected a fraction in \[0, 1\] \(not percent\)/,
    ],
    ['negative', [0.9, -0.1, 0.8, 0.8, 0.7, 0.6], /a\[1\] \(t=0.2\) is -0.1/],
    ['Infinity', [0.9, 0.8, 0.8, 0.8, 0.7, Infinity], /a\[5\] \(t=1\) is Infinity/],
    ['not an array', 'abc', /expected an array of 6 accuracies, got string/],
  ];
  it.each(cases)('rejects %s', (_name, a, message) => {
    for (const fn of [
      () => integralMetrics(a as number[]),
      () => codeMetrics(a as number[]),
      () => curveMetrics(a as number[]),
      () => curveMetrics(a as number[], { baseline: true }),
    ]) {
      expect(fn).toThrow(MetricInputError);
      expect(fn).toThrow(message);
    }
  });

  const badPT: [string, unknown, RegExp][] = [
    ['null', null, /P_T: expected an object/],
    ['unknown kind', { kind: 'gauss' }, /unknown kind "gauss"; expected 'uniform', 'beta' or 'grid'/],
    ['alpha 0', { kind: 'beta', alpha: 0, beta: 2 }, /alpha must be a finite number > 0, got 0/],
    ['beta negative', { kind: 'beta', alpha: 1, beta: -2 }, /beta must be a finite number > 0, got -2/],
    [
      'beta Infinity',
      { kind: 'beta', alpha: 1, beta: Infinity },
      /beta must be a finite number > 0, got Infinity/,
    ],
    ['alpha NaN', { kind: 'beta', alpha: NaN, beta: 1 }, /alpha must be a finite number > 0, got NaN/],
    ['alpha missing', { kind: 'beta', beta: 1 }, /alpha must be a finite number > 0, got undefined/],
    [
      '5 weights',
      { kind: 'grid', weights: [1, 1, 1, 1, 1] },
      /exactly 6 weights \(one per t\), got 5 weights/,
    ],
    ['no weights', { kind: 'grid' }, /exactly 6 weights \(one per t\), got undefined/],
    [
      'negative weight',
      { kind: 'grid', weights: [1, 1, -1, 1, 1, 1] },
      /weight 2 must be a finite number ≥ 0, got -1/,
    ],
    [
      'NaN weight',
      { kind: 'grid', weights: [1, 1, 1, 1, 1, NaN] },
      /weight 5 must be a finite number ≥ 0, got NaN/,
    ],
    ['zero sum', { kind: 'grid', weights: [0, 0, 0, 0, 0, 0] }, /weights sum to 0/],
  ];
  it.each(badPT)('rejects P_T %s', (_name, pt, message) => {
    expect(() => validatePT(pt)).toThrow(message);
    expect(() => integralMetrics(E1, pt as PT)).toThrow(MetricInputError);
    expect(() => curveMetrics(E1, { pt: pt as PT })).toThrow(message);
  });

  it('accepts well-formed P_T values', () => {
    expect(() => validatePT({ kind: 'uniform' })).not.toThrow();
    expect(() => validatePT({ kind: 'beta', alpha: 0.01, beta: 1e3 })).not.toThrow();
    expect(() => validatePT({ kind: 'grid', weights: [0, 0, 0, 0, 0, 1e-9] })).not.toThrow();
  });

  it('stores a copy of the grid weights, not the caller’s array', () => {
    const weights = [3, 1, 1, 1, 1, 1];
    const r = integralMetrics(E1, { kind: 'grid', weights });
    weights[0] = 100;
    expect(r.pt).toEqual({ kind: 'grid', weights: [3, 1, 1, 1, 1, 1] });
  });
});
