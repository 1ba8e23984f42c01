import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  curveStats,
  groupPanels,
  IncrementalCurves,
  panelCurves,
  type Panel,
} from '../../../src/lib/suite/curves.ts';
import type { CellResult } from '../../../src/lib/suite/schema.ts';
import { T_GRID } from '../../../src/lib/types.ts';
import { validCell } from '../schema/fixtures.ts';

const isBaseline = (name: string) => name === 'xgb' || name === 'ftt';

function cell(p: {
  algorithm?: string;
  setting?: string;
  tIndex: number;
  seed: number;
  acc: number | null;
  quirks?: string;
}): CellResult {
  const c = validCell({
    t: T_GRID[p.tIndex],
    t_index: p.tIndex,
    seed: p.seed,
    setting: p.setting ?? 'distribution',
  }) as unknown as CellResult;
  c.algorithm = { ...c.algorithm, name: p.algorithm ?? 'lp' };
  c.protocol = { ...c.protocol, quirks: (p.quirks ?? 'rsb') as 'rsb' };
  c.outcome =
    p.acc === null
      ? {
          status: 'failed',
          reason: 'boom',
          accuracy: null,
          n_correct: 0,
          n_test: 100,
          n_nan_rows: 0,
          flattened_from_t0: false,
        }
      : {
          status: 'ok',
          accuracy: p.acc,
          n_correct: Math.round(p.acc * 100),
          n_test: 100,
          n_nan_rows: 0,
          flattened_from_t0: false,
        };
  return c;
}

/** One cell per (t, seed) from per-seed curves. */
function curveCells(
  perSeed: number[][],
  extra: { algorithm?: string; setting?: string; quirks?: string } = {},
): CellResult[] {
  return perSeed.flatMap((accs, seed) => accs.map((acc, tIndex) => cell({ ...extra, tIndex, seed, acc })));
}

function close(a: number, b: number, tol = 1e-12) {
  expect(Math.abs(a - b), `${a} vs ${b}`).toBeLessThanOrEqual(tol);
}

describe('curveStats', () => {
  it('gives the mean, population std and count per t', () => {
    const s = curveStats([[0.8, 0.9], [0.5], [], [0.1, 0.2, 0.3], [1, 1, 1, 1, 1], [0, 1]]);
    expect(s.nSeeds).toEqual([2, 1, 0, 3, 5, 2]);
    close(s.mean[0], 0.85);
    close(s.std[0], 0.05); // population: ÷ 2, not ÷ 1 (sample std would be 0.0707)
    expect(s.std[1]).toBe(0);
    expect(s.mean[2]).toBeNaN();
    expect(s.std[2]).toBeNaN();
    close(s.std[3], Math.sqrt(2 / 3) / 10);
    expect(s.std[4]).toBe(0);
    expect(s.std[5]).toBe(0.5);
  });

  it('rejects a wrong number of t lists and out-of-range accuracies', () => {
    expect(() => curveStats([[0.5], [0.5]])).toThrow(
      'curveStats: expected 6 lists of accuracies (one per t), got 2.',
    );
    expect(() => curveStats([[0.5], [0.5], [85], [], [], []])).toThrow(
      'curveStats: accuracy 0 at t=0.4 is 85; expected a number in [0, 1].',
    );
    expect(() => curveStats([[NaN], [], [], [], [], []])).toThrow(/is NaN/);
  });
});

