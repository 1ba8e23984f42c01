/**
 * Assemble equals the faithful Python port of LAMDA-SSL's Assemble (T = 30, the XGBoost baseline
 * with k outputs, numpy's seeded global stream; scripts/fixtures/lamda_ssl_port.py) per seed on every
 * iris/wine cell of the `paper` preset (tests/fixtures/paper/assemble.json). All 360 were compared
 * through the CLI (`rac-bench run --preset paper --dataset iris,wine --algorithms assemble`: 360/360);
 * this suite keeps the 72 cells with seed = t index mod 5 (every dataset, setting, labels tag, t and
 * seed), since 30 XGBoost fits per cell make the full set a long test.
 */
import { describe, expect, it } from 'vitest';
import { perSeedDifferences, readPaperFixture, runFixtureCells } from './fixtureCells.ts';

describe('Assemble = LAMDA-SSL port, per seed', () => {
  const fixture = readPaperFixture('assemble.json');

  it('covers every iris/wine cell', () => {
    expect(fixture.cells.length).toBe(360);
  });

  it('equals the port per seed (72 cells: seed = t index mod 5)', async () => {
    const cells = fixture.cells.filter((c) => c.seed === c.t_index % 5);
    expect(cells.length).toBe(72);
    const ours = await runFixtureCells('assemble', cells);
    expect(perSeedDifferences(cells, ours)).toEqual([]);
  }, 600_000);
});
