import { describe, expect, it } from 'vitest';
import { makeSplit } from '../../../src/lib/protocol/index.ts';
import { loadEmbedded } from '../helpers/datasets.ts';
import { readFixture, type FixtureHeader, type SplitCellFixture } from './fixtureFiles.ts';

describe.each(['iris', 'wine'] as const)('%s splits equal the Python reference (§3.6)', (id) => {
  const fx = readFixture<{ header: FixtureHeader & { N: number; d: number }; cells: SplitCellFixture[] }>(`${id}.json`);

  it(`covers every rsb and readme cell (numpy ${fx.header.numpy}, sklearn ${fx.header.sklearn})`, () => {
    const rsb = fx.cells.filter((c) => c.mode === 'rsb' && !c.options);
    const readme = fx.cells.filter((c) => c.mode === 'readme');
    expect(rsb).toHaveLength(3 * 2 * 5 * 6);
    expect(readme).toHaveLength(3 * 2 * 3 * 6);
    if (id === 'iris') expect(fx.cells.filter((c) => c.options?.t0Stream === 'shared')).toHaveLength(2 * 5 * 6);
  });

  it('gives identical L, E, U, masks and kept classes in every cell', async () => {
    const ds = await loadEmbedded(id);
    expect([ds.N, ds.d]).toEqual([fx.header.N, fx.header.d]);
    let cells = 0;
    let rows = 0;
    for (const c of fx.cells) {
      const where = `${c.mode} ${c.setting} labels=${c.labels} t=${c.tIndex} seed=${c.seed} ${JSON.stringify(c.options ?? {})}`;
      const s = makeSplit(ds, {
        setting: c.setting,
        labels: c.labels,
        tIndex: c.tIndex,
        seed: c.seed,
        mode: c.mode,
        options: c.options,
      });
      expect(s.labeled, `L ${where}`).toEqual(c.L);
      expect(s.test, `E ${where}`).toEqual(c.E);
      expect(s.unlabeled, `U ${where}`).toEqual(c.U);
      expect(s.nUnlabeledOod, `ood ${where}`).toBe(c.ood);
      expect(s.numClasses, `m ${where}`).toBe(c.m);
      expect(s.maskedColumns, `cols ${where}`).toEqual(c.cols);
      expect(s.rowMasks, `masks ${where}`).toEqual(c.masks);
      expect(s.keptClasses, `kept ${where}`).toEqual(c.kept);
      cells++;
      rows += c.L.length + c.E.length + c.U.length;
    }
    console.log(`${id}: ${cells} cells (${rows} row ids) equal to the Python reference`);
    expect(cells).toBe(fx.cells.length);
  });

  it('the shared t=0 stream differs from the per-class one only at t=0 (iris provenance)', async () => {
    if (id !== 'iris') return;
    const ds = await loadEmbedded(id);
    const req = { setting: 'distribution', labels: 5, seed: 1, mode: 'rsb' } as const;
    const shared0 = makeSplit(ds, { ...req, tIndex: 0, options: { t0Stream: 'shared' } });
    const perClass0 = makeSplit(ds, { ...req, tIndex: 0 });
    expect(shared0.unlabeled).not.toEqual(perClass0.unlabeled);
    expect(shared0.labeled).toEqual(perClass0.labeled);
    const shared3 = makeSplit(ds, { ...req, tIndex: 3, options: { t0Stream: 'shared' } });
    expect(shared3).toEqual(makeSplit(ds, { ...req, tIndex: 3 }));
  });
});
