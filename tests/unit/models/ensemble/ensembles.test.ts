/** Tri-Training and Assemble as estimators: determinism, k outputs, stop rules, iris sanity. */
import { describe, expect, it } from 'vitest';
import { AbortError, argmaxRows, NotFittedError } from '../../../../src/lib/models/estimator.ts';
import { ParamError } from '../../../../src/lib/models/params.ts';
import { Assemble } from '../../../../src/lib/models/statistical/assemble.ts';
import { GBDTClassifier } from '../../../../src/lib/models/statistical/gbdt.ts';
import { TriTraining } from '../../../../src/lib/models/statistical/triTraining.ts';
import { buildCellData, makeSplit } from '../../../../src/lib/protocol/index.ts';
import { mt } from '../../../../src/lib/protocol/rng.ts';
import type { Matrix } from '../../../../src/lib/types.ts';
import { loadEmbedded } from '../../helpers/datasets.ts';

/** Gaussian blobs, class c centred at (4c, −3c); `counts[c]` rows of class c. */
function blobs(counts: number[], seed: number, spread = 1): { X: Matrix; y: Int32Array } {
  const rng = mt(seed);
  const n = counts.reduce((s, v) => s + v, 0);
  const data = new Float32Array(n * 2);
  const y = new Int32Array(n);
  let i = 0;
  counts.forEach((m, c) => {
    for (let j = 0; j < m; j++, i++) {
      y[i] = c;
      data[i * 2] = 4 * c + spread * rng.normal();
      data[i * 2 + 1] = -3 * c + spread * rng.normal();
    }
  });
  return { X: { data, rows: n, cols: 2 }, y };
}

function rowSums(p: Float32Array, n: number, k: number): number[] {
  return Array.from({ length: n }, (_, r) => p.subarray(r * k, r * k + k).reduce((s, v) => s + v, 0));
}

describe('TriTraining', () => {
  it('is deterministic per seed and records its passes', async () => {
    const L = blobs([4, 4, 4], 1, 1.5);
    const U = blobs([20, 20, 20], 2, 1.5);
    const a = await new TriTraining().fit(L.X, L.y, U.X, 3, { rng: mt(5) });
    const b = await new TriTraining().fit(L.X, L.y, U.X, 3, { rng: mt(5) });
    expect(await a.predictProba(U.X)).toEqual(await b.predictProba(U.X));
    expect(a.info()).toEqual(b.info());
    const info = a.info();
    expect(info.converged).toBe(true);
    expect(info.nIter).toBeGreaterThanOrEqual(1);
    expect((info.history as unknown[]).length).toBe(info.nIter);
    // The last pass updated nobody.
    expect((info.history as { updated: boolean[] }[]).at(-1)!.updated).toEqual([false, false, false]);
  });

  it('gives k probability columns when a bootstrap misses a class', async () => {
    const L = blobs([6, 6, 1], 3);
    const U = blobs([10, 10, 10], 4);
    let found = false;
    for (let seed = 0; seed < 10 && !found; seed++) {
      const m = await new TriTraining().fit(L.X, L.y, U.X, 3, { rng: mt(seed) });
      const missing = m.info().bootstrapMissingClasses as number[][];
      if (!missing.some((c) => c.includes(2))) continue;
      found = true;
      const p = await m.predictProba(U.X);
      expect(p.length).toBe(U.X.rows * 3);
      for (const s of rowSums(p, U.X.rows, 3)) expect(s).toBeCloseTo(1, 5);
    }
    expect(found).toBe(true);
  });

  it('validates and refuses to predict before fit', async () => {
    const L = blobs([3, 3], 0);
    await expect(new TriTraining().predictProba(L.X)).rejects.toThrow(NotFittedError);
    await expect(new TriTraining({ maxIter: 0 }).fit(L.X, L.y, L.X, 2, { rng: mt(0) })).rejects.toThrow(
      ParamError,
    );
    await expect(
      new TriTraining({ base: { maxDepth: -1 } }).fit(L.X, L.y, L.X, 2, { rng: mt(0) }),
    ).rejects.toThrow("The 'maxDepth' parameter of TriTraining.base");
  });
});

