/**
 * One TSVM letter cell in-process, for profiling the SMO (dev tool, not a test):
 *   npx tsx scripts/bench/tsvm-cell.ts SETTING LABELS T [--out preds.json] [--cold]
 * Prints fit/predict seconds, fits, swaps, SMO iterations, kernel rows computed and accuracy;
 * --out writes the test predictions and decision scores to compare two versions of the solver.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadDatasetNode } from '../../src/cli/nodeData.ts';
import { TSVM } from '../../src/lib/models/statistical/tsvm.ts';
import { buildCellData, makeSplit } from '../../src/lib/protocol/index.ts';
import { mt } from '../../src/lib/protocol/rng.ts';
import type { Setting } from '../../src/lib/types.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { out: { type: 'string' }, cold: { type: 'boolean' }, 'data-dir': { type: 'string' } },
});
const [setting = 'feature', labels = '5', t = '0'] = positionals;
const ds = await loadDatasetNode('letter', values['data-dir'] ?? 'tests/fixtures/data');
const tIndex = [0, 0.2, 0.4, 0.6, 0.8, 1].indexOf(Number(t));
const split = makeSplit(ds, {
  setting: setting as Setting,
  labels: Number(labels),
  tIndex,
  seed: 0,
  mode: 'rsb',
});
const cell = buildCellData(ds, split, 'rsb');
const m = new TSVM();
if (values.cold) m.warmStart = false;
const c0 = process.cpuUsage();
const t0 = performance.now();
await m.fit(cell.Xl, cell.yl, cell.Xu, cell.numClasses, { rng: mt(0) });
const t1 = performance.now();
const scores = m.decisionScores(cell.Xe);
const t2 = performance.now();
const cpu = process.cpuUsage(c0);
const k = cell.numClasses;
const pred = new Int32Array(cell.Xe.rows);
let correct = 0;
for (let i = 0; i < pred.length; i++) {
  let b = 0;
  for (let c = 1; c < k; c++) if (scores[i * k + c] > scores[i * k + b]) b = c;
  pred[i] = b;
  if (b === cell.ye[i]) correct++;
}
const info = m.info() as Record<string, unknown>;
console.log(
  JSON.stringify({
    setting,
    labels: Number(labels),
    t: Number(t),
    n: cell.Xl.rows + cell.Xu.rows,
    fitS: +((t1 - t0) / 1000).toFixed(2),
    predictS: +((t2 - t1) / 1000).toFixed(2),
    cpuS: +((cpu.user + cpu.system) / 1e6).toFixed(2),
    fits: info.fits,
    swaps: info.swaps,
    nIter: info.nIter,
    kernelRows: info.kernelRows,
    accuracy: correct / pred.length,
  }),
);
if (values.out)
  writeFileSync(values.out, JSON.stringify({ pred: Array.from(pred), scores: Array.from(scores) }));
