/**
 * The estimator shell, the same for every catalogue entry: frozen params, one error type per
 * fault (busy, not fitted, wrong shape) with scikit-learn's messages, `undefined` = default.
 */
import '@tensorflow/tfjs-backend-wasm';
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { BaseEstimator, EstimatorBusyError } from '../../../src/lib/models/baseEstimator.ts';
import { CATALOGUE, defaultModelOptions, getAlgorithm } from '../../../src/lib/models/catalogue.ts';
import { InputError, NotFittedError } from '../../../src/lib/models/estimator.ts';
import { LabelPropagation } from '../../../src/lib/models/statistical/labelPropagation.ts';
import { SSGMM } from '../../../src/lib/models/statistical/ssgmm.ts';
import { TriTraining } from '../../../src/lib/models/statistical/triTraining.ts';
import { mt } from '../../../src/lib/protocol/rng.ts';
import type { Matrix } from '../../../src/lib/types.ts';

function blobs(n: number, seed: number): { X: Matrix; y: Int32Array } {
  const r = mt(seed);
  const X = new Float32Array(n * 2);
  const y = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    y[i] = i % 3;
    X[i * 2] = y[i] * 4 + r.normal();
    X[i * 2 + 1] = r.normal();
  }
  return { X: { data: X, rows: n, cols: 2 }, y };
}
const L = blobs(12, 1);
const U = blobs(30, 2);

beforeAll(async () => {
  await tf.setBackend('wasm');
});

describe.each(CATALOGUE.map((a) => a.id))('%s on the BaseEstimator shell', (id) => {
  // Deep entries: the tiny network for a few steps (the rsb size takes seconds a step).
  const quick: Record<string, string | number> =
    getAlgorithm(id).suite === 'deep' ? { size: 'tiny', steps: 3, batchL: 8 } : {};
  const create = () =>
    getAlgorithm(id).create({
      mode: 'rsb',
      options: { ...defaultModelOptions(getAlgorithm(id), 'rsb'), ...quick },
    });

  it('freezes its params, refuses a concurrent fit, checks shapes and the fitted state', async () => {
    const m = await create();
    expect(m).toBeInstanceOf(BaseEstimator);
    const b = m as BaseEstimator<object>;
    expect(Object.isFrozen(b.params)).toBe(true);
    expect(m.name).toBe(id);
    await expect(m.predictProba(U.X)).rejects.toThrow(NotFittedError);
    const first = m.fit(L.X, L.y, U.X, 3, { rng: mt(0) });
    await expect(m.fit(L.X, L.y, U.X, 3, { rng: mt(0) })).rejects.toThrow(EstimatorBusyError);
    await first;
    const wrong: Matrix = { data: new Float32Array(3 * 5), rows: 5, cols: 3 };
    await expect(m.predictProba(wrong)).rejects.toThrow(InputError);
    await expect(m.predictProba(wrong)).rejects.toThrow(
      `X has 3 features, but ${b.className} is expecting 2 features as input.`,
    );
    expect((await m.predictProba(U.X)).length).toBe(U.X.rows * 3);
    m.dispose();
    await expect(m.predictProba(U.X)).rejects.toThrow(`This ${b.className} instance is not fitted yet.`);
  });
});

describe('params', () => {
  it('an undefined entry means the default, everywhere', () => {
    expect(new LabelPropagation({ gamma: undefined }).params.gamma).toBe(1);
    expect(new SSGMM({ ssgmmSupport: undefined }).params.ssgmmSupport).toBe('zero');
    expect(new TriTraining({ maxIter: undefined }).params.maxIter).toBe(1000);
  });

  it('nested learner params are validated with their path', async () => {
    await expect(
      new TriTraining({ base: { maxDepth: 0 } }).fit(L.X, L.y, U.X, 3, { rng: mt(0) }),
    ).rejects.toThrow(
      "The 'maxDepth' parameter of TriTraining.base must be an integer in the range [1, 16]. Got 0 instead.",
    );
  });
});
