/**
 * Timing of a letter-sized graph (measurement, not a gate; run with LP_BENCH=1):
 * 10 000 random rows × 16 features, k = 26, and the real letter `feature` cell (labels 5, t 0,
 * seed 0: |L| 130, |U| 10 000, |E| 9 870), on the float32 blocked tfjs path.
 * LP_BENCH_ITERS caps maxIter (default 30) so the per-iteration cost can be read off.
 * Measured (wasm SIMD in Node, 2 shared cores under load): letter LP graph 4.5 s + 0.62 s/iteration,
 * predict 9 870 rows 8.4 s; LS converges in 6 iterations (12.8 s fit). LP's Σ|ΔF| is still 4.9
 * after 200 iterations there, so an rsb LP fit on letter `feature` runs all 10 000 iterations.
 */
import { readFileSync } from 'node:fs';
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseCanonicalCsv } from '../../../../src/lib/data/canonical.ts';
import { DATASETS } from '../../../../src/lib/data/registry.ts';
import { LabelPropagation } from '../../../../src/lib/models/statistical/labelPropagation.ts';
import { LabelSpreading } from '../../../../src/lib/models/statistical/labelSpreading.ts';
import { buildCellData, makeSplit } from '../../../../src/lib/protocol/index.ts';
import { mt } from '../../../../src/lib/protocol/rng.ts';
import type { Matrix } from '../../../../src/lib/types.ts';
import { useTestBackend } from './tfBackend.ts';

const iters = Number(process.env.LP_BENCH_ITERS ?? 30);

function randomMatrix(rows: number, cols: number, seed: number): Matrix {
  const rng = mt(seed);
  return { data: Float32Array.from({ length: rows * cols }, () => rng.normal()), rows, cols };
}

async function time(
  label: string,
  Xl: Matrix,
  yl: Int32Array,
  Xu: Matrix,
  Xe: Matrix,
  k: number,
  variant: 'lp' | 'ls',
) {
  const before = tf.memory().numTensors;
  const model =
    variant === 'lp' ? new LabelPropagation({ maxIter: iters }) : new LabelSpreading({ maxIter: iters });
  const t0 = performance.now();
  let tBuilt = 0; // the first progress report comes right after the graph is built
  await model.fit(Xl, yl, Xu, k, { rng: mt(0), onProgress: () => void (tBuilt ||= performance.now()) });
  const t1 = performance.now();
  await model.predictProba(Xe);
  const t2 = performance.now();
  const info = model.info();
  model.dispose();
  console.log(
    `${label} ${variant} [${tf.getBackend()}, ${info.floatPrecision}, cached ${info.graphCached}]: n ${Xl.rows + Xu.rows}, ` +
      `fit ${((t1 - t0) / 1000).toFixed(1)} s = graph ${((tBuilt - t0) / 1000).toFixed(1)} s + ${info.nIter} iterations ` +
      `× ${((t1 - tBuilt) / 1000 / Math.max(1, Number(info.nIter))).toFixed(2)} s (converged ${info.converged}), ` +
      `predict ${Xe.rows} rows ${((t2 - t1) / 1000).toFixed(1)} s`,
  );
  expect(tf.memory().numTensors).toBe(before);
}

describe.runIf(process.env.LP_BENCH === '1')('letter-sized timing', () => {
  beforeAll(async () => {
    await useTestBackend();
  });

  it('10 000 × 16 random rows, k = 26', async () => {
    const k = 26;
    const Xl = randomMatrix(130, 16, 1);
    const yl = Int32Array.from({ length: 130 }, (_, i) => i % k);
    await time('random', Xl, yl, randomMatrix(9870, 16, 2), randomMatrix(10000, 16, 3), k, 'lp');
  }, 3_600_000);

  it('letter feature cell (labels 5, t 0, seed 0)', async () => {
    const text = readFileSync(new URL('../../../fixtures/data/letter.csv', import.meta.url), 'utf8');
    const ds = { ...parseCanonicalCsv('letter', text, DATASETS.letter.classNames), sha256: '' };
    const split = makeSplit(ds, { setting: 'feature', labels: 5, tIndex: 0, seed: 0, mode: 'rsb' });
    const cell = buildCellData(ds, split, 'rsb');
    for (const v of ['lp', 'ls'] as const)
      await time('letter', cell.Xl, cell.yl, cell.Xu, cell.Xe, cell.numClasses, v);
  }, 3_600_000);
});
