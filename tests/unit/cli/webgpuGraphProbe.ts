/**
 * Child-process probe for webgpuGraph.test.ts: LabelPropagation and LabelSpreading on their float32
 * tfjs path (the path of graphs above 4 096 rows, forced here on small cells) on `argv[2]`
 * through the CLI's own initNodeBackend. Prints, per cell and model, the predicted classes, the
 * probabilities, n_iter and the number of tfjs tensors left after dispose, as JSON.
 */
import * as tf from '@tensorflow/tfjs';
import { initNodeBackend, type NodeBackend } from '../../../src/cli/tfNode.ts';
import { loadDatasetNode } from '../../../src/cli/nodeData.ts';
import { argmaxRows } from '../../../src/lib/models/estimator.ts';
import { LabelPropagation } from '../../../src/lib/models/statistical/labelPropagation.ts';
import { LabelSpreading } from '../../../src/lib/models/statistical/labelSpreading.ts';
import { buildCellData, makeSplit } from '../../../src/lib/protocol/index.ts';
import { mt } from '../../../src/lib/protocol/rng.ts';
import type { Setting } from '../../../src/lib/types.ts';

const backend = await initNodeBackend(process.argv[2] as NodeBackend);
const CELLS: [string, Setting, number][] = [
  ['iris', 'distribution', 0],
  ['wine', 'feature', 2],
];
const out: Record<string, unknown>[] = [];
for (const [id, setting, tIndex] of CELLS) {
  const ds = await loadDatasetNode(id);
  const split = makeSplit(ds, { setting, labels: 5, tIndex, seed: 0, mode: 'rsb' });
  const cell = buildCellData(ds, split, 'rsb');
  for (const make of [
    // 25 iterations (the loop's own cap, so both backends stop at the same step): software
    // Vulkan is slow, and every iteration exercises the same kernels.
    () => new LabelPropagation({ maxIter: 25 }, { precision: 'float32', blockRows: 32 }),
    () => new LabelSpreading({ maxIter: 25 }, { precision: 'float32', blockRows: 32 }),
  ]) {
    const m = make();
    const before = tf.memory().numTensors;
    await m.fit(cell.Xl, cell.yl, cell.Xu, cell.numClasses, { rng: mt(0) });
    const proba = await m.predictProba(cell.Xe);
    const info = m.info() as Record<string, unknown>;
    m.dispose();
    out.push({
      cell: `${id}/${setting}/t${tIndex}`,
      model: m.className,
      precision: info.floatPrecision,
      nIter: info.nIter,
      pred: Array.from(argmaxRows(proba, cell.Xe.rows, cell.numClasses)),
      proba: Array.from(proba),
      leaked: tf.memory().numTensors - before,
    });
  }
}
process.stdout.write(JSON.stringify({ backend, tfBackend: tf.getBackend(), out }));
process.exit(0);
