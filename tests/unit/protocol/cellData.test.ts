import { describe, expect, it } from 'vitest';
import {
  applyScaler,
  buildCellData,
  buildCellData64,
  fitScaler,
  indicesJson,
  indicesSha256,
  makeSplit,
} from '../../../src/lib/protocol/index.ts';
import type { ProtocolMode, Setting } from '../../../src/lib/types.ts';
import { loadEmbedded } from '../helpers/datasets.ts';
import { readFixture, type FixtureHeader } from './fixtureFiles.ts';

interface CellDataFixture {
  header: FixtureHeader;
  cells: {
    dataset: 'iris' | 'wine';
    mode: ProtocolMode;
    setting: Setting;
    labels: number;
    tIndex: number;
    seed: number;
    Xl: number[];
    yl: number[];
    Xu: number[];
    Xe: number[];
    ye: number[];
    m: number;
  }[];
}

function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

describe('scaler (§6, StandardScaler-compatible)', () => {
  it('gives population std, and scale 1 for a constant column', () => {
    // columns: [1,2,3,4] (var 1.25), constant 0.1 (sums of 0.1 are inexact), constant 0
    const X = Float64Array.from([1, 0.1, 0, 2, 0.1, 0, 3, 0.1, 0, 4, 0.1, 0]);
    const s = fitScaler(X, 4, 3);
    expect(Array.from(s.mean)).toEqual([2.5, 0.1, 0]);
    expect(s.scale[0]).toBe(Math.sqrt(1.25));
    expect(s.scale[1]).toBe(1);
    expect(s.scale[2]).toBe(1);
    const Z = applyScaler(s, X, 4, 3);
    expect(Array.from(Z.filter((_, i) => i % 3 === 0))).toEqual(
      [-1.5, -0.5, 0.5, 1.5].map((v) => v / Math.sqrt(1.25)),
    );
    expect(Z.every((v) => Number.isFinite(v))).toBe(true);
    for (let r = 0; r < 4; r++) expect(Math.abs(Z[r * 3 + 1])).toBeLessThan(1e-15);
  });

  it('refuses to fit on no rows', () => {
    expect(() => fitScaler(new Float64Array(0), 0, 3)).toThrow(/at least 1 row/);
  });
});

describe('buildCellData equals the Python oracle (sklearn StandardScaler) bit for bit', () => {
  const fx = readFixture<CellDataFixture>('cell_data.json');
  it.each(
    fx.cells.map(
      (c) =>
        [`${c.dataset} ${c.mode} ${c.setting} labels=${c.labels} t=${c.tIndex} seed=${c.seed}`, c] as const,
    ),
  )('%s', async (_, c) => {
    const ds = await loadEmbedded(c.dataset);
    const split = makeSplit(ds, {
      setting: c.setting,
      labels: c.labels,
      tIndex: c.tIndex,
      seed: c.seed,
      mode: c.mode,
    });
    const cell = buildCellData64(ds, split, c.mode);
    // Same operations in the same order as sklearn 1.2's first fit: equal bits, not just 1e-12.
    expect(maxAbsDiff(cell.Xl, c.Xl)).toBe(0);
    expect(maxAbsDiff(cell.Xu, c.Xu)).toBe(0);
    expect(maxAbsDiff(cell.Xe, c.Xe)).toBe(0);
    expect(Array.from(cell.yl)).toEqual(c.yl);
    expect(Array.from(cell.ye)).toEqual(c.ye);
    expect(cell.numClasses).toBe(c.m);
    const f32 = buildCellData(ds, split, c.mode);
    expect(f32.Xu.data).toBeInstanceOf(Float32Array);
    expect([f32.Xl.rows, f32.Xl.cols, f32.Xu.rows, f32.Xe.rows]).toEqual([
      split.labeled.length,
      ds.d,
      split.unlabeled.length,
      split.test.length,
    ]);
    expect(maxAbsDiff(f32.Xe.data, Float32Array.from(c.Xe))).toBe(0);
  });
});

