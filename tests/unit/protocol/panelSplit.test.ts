/**
 * The image and text splits (PROTOCOL-IMAGE-TEXT.md §5) at the real shapes of their files:
 * 1. every size of §5.5's table, every seed, every t (the t = 0.8 double quirk and take-all parts
 *    included), with L per class and the structural rules of §5.6 (E never holds OOD rows, L rows
 *    inside U where the panel says so, U_out from the target or the other half);
 * 2. the row ids themselves against the Python reference of §5 (scripts/fixtures/
 *    make_image_text_split_fixtures.py over rsb_protocol.stratified_split: numpy's RandomState),
 *    by SHA-256 of each list, for 11 panels × 3 seeds × 6 t;
 * 3. amazon's 3.6 M-row `train` pool gives the same sizes as its `test` pool (§5.2 amazonPool).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  panelRule,
  panelSplit,
  type PanelLabels,
  type PanelRule,
  type PanelSplit,
} from '../../../src/lib/protocol/panelSplit.ts';
import { mt } from '../../../src/lib/protocol/rng.ts';
import { T_GRID } from '../../../src/lib/types.ts';

interface Fixture {
  panels: {
    name: string;
    rule: PanelRule;
    labels: number;
    k: number;
    files: Record<string, { rows: number; seed: number }>;
  }[];
  records: {
    panel: string;
    seed: number;
    t: number;
    sizes: number[];
    head: number[][];
    sha256: string[];
    numClasses: number;
  }[];
}

const FIXTURE = JSON.parse(
  readFileSync(new URL('../../fixtures/splits/image_text.json', import.meta.url), 'utf8'),
) as Fixture;

/** numpy's RandomState(seed).permutation(n) % k: the fixtures' synthetic labels. */
const cache = new Map<string, Int32Array>();
function synthetic(n: number, k: number, seed: number): Int32Array {
  const key = `${n}|${k}|${seed}`;
  let y = cache.get(key);
  if (!y) {
    y = Int32Array.from(mt(seed).permutation(n), (v) => v % k);
    cache.set(key, y);
  }
  return y;
}

function labelsOf(files: Record<string, { rows: number; seed: number }>, k: number): PanelLabels {
  const y: Partial<PanelLabels> & { k: number } = { k };
  for (const [f, { rows, seed }] of Object.entries(files))
    (y as Record<string, unknown>)[f] = synthetic(rows, k, seed);
  return y as PanelLabels;
}

/**
 * A panel's split at (seed, t), drawn once: the sizes test and the reference test check the same
 * 18 splits of each panel, and panelSplit is pure (same arguments, same lists), so drawing each
 * twice (seconds on the larger pools) would only repeat the work, not the check.
 */
const splits = new Map<string, PanelSplit>();
function splitOf(panel: Fixture['panels'][number], y: PanelLabels, seed: number, t: number): PanelSplit {
  const key = `${panel.name}|${seed}|${t}`;
  let s = splits.get(key);
  if (!s) {
    s = panelSplit(panel.rule, y, panel.labels, t, seed);
    splits.set(key, s);
  }
  return s;
}

const digest = (ids: readonly number[]) => createHash('sha256').update(ids.join(',')).digest('hex');

function perClass(y: ArrayLike<number>, rows: readonly number[]): Map<number, number> {
  const m = new Map<number, number>();
  for (const r of rows) m.set(y[r], (m.get(y[r]) ?? 0) + 1);
  return m;
}

