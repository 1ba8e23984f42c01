/** The GBDT estimator contract: validation, errors, k outputs, determinism, Xu ignored. */
import { describe, expect, it } from 'vitest';
import { argmaxRows, NotFittedError } from '../../../../src/lib/models/estimator.ts';
import { ParamError } from '../../../../src/lib/models/params.ts';
import { GBDT_DEFAULTS, GBDTClassifier } from '../../../../src/lib/models/statistical/gbdt.ts';
import { mt } from '../../../../src/lib/protocol/rng.ts';
import type { Matrix } from '../../../../src/lib/types.ts';

function blobs(nPerClass: number, k: number, seed: number): { X: Matrix; y: Int32Array } {
  const rng = mt(seed);
  const n = nPerClass * k;
  const data = new Float32Array(n * 2);
  const y = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const c = i % k;
    y[i] = c;
    data[i * 2] = 3 * c + rng.normal();
    data[i * 2 + 1] = -2 * c + rng.normal();
  }
  return { X: { data, rows: n, cols: 2 }, y };
}

const empty: Matrix = { data: new Float32Array(0), rows: 0, cols: 2 };

describe('GBDTClassifier contract', () => {
  it('has xgboost 1.7 defaults', () => {
    expect(GBDT_DEFAULTS).toEqual({
      nEstimators: 100,
      maxDepth: 6,
      learningRate: 0.3,
      regLambda: 1,
      regAlpha: 0,
      gamma: 0,
      minChildWeight: 1,
      baseScore: 0.5,
    });
  });

  it('validates parameters at fit time with sklearn-style messages', async () => {
    const { X, y } = blobs(5, 3, 0);
    const m = new GBDTClassifier({ maxDepth: 0 });
    await expect(m.fit(X, y, empty, 3, { rng: mt(0) })).rejects.toThrow(ParamError);
    await expect(m.fit(X, y, empty, 3, { rng: mt(0) })).rejects.toThrow(
      "The 'maxDepth' parameter of GBDTClassifier must be an integer in the range [1, 16]. Got 0 instead.",
    );
    await expect(new GBDTClassifier({ baseScore: 1 }).fit(X, y, empty, 3, { rng: mt(0) })).rejects.toThrow(
      ParamError,
    );
  });

  it('rejects bad inputs and predicting before fit', async () => {
    const { X, y } = blobs(5, 3, 0);
    const m = new GBDTClassifier();
    await expect(m.predictProba(X)).rejects.toThrow(NotFittedError);
    await expect(m.fit(X, y, empty, 1, { rng: mt(0) })).rejects.toThrow('k must be an integer ≥ 2');
    await expect(m.fit(X, y, empty, 2, { rng: mt(0) })).rejects.toThrow(
      'labels must be in 0..1. Got 2 at row 2 instead.',
    );
    await expect(m.fitWeighted(X, y, new Float64Array(3), 3, { rng: mt(0) })).rejects.toThrow(
      'weights has 3 values',
    );
    await m.fit(X, y, empty, 3, { rng: mt(0) });
    await expect(m.predictProba({ data: new Float32Array(3), rows: 1, cols: 3 })).rejects.toThrow(
      'X has 3 features',
    );
  });

  it('ignores Xu, is deterministic, and reports its fit', async () => {
    const { X, y } = blobs(6, 3, 1);
    const other = blobs(20, 3, 2).X;
    const a = await new GBDTClassifier().fit(X, y, empty, 3, { rng: mt(0) });
    const b = await new GBDTClassifier().fit(X, y, other, 3, { rng: mt(99) });
    expect(await a.predictProba(other)).toEqual(await b.predictProba(other));
    expect(a.info()).toMatchObject({
      nIter: 100,
      nTrees: 300,
      objective: 'multi:softprob',
      numClass: 3,
      absentClasses: [],
    });
    const bin = await new GBDTClassifier().fit(
      X,
      Int32Array.from(y, (v) => (v === 0 ? 0 : 1)),
      empty,
      2,
      { rng: mt(0) },
    );
    expect(bin.info()).toMatchObject({ nTrees: 100, objective: 'binary:logistic' });
  });

  it('keeps k outputs when a class has no labeled row, and never predicts it', async () => {
    const { X, y } = blobs(6, 3, 3);
    const y4 = Int32Array.from(y, (v) => (v === 2 ? 3 : v)); // classes 0, 1, 3 of k = 4
    const m = await new GBDTClassifier().fit(X, y4, empty, 4, { rng: mt(0) });
    expect(m.info().absentClasses).toEqual([2]);
    const p = await m.predictProba(X);
    expect(p.length).toBe(X.rows * 4);
    for (let r = 0; r < X.rows; r++) {
      const row = Array.from(p.subarray(r * 4, r * 4 + 4));
      expect(row.reduce((s, v) => s + v, 0)).toBeCloseTo(1, 5);
      expect(row[2]).toBeLessThan(0.05);
    }
    expect(Array.from(argmaxRows(p, X.rows, 4))).toEqual(Array.from(y4));
  });

  it('uses sample weights (a zero-weight row does not count)', async () => {
    const { X, y } = blobs(6, 2, 4);
    const flipped = Int32Array.from(y);
    flipped[0] = 1 - flipped[0];
    const w = new Float64Array(y.length).fill(1);
    w[0] = 0;
    const a = await new GBDTClassifier().fitWeighted(X, flipped, w, 2, { rng: mt(0) });
    const dropped = { data: X.data.slice(2), rows: X.rows - 1, cols: 2 };
    const b = await new GBDTClassifier().fit(dropped, flipped.slice(1), empty, 2, { rng: mt(0) });
    expect(await a.predictProba(X)).toEqual(await b.predictProba(X));
  });
});
