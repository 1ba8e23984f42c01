/**
 * Tri-Training equals the faithful Python port of LAMDA-SSL's Tri_Training (scikit-learn SVC,
 * xgboost, numpy's seeded global stream; scripts/fixtures/lamda_ssl_port.py) per seed on every
 * iris/wine cell of the `paper` preset (PROTOCOL.md §7.1, §3.5, spec 1.1.0).
 */
import { describe, expect, it } from 'vitest';
import { perSeedDifferences, readPaperFixture, runFixtureCells } from './fixtureCells.ts';

describe('Tri-Training = LAMDA-SSL port, per seed (360 cells)', () => {
  const fixture = readPaperFixture('tritraining.json');

  it('covers every iris/wine cell', () => {
    expect(fixture.cells.length).toBe(360);
  });

  it('equals the port on every cell, restarts included', async () => {
    const ours = await runFixtureCells('tritraining', fixture.cells);
    expect(perSeedDifferences(fixture.cells, ours)).toEqual([]);
    const restarted = (xs: boolean[]) => xs.flatMap((r, i) => (r ? [i] : []));
    expect(restarted(ours.map((r) => r.algorithm.tt_restart === true))).toEqual(
      restarted(fixture.cells.map((c) => c.restart === true)),
    );
    expect(fixture.cells.some((c) => c.restart)).toBe(true); // wine · label · 5 · seed 0
    expect(ours.every((r) => r.protocol.version === '1.1.0')).toBe(true);
  }, 300_000);
});