describe('Assemble', () => {
  it('keeps all T learners on clean clusters, with w = ½ ln((1−ε)/(ε+1e-8))', async () => {
    const L = blobs([5, 5, 5], 6, 0.3);
    const U = blobs([10, 10, 10], 7, 0.3);
    const m = await new Assemble({ T: 5 }).fit(L.X, L.y, U.X, 3, { rng: mt(0) });
    const info = m.info();
    expect(info).toMatchObject({ nIter: 5, nLearners: 5, stoppedEarly: false, nNeighbors: 3 });
    const eps = info.epsilons as number[];
    const w = info.learnerWeights as number[];
    eps.forEach((e, i) => {
      expect(e).toBeLessThanOrEqual(0.5);
      expect(w[i]).toBeCloseTo(0.5 * Math.log((1 - e) / (e + 1e-8)), 12);
    });
    // The first learner sees all of L ∪ U with the 3-NN labels: a perfect fit, ε = 0.
    expect(eps[0]).toBe(0);
    const p = await m.predictProba(U.X);
    for (const s of rowSums(p, U.X.rows, 3)) expect(s).toBeCloseTo(1, 5);
    expect(Array.from(argmaxRows(p, U.X.rows, 3))).toEqual(Array.from(U.y));
  });

  it('stops right after appending a learner with ε > 0.5', async () => {
    // Stumps with one round on 4 overlapping classes: a resampled learner soon errs on > half the weight.
    const L = blobs([4, 4, 4, 4], 8, 3);
    const U = blobs([15, 15, 15, 15], 9, 3);
    const m = await new Assemble({ T: 30, base: { nEstimators: 1, maxDepth: 1 } }).fit(L.X, L.y, U.X, 4, {
      rng: mt(0),
    });
    const info = m.info();
    const eps = info.epsilons as number[];
    expect(info.stoppedEarly).toBe(true);
    expect(eps.length).toBe(info.nLearners);
    expect(eps.length).toBeLessThan(30);
    expect(eps.at(-1)!).toBeGreaterThan(0.5);
    expect(eps.slice(0, -1).every((e) => e <= 0.5)).toBe(true);
    expect((info.learnerWeights as number[]).at(-1)!).toBeLessThan(0);
  });

  it('is deterministic per seed; the seed drives the resampling', async () => {
    // |U| small next to |L|: resampled learners get hessian sums above min_child_weight and split.
    const L = blobs([10, 10, 10], 10, 2);
    const U = blobs([5, 5, 5], 11, 2);
    const fit = (seed: number) => new Assemble({ T: 6 }).fit(L.X, L.y, U.X, 3, { rng: mt(seed) });
    const a = await fit(3);
    const b = await fit(3);
    expect(await a.predictProba(U.X)).toEqual(await b.predictProba(U.X));
    expect(a.info()).toEqual(b.info());
    const c = await fit(4);
    expect(c.info().epsilons).not.toEqual(a.info().epsilons);
  });

  it('validates its parameters', async () => {
    const L = blobs([3, 3], 0);
    await expect(new Assemble({ beta: 1.5 }).fit(L.X, L.y, L.X, 2, { rng: mt(0) })).rejects.toThrow(
      "The 'beta' parameter of Assemble must be a number in the range [0, 1]. Got 1.5 instead.",
    );
    await expect(new Assemble().predictProba(L.X)).rejects.toThrow(NotFittedError);
  });
});

describe('abort and progress', () => {
  it('an aborted signal stops every estimator with an AbortError', async () => {
    const L = blobs([4, 4, 4], 12);
    const ac = new AbortController();
    ac.abort();
    for (const m of [new GBDTClassifier(), new TriTraining(), new Assemble()]) {
      await expect(m.fit(L.X, L.y, L.X, 3, { rng: mt(0), signal: ac.signal })).rejects.toThrow(AbortError);
    }
  });
  it('progress fractions never go backwards and end at 1', async () => {
    const L = blobs([4, 4, 4], 13);
    const U = blobs([6, 6, 6], 14);
    for (const m of [new GBDTClassifier(), new TriTraining(), new Assemble({ T: 4 })]) {
      const seen: number[] = [];
      await m.fit(L.X, L.y, U.X, 3, { rng: mt(0), onProgress: (p) => seen.push(p.fraction) });
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.at(-1)).toBe(1);
      for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThanOrEqual(seen[i - 1]);
    }
  });
});

describe('Tri-Training and Assemble on iris (rsb distribution, t=0, seeds 0–4)', () => {
  it('are well above chance and near the XGBoost baseline', async () => {
    const iris = await loadEmbedded('iris');
    for (const labels of [5, 10]) {
      const acc = { xgb: 0, tri: 0, asm: 0 };
      for (let seed = 0; seed < 5; seed++) {
        const c = buildCellData(
          iris,
          makeSplit(iris, { setting: 'distribution', labels, tIndex: 0, seed, mode: 'rsb' }),
          'rsb',
        );
        const models = { xgb: new GBDTClassifier(), tri: new TriTraining(), asm: new Assemble() };
        for (const [name, m] of Object.entries(models) as [
          keyof typeof acc,
          GBDTClassifier | TriTraining | Assemble,
        ][]) {
          await m.fit(c.Xl, c.yl, c.Xu, c.numClasses, { rng: mt(seed) });
          const pred = argmaxRows(await m.predictProba(c.Xe), c.Xe.rows, c.numClasses);
          acc[name] += pred.filter((v, i) => v === c.ye[i]).length / pred.length / 5;
        }
      }
      console.log(
        `iris distribution labels ${labels}: xgb ${acc.xgb.toFixed(3)} tri ${acc.tri.toFixed(3)} assemble ${acc.asm.toFixed(3)}`,
      );
      for (const name of ['tri', 'asm'] as const) {
        expect(acc[name]).toBeGreaterThan(0.8); // chance is 1/3
        expect(acc[name]).toBeGreaterThanOrEqual(acc.xgb - 0.08);
      }
    }
  }, 120_000);
});
