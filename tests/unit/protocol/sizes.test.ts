/** PROTOCOL.md §5.6 structural sizes, §5.3 masked column counts, §5.4 readme kept sets. */
import { describe, expect, it } from 'vitest';
import { DATASETS } from '../../../src/lib/data/registry.ts';
import { makeSplit, type CellSplit } from '../../../src/lib/protocol/index.ts';
import type { Dataset, ProtocolMode, Setting } from '../../../src/lib/types.ts';
import { loadEmbedded } from '../helpers/datasets.ts';
import { loadLetter, syntheticDataset } from './fixtureFiles.ts';

const letter = loadLetter();

function split(
  ds: Dataset,
  setting: Setting,
  labels: number,
  tIndex: number,
  seed = 0,
  mode: ProtocolMode = 'rsb',
): CellSplit {
  return makeSplit(ds, { setting, labels, tIndex, seed, mode });
}

/** |U| per t; in `label` as "in+ood". */
function uSizes(
  ds: Dataset,
  setting: Setting,
  seed = 0,
  labels = 5,
  mode: ProtocolMode = 'rsb',
): (number | string)[] {
  return [0, 1, 2, 3, 4, 5].map((i) => {
    const s = split(ds, setting, labels, i, seed, mode);
    return setting === 'label'
      ? `${s.unlabeled.length - s.nUnlabeledOod}+${s.nUnlabeledOod}`
      : s.unlabeled.length;
  });
}

function perClass(ds: Dataset, rows: number[], numClasses = ds.k): number[] {
  const n = new Array<number>(numClasses).fill(0);
  for (const r of rows) n[ds.y[r]]++;
  return n;
}

describe('§5.6 rsb |U| per t (iris, wine: every seed)', () => {
  it.each([
    ['iris', 'distribution', [15, 15, 15, 15, 12, 15]],
    ['iris', 'feature', [75, 75, 75, 75, 75, 75]],
    ['iris', 'label', ['50+1', '50+12', '37+25', '16+25', '6+25', '2+25']],
    ['wine', 'distribution', [18, 18, 18, 18, 17, 16]],
    ['wine', 'feature', [89, 89, 89, 89, 89, 89]],
    ['wine', 'label', ['65+1', '65+16', '36+24', '16+24', '5+24', '2+24']],
  ] as const)('%s · %s', async (id, setting, expected) => {
    const ds = await loadEmbedded(id);
    for (let seed = 0; seed < 5; seed++)
      for (const labels of [5, 10]) expect(uSizes(ds, setting, seed, labels)).toEqual(expected);
  });
});

describe('§5.6 rsb labeled rows per class and test size (iris, wine: every seed)', () => {
  it.each([
    ['iris', 'distribution', [5, 5, 5], [10, 10, 10], 60, 45],
    ['iris', 'feature', [5, 5, 5], [10, 10, 10], 60, 45],
    ['iris', 'label', [5, 5], [10, 10], 40, 30],
    ['wine', 'distribution', [5, 6, 4], [10, 12, 8], 75, 60],
    ['wine', 'feature', [5, 6, 4], [10, 12, 8], 74, 59],
    ['wine', 'label', [4, 6], [9, 11], 55, 45],
  ] as const)('%s · %s', async (id, setting, per5, per10, test5, test10) => {
    const ds = await loadEmbedded(id);
    for (let seed = 0; seed < 5; seed++) {
      for (const [labels, per, nTest] of [
        [5, per5, test5],
        [10, per10, test10],
      ] as const) {
        const s = split(ds, setting, labels, 2, seed);
        expect(perClass(ds, s.labeled, s.numClasses)).toEqual(per);
        expect(s.test).toHaveLength(nTest);
      }
    }
  });
});