describe('panelCurves', () => {
  // Two seeds whose mean is E1 of PROTOCOL.md §8.3.
  const seedsE1 = [
    [0.92, 0.86, 0.81, 0.8, 0.71, 0.6],
    [0.88, 0.84, 0.79, 0.8, 0.69, 0.6],
  ];

  it('averages seeds into a curve and scores it in both forms (E1)', () => {
    const [c] = panelCurves(curveCells(seedsE1), { isBaseline });
    expect([c.dataset, c.setting, c.labels, c.algorithm, c.family, c.baseline]).toEqual([
      'iris',
      'distribution',
      5,
      'lp',
      'statistical',
      false,
    ]);
    [0.9, 0.85, 0.8, 0.8, 0.7, 0.6].forEach((m, i) => close(c.mean[i], m));
    [0.02, 0.01, 0.01, 0, 0.01, 0].forEach((s, i) => close(c.std[i], s));
    expect(c.nSeeds).toEqual([2, 2, 2, 2, 2, 2]);
    expect(c.seeds).toEqual([0, 1]);
    const m = c.metrics!;
    expect(m.flattened).toBe(false);
    close(m.integral.auc, 0.78);
    close(m.code.auc, 0.775);
    close(m.integral.rcc, -0.962708943886);
    close(m.code.rcc, -0.961571661807);
    close(m.code.vs, 0.0374165738677);
    expect(m.integral.pt).toEqual({ kind: 'uniform' });
  });

  it('passes P_T through to the integral EA', () => {
    const [c] = panelCurves(curveCells(seedsE1), { isBaseline, pt: { kind: 'beta', alpha: 2, beta: 5 } });
    close(c.metrics!.integral.ea, 0.833773714286);
    expect(c.metrics!.integral.pt).toEqual({ kind: 'beta', alpha: 2, beta: 5 });
  });

  it('flattens baselines to t = 0 (§8.3 flattening check), with or without t > 0 cells', () => {
    const raw = [[0.8, 0.81, 0.79, 0.8, 0.82, 0.78]];
    const full = panelCurves(curveCells(raw, { algorithm: 'xgb' }), { isBaseline })[0];
    const t0only = panelCurves([cell({ algorithm: 'xgb', tIndex: 0, seed: 0, acc: 0.8 })], { isBaseline })[0];
    for (const c of [full, t0only]) {
      expect(c.baseline).toBe(true);
      expect(c.mean).toEqual([0.8, 0.8, 0.8, 0.8, 0.8, 0.8]);
      expect(c.nSeeds).toEqual([1, 1, 1, 1, 1, 1]);
      expect(c.metrics!.flattened).toBe(true);
      close(c.metrics!.integral.auc, 0.8);
      close(c.metrics!.code.auc, 0.8);
      expect(c.metrics!.code.rcc).toBeNaN();
      expect(c.metrics!.integral.rcc).toBeNaN();
      close(c.metrics!.integral.intA2, 0.64);
    }
    // The same raw curve under a non-baseline name is not flattened.
    const lp = panelCurves(curveCells(raw, { algorithm: 'lp' }), { isBaseline })[0];
    expect(lp.metrics!.flattened).toBe(false);
    expect(lp.metrics!.code.rcc).not.toBeNaN();
  });

  it('groups by (dataset, setting, labels, algorithm) and into panels', () => {
    const cells = [
      ...curveCells(seedsE1, { algorithm: 'lp' }),
      ...curveCells(seedsE1, { algorithm: 'ls' }),
      ...curveCells(seedsE1, { algorithm: 'lp', setting: 'label' }),
    ];
    const curves = panelCurves(cells, { isBaseline });
    expect(curves.map((c) => `${c.setting}/${c.algorithm}`)).toEqual([
      'distribution/lp',
      'distribution/ls',
      'label/lp',
    ]);
    const panels = groupPanels(curves);
    expect(panels.map((p) => [p.setting, p.curves.length])).toEqual([
      ['distribution', 2],
      ['label', 1],
    ]);
  });

  it('never pools cells that ran under different quirks', () => {
    const cells = [...curveCells(seedsE1.slice(0, 1)), ...curveCells(seedsE1.slice(1), { quirks: 'fixed' })];
    const curves = panelCurves(cells, { isBaseline });
    expect(curves).toHaveLength(2);
    expect(curves.map((c) => c.protocol.quirks)).toEqual(['rsb', 'fixed']);
    expect(curves[0].mean).toEqual(seedsE1[0]);
  });

  it('leaves metrics null while a t has no scored seed, and counts failures and duplicates', () => {
    const cells = curveCells([[0.9, 0.8, 0.7, 0.6, 0.5, 0.4]]);
    cells[2] = cell({ tIndex: 2, seed: 0, acc: null });
    cells.push(cell({ tIndex: 0, seed: 0, acc: 0.1 })); // a repeat of (t=0, seed 0): ignored
    const [c] = panelCurves(cells, { isBaseline });
    expect(c.nNotOk).toBe(1);
    expect(c.nDuplicates).toBe(1);
    expect(c.nSeeds).toEqual([1, 1, 0, 1, 1, 1]);
    expect(c.mean[0]).toBe(0.9);
    expect(c.mean[2]).toBeNaN();
    expect(c.metrics).toBeNull();
  });

  it('does not depend on the order of the cells', () => {
    const cells = curveCells(seedsE1);
    const a = panelCurves(cells, { isBaseline })[0];
    const b = panelCurves([...cells].reverse(), { isBaseline })[0];
    expect(b.metrics).toEqual(a.metrics);
    expect(b.std).toEqual(a.std);
  });
});

