/**
 * Assemble equals the faithful Python port of LAMDA-SSL's Assemble (T = 30, the XGBoost baseline
 * with k outputs, numpy's seeded global stream; scripts/fixtures/lamda_ssl_port.py) per seed on every
 * iris cell of the `paper` preset (tests/fixtures/paper/assemble-iris.json). All 180 were compared
 * through the CLI (`rac-bench run --preset paper --dataset iris,wine --algorithms assemble`); this
 * suite keeps the 36 cells with seed = t index mod 5 (every setting, labels tag, t and seed), since
 * 30 XGBoost fits per cell make the full set a minutes-long test.
 */
import { describe, expect, it } from 'vitest';
import { perSeedDifferences, readPaperFixture, runFixtureCells } from './fixtureCells.ts';

describe('Assemble = LAMDA-SSL port, per seed', () => {
  const fixture = readPaperFixture('assemble-iris.json');

  it('covers every iris cell', () => {
    expect(fixture.cells.length).toBe(180);
  });

  it('equals the port per seed (36 cells: seed = t index mod 5)', async () => {
    const cells = fixture.cells.filter((c) => c.seed === c.t_index % 5);
    expect(cells.length).toBe(36);
    const ours = await runFixtureCells('assemble', cells);
    expect(perSeedDifferences(cells, ours)).toEqual([]);
  }, 600_000);
});
