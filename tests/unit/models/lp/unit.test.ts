/** LabelPropagation / LabelSpreading against scikit-learn 1.2.1 golden fixtures (make_lp_fixtures.py). */
import { readFileSync } from 'node:fs';
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { argmaxRows } from '../../../../src/lib/models/estimator.ts';
import { ParamError } from '../../../../src/lib/models/params.ts';
import {
  LabelPropagation,
  LP_README_PARAMS,
} from '../../../../src/lib/models/statistical/labelPropagation.ts';
import { LabelSpreading, LS_README_PARAMS } from '../../../../src/lib/models/statistical/labelSpreading.ts';
import { mt } from '../../../../src/lib/protocol/rng.ts';
import type { Matrix } from '../../../../src/lib/types.ts';
import { useTestBackend } from './tfBackend.ts';

interface UnitCase {
  name: string;
  variant: 'lp' | 'ls';
  params: { kernel: 'rbf'; gamma: number; maxIter: number; tol: number; alpha?: number };
  k: number;
  d: number;
  Xl: number[];
  yl: number[];
  Xu: number[];
  Xe: number[];
  labelDistributions: number[];
  transduction: number[];
  nIter: number;
  converged: boolean;
  predictProba: (number | null)[][];
  predict: number[];
  nanRows: number;
  predictProbaFixed: number[][];
}

const fixtures = JSON.parse(
  readFileSync(new URL('../../../fixtures/lp/unit.json', import.meta.url), 'utf8'),
) as { cases: UnitCase[] };

const mat = (v: number[], d: number): Matrix => ({ data: Float32Array.from(v), rows: v.length / d, cols: d });

function build(c: UnitCase, precision: 'float64' | 'float32', simd = true) {
  const compute = { precision, blockRows: 7, simd }; // small blocks: exercise the blocking on tiny data
  return c.variant === 'lp' ? new LabelPropagation(c.params, compute) : new LabelSpreading(c.params, compute);
}

async function fitCase(
  c: UnitCase,
  precision: 'float64' | 'float32',
  quirks: 'rsb' | 'fixed' = 'rsb',
  simd = true,
) {
  const model = build(c, precision, simd);
  await model.fit(mat(c.Xl, c.d), Int32Array.from(c.yl), mat(c.Xu, c.d), c.k, { rng: mt(0), quirks });
  return model;
}

beforeAll(async () => {
  await useTestBackend();
});

describe('LP/LS match scikit-learn 1.2.1 (float64 path)', () => {
  for (const c of fixtures.cases) {
    it(c.name, async () => {
      const model = await fitCase(c, 'float64');
      const F = await model.labelDistributions();
      expect(F.length).toBe(c.labelDistributions.length);
      for (let i = 0; i < F.length; i++) expect(F[i]).toBeCloseTo(c.labelDistributions[i], 9);
      expect(Array.from(await model.transduction())).toEqual(c.transduction);
      const info = model.info();
      expect(info.nIter).toBe(c.nIter);
      expect(info.converged).toBe(c.converged);
      expect(info.floatPrecision).toBe('float64');
      expect(info.warnings).toEqual(
        c.converged ? [] : [`max_iter=${c.params.maxIter} was reached without convergence.`],
      );

      const Xe = mat(c.Xe, c.d);
      const P = await model.predictProba(Xe);
      expect(model.info().nNanRows).toBe(c.nanRows);
      for (let i = 0; i < Xe.rows; i++) {
        for (let j = 0; j < c.k; j++) {
          const want = c.predictProba[i][j];
          // sklearn's NaN rows come back as zeros under quirks 'rsb' (argmax → class 0).
          expect(P[i * c.k + j]).toBeCloseTo(want ?? 0, 6);
        }
      }
      expect(Array.from(argmaxRows(P, Xe.rows, c.k))).toEqual(c.predict);
      model.dispose();
    });
  }

  it("quirks 'fixed' gives degenerate rows the shifted-kernel prediction, still counted", async () => {
    const cases = fixtures.cases.filter((c) => c.nanRows > 0);
    expect(cases.length).toBeGreaterThan(0);
    for (const c of cases) {
      const model = await fitCase(c, 'float64', 'fixed');
      const Xe = mat(c.Xe, c.d);
      const P = await model.predictProba(Xe);
      expect(model.info().nNanRows).toBe(c.nanRows);
      for (let i = 0; i < Xe.rows; i++)
        for (let j = 0; j < c.k; j++) expect(P[i * c.k + j]).toBeCloseTo(c.predictProbaFixed[i][j], 6);
      model.dispose();
    }
  });
});

