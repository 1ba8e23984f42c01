/**
 * The exact fast LabelPropagation path (labelPropagationFast.ts, the default) against the direct
 * float64 loop (the reference, `fastPropagation: false`): the same n_iter and convergence flag,
 * label distributions within 1e-9, identical test predictions except near ties (top-2 margin
 * < 1e-7, counted in info().nearTieRows). On iris and wine cells, on letter cells (the real
 * `distribution` cell with a capped max_iter, and a letter sub-cell that runs to convergence), and
 * on a slow two-cluster graph that forces squaring, window walks and the max_iter end.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseCanonicalCsv } from '../../../../src/lib/data/canonical.ts';
import { DATASETS } from '../../../../src/lib/data/registry.ts';
import { argmaxRows } from '../../../../src/lib/models/estimator.ts';
import {
  LabelPropagation,
  type LabelPropagationParams,
} from '../../../../src/lib/models/statistical/labelPropagation.ts';
import { symSquareJs as symSquare } from '../../../../src/lib/models/statistical/labelPropagationFast.ts';
import { buildCellData, makeSplit } from '../../../../src/lib/protocol/index.ts';
import { mt } from '../../../../src/lib/protocol/rng.ts';
import type { Dataset, Matrix, Setting } from '../../../../src/lib/types.ts';
import { loadEmbedded } from '../../helpers/datasets.ts';

interface Run {
  F: Float64Array;
  pred: Int32Array;
  nIter: number;
  converged: boolean;
  nearTies: number;
  info: Record<string, unknown>;
}

async function run(
  fast: boolean,
  Xl: Matrix,
  yl: Int32Array,
  Xu: Matrix,
  Xe: Matrix,
  k: number,
  params: Partial<LabelPropagationParams> = {},
  budget?: number,
  method: 'auto' | 'leaps' | 'chebyshev' = 'auto',
): Promise<Run> {
  const m = new LabelPropagation(params, {
    precision: 'float64',
    fastPropagation: fast,
    fastPropagationMethod: method,
    ...(budget ? { fastPropagationBudgetBytes: budget } : {}),
  });
  await m.fit(Xl, yl, Xu, k, { rng: mt(0) });
  const P = await m.predictProba(Xe);
  const F = await m.labelDistributions();
  const info = m.info();
  m.dispose();
  return {
    F,
    pred: argmaxRows(P, Xe.rows, k),
    nIter: Number(info.nIter),
    converged: Boolean(info.converged),
    nearTies: Number(info.nearTieRows),
    info,
  };
}

/** Asserts the requirement; returns the largest |ΔF|. */
function expectSame(fast: Run, direct: Run, where: string): number {
  expect(fast.info.lpPath, where).toBe('affine');
  expect(direct.info.lpPath, where).toBe('direct');
  expect([fast.nIter, fast.converged], where).toEqual([direct.nIter, direct.converged]);
  let maxDiff = 0;
  for (let i = 0; i < fast.F.length; i++) maxDiff = Math.max(maxDiff, Math.abs(fast.F[i] - direct.F[i]));
  expect(maxDiff, where).toBeLessThan(1e-9);
  let differing = 0;
  for (let i = 0; i < fast.pred.length; i++) if (fast.pred[i] !== direct.pred[i]) differing++;
  expect(differing, where).toBeLessThanOrEqual(direct.nearTies);
  return maxDiff;
}

function rowsOf(M: Matrix, from: number, to: number): Matrix {
  return { data: M.data.slice(from * M.cols, to * M.cols), rows: to - from, cols: M.cols };
}

let iris: Dataset;
let wine: Dataset;
let letter: Dataset;
beforeAll(async () => {
  iris = await loadEmbedded('iris');
  wine = await loadEmbedded('wine');
  const text = readFileSync(new URL('../../../fixtures/data/letter.csv', import.meta.url), 'utf8');
  letter = { ...parseCanonicalCsv('letter', text, DATASETS.letter.classNames), sha256: '' };
});