describe.runIf(letter !== null)('§5.6 letter (tests/fixtures/data/letter.csv)', () => {
  const ds = letter as Dataset;

  it('distribution |U| per t, labeled per class and test rows', () => {
    expect(uSizes(ds, 'distribution')).toEqual([2012, 2012, 1998, 1998, 1997, 1987]);
    const s5 = split(ds, 'distribution', 5, 1);
    expect(perClass(ds, s5.labeled)).toEqual(new Array(26).fill(5));
    expect(s5.test).toHaveLength(9877);
    expect(split(ds, 'distribution', 10, 1).test).toHaveLength(9747);
  });

  it('feature |U| = 10 000 at every t; test rows 9 870 / 9 740; labels 10 gives 9–11 per class', () => {
    expect(uSizes(ds, 'feature')).toEqual(new Array(6).fill(10000));
    expect(split(ds, 'feature', 5, 0).test).toHaveLength(9870);
    for (let seed = 0; seed < 5; seed++) {
      const s = split(ds, 'feature', 10, 0, seed);
      expect(s.test).toHaveLength(9740);
      const per = perClass(ds, s.labeled);
      expect(Math.min(...per)).toBeGreaterThanOrEqual(9);
      expect(Math.max(...per)).toBeLessThanOrEqual(11);
    }
  });

  it('label |U| per t at seed 0; other seeds within 2 rows; L totals 67 / 135', () => {
    const expected = ['4971+13', '4971+1242', '4971+3314', '3352+5029', '1257+5029', '13+5029'];
    expect(uSizes(ds, 'label')).toEqual(expected);
    const total = (s: string) => s.split('+').map(Number);
    for (let seed = 1; seed < 5; seed++) {
      uSizes(ds, 'label', seed).forEach((v, i) => {
        const [a, b] = total(String(v));
        const [ea, eb] = total(expected[i]);
        expect(Math.abs(a - ea)).toBeLessThanOrEqual(2);
        expect(Math.abs(b - eb)).toBeLessThanOrEqual(2);
      });
    }
    expect(split(ds, 'label', 5, 0).labeled).toHaveLength(67);
    expect(split(ds, 'label', 10, 0).labeled).toHaveLength(135);
  });
});

describe('§5.6 covertype sizes (synthetic labels with the true class counts)', () => {
  // Sizes depend only on the class counts (allocation ties draw from the seed, not the row order).
  const cov = syntheticDataset('covertype', DATASETS.covertype.classCounts, 1);

  it('distribution |U|, labeled per class and test rows', () => {
    expect(uSizes(cov, 'distribution')).toEqual([58103, 58103, 58101, 58100, 58098, 58099]);
    const s5 = split(cov, 'distribution', 5, 1);
    const s10 = split(cov, 'distribution', 10, 1);
    expect(perClass(cov, s5.labeled)).toEqual([13, 17, 2, 0, 1, 1, 1]);
    expect(perClass(cov, s10.labeled)).toEqual([26, 34, 4, 0, 1, 2, 3]);
    expect([s5.test.length, s10.test.length]).toEqual([290473, 290438]);
  });

  it('feature: |U| 290 506, test rows 290 471 / 290 436', () => {
    const s5 = split(cov, 'feature', 5, 3);
    expect(s5.unlabeled).toHaveLength(290506);
    expect(perClass(cov, s5.labeled)).toEqual([13, 17, 2, 0, 1, 1, 1]);
    expect([s5.test.length, split(cov, 'feature', 10, 3).test.length]).toEqual([290471, 290436]);
  });

  it('label |U| per t at seed 0 and labeled per class (class 3 gets none)', () => {
    expect(uSizes(cov, 'label')).toEqual([
      '266822+3',
      '94736+23684',
      '35526+23684',
      '15789+23684',
      '5920+23684',
      '4+23684',
    ]);
    expect(perClass(cov, split(cov, 'label', 5, 0).labeled, 4)).toEqual([8, 11, 1, 0]);
    expect(perClass(cov, split(cov, 'label', 10, 0).labeled, 4)).toEqual([16, 21, 3, 0]);
  });
});