describe('buildCellData behaviour', () => {
  it('rsb feature: U has its own scaler, so masked columns become 0; readme maps the fill to 0 exactly', async () => {
    const wine = await loadEmbedded('wine');
    const s = makeSplit(wine, { setting: 'feature', labels: 5, tIndex: 3, seed: 2, mode: 'rsb' });
    expect(s.maskedColumns).toHaveLength(8);
    const c = buildCellData64(wine, s, 'rsb');
    for (let r = 0; r < c.nu; r++)
      for (const f of s.maskedColumns ?? []) expect(Math.abs(c.Xu[r * c.d + f])).toBeLessThan(1e-12);
    // The unmasked columns of U are standardised on U itself.
    const free = [...Array(wine.d).keys()].filter((f) => !(s.maskedColumns ?? []).includes(f));
    for (const f of free) {
      let m = 0;
      for (let r = 0; r < c.nu; r++) m += c.Xu[r * c.d + f];
      expect(Math.abs(m / c.nu)).toBeLessThan(1e-12);
    }
    // With the labeled scaler, the fill value (the raw labeled mean) maps to exactly 0.
    const labeledScaled = buildCellData64(wine, s, 'rsb', { scaler: 'labeled' });
    for (let r = 0; r < c.nu; r++)
      for (const f of s.maskedColumns ?? []) expect(labeledScaled.Xu[r * c.d + f]).toBe(0);
    const rd = makeSplit(wine, { setting: 'feature', labels: 5, tIndex: 3, seed: 2, mode: 'readme' });
    const cr = buildCellData64(wine, rd, 'readme');
    let masked = 0;
    (rd.rowMasks ?? []).forEach((cols, r) => {
      for (const f of cols) {
        expect(cr.Xu[r * cr.d + f]).toBe(0);
        masked++;
      }
    });
    expect(masked).toBe(88 * 7);
  });

  it('label: labels re-indexed to 0..m−1 through the kept classes (readme)', async () => {
    const iris = await loadEmbedded('iris');
    const s = makeSplit(iris, { setting: 'label', labels: 5, tIndex: 2, seed: 1, mode: 'readme' });
    expect(s.keptClasses).toEqual([0, 2]);
    const c = buildCellData(iris, s, 'readme');
    expect(c.numClasses).toBe(2);
    expect(Array.from(c.yl)).toEqual(s.labeled.map((r) => (iris.y[r] === 0 ? 0 : 1)));
    expect(new Set(c.ye)).toEqual(new Set([0, 1]));
    // OOD rows (class 1) are the last nUnlabeledOod rows of U.
    const tail = s.unlabeled.slice(s.unlabeled.length - s.nUnlabeledOod);
    expect(tail.every((r) => iris.y[r] === 1)).toBe(true);
    expect(s.unlabeled.slice(0, s.unlabeled.length - s.nUnlabeledOod).every((r) => iris.y[r] !== 1)).toBe(
      true,
    );
  });

  it.each(['rsb', 'readme'] as const)(
    '%s: no E row reaches L or U (except rsb distribution t=0), and L and E are identical across t',
    async (mode) => {
      for (const id of ['iris', 'wine'] as const) {
        const ds = await loadEmbedded(id);
        for (const setting of ['distribution', 'feature', 'label'] as const) {
          for (const seed of [0, 1, 2]) {
            const cells = [0, 1, 2, 3, 4, 5].map((tIndex) =>
              makeSplit(ds, { setting, labels: 10, tIndex, seed, mode }),
            );
            for (const s of cells) {
              const test = new Set(s.test);
              expect(s.labeled.some((r) => test.has(r))).toBe(false);
              // The one exception, by design (§5.2): rsb distribution t=0 draws U from the near half.
              const t0Overlap = mode === 'rsb' && setting === 'distribution' && s === cells[0];
              if (!t0Overlap) expect(s.unlabeled.some((r) => test.has(r))).toBe(false);
              expect(new Set(s.unlabeled).size).toBe(s.unlabeled.length);
              expect(s.labeled).toEqual(cells[0].labeled);
              expect(s.test).toEqual(cells[0].test);
            }
          }
        }
      }
    },
  );

  it('rsb distribution t=0 draws U from the near half, so it overlaps L ∪ E; t>0 does not', async () => {
    const iris = await loadEmbedded('iris');
    const at = (tIndex: number) =>
      makeSplit(iris, { setting: 'distribution', labels: 5, tIndex, seed: 0, mode: 'rsb' });
    const t0 = at(0);
    const source = new Set([...t0.labeled, ...t0.test]);
    expect(t0.unlabeled.every((r) => source.has(r))).toBe(true);
    for (let i = 1; i <= 5; i++) expect(at(i).unlabeled.some((r) => source.has(r))).toBe(false);
  });
});

describe('indicesSha256 (§10)', () => {
  it('hashes the JSON text [L, E, U]', async () => {
    const split = { labeled: [3, 1], test: [0], unlabeled: [2, 4] };
    expect(indicesJson(split)).toBe('[[3,1],[0],[2,4]]');
    // sha256('[[3,1],[0],[2,4]]') computed with Python hashlib.
    expect(await indicesSha256(split)).toBe(
      'b3a3c563ba551cb4fa87e8c1690f14287455b32d60d16cbb55b284ea67939c2d',
    );
  });
});