describe('fast LabelPropagation = the direct float64 loop', () => {
  it('iris and wine: every setting × labels 5/10 × t 0..5, seed 0', async () => {
    let cells = 0;
    let worst = 0;
    for (const ds of [iris, wine]) {
      for (const setting of ['distribution', 'feature', 'label'] as Setting[]) {
        for (const labels of [5, 10]) {
          for (let tIndex = 0; tIndex < 6; tIndex++) {
            const split = makeSplit(ds, { setting, labels, tIndex, seed: 0, mode: 'rsb' });
            const c = buildCellData(ds, split, 'rsb');
            if (c.Xu.rows === 0) continue;
            const where = `${ds.id}/${setting}/${labels}/t${tIndex}`;
            const d = await run(false, c.Xl, c.yl, c.Xu, c.Xe, c.numClasses);
            for (const method of ['leaps', 'chebyshev'] as const) {
              const f = await run(true, c.Xl, c.yl, c.Xu, c.Xe, c.numClasses, {}, undefined, method);
              worst = Math.max(worst, expectSame(f, d, `${where} ${method}`));
              if (f.info.lpPath === 'affine') expect(f.info.lpMethod, where).toBe(method);
            }
            cells++;
          }
        }
      }
    }
    expect(cells).toBe(72);
    console.log(`iris+wine: ${cells} cells × (leaps, chebyshev), max |ΔF| ${worst.toExponential(2)}`);
  }, 900_000);

  it('a slow graph (two clusters, one labeled point each side, a far unlabeled cluster): squaring, window walk, max_iter', async () => {
    const rng = mt(7);
    const d = 2;
    const pts: number[] = [];
    const centre = (cx: number, cy: number, count: number, spread: number) => {
      for (let i = 0; i < count; i++) pts.push(cx + spread * rng.normal(), cy + spread * rng.normal());
    };
    centre(0, 0, 60, 0.5);
    centre(2.5, 0, 60, 0.5);
    centre(1.2, 3.2, 60, 0.4); // weakly tied to both: slow modes
    const X = Float32Array.from(pts);
    const n = X.length / d;
    const Xl: Matrix = {
      data: Float32Array.from([...X.subarray(0, 2), ...X.subarray(60 * d, 60 * d + 2)]),
      rows: 2,
      cols: d,
    };
    const yl = Int32Array.from([0, 1]);
    const Xu: Matrix = {
      data: Float32Array.from([...X.subarray(2, 60 * d), ...X.subarray(60 * d + 2)]),
      rows: n - 2,
      cols: d,
    };
    const Xe = Xu;
    for (const params of [
      { tol: 1e-3 },
      { tol: 1e-7 },
      { tol: 1e-12, maxIter: 3000 },
      { tol: 1e-12, maxIter: 257 },
    ]) {
      const dd = await run(false, Xl, yl, Xu, Xe, 2, params);
      // Bisection over stored powers, and (budget for 3 powers only) the window walk.
      for (const budget of [undefined, 3 * 178 * 178 * 8]) {
        const f = await run(true, Xl, yl, Xu, Xe, 2, params, budget, 'leaps');
        const where = `${JSON.stringify(params)} budget ${budget ?? 'default'}`;
        expectSame(f, dd, where);
        expect(Number(f.info.lpSquarings), where).toBeGreaterThan(0);
        console.log(
          `slow graph ${where}: n_iter ${dd.nIter} (converged ${dd.converged}); fast path ${JSON.stringify(f.info)}`,
        );
      }
      // The Chebyshev series: several passes (brackets) and a final walk, or the max_iter end.
      const c = await run(true, Xl, yl, Xu, Xe, 2, params, undefined, 'chebyshev');
      expectSame(c, dd, `${JSON.stringify(params)} chebyshev`);
      expect(c.info.lpMethod).toBe('chebyshev');
      expect(Number(c.info.lpPasses)).toBeGreaterThan(0);
      console.log(`slow graph ${JSON.stringify(params)} chebyshev: ${JSON.stringify(c.info)}`);
    }
  }, 900_000);

  it('letter: the distribution cell (labels 5, t 0, seed 0) with max_iter capped, and a sub-cell run to convergence', async () => {
    const split = makeSplit(letter, { setting: 'distribution', labels: 5, tIndex: 0, seed: 0, mode: 'rsb' });
    const c = buildCellData(letter, split, 'rsb');
    expect([c.Xl.rows, c.Xu.rows, c.numClasses]).toEqual([130, 2012, 26]);
    const Xe = rowsOf(c.Xe, 0, 300);
    const capped = { maxIter: 12 };
    expectSame(
      await run(true, c.Xl, c.yl, c.Xu, Xe, 26, capped),
      await run(false, c.Xl, c.yl, c.Xu, Xe, 26, capped),
      'letter capped',
    );
    // The series over a longer capped run (several passes of 32 candidates, then a walk).
    const capped2 = { maxIter: 150 };
    const direct150 = await run(false, c.Xl, c.yl, c.Xu, Xe, 26, capped2);
    expectSame(
      await run(true, c.Xl, c.yl, c.Xu, Xe, 26, capped2, undefined, 'chebyshev'),
      direct150,
      'letter 150',
    );
    // Sub-cell: the same L, the first 170 unlabeled rows; rsb parameters, run to the stopping step.
    const Xu = rowsOf(c.Xu, 0, 170);
    const f = await run(true, c.Xl, c.yl, Xu, Xe, 26);
    const d = await run(false, c.Xl, c.yl, Xu, Xe, 26);
    expectSame(f, d, 'letter sub-cell');
    expectSame(
      await run(true, c.Xl, c.yl, Xu, Xe, 26, {}, undefined, 'chebyshev'),
      d,
      'letter sub-cell chebyshev',
    );
    console.log(
      `letter sub-cell: n_iter ${d.nIter} (converged ${d.converged}), fast ${JSON.stringify(f.info)}`,
    );
  }, 900_000);

  it('symSquare equals A·A for a symmetric A (odd size, remainder rows and columns)', async () => {
    const m = 13;
    const rng = mt(3);
    const A = new Float64Array(m * m);
    for (let i = 0; i < m; i++) for (let j = 0; j <= i; j++) A[i * m + j] = A[j * m + i] = rng.normal();
    const C = await symSquare(A, m);
    for (let i = 0; i < m; i++) {
      for (let j = 0; j < m; j++) {
        let s = 0;
        for (let l = 0; l < m; l++) s += A[i * m + l] * A[l * m + j];
        expect(Math.abs(C[i * m + j] - s)).toBeLessThan(1e-12);
      }
    }
  });
});
