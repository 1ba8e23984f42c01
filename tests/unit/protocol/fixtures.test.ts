import { describe, expect, it } from 'vitest';
import { indicesSha256, makeSplit } from '../../../src/lib/protocol/index.ts';
import type { Dataset } from '../../../src/lib/types.ts';
import { loadEmbedded } from '../helpers/datasets.ts';
import { loadLetter, readFixture, type FixtureHeader, type SplitCellFixture } from './fixtureFiles.ts';

const letter = loadLetter();

describe.each(['iris', 'wine'] as const)('%s splits equal the Python reference (§3.6)', (id) => {
  const fx = readFixture<{ header: FixtureHeader & { N: number; d: number }; cells: SplitCellFixture[] }>(
    `${id}.json`,
  );

  it(`covers every rsb and readme cell (numpy ${fx.header.numpy}, sklearn ${fx.header.sklearn})`, () => {
    const rsb = fx.cells.filter((c) => c.mode === 'rsb' && !c.options);
    const readme = fx.cells.filter((c) => c.mode === 'readme');
    expect(rsb).toHaveLength(3 * 2 * 5 * 6);
    expect(readme).toHaveLength(3 * 2 * 3 * 6);
    if (id === 'iris')
      expect(fx.cells.filter((c) => c.options?.t0Stream === 'shared')).toHaveLength(2 * 5 * 6);
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

interface DigestCellFixture {
  mode: 'rsb' | 'readme';
  setting: 'distribution' | 'feature' | 'label';
  labels: number;
  tIndex: number;
  seed: number;
  options?: { takeZero?: 'one-per-class' | 'empty' };
  nL: number;
  nE: number;
  nU: number;
  ood: number;
  m: number;
  indices: string;
  cols?: number[];
  kept?: number[];
  masks?: string;
}

describe.runIf(letter !== null)('letter splits equal the Python reference (digests, §10)', () => {
  it('gives the same indices_sha256, sizes, columns and kept classes in every cell', async () => {
    const fx = readFixture<{ header: FixtureHeader; cells: DigestCellFixture[] }>('letter.json');
    const ds = letter as Dataset;
    let cells = 0;
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
      expect(
        [s.labeled.length, s.test.length, s.unlabeled.length, s.nUnlabeledOod, s.numClasses],
        where,
      ).toEqual([c.nL, c.nE, c.nU, c.ood, c.m]);
      expect(await indicesSha256(s), where).toBe(c.indices);
      expect(s.maskedColumns, where).toEqual(c.cols);
      expect(s.keptClasses, where).toEqual(c.kept);
      if (c.masks) expect(await sha256Json(s.rowMasks), where).toBe(c.masks);
      cells++;
    }
    console.log(
      `letter: ${cells} cells equal to the Python reference (numpy ${fx.header.numpy}, sklearn ${fx.header.sklearn})`,
    );
    expect(cells).toBe(fx.cells.length);
  });
});

async function sha256Json(value: unknown): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(JSON.stringify(value)));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}
