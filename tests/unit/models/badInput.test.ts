/**
 * Bad input, the same for every registered algorithm: a hyperparameter out of range, a class
 * with no labeled rows, a one-class dataset, NaN features. Clear messages; no crash mid-fit.
 */
import '@tensorflow/tfjs-backend-wasm';
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { CATALOGUE, getAlgorithm } from '../../../src/lib/models/catalogue.ts';
import { MT19937 } from '../../../src/lib/protocol/rng.ts';
import { defaultModelOptions } from '../../../src/lib/models/catalogue.ts';
import type { Matrix } from '../../../src/lib/types.ts';
import { GBDTClassifier } from '../../../src/lib/models/statistical/gbdt.ts';
import { LabelPropagation } from '../../../src/lib/models/statistical/labelPropagation.ts';
import { LabelSpreading } from '../../../src/lib/models/statistical/labelSpreading.ts';
import { SSGMM } from '../../../src/lib/models/statistical/ssgmm.ts';
import { TSVM } from '../../../src/lib/models/statistical/tsvm.ts';
import { TriTraining } from '../../../src/lib/models/statistical/triTraining.ts';
import { Assemble } from '../../../src/lib/models/statistical/assemble.ts';
import { createDeepEstimator } from '../../../src/lib/models/deep/deepEstimator.ts';

function blobs(n: number, k: number, seed: number): { X: Matrix; y: Int32Array } {
  const r = new MT19937(seed);
  const X = new Float32Array(n * 2);
  const y = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    y[i] = i % k;
    X[i * 2] = y[i] * 4 + r.normal();
    X[i * 2 + 1] = r.normal();
  }
  return { X: { data: X, rows: n, cols: 2 }, y };
}

const L = blobs(12, 3, 1);
const U = blobs(30, 3, 2);
const ctx = () => ({ rng: new MT19937(0) });
/** Deep entries train the tiny network for a few steps here (the rsb size takes seconds a step). */
const QUICK: Record<string, Record<string, string | number>> = {
  deep: { size: 'tiny', steps: 3, batchL: 8 },
};
const create = (id: string) => {
  const spec = getAlgorithm(id);
  return spec.create({
    mode: 'rsb',
    options: { ...defaultModelOptions(spec, 'rsb'), ...(QUICK[spec.suite] ?? {}) },
  });
};

beforeAll(async () => {
  await tf.setBackend('wasm');
});

describe.each(CATALOGUE.map((a) => a.id))('%s', (id) => {
  it('fits with a class that has no labeled rows and still outputs k columns', async () => {
    const yl = L.y.map((v) => (v === 2 ? 0 : v));
    const m = await create(id);
    await m.fit(L.X, yl, U.X, 3, ctx());
    const p = await m.predictProba(U.X);
    expect(p.length).toBe(U.X.rows * 3);
    expect(Array.from(p).every(Number.isFinite)).toBe(true);
    m.dispose();
  });

  it('refuses a one-class dataset with a clear message', async () => {
    const m = await create(id);
    await expect(m.fit(L.X, new Int32Array(12), U.X, 1, ctx())).rejects.toThrow(
      /k must be an integer ≥ 2 .*at least two classes/,
    );
  });

  it('refuses NaN features and says where they are', async () => {
    const bad: Matrix = { ...L.X, data: L.X.data.slice() };
    bad.data[7] = NaN;
    await expect((await create(id)).fit(bad, L.y, U.X, 3, ctx())).rejects.toThrow(
      /Xl has a non-finite value \(NaN\) at row 3, column 1/,
    );
    if (getAlgorithm(id).family === 'baseline') return; // supervised: never reads Xu
    const badU: Matrix = { ...U.X, data: U.X.data.slice() };
    badU.data[4] = Infinity;
    await expect((await create(id)).fit(L.X, L.y, badU, 3, ctx())).rejects.toThrow(
      /Xu has a non-finite value \(Infinity\) at row 2, column 0/,
    );
  });
});

describe('hyperparameters out of range', () => {
  const cases: [string, () => { fit: (...a: never[]) => Promise<unknown> }, RegExp][] = [
    ['xgb', () => new GBDTClassifier({ maxDepth: -1 }), /'maxDepth' parameter of GBDTClassifier must be/],
    ['lp', () => new LabelPropagation({ gamma: -1 }), /'gamma' parameter of LabelPropagation must be/],
    ['ls', () => new LabelSpreading({ alpha: 1 }), /'alpha' parameter of LabelSpreading must be .*\(0, 1\)/],
    ['ssgmm', () => new SSGMM({ maxIter: 0 }), /'maxIter' parameter of SSGMM must be/],
    ['tsvm', () => new TSVM({ Cl: 0 }), /'Cl' parameter of TSVM must be/],
    [
      'tritraining',
      () => new TriTraining({ maxIter: 1.5 }),
      /'maxIter' parameter of TriTraining must be an integer/,
    ],
    ['assemble', () => new Assemble({ beta: 2 }), /'beta' parameter of Assemble must be/],
    [
      'ftt',
      () => createDeepEstimator('ftt', { steps: 0 }),
      /'steps' parameter of FTTransformer must be an integer/,
    ],
    [
      'pseudolabel',
      () => createDeepEstimator('pseudolabel', { methodParams: { threshold: NaN } }),
      /'threshold' parameter of PseudoLabel must be a finite number/,
    ],
    [
      'pimodel',
      () => createDeepEstimator('pimodel', { lr: 0 }),
      /'lr' parameter of PiModel must be a number in the range \(0, 1\]/,
    ],
    [
      'meanteacher',
      () => createDeepEstimator('meanteacher', { emaDecay: 1 }),
      /'emaDecay' parameter of MeanTeacher must be/,
    ],
    [
      'ict',
      () => createDeepEstimator('ict', { batchL: 1.5 }),
      /'batchL' parameter of ICT must be an integer/,
    ],
    [
      'uda',
      () => createDeepEstimator('uda', { size: 'huge' as 'tiny' }),
      /'size' parameter of UDA must be one of/,
    ],
    [
      'fixmatch',
      () => createDeepEstimator('fixmatch', { methodParams: { tau: 0.9 } }),
      /'tau' is not a parameter of FixMatch's loss/,
    ],
    [
      'flexmatch',
      () => createDeepEstimator('flexmatch', { size: { blocks: 0, dToken: 8, heads: 2, ffnHidden: 8 } }),
      /'blocks' parameter of FlexMatch.size must be/,
    ],
    [
      'softmatch',
      () => createDeepEstimator('softmatch', { quirks: 'none' as 'rsb' }),
      /'quirks' parameter of SoftMatch must be one of/,
    ],
  ];
  it.each(cases)('%s', async (_id, make, message) => {
    const m = make() as unknown as {
      fit: (a: Matrix, b: Int32Array, c: Matrix, k: number, ctx: object) => Promise<unknown>;
    };
    await expect(m.fit(L.X, L.y, U.X, 3, ctx())).rejects.toThrow(message);
  });
  it('covers every registered algorithm', () => {
    expect(cases.map((c) => c[0]).sort()).toEqual(CATALOGUE.map((a) => a.id).sort());
  });
});