describe('float64 SIMD products (LS iterations, prediction) against the JS loops (the reference)', () => {
  it.each(['rsb', 'fixed'] as const)(
    'same probabilities to 1e-12 and the same degenerate rows (quirks %s)',
    async (quirks) => {
      for (const c of fixtures.cases) {
        const Xe = mat(c.Xe, c.d);
        const [simd, js] = [
          await fitCase(c, 'float64', quirks, true),
          await fitCase(c, 'float64', quirks, false),
        ];
        const P = await simd.predictProba(Xe);
        const Q = await js.predictProba(Xe);
        for (let i = 0; i < P.length; i++) expect(Math.abs(P[i] - Q[i])).toBeLessThan(1e-12);
        expect(simd.info().nNanRows).toBe(js.info().nNanRows);
        simd.dispose();
        js.dispose();
      }
    },
  );
});

describe('LP/LS float32 blocked tfjs path', () => {
  for (const c of fixtures.cases) {
    it(c.name, async () => {
      const before = tf.memory().numTensors;
      const model = await fitCase(c, 'float32');
      const F = await model.labelDistributions();
      for (let i = 0; i < F.length; i++) expect(Math.abs(F[i] - c.labelDistributions[i])).toBeLessThan(2e-4);
      expect(model.info().floatPrecision).toBe('float32');
      expect(model.info().nIter).toBeGreaterThanOrEqual(c.nIter - 1);
      expect(model.info().nIter).toBeLessThanOrEqual(c.nIter + 1);
      const Xe = mat(c.Xe, c.d);
      const P = await model.predictProba(Xe);
      expect(model.info().nNanRows).toBe(c.nanRows);
      for (let i = 0; i < Xe.rows; i++)
        for (let j = 0; j < c.k; j++)
          expect(Math.abs(P[i * c.k + j] - (c.predictProba[i][j] ?? 0))).toBeLessThan(2e-4);
      expect(Array.from(argmaxRows(P, Xe.rows, c.k))).toEqual(c.predict);
      model.dispose();
      expect(tf.memory().numTensors).toBe(before);
    });
  }

  for (const name of ['lp-three-blobs-rsb', 'ls-three-blobs-rsb']) {
    it(`${name}: recomputes blocks when the cache budget is too small, with the same result`, async () => {
      const c = fixtures.cases.find((x) => x.name === name)!;
      const before = tf.memory().numTensors;
      const cached = await fitCase(c, 'float32');
      const compute = { precision: 'float32' as const, blockRows: 5, cacheBytes: 0 };
      const uncached =
        c.variant === 'lp' ? new LabelPropagation(c.params, compute) : new LabelSpreading(c.params, compute);
      await uncached.fit(mat(c.Xl, c.d), Int32Array.from(c.yl), mat(c.Xu, c.d), c.k, { rng: mt(0) });
      expect(uncached.info().graphCached).toBe(false);
      expect(cached.info().graphCached).toBe(true);
      expect(uncached.info().nIter).toBe(cached.info().nIter);
      const a = await cached.labelDistributions();
      const b = await uncached.labelDistributions();
      for (let i = 0; i < a.length; i++) expect(b[i]).toBeCloseTo(a[i], 6);
      const Xe = mat(c.Xe, c.d);
      const pa = await cached.predictProba(Xe);
      const pb = await uncached.predictProba(Xe);
      for (let i = 0; i < pa.length; i++) expect(pb[i]).toBeCloseTo(pa[i], 6);
      cached.dispose();
      uncached.dispose();
      expect(tf.memory().numTensors).toBe(before);
    });
  }
});

