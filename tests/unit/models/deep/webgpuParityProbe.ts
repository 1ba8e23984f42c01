/**
 * Child-process probe for webgpuParity.test.ts: the deep PyTorch parity check (parityCheck.ts) on
 * the backend named by argv[2] through the CLI's initNodeBackend (webgpu: Dawn for Node), for the
 * runs named in argv[3] or RAC_PARITY_RUNS (method/mode/quirks prefixes, comma-separated), then the
 * kernels of one FixMatch training step at the tiny size. Prints one JSON object.
 */
import { readFileSync } from 'node:fs';
import * as tf from '@tensorflow/tfjs';
import { initNodeBackend, type NodeBackend } from '../../../../src/cli/tfNode.ts';
import { trainerConfig } from '../../../../src/lib/models/deep/config.ts';
import { createMethod } from '../../../../src/lib/models/deep/methods/index.ts';
import { DeepTrainer } from '../../../../src/lib/models/deep/trainer.ts';
import { MT19937 } from '../../../../src/lib/protocol/rng.ts';
import { checkParity, type ParityFixture } from './parityCheck.ts';
import { cyclicLabels, fixedStreams, normalRows } from '../../../../scripts/bench/stepFixture.ts';

const backend = await initNodeBackend(process.argv[2] as NodeBackend);
const fx = JSON.parse(
  readFileSync(new URL('../../../fixtures/deep/parity.json', import.meta.url), 'utf8'),
) as ParityFixture;
const before = tf.memory().numTensors;
// The runs to check, as method/mode/quirks prefixes: argv[3] or RAC_PARITY_RUNS ('all': every run);
// by default FixMatch (Adam, quirks rsb) and ICT in readme mode (SGD + cosine, quirks fixed).
const runs = process.argv[3] ?? process.env.RAC_PARITY_RUNS ?? 'fixmatch/rsb/rsb,ict/readme';
const only = runs === 'all' ? null : runs.split(',');
const { errors, mismatches } = await checkParity(
  fx,
  only ? (r) => only.some((o) => `${r.method}/${r.mode}/${r.quirks}`.startsWith(o)) : undefined,
  { recompute: true },
);
const leaked = tf.memory().numTensors - before;

// One training step of the FT-Transformer (tiny size, dropout on): kernels, through the trainer.
const d = 4,
  k = 3;
const rng = new MT19937(3);
const mk = (rows: number) => normalRows(rng, rows, d);
const tr = new DeepTrainer(
  trainerConfig(d, k, { size: 'tiny', steps: 10, batchL: 8, progressEvery: 100 }),
  createMethod('fixmatch'),
  { Xl: mk(16), yl: cyclicLabels(16, k), Xu: mk(64), k },
  fixedStreams(),
);
await tr.run({}, 1);
const prof = await tf.profile(async () => {
  await tr.run({}, 2);
  return [];
});
const w = await tr.weights('params');
tr.dispose();
process.stdout.write(
  JSON.stringify({
    backend,
    tfBackend: tf.getBackend(),
    errors,
    mismatches,
    leaked,
    stepKernels: prof.kernels.length,
    finite: Object.values(w).every((a) => a.every(Number.isFinite)),
  }),
);
process.exit(0);
