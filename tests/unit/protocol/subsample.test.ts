/**
 * PROTOCOL.md §9 subsampling against numpy: the kept E and U row ids of real cells (iris, wine,
 * letter) equal scripts/fixtures/make_subsample_fixtures.py's exactly, records included.
 */
import { describe, expect, it } from 'vitest';
import { makeSplit, subsampleSplit, type SubsampleSpec } from '../../../src/lib/protocol/index.ts';
import type { Dataset, Setting } from '../../../src/lib/types.ts';
import { loadEmbedded } from '../helpers/datasets.ts';
import { loadLetter, readFixture } from './fixtureFiles.ts';

interface SubsampleFixture {
  header: { numpy: string; sklearn: string };
  cells: {
    dataset: 'iris' | 'wine' | 'letter';
    setting: Setting;
    labels: number;
    tIndex: number;
    seed: number;
    spec: SubsampleSpec;
    graphPool: boolean;
    /** null: no cap touched the pool (it is the split's own). */
    E: number[] | null;
    U: number[] | null;
    records: { pool: string; n_before: number; n_after: number; seed: number }[];
  }[];
}

const fixture = readFixture<SubsampleFixture>('subsample.json');
const datasets: Record<string, Dataset | null> = {
  iris: await loadEmbedded('iris'),
  wine: await loadEmbedded('wine'),
  letter: loadLetter(),
};

describe('subsampleSplit equals the numpy reference (§9)', () => {
  it.each(fixture.cells.map((c, i) => [i, c] as const))('case %i', (_i, c) => {
    const ds = datasets[c.dataset];
    if (!ds) throw new Error(`${c.dataset} fixture data missing (tests/fixtures/data/letter.csv)`);
    const split = makeSplit(ds, {
      setting: c.setting,
      labels: c.labels,
      tIndex: c.tIndex,
      seed: c.seed,
      mode: 'rsb',
    });
    const { split: out, records } = subsampleSplit(ds.y, split, c.spec, c.seed, c.graphPool);
    expect(out.test).toEqual(c.E ?? split.test);
    expect(out.unlabeled).toEqual(c.U ?? split.unlabeled);
    expect(out.labeled).toEqual(split.labeled); // L is never subsampled
    expect(records).toEqual(c.records.map((r) => ({ ...r, method: 'stratified-split' })));
    // OOD rows are counted among those kept (label setting: ids of classes that are not kept).
    if (split.keptClasses) {
      const kept = new Set(split.keptClasses);
      expect(out.nUnlabeledOod).toBe(out.unlabeled.filter((r) => !kept.has(ds.y[r])).length);
    }
  });

  it('covers the edge cases the fixture was made for', () => {
    const pools = fixture.cells.flatMap((c) => c.records);
    expect(pools.some((r) => r.n_after === r.n_before)).toBe(true); // max ≥ pool: recorded no-op
    expect(pools.some((r) => r.pool === 'graph')).toBe(true);
    expect(fixture.cells.some((c) => c.spec.graph && !c.graphPool)).toBe(true); // graph cap not applied
    expect(pools.some((r) => r.seed !== fixture.cells[0].seed + 1_000_003)).toBe(true); // cap seeds
    expect(fixture.cells.filter((c) => c.dataset === 'letter')).toHaveLength(3);
  });

  it('feature/readme row masks follow their rows', () => {
    const ds = datasets.iris!;
    const split = makeSplit(ds, { setting: 'feature', labels: 5, tIndex: 3, seed: 1, mode: 'readme' });
    expect(split.rowMasks).toBeDefined();
    const { split: out } = subsampleSplit(ds.y, split, { unlabeled: { max: 9 } }, 1, false);
    expect(out.unlabeled).toHaveLength(9);
    const maskOf = new Map(split.unlabeled.map((r, i) => [r, split.rowMasks![i]]));
    expect(out.rowMasks).toEqual(out.unlabeled.map((r) => maskOf.get(r)));
  });
});