/** §5.5, |U_in| + |U_out| at t = 0, 0.2, …, 1. */
const FEATURE_U = [
  [25_000, 0],
  [20_000, 5_000],
  [15_000, 10_000],
  [10_000, 15_000],
  [4_999, 20_000],
  [0, 25_000],
];
const SIZES: Record<string, { L: number; E: number; U: number[][]; perClass?: number }> = {
  'cifar10 feature 200': { L: 200, E: 10_000, U: FEATURE_U, perClass: 20 },
  'cifar100 feature': { L: 2_000, E: 10_000, U: FEATURE_U, perClass: 20 },
  'cifar10 label': { L: 100, E: 5_000, U: FEATURE_U, perClass: 20 },
  'cifar100 label': { L: 1_000, E: 5_000, U: FEATURE_U, perClass: 20 },
  'ag_news label': {
    L: 100,
    E: 3_800,
    perClass: 50,
    U: [
      [60_000, 0],
      [48_000, 12_000],
      [36_000, 24_000],
      [24_000, 36_000],
      [11_999, 48_000],
      [0, 60_000],
    ],
  },
  'ag_news feature': {
    L: 100,
    E: 7_600,
    perClass: 25,
    U: [
      [30_000, 0],
      [30_000, 7_500],
      [30_000, 20_000],
      [20_000, 30_000],
      [7_499, 30_000],
      [0, 30_000],
    ],
  },
  'image-clef i->p': {
    L: 100,
    E: 250,
    U: [
      [250, 0],
      [200, 50],
      [150, 100],
      [100, 150],
      [50, 200],
      [0, 250],
    ],
  },
  'visda train->validation': {
    L: 100,
    E: 76_149,
    U: [
      [55_388, 0],
      [44_310, 11_078],
      [33_232, 22_156],
      [22_155, 33_233],
      [11_077, 44_311],
      [0, 55_388],
    ],
  },
  'visda validation->train': {
    L: 100,
    E: 27_644,
    U: [
      [27_644, 0],
      [22_115, 5_529],
      [16_586, 11_058],
      [11_057, 16_587],
      [5_528, 22_116],
      [0, 27_644],
    ],
  },
  'imdb->amazon test pool': {
    L: 100,
    E: 12_450,
    perClass: 50,
    U: [
      [12_450, 0],
      [9_960, 2_490],
      [7_470, 4_980],
      [4_980, 7_470],
      [2_490, 9_960],
      [0, 12_450],
    ],
  },
};