describe('IncrementalCurves', () => {
  const fixture = (
    JSON.parse(readFileSync('tests/fixtures/runs/classroom.json', 'utf8')) as { cells: CellResult[] }
  ).cells;
  // Streaming order: cells finish interleaved across panels (by seed, then t), not panel by panel.
  const streamed = [...fixture].sort((a, b) => a.seed - b.seed || a.t_index - b.t_index);
  // Late arrivals that must not pool with the rest: another protocol (a new curve inside an old
  // panel, first seen late) and a repeated cell (a duplicate).
  const late = { ...streamed[3], protocol: { ...streamed[3].protocol, quirks: 'fixed' as const } };
  const cells = [...streamed.slice(0, 500), late, { ...streamed[10] }, ...streamed.slice(500)];
  const panelKey = (p: Panel) => `${p.dataset}|${p.setting}|${p.labels}`;

  it('equals panelCurves + groupPanels after every append, and keeps untouched panels identical', () => {
    expect(fixture).toHaveLength(864);
    const inc = new IncrementalCurves({ isBaseline });
    let prev = new Map<string, Panel>();
    let checked = 0;
    for (let end = 0, step = 1; end < cells.length; step = ((step * 3) % 97) + 1) {
      const prefix = cells.slice(0, Math.min(cells.length, end + step));
      const added = new Set(prefix.slice(end).map((c) => `${c.dataset.id}|${c.setting}|${c.labels}`));
      end = prefix.length;
      const { curves, panels } = inc.update(prefix);
      const full = panelCurves(prefix, { isBaseline });
      expect(curves).toEqual(full);
      expect(panels).toEqual(groupPanels(full));
      for (const p of panels) {
        const before = prev.get(panelKey(p));
        if (before && !added.has(panelKey(p))) expect(p).toBe(before);
        if (before && added.has(panelKey(p))) expect(p).not.toBe(before);
      }
      prev = new Map(panels.map((p) => [panelKey(p), p]));
      checked++;
    }
    expect(checked).toBeGreaterThan(15);
    const { curves, panels } = inc.update(cells);
    expect(panels).toHaveLength(12);
    expect(curves).toHaveLength(12 * 4 + 1); // the late protocol is a curve of its own
    expect(curves.find((c) => c.protocol.quirks === 'fixed')?.nSeeds).toEqual([1, 0, 0, 0, 0, 0]);
    expect(curves.reduce((s, c) => s + c.nDuplicates, 0)).toBe(1);
    // Nothing new: the very same result.
    expect(inc.update([...cells]).panels).toBe(panels);
  });

  it('starts over when the list is not an extension of the last one, and honours P_T', () => {
    const pt = { kind: 'beta', alpha: 2, beta: 5 } as const;
    const inc = new IncrementalCurves({ isBaseline, pt });
    inc.update(cells.slice(0, 300));
    const other = cells.slice(200, 700);
    expect(inc.update(other).curves).toEqual(panelCurves(other, { isBaseline, pt }));
    const all = inc.update(cells).curves;
    expect(all).toEqual(panelCurves(cells, { isBaseline, pt }));
    const uniform = panelCurves(cells, { isBaseline });
    // The beta P_T changes EA (the integral form) of a complete non-flat curve.
    const i = all.findIndex((c) => c.metrics && !c.baseline);
    expect(all[i].metrics!.integral.ea).not.toBeCloseTo(uniform[i].metrics!.integral.ea, 6);
  });
});