describe('§5.6 masked column counts per t', () => {
  it.each([
    [4, [0, 1, 2, 3, 4, 4], [0, 0, 1, 2, 3, 4]],
    [13, [0, 3, 6, 8, 11, 13], [0, 2, 5, 7, 10, 13]],
    [16, [0, 4, 7, 10, 13, 16], [0, 3, 6, 9, 12, 16]],
    [54, [0, 11, 22, 33, 44, 54], [0, 10, 21, 32, 43, 54]],
  ])('d = %i', (d, rsb, readme) => {
    const ds = syntheticDataset('synthetic', [30, 30, 30], d);
    const cols = [0, 1, 2, 3, 4, 5].map((i) => split(ds, 'feature', 5, i).maskedColumns ?? []);
    expect(cols.map((c) => c.length)).toEqual(rsb);
    // Nested in t: each set of columns extends the previous one.
    cols.forEach((c, i) =>
      expect(c.slice(0, cols[Math.max(0, i - 1)].length)).toEqual(cols[Math.max(0, i - 1)]),
    );
    const masks = [0, 1, 2, 3, 4, 5].map((i) => split(ds, 'feature', 5, i, 1, 'readme').rowMasks ?? []);
    expect(masks.map((m) => m[0].length)).toEqual(readme);
    for (const m of masks) expect(new Set(m.map((r) => r.length)).size).toBe(1);
    expect(masks[5][7].slice(0, readme[3])).toEqual(masks[3][7]);
  });
});

describe('readme sizes (§5.6, end) and kept sets (§5.4)', () => {
  it('distribution on iris and wine', async () => {
    const iris = await loadEmbedded('iris');
    const wine = await loadEmbedded('wine');
    const sizes = (ds: Dataset, labels: number, seed: number) =>
      [0, 1, 2, 3, 4, 5].map((i) => split(ds, 'distribution', labels, i, seed, 'readme'));
    for (let seed = 0; seed < 3; seed++) {
      for (const [ds, labels, nE, nU] of [
        [iris, 5, 30, [30, 30, 30, 30, 30, 30]],
        [iris, 10, 24, [21, 18, 18, 18, 18, 21]],
        [wine, 5, 39, [36, 34, 34, 34, 34, 36]],
        [wine, 10, 30, [30, 28, 28, 28, 28, 30]],
      ] as const) {
        const cells = sizes(ds, labels, seed);
        expect(cells.map((c) => c.test.length)).toEqual(new Array(6).fill(nE));
        expect(cells.map((c) => c.unlabeled.length)).toEqual(nU);
        expect(perClass(ds, cells[0].labeled)).toEqual([labels, labels, labels]);
      }
    }
  });

  it('feature |U| 75 (iris) and 88 (wine); label pool sizes on iris', async () => {
    const iris = await loadEmbedded('iris');
    const wine = await loadEmbedded('wine');
    expect(split(iris, 'feature', 5, 2, 0, 'readme').unlabeled).toHaveLength(75);
    expect(split(wine, 'feature', 10, 4, 2, 'readme').unlabeled).toHaveLength(88);
    for (let seed = 0; seed < 3; seed++) {
      expect(uSizes(iris, 'label', seed, 5, 'readme')).toEqual([
        '50+0',
        '50+12',
        '37+25',
        '16+25',
        '6+25',
        '0+25',
      ]);
    }
  });

  it('kept sets: k=3 → {1,2}, {0,2}, {1,2}; k=7 → {1,2,3,6}, {0,1,2,6}, {1,2,3,4}', () => {
    const k3 = syntheticDataset('k3', [30, 30, 30], 2);
    const k7 = syntheticDataset('k7', [30, 30, 30, 30, 30, 30, 30], 2);
    const kept = (ds: Dataset) =>
      [0, 1, 2].map((seed) => split(ds, 'label', 5, 2, seed, 'readme').keptClasses);
    expect(kept(k3)).toEqual([
      [1, 2],
      [0, 2],
      [1, 2],
    ]);
    expect(kept(k7)).toEqual([
      [1, 2, 3, 6],
      [0, 1, 2, 6],
      [1, 2, 3, 4],
    ]);
  });
});