describe('image and text splits (§5)', () => {
  it('has a rule for each published panel and none for the others', () => {
    expect(panelRule('cifar10', 'feature')).toBe('feature-halves');
    expect(panelRule('cifar100', 'label')).toBe('label-kept');
    expect(panelRule('ag_news', 'feature')).toBe('feature-quarters');
    for (const d of ['image-clef', 'visda', 'imdb-amazon'])
      expect(panelRule(d, 'distribution')).toBe('domains');
    expect(panelRule('cifar10', 'distribution')).toBeUndefined();
    expect(panelRule('visda', 'label')).toBeUndefined();
  });

  describe.each(FIXTURE.panels.filter((p) => p.name in SIZES))('$name', (panel) => {
    const want = SIZES[panel.name];
    const y = labelsOf(panel.files, panel.k);
    it('§5.5 sizes and §5.6 structure at every seed and t', () => {
      for (const seed of [0, 1, 2]) {
        T_GRID.forEach((t, i) => {
          const s = splitOf(panel, y, seed, t);
          const at = `seed ${seed}, t ${t}`;
          expect([s.labeled.length, s.test.length], at).toEqual([want.L, want.E]);
          expect([s.unlabeledIn.length, s.unlabeledOut.length], at).toEqual(want.U[i]);
          // No row twice within a list; ids inside their files.
          for (const [list, file] of [
            [s.labeled, s.labeledFrom],
            [s.test, s.testFrom],
            [s.unlabeledIn, s.inFrom],
            [s.unlabeledOut, s.outFrom],
          ] as const) {
            expect(new Set(list).size, `${at}: ${file} ids unique`).toBe(list.length);
            const n = (y as unknown as Record<string, ArrayLike<number>>)[file === 'source' ? 'train' : file]
              .length;
            expect(list.every((r) => r >= 0 && r < n)).toBe(true);
          }
          if (want.perClass !== undefined)
            for (const [, n] of perClass(y.train, s.labeled))
              expect(n, `${at}: L per class`).toBe(want.perClass);
          if (panel.name.startsWith('image-clef')) {
            // 100 labels over 12 classes of 50: 9 × 4 and 8 × 8 (which classes get 9 depends on the seed).
            const counts = [...perClass(y.train, s.labeled).values()].sort();
            expect(counts, at).toEqual([...Array(8).fill(8), ...Array(4).fill(9)]);
          }
          if (panel.rule === 'label-kept') {
            const m = panel.k / 2;
            expect(s.numClasses).toBe(m);
            expect(s.test.every((r) => y.test![r] < m)).toBe(true); // E: kept classes only
            expect(s.unlabeledIn.every((r) => y.train[r] < m)).toBe(true);
            expect(s.unlabeledOut.every((r) => y.train[r] >= m)).toBe(true);
          } else expect(s.numClasses).toBe(panel.k);
          if (panel.rule === 'domains') {
            // E, L and U_in are disjoint parts of the source; U_out indexes the target.
            const source = new Set([...s.labeled, ...s.test]);
            expect(source.size).toBe(want.L + want.E);
            expect(s.unlabeledIn.some((r) => source.has(r))).toBe(false);
            expect(s.outFrom).toBe('target');
          } else {
            expect(s.testFrom).toBe('test');
            // U_out never shares a row with U_in, and (feature) comes from the other half.
            const inSet = new Set(s.unlabeledIn);
            expect(s.unlabeledOut.some((r) => inSet.has(r))).toBe(false);
          }
          // §5.5: U_in takes all at t = 0 except in visda train→validation; U_out at t = 1 in the
          // feature and label panels and there; ag_news · feature also U_in at 0.2, 0.4, U_out at 0.6, 0.8.
          const inAll =
            (t === 0 && panel.name !== 'visda train->validation') ||
            (panel.rule === 'feature-quarters' && (t === 0.2 || t === 0.4));
          const outAll =
            (t === 1 && (panel.rule !== 'domains' || panel.name === 'visda train->validation')) ||
            (panel.rule === 'feature-quarters' && (t === 0.6 || t === 0.8));
          expect(s.takeAll.includes('U_in'), `${at}: U_in take-all`).toBe(inAll);
          expect(s.takeAll.includes('U_out'), `${at}: U_out take-all`).toBe(outAll);
          if (panel.rule === 'feature-halves' && i === 0) {
            // At t = 0, U_in is all of S (take-all, identity order), so it holds every L row.
            const u = new Set(s.unlabeledIn);
            expect(s.labeled.every((r) => u.has(r))).toBe(true);
          }
        });
      }
    });

    it('row ids equal the Python reference (numpy RandomState) at every seed and t', () => {
      const records = FIXTURE.records.filter((r) => r.panel === panel.name);
      expect(records).toHaveLength(18);
      for (const r of records) {
        const s = splitOf(panel, y, r.seed, r.t);
        const lists = [s.labeled, s.test, s.unlabeledIn, s.unlabeledOut];
        const at = `seed ${r.seed}, t ${r.t}`;
        expect(
          lists.map((l) => l.length),
          at,
        ).toEqual(r.sizes);
        expect(
          lists.map((l) => l.slice(0, 5)),
          at,
        ).toEqual(r.head);
        expect(lists.map(digest), at).toEqual(r.sha256);
        expect(s.numClasses).toBe(r.numClasses);
      }
    });
  });

  it('the other fixture panels (cifar10 feature with 2 000 labels) match the reference too', () => {
    const panel = FIXTURE.panels.find((p) => p.name === 'cifar10 feature 2000')!;
    const y = labelsOf(panel.files, panel.k);
    for (const r of FIXTURE.records.filter((x) => x.panel === panel.name)) {
      const s = panelSplit(panel.rule, y, panel.labels, r.t, r.seed);
      expect([s.labeled, s.test, s.unlabeledIn, s.unlabeledOut].map(digest)).toEqual(r.sha256);
    }
  });

  it("amazon's 3.6 M-row train pool gives the sizes of its test pool (nu = 12 450, §5.2)", () => {
    const y: PanelLabels = { train: synthetic(25_000, 2, 111), target: synthetic(3_600_000, 2, 113), k: 2 };
    T_GRID.forEach((t, i) => {
      const s = panelSplit('domains', y, 100, t, 0);
      expect([s.unlabeledIn.length, s.unlabeledOut.length]).toEqual(SIZES['imdb->amazon test pool'].U[i]);
      // n_out is even at every t: the allocation is exact, one half per class.
      const c = perClass(y.target!, s.unlabeledOut);
      expect(c.get(0) ?? 0).toBe(c.get(1) ?? 0);
    });
  });

  it('says which labels a rule is missing, and that label-kept needs an even k', () => {
    expect(() => panelSplit('domains', { train: [0, 1], k: 2 }, 1, 0, 0)).toThrow(/needs the target labels/);
    expect(() => panelSplit('feature-halves', { train: [0, 1], k: 2 }, 1, 0, 0)).toThrow(
      /needs the test labels/,
    );
    expect(() => panelSplit('label-kept', { train: [0, 1, 2], test: [0], k: 3 }, 1, 0, 0)).toThrow(/even k/);
  });
});
