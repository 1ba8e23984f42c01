/**
 * SSGMM under the `paper` preset (ssgmmSupport 'ignore', PROTOCOL.md §7.1 spec 1.1.0) equals the
 * faithful Python port of LAMDA-SSL's SSGMM with scipy ≤ 1.9's singular density written out
 * (scripts/fixtures/lamda_ssl_port.py) per seed on every iris/wine cell.
 */
import { describe, expect, it } from 'vitest';
import { perSeedDifferences, readPaperFixture, runFixtureCells } from './fixtureCells.ts';

describe('SSGMM = LAMDA-SSL port with the scipy ≤ 1.9 density, per seed (360 cells)', () => {
  const fixture = readPaperFixture('ssgmm.json');

  it('equals the port on every cell and records the support option', async () => {
    expect(fixture.cells.length).toBe(360);
    const ours = await runFixtureCells('ssgmm', fixture.cells);
    expect(perSeedDifferences(fixture.cells, ours)).toEqual([]);
    expect(
      ours.every(
        (r) => r.algorithm.ssgmmSupport === 'ignore' && r.protocol.options.ssgmmSupport === 'ignore',
      ),
    ).toBe(true);
  }, 600_000);
});
