import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { argmaxRows, AbortError, NotFittedError } from '../../../../src/lib/models/estimator.ts';
import { ParamError } from '../../../../src/lib/models/params.ts';
import { TSVM, type BinaryTsvmTrace } from '../../../../src/lib/models/statistical/tsvm.ts';
import { mt } from '../../../../src/lib/protocol/rng.ts';
import type { Matrix } from '../../../../src/lib/types.ts';

interface TsvmCase {
  name: string;
  k: number;
  Xl: number[][];
  yl: number[];
  Xu: number[][];
  Xtest: number[][];
  perClass: {
    positiveClass: number;
    swaps: number;
    fits: number;
    pseudoLabels: number[];
    nSupport: number;
  }[];
  scores: (number | null)[][];
  predicted: number[];
}
const { cases } = JSON.parse(
  readFileSync(fileURLToPath(new URL('../../../fixtures/svm/tsvm.json', import.meta.url)), 'utf8'),
) as { cases: TsvmCase[] };

const mat = (rows: number[][]): Matrix => ({
  data: Float32Array.from(rows.flat()),
  rows: rows.length,
  cols: rows[0].length,
});
const ctx = () => ({ rng: mt(0) });

describe('TSVM against the sklearn-SVC reference of §7.1 (tests/fixtures/svm/tsvm.json)', () => {
  for (const c of cases) {
    it(`${c.name}: swaps, fits, support size, decision scores and predictions (cold solves)`, async () => {
      const m = new TSVM();
      m.warmStart = false;
      await m.fit(mat(c.Xl), Int32Array.from(c.yl), mat(c.Xu), c.k, ctx());
      const info = m.info();
      expect(info.tsvm_multiclass).toBe(c.k > 2 ? 'ovr-reconstructed' : 'binary');
      expect(info.rounds).toBe(18);
      const per = info.perClass as BinaryTsvmTrace[];
      expect(per.map((p) => [p.positiveClass, p.swaps, p.fits])).toEqual(
        c.perClass.map((p) => [p.positiveClass, p.swaps, p.fits]),
      );
      const scores = m.decisionScores(mat(c.Xtest));
      for (let i = 0; i < c.Xtest.length; i++) {
        for (let j = 0; j < c.k; j++) {
          const ref = c.scores[i][j];
          if (ref === null) expect(scores[i * c.k + j]).toBe(-Infinity);
          else expect(Math.abs(scores[i * c.k + j] - ref)).toBeLessThan(1e-6);
        }
      }
      const p = await m.predictProba(mat(c.Xtest));
      expect(Array.from(argmaxRows(p, c.Xtest.length, c.k))).toEqual(c.predicted);
      for (let i = 0; i < c.Xtest.length; i++) {
        let s = 0;
        for (let j = 0; j < c.k; j++) s += p[i * c.k + j];
        expect(s).toBeCloseTo(1, 5);
      }
      expect(m.info().nNanRows).toBe(0);
    });

    it(`${c.name}: warm-started solves take the same swaps and predictions, decisions within the solver tolerance`, async () => {
      const cold = new TSVM();
      cold.warmStart = false;
      await cold.fit(mat(c.Xl), Int32Array.from(c.yl), mat(c.Xu), c.k, ctx());
      const warm = new TSVM();
      await warm.fit(mat(c.Xl), Int32Array.from(c.yl), mat(c.Xu), c.k, ctx());
      const per = (m: TSVM) =>
        (m.info().perClass as BinaryTsvmTrace[]).map((p) => [p.positiveClass, p.swaps, p.fits]);
      expect(per(warm)).toEqual(per(cold));
      // Warm starts skip most of the SMO work.
      expect(Number(warm.info().nIter)).toBeLessThan(Number(cold.info().nIter));
      const a = cold.decisionScores(mat(c.Xtest));
      const b = warm.decisionScores(mat(c.Xtest));
      for (let i = 0; i < a.length; i++) {
        if (a[i] === -Infinity) expect(b[i]).toBe(-Infinity);
        else expect(Math.abs(a[i] - b[i])).toBeLessThan(1e-2); // 10 × the SMO tolerance
      }
      expect(Array.from(argmaxRows(await warm.predictProba(mat(c.Xtest)), c.Xtest.length, c.k))).toEqual(
        c.predicted,
      );
    });
  }

  it('a class with no labeled rows gets −∞ and probability 0; the others are unchanged', async () => {
    const c = cases[1];
    const m3 = new TSVM();
    await m3.fit(mat(c.Xl), Int32Array.from(c.yl), mat(c.Xu), 3, ctx());
    const m4 = new TSVM();
    await m4.fit(mat(c.Xl), Int32Array.from(c.yl), mat(c.Xu), 4, ctx());
    expect(m4.info().absentClasses).toEqual([3]);
    const s3 = m3.decisionScores(mat(c.Xtest));
    const s4 = m4.decisionScores(mat(c.Xtest));
    const p4 = await m4.predictProba(mat(c.Xtest));
    for (let i = 0; i < c.Xtest.length; i++) {
      expect(s4[i * 4 + 3]).toBe(-Infinity);
      expect(p4[i * 4 + 3]).toBe(0);
      for (let j = 0; j < 3; j++) expect(s4[i * 4 + j]).toBe(s3[i * 3 + j]);
    }
  });

  it("proba 'onehot' is the one-hot of the softmax's argmax", async () => {
    const c = cases[1];
    const soft = new TSVM();
    await soft.fit(mat(c.Xl), Int32Array.from(c.yl), mat(c.Xu), 3, ctx());
    const hard = new TSVM({ proba: 'onehot' });
    await hard.fit(mat(c.Xl), Int32Array.from(c.yl), mat(c.Xu), 3, ctx());
    const ps = await soft.predictProba(mat(c.Xtest));
    const ph = await hard.predictProba(mat(c.Xtest));
    const as = argmaxRows(ps, c.Xtest.length, 3);
    for (let i = 0; i < c.Xtest.length; i++) {
      for (let j = 0; j < 3; j++) expect(ph[i * 3 + j]).toBe(j === as[i] ? 1 : 0);
    }
  });

  it('a single labeled class is predicted everywhere, with a warning', async () => {
    const m = new TSVM();
    await m.fit(
      mat([
        [0, 0],
        [1, 1],
      ]),
      Int32Array.from([2, 2]),
      mat([[3, 3]]),
      3,
      ctx(),
    );
    expect(
      Array.from(
        await m.predictProba(
          mat([
            [5, 5],
            [-1, 0],
          ]),
        ),
      ),
    ).toEqual([0, 0, 1, 0, 0, 1]);
    expect(m.info().warnings).toEqual(['TSVM: only class 2 has labeled rows; it is predicted everywhere.']);
  });

  it('reports progress ending at 1, validates params, aborts, and refuses predict before fit', async () => {
    const c = cases[0];
    const fr: number[] = [];
    const m = new TSVM();
    await m.fit(mat(c.Xl), Int32Array.from(c.yl), mat(c.Xu), 2, {
      ...ctx(),
      onProgress: (p) => fr.push(p.fraction),
    });
    expect(fr.length).toBe(19); // 18 rounds + final
    expect(fr.every((v, i) => i === 0 || v >= fr[i - 1])).toBe(true);
    expect(fr[fr.length - 1]).toBe(1);
    await expect(
      new TSVM({ Cl: 0 }).fit(mat(c.Xl), Int32Array.from(c.yl), mat(c.Xu), 2, ctx()),
    ).rejects.toThrow(
      new ParamError("The 'Cl' parameter of TSVM must be a number in the range (0, inf). Got 0 instead."),
    );
    const ac = new AbortController();
    const p = new TSVM().fit(mat(c.Xl), Int32Array.from(c.yl), mat(c.Xu), 2, {
      ...ctx(),
      signal: ac.signal,
      onProgress: () => ac.abort(),
    });
    await expect(p).rejects.toThrow(AbortError);
    await expect(new TSVM().predictProba(mat(c.Xtest))).rejects.toThrow(NotFittedError);
  });
});