describe('LP/LS contract', () => {
  const c = fixtures.cases[0];
  const Xl = mat(c.Xl, c.d);
  const Xu = mat(c.Xu, c.d);
  const yl = Int32Array.from(c.yl);

  it('defaults are the rsb values; readme presets are sklearn defaults', () => {
    expect(new LabelPropagation().hyper).toEqual({ kernel: 'rbf', gamma: 1, maxIter: 10000, tol: 1e-3 });
    expect(new LabelSpreading().hyper).toEqual({
      kernel: 'rbf',
      gamma: 1,
      alpha: 0.2,
      maxIter: 10000,
      tol: 1e-3,
    });
    expect(LP_README_PARAMS).toMatchObject({ gamma: 20, maxIter: 1000 });
    expect(LS_README_PARAMS).toMatchObject({ gamma: 20, maxIter: 30, alpha: 0.2 });
  });

  it('validates params at fit time with sklearn-style messages', async () => {
    const ctx = { rng: mt(0) };
    await expect(new LabelSpreading({ alpha: 1 }).fit(Xl, yl, Xu, 3, ctx)).rejects.toThrow(
      "The 'alpha' parameter of LabelSpreading must be a number in the range (0, 1). Got 1 instead.",
    );
    await expect(new LabelPropagation({ maxIter: 0 }).fit(Xl, yl, Xu, 3, ctx)).rejects.toThrow(
      "The 'maxIter' parameter of LabelPropagation must be an integer in the range [1, inf]. Got 0 instead.",
    );
    await expect(new LabelPropagation({ gamma: -1 }).fit(Xl, yl, Xu, 3, ctx)).rejects.toThrow(ParamError);
    await expect(new LabelPropagation({ tol: -1e-9 }).fit(Xl, yl, Xu, 3, ctx)).rejects.toThrow(ParamError);
    const withAlpha = new LabelPropagation({ alpha: 0.5 } as never);
    await expect(withAlpha.fit(Xl, yl, Xu, 3, ctx)).rejects.toThrow(
      "'alpha' is not a parameter of LabelPropagation",
    );
    await expect(
      new LabelPropagation().fit(Xl, Int32Array.from(c.yl.map(() => 3)), Xu, 3, ctx),
    ).rejects.toThrow('labels must be in 0..2');
  });

  it('fits with an empty U on both paths (predictions agree)', async () => {
    const empty: Matrix = { data: new Float32Array(0), rows: 0, cols: c.d };
    const Xe = mat(c.Xe, c.d);
    for (const Model of [LabelPropagation, LabelSpreading]) {
      const a = new Model({}, { precision: 'float64' });
      const b = new Model({}, { precision: 'float32' });
      await a.fit(Xl, yl, empty, 3, { rng: mt(0) });
      await b.fit(Xl, yl, empty, 3, { rng: mt(0) });
      const pa = await a.predictProba(Xe);
      const pb = await b.predictProba(Xe);
      for (let i = 0; i < pa.length; i++) expect(pb[i]).toBeCloseTo(pa[i], 4);
      expect(Array.from(argmaxRows(pa, Xe.rows, 3))).toEqual(Array.from(argmaxRows(pb, Xe.rows, 3)));
      a.dispose();
      b.dispose();
    }
  });

  it('runs the @example of the module docs', async () => {
    const before = tf.memory().numTensors;
    const lp = new LabelPropagation({ gamma: 1 });
    await lp.fit(Xl, yl, Xu, 3, { rng: mt(0) });
    const proba = await lp.predictProba(Xl); // Float32Array Xl.rows × k
    expect(proba.length).toBe(Xl.rows * 3);
    // Labeled rows sit on their own one-hot F rows, so they predict their own label here.
    expect(Array.from(argmaxRows(proba, Xl.rows, 3))).toEqual(c.yl);
    lp.dispose();
    expect(tf.memory().numTensors).toBe(before);
  });

  it('predictProba before fit throws NotFittedError', async () => {
    await expect(new LabelPropagation().predictProba(Xl)).rejects.toThrow(/not fitted yet/);
  });

  it('aborts between iterations and reports throttled progress', async () => {
    const controller = new AbortController();
    const seen: number[] = [];
    const lp = new LabelPropagation({ tol: 0, maxIter: 1_000_000 });
    const run = lp.fit(Xl, yl, Xu, 3, {
      rng: mt(0),
      signal: controller.signal,
      onProgress: (p) => {
        seen.push(p.fraction);
        if (seen.length === 3) controller.abort();
      },
    });
    await expect(run).rejects.toThrow(/aborted/);
    expect(seen.length).toBe(3);
    expect(seen[1]).toBeGreaterThan(seen[0]);
  });

  it('aborts the float32 path without leaking tensors', async () => {
    const before = tf.memory().numTensors;
    const controller = new AbortController();
    const ls = new LabelSpreading({ tol: 0, maxIter: 1_000_000 }, { precision: 'float32' });
    let calls = 0;
    const run = ls.fit(Xl, yl, Xu, 3, {
      rng: mt(0),
      signal: controller.signal,
      onProgress: () => {
        if (++calls === 2) controller.abort();
      },
    });
    await expect(run).rejects.toThrow(/aborted/);
    ls.dispose();
    expect(tf.memory().numTensors).toBe(before);
  });
});
