/**
 * Per-cell parity with scikit-learn 1.2.1 on every rsb cell of iris and wine (3 settings × labels
 * 5/10 × t 0..5 × seeds 0–4 = 180 cells each): the cells come from src/lib/protocol, the expected
 * accuracies and predicted labels from make_lp_fixtures.py over rsb_protocol.py.
 * The float32 tfjs path (what letter takes, and what the browser takes above 4 096 rows) is gated
 * too: every LS cell and LP's seed-0 cells (LP's float32 loop is slow under Node) must give
 * scikit-learn's accuracy; measured 360/360 for both (wasm). LP_PARITY_F32=1 runs all LP cells.
 */
import { readFileSync } from 'node:fs';
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { argmaxRows } from '../../../../src/lib/models/estimator.ts';
import { LabelPropagation } from '../../../../src/lib/models/statistical/labelPropagation.ts';
import { LabelSpreading } from '../../../../src/lib/models/statistical/labelSpreading.ts';
import { buildCellData, makeSplit } from '../../../../src/lib/protocol/index.ts';
import { mt } from '../../../../src/lib/protocol/rng.ts';
import type { Dataset, Setting } from '../../../../src/lib/types.ts';
import { loadEmbedded } from '../../helpers/datasets.ts';
import { useTestBackend } from './tfBackend.ts';

interface ModelResult {
  acc: number;
  acc64: number;
  pred: string;
  nanRows: number;
  converged: boolean;
}
interface CellFixture {
  dataset: 'iris' | 'wine';
  setting: Setting;
  labels: number;
  t: number;
  seed: number;
  k: number;
  nL: number;
  nU: number;
  ye: string;
  lp: ModelResult;
  ls: ModelResult;
}

const cells = (
  JSON.parse(readFileSync(new URL('../../../fixtures/lp/cells.json', import.meta.url), 'utf8')) as {
    cells: CellFixture[];
  }
).cells;

const labelString = (v: ArrayLike<number>): string =>
  Array.from(v, (c) => String.fromCharCode(48 + c)).join('');

async function parity(
  variant: 'lp' | 'ls',
  precision: 'float64' | 'float32',
  datasets: Record<string, Dataset>,
  only?: string,
  seeds?: readonly number[],
) {
  let identicalAcc = 0;
  let identicalPred = 0;
  let n = 0;
  const differing: string[] = [];
  for (const c of cells) {
    if (only && c.dataset !== only) continue;
    if (seeds && !seeds.includes(c.seed)) continue;
    n++;
    const ds = datasets[c.dataset];
    const split = makeSplit(ds, {
      setting: c.setting,
      labels: c.labels,
      tIndex: c.t,
      seed: c.seed,
      mode: 'rsb',
    });
    const cell = buildCellData(ds, split, 'rsb');
    expect(labelString(cell.ye)).toBe(c.ye); // the same cell on both sides
    expect([cell.Xl.rows, cell.Xu.rows, cell.numClasses]).toEqual([c.nL, c.nU, c.k]);
    const model =
      variant === 'lp' ? new LabelPropagation({}, { precision }) : new LabelSpreading({}, { precision });
    await model.fit(cell.Xl, cell.yl, cell.Xu, cell.numClasses, { rng: mt(c.seed), quirks: 'rsb' });
    const P = await model.predictProba(cell.Xe);
    const pred = argmaxRows(P, cell.Xe.rows, cell.numClasses);
    model.dispose();
    let correct = 0;
    for (let i = 0; i < pred.length; i++) if (pred[i] === cell.ye[i]) correct++;
    const acc = correct / pred.length;
    const want = c[variant];
    if (acc === want.acc) identicalAcc++;
    if (labelString(pred) === want.pred) identicalPred++;
    else {
      const diffRows = [...labelString(pred)].flatMap((ch, i) => (ch !== want.pred[i] ? [i] : []));
      differing.push(
        `${c.dataset}/${c.setting}/labels ${c.labels}/t ${c.t}/seed ${c.seed}: acc ${acc.toFixed(4)} vs ${want.acc.toFixed(4)}, rows ${diffRows.join(',')}`,
      );
    }
  }
  return { identicalAcc, identicalPred, differing, n };
}

let datasets: Record<string, Dataset>;
beforeAll(async () => {
  await useTestBackend();
  datasets = { iris: await loadEmbedded('iris'), wine: await loadEmbedded('wine') };
});

describe('per-cell parity with scikit-learn (rsb, iris + wine, float64 graph)', () => {
  it('the fixture covers 2 datasets × 3 settings × 2 labels × 6 t × 5 seeds', () => {
    expect(cells.length).toBe(360);
  });
  for (const variant of ['lp', 'ls'] as const) {
    for (const dataset of ['iris', 'wine']) {
      it(`${variant} on ${dataset}: ≥ 99% of 180 cells have sklearn's accuracy`, async () => {
        const r = await parity(variant, 'float64', datasets, dataset);
        console.log(
          `${variant} ${dataset} float64: identical accuracy ${r.identicalAcc}/180, identical labels ${r.identicalPred}/180` +
            (r.differing.length ? `\n  differing: ${r.differing.join('\n  ')}` : ''),
        );
        expect(r.identicalAcc / 180).toBeGreaterThanOrEqual(0.99);
      });
    }
  }
});

describe('per-cell parity, float32 tfjs path (gate)', () => {
  const all = process.env.LP_PARITY_F32 === '1';
  for (const variant of ['lp', 'ls'] as const) {
    const seeds = variant === 'lp' && !all ? [0] : undefined;
    it(`${variant} float32: every ${seeds ? 'seed-0 ' : ''}cell has sklearn's accuracy`, async () => {
      const before = tf.memory().numTensors;
      const r = await parity(variant, 'float32', datasets, undefined, seeds);
      console.log(
        `${variant} float32 (${tf.getBackend()}): identical accuracy ${r.identicalAcc}/${r.n}, identical labels ${r.identicalPred}/${r.n}` +
          (r.differing.length ? `\n  differing: ${r.differing.join('\n  ')}` : ''),
      );
      expect(r.n).toBe(seeds ? 72 : 360);
      expect(r.identicalAcc).toBe(r.n);
      expect(r.identicalPred / r.n).toBeGreaterThanOrEqual(0.99);
      expect(tf.memory().numTensors).toBe(before);
    }, 3_600_000);
  }
});
