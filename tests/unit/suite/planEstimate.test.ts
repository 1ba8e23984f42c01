import { describe, expect, it } from 'vitest';
import { isBaselineAlgorithm } from '../../../src/lib/models/catalogue.ts';
import { expandPlan, fitCells, shardCells, type CellSpec } from '../../../src/lib/suite/plan.ts';
import { formatDuration, tabulateEstimate } from '../../../src/lib/suite/planEstimate.ts';
import { presetPlan } from '../../../src/lib/suite/presets.ts';

function cell(algorithm: string, dataset: string, seed: number): CellSpec {
  const key = `${dataset}|distribution|5|${algorithm}|0|${seed}`;
  return {
    key,
    dataset,
    setting: 'distribution',
    labels: 5,
    algorithm,
    tIndex: 0,
    seed,
    derivedFromKey: null,
  };
}

describe('tabulateEstimate', () => {
  it('sums per algorithm × dataset and splits round-robin like --shard i/n', () => {
    const fits = [
      { cell: cell('tsvm', 'letter', 0), seconds: 100 },
      { cell: cell('tsvm', 'letter', 1), seconds: 60 },
      { cell: cell('lp', 'letter', 0), seconds: 30 },
      { cell: cell('tsvm', 'iris', 0), seconds: 1 },
      { cell: cell('lp', 'letter', 1), seconds: 10 },
    ];
    const est = tabulateEstimate(fits, 2);
    expect(est.rows).toEqual([
      { algorithm: 'tsvm', dataset: 'letter', fits: 2, seconds: 160, longestSeconds: 100 },
      { algorithm: 'lp', dataset: 'letter', fits: 2, seconds: 40, longestSeconds: 30 },
      { algorithm: 'tsvm', dataset: 'iris', fits: 1, seconds: 1, longestSeconds: 1 },
    ]);
    expect(est.cpuSeconds).toBe(201);
    // Shard 1 holds fits 0, 2, 4 (100 + 30 + 10), shard 2 fits 1, 3 (60 + 1).
    expect(est.shardSeconds).toEqual([140, 61]);
    expect(est.wallSeconds).toBe(140);
    expect(tabulateEstimate(fits, 1).wallSeconds).toBe(201);
  });

  it('shards the preset exactly as rac-bench run --shard does', () => {
    const fits = fitCells(expandPlan(presetPlan('tabular-statistical'), isBaselineAlgorithm));
    const seconds = (c: CellSpec) => (c.dataset === 'letter' ? 7 : 1) + c.seed;
    const est = tabulateEstimate(
      fits.map((c) => ({ cell: c, seconds: seconds(c) })),
      3,
    );
    const expected = [1, 2, 3].map((i) => shardCells(fits, i, 3).reduce((s, c) => s + seconds(c), 0));
    expect(est.shardSeconds).toEqual(expected);
    expect(est.shardSeconds.reduce((a, b) => a + b, 0)).toBe(est.cpuSeconds);
    expect(est.fits).toBe(fits.length);
    expect(est.rows.reduce((s, r) => s + r.fits, 0)).toBe(fits.length);
  });

  it('refuses bad input', () => {
    expect(() => tabulateEstimate([], 0)).toThrow(/shards/);
    expect(() => tabulateEstimate([{ cell: cell('lp', 'iris', 0), seconds: NaN }], 1)).toThrow(/finite/);
    expect(tabulateEstimate([], 2)).toMatchObject({ cpuSeconds: 0, wallSeconds: 0, shardSeconds: [0, 0] });
  });

  it('formats durations', () => {
    expect(formatDuration(5.04)).toBe('5.0 s');
    expect(formatDuration(42)).toBe('42 s');
    expect(formatDuration(600)).toBe('10 min');
    expect(formatDuration(3 * 3600 + 1800)).toBe('3.5 h');
  });
});
