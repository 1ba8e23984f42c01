/**
 * Warm-started TSVM (the default) against the cold-start TSVM of main 9075367, cell for cell: the
 * number of correct test predictions on the 72 seed-0 cells of iris and wine (3 settings × labels
 * 5/10 × t 0..5). Recorded from `rac-bench run --dataset iris,wine --setting all --labels 5,10
 * --algorithms tsvm --seeds 0-4 --t all` (all 360 cells were identical when this was written).
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { argmaxRows } from '../../../../src/lib/models/estimator.ts';
import { TSVM } from '../../../../src/lib/models/statistical/tsvm.ts';
import { buildCellData, makeSplit } from '../../../../src/lib/protocol/index.ts';
import { mt } from '../../../../src/lib/protocol/rng.ts';
import type { Dataset, Setting } from '../../../../src/lib/types.ts';
import { loadEmbedded } from '../../helpers/datasets.ts';

interface CellFixture {
  dataset: 'iris' | 'wine';
  setting: Setting;
  labels: number;
  t: number;
  seed: number;
  n_correct: number;
  n_test: number;
}
const { cells } = JSON.parse(
  readFileSync(new URL('../../../fixtures/svm/tsvm_cells_main.json', import.meta.url), 'utf8'),
) as { cells: CellFixture[] };

let datasets: Record<string, Dataset>;
beforeAll(async () => {
  datasets = { iris: await loadEmbedded('iris'), wine: await loadEmbedded('wine') };
});

describe('warm-started TSVM = the cold-start results, cell for cell', () => {
  it('72 iris/wine cells: identical number of correct predictions', async () => {
    expect(cells.length).toBe(72);
    const differing: string[] = [];
    for (const c of cells) {
      const ds = datasets[c.dataset];
      const split = makeSplit(ds, {
        setting: c.setting,
        labels: c.labels,
        tIndex: c.t,
        seed: c.seed,
        mode: 'rsb',
      });
      const cell = buildCellData(ds, split, 'rsb');
      if (cell.Xu.rows === 0) continue;
      const m = new TSVM();
      await m.fit(cell.Xl, cell.yl, cell.Xu, cell.numClasses, { rng: mt(c.seed) });
      const pred = argmaxRows(await m.predictProba(cell.Xe), cell.Xe.rows, cell.numClasses);
      let correct = 0;
      for (let i = 0; i < pred.length; i++) if (pred[i] === cell.ye[i]) correct++;
      expect(pred.length).toBe(c.n_test);
      if (correct !== c.n_correct)
        differing.push(`${c.dataset}/${c.setting}/${c.labels}/t${c.t}: ${correct} vs ${c.n_correct}`);
    }
    expect(differing).toEqual([]);
  }, 300_000);
});
