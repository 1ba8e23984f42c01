/**
 * Calibrates the deep cost model (src/lib/models/deep/cost.ts): whole fits through the catalogue's
 * estimator (createDeepEstimator) on tfjs WASM under Node, timed, against the model's
 * multiply-adds. Prints, per fit, the measured seconds, the model's MACs and the implied rate, and
 * the model's predicted seconds. CPU time is printed too (fairer on a shared machine).
 * Usage: npx tsx scripts/bench/deepCost.ts [SIZE=tiny] [STEPS=100] [METHODS=ftt,pseudolabel,meanteacher,fixmatch] [SHAPES=iris:4:3,wine:13:3]
 */
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { deepFitMacs, deepFitSeconds } from '../../src/lib/models/deep/cost.ts';
import { createDeepEstimator } from '../../src/lib/models/deep/deepEstimator.ts';
import type { DeepMethodId } from '../../src/lib/models/deep/methods/index.ts';
import { MT19937 } from '../../src/lib/protocol/rng.ts';
import { cyclicLabels, normalRows } from './stepFixture.ts';

const [
  size = 'tiny',
  stepsArg = '100',
  methods = 'ftt,pseudolabel,meanteacher,fixmatch',
  shapes = 'iris:4:3,wine:13:3',
] = process.argv.slice(2);
await tf.setBackend('wasm');
await tf.ready();
const steps = Number(stepsArg);
const batchL = Number(process.env.BATCH_L ?? 64);
console.log(`tfjs ${tf.version.tfjs} ${tf.getBackend()}, size ${size}, ${steps} steps`);
for (const spec of shapes.split(',')) {
  const [name, dS, kS] = spec.split(':');
  const d = Number(dS),
    k = Number(kS);
  const rng = new MT19937(0);
  const mk = (rows: number) => normalRows(rng, rows, d);
  // An rsb-like cell: labels 5 → 5k labeled rows; about half the rows test, the rest unlabeled.
  const nL = 5 * k,
    nU = 60,
    nE = 75;
  const Xl = mk(nL),
    Xu = mk(nU),
    Xe = mk(nE);
  const yl = cyclicLabels(nL, k);
  for (const m of methods.split(',')) {
    const est = createDeepEstimator(m as DeepMethodId, { size: size as 'tiny' | 'rsb', steps, batchL });
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await est.fit(Xl, yl, Xu, k, { rng: new MT19937(0), seed: 0 });
    await est.predictProba(Xe);
    const s = (performance.now() - t0) / 1000;
    const cu = process.cpuUsage(c0);
    const cpu = (cu.user + cu.system) / 1e6;
    est.dispose();
    const shape = { d, k, test: nE, steps };
    const macs = deepFitMacs(m, shape, { size: size as 'tiny' | 'rsb', batchL });
    console.log(
      `${name.padEnd(6)} ${m.padEnd(12)} wall ${s.toFixed(2)} s  cpu ${cpu.toFixed(2)} s  ${(macs / 1e9).toFixed(3)} GMAC  ` +
        `${(macs / s / 1e9).toFixed(2)} GMAC/s  per step ${((1000 * s) / steps).toFixed(1)} ms  model ${deepFitSeconds(m, shape, { size: size as 'tiny' | 'rsb', batchL }).toFixed(2)} s`,
    );
  }
}
