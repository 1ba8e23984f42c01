import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RbfKernel, scaleGamma } from '../../../../src/lib/models/statistical/svm/kernel.ts';
import { fitBinarySvc, svcDecision, warmAfterFlips } from '../../../../src/lib/models/statistical/svm/svc.ts';

interface SvcCase {
  name: string;
  X: number[][];
  y: number[];
  sampleWeight: number[];
  C: number;
  Xtest: number[][];
  gamma: number;
  decisionTrain: number[];
  decisionTest: number[];
  support: number[];
  dualCoef: number[];
  intercept: number;
  nIter: number;
}
const { cases } = JSON.parse(
  readFileSync(fileURLToPath(new URL('../../../fixtures/svm/svc.json', import.meta.url)), 'utf8'),
) as { cases: SvcCase[] };

function fit(c: SvcCase, cacheMb?: number) {
  const n = c.X.length;
  const d = c.X[0].length;
  // Float32 round trip: the estimator inputs are Float32Array; the fixture X is float32-exact.
  const x = Float64Array.from(Float32Array.from(c.X.flat()));
  const gamma = scaleGamma(x, n, d);
  const kernel = new RbfKernel(x, n, d, gamma, { cacheMb });
  const C = Float64Array.from(c.sampleWeight, (w) => c.C * w);
  return { model: fitBinarySvc(kernel, Int8Array.from(c.y), C), gamma, kernel };
}

describe('binary SVC (SMO) against scikit-learn 1.2.1 SVC (tests/fixtures/svm/svc.json)', () => {
  for (const c of cases) {
    it(`${c.name}: gamma, support set, dual coefficients, intercept, decision values`, () => {
      const { model, gamma } = fit(c);
      expect(gamma).toBeCloseTo(c.gamma, 12);
      expect(model.converged).toBe(true);
      // sklearn lists support vectors grouped by class (libsvm's order); compare as sorted sets.
      const order = c.support.map((s, v) => [s, v]).sort((a, b) => a[0] - b[0]);
      expect(Array.from(model.support)).toEqual(order.map((o) => o[0]));
      order.forEach(([, v], r) => expect(Math.abs(model.dualCoef[r] - c.dualCoef[v])).toBeLessThan(1e-9));
      // Same path as libsvm: same iteration count and ρ to rounding.
      expect(model.nIter).toBe(c.nIter);
      expect(Math.abs(model.intercept - c.intercept)).toBeLessThan(1e-12);
      const maxErr = (a: ArrayLike<number>, b: number[]) => Math.max(...b.map((v, i) => Math.abs(a[i] - v)));
      const test = svcDecision(model, Float32Array.from(c.Xtest.flat()), c.Xtest.length);
      expect(maxErr(test, c.decisionTest)).toBeLessThan(1e-12);
      const recomputed = svcDecision(model, Float32Array.from(c.X.flat()), c.X.length);
      expect(maxErr(recomputed, c.decisionTrain)).toBeLessThan(1e-12);
      // Decision values read from the solver gradient carry libsvm's float32 Q: within 1e-5.
      expect(maxErr(model.trainingDecision, c.decisionTrain)).toBeLessThan(1e-5);
    });
  }

  it('a tiny cache (2 rows) gives exactly the same solution as a large one', () => {
    const c = cases[4];
    const big = fit(c).model;
    expect(fit(c).kernel.rowsComputed).toBeLessThanOrEqual(c.X.length);
    const small = fit(c, (2 * 4 * c.X.length) / (1024 * 1024));
    expect(small.kernel.rowsComputed).toBeGreaterThan(c.X.length); // it really did recompute rows
    expect(Array.from(small.model.trainingDecision)).toEqual(Array.from(big.trainingDecision));
  });

  it('rejects labels other than ±1 and non-positive C', () => {
    const k = new RbfKernel([0, 1], 2, 1, 1);
    expect(() => fitBinarySvc(k, Int8Array.from([1, 0]), Float64Array.from([1, 1]))).toThrow(
      'fitBinarySvc: labels must be ±1; got 0 at row 1.',
    );
    expect(() => fitBinarySvc(k, Int8Array.from([1, -1]), Float64Array.from([1, 0]))).toThrow(
      /per-sample C must be > 0/,
    );
  });

  it('two points: α = 1/(1 − K) closed form, decision ±1 on the points', () => {
    // Hard margin for two points: α = 2/‖φ1 − φ2‖² = 1/(1 − K12) when C is large; f(x_i) = y_i.
    const k = new RbfKernel([0, 1], 2, 1, 0.5);
    const m = fitBinarySvc(k, Int8Array.from([-1, 1]), Float64Array.from([100, 100]));
    const K12 = Math.fround(Math.exp(-0.5)); // the solver sees float32 kernel values, as libsvm
    expect(m.dualCoef[1]).toBeCloseTo(1 / (1 - K12), 12);
    expect(m.dualCoef[0]).toBeCloseTo(-1 / (1 - K12), 12);
    expect(m.trainingDecision[0]).toBeCloseTo(-1, 12);
    expect(m.trainingDecision[1]).toBeCloseTo(1, 12);
    expect(m.intercept).toBeCloseTo(0, 12);
  });
});

describe('warm starts (TSVM swaps)', () => {
  it('warmAfterFlips carries u and v exactly as recomputed from α, and the warm solve reaches the cold optimum', () => {
    const c = cases[0];
    const { model, kernel } = fit(c);
    const n = c.X.length;
    const C = Float64Array.from(c.sampleWeight, (w) => c.C * w);
    const yOld = Int8Array.from(c.y);
    // Flip one positive and one negative row that share a bound, swapping their α (TSVM's move).
    const ia = yOld.findIndex((v, i) => v === 1 && model.alpha[i] > 0);
    const ib = yOld.findIndex((v, i) => v === -1 && C[i] === C[ia]);
    const yNew = Int8Array.from(yOld);
    yNew[ia] = -1;
    yNew[ib] = 1;
    const alpha = Float64Array.from(model.alpha);
    alpha[ia] = model.alpha[ib];
    alpha[ib] = model.alpha[ia];
    const warm = warmAfterFlips(model, kernel, yOld, yNew, alpha, C, [ia, ib]);
    // Solver labels are −y: u_j = Σ −y_i α_i K_ij, v_j = Σ_{α_i = C_i} −y_i C_i K_ij.
    for (let j = 0; j < n; j++) {
      let u = 0;
      let v = 0;
      for (let i = 0; i < n; i++) {
        const k = kernel.row(i)[j];
        u += -yNew[i] * alpha[i] * k;
        if (alpha[i] >= C[i]) v += -yNew[i] * C[i] * k;
      }
      expect(Math.abs(warm.u![j] - u)).toBeLessThan(1e-9);
      expect(Math.abs(warm.v![j] - v)).toBeLessThan(1e-9);
    }
    const cold = fitBinarySvc(kernel, yNew, C);
    const hot = fitBinarySvc(kernel, yNew, C, { warm });
    expect(hot.nIter).toBeLessThan(cold.nIter);
    const Xt = Float64Array.from(Float32Array.from(c.Xtest.flat()));
    const a = svcDecision(cold, Xt, c.Xtest.length);
    const b = svcDecision(hot, Xt, c.Xtest.length);
    for (let i = 0; i < a.length; i++) expect(Math.abs(a[i] - b[i])).toBeLessThan(1e-2); // 10 × the SMO tolerance
  });
});
