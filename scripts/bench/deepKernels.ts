/**
 * Kernels and host ↔ backend bytes of one rsb-size training step per deep method (issue 20),
 * without timing: a quick table of what `npm run bench:deep` reports next to its times.
 * Usage: npx tsx scripts/bench/deepKernels.ts [DATASET] [METHODS] [BACKEND] [--json] [--composite]
 *   e.g. npx tsx scripts/bench/deepKernels.ts letter:16:26 ftt,fixmatch wasm
 * --composite unregisters the fused kernels (fusedKernels.ts) first: the tf-op path that backends
 * without them (webgpu, webgl) run, i.e. their count of dispatched programs.
 */
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { initNodeBackend } from '../../src/cli/tfNode.ts';
import { trainerConfig } from '../../src/lib/models/deep/config.ts';
import { createMethod, type DeepMethodId } from '../../src/lib/models/deep/methods/index.ts';
import { FUSED_KERNEL_NAMES } from '../../src/lib/models/deep/fusedKernels.ts';
import { DeepTrainer } from '../../src/lib/models/deep/trainer.ts';
import { fixedStreams, stepData } from './stepFixture.ts';
import { countTransfers, profileKernels } from './stepStats.ts';

const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const json = process.argv.includes('--json');
const ALL = 'ftt,pseudolabel,pimodel,meanteacher,ict,uda,fixmatch,flexmatch,softmatch';
const [dsArg = 'letter:16:26', methodsArg = ALL, backend = 'wasm'] = args;
// webgpu: Dawn for Node through the CLI's own set-up (a GPU, or SwiftShader's Vulkan driver).
if (backend === 'webgpu') await initNodeBackend('webgpu');
else await tf.setBackend(backend);
await tf.ready();
if (process.argv.includes('--composite'))
  for (const name of FUSED_KERNEL_NAMES) if (tf.getKernel(name, backend)) tf.unregisterKernel(name, backend);
const [, dS, kS] = dsArg.split(':');
const d = Number(dS),
  k = Number(kS);
const data = stepData(d, k);
const out: Record<string, unknown> = {};
if (!json)
  console.log(`${tf.getBackend()}, ${dsArg}: method  kernels  uploaded B  read back B  (top kernels)`);
for (const id of methodsArg.split(',') as DeepMethodId[]) {
  const cfg = trainerConfig(d, k, { size: 'rsb', steps: 1000, progressEvery: 1_000_000 });
  const tr = new DeepTrainer(cfg, createMethod(id), data, fixedStreams());
  await tr.run({}, 1); // warm-up: first-use uploads (data, labels) and kernel set-up
  const n0 = tf.memory().numTensors;
  const bytes = await countTransfers(() => tr.run({}, 2));
  const stats = await profileKernels(() => tr.run({}, 3));
  const r = { ...stats, ...bytes, leakedTensors: tf.memory().numTensors - n0 };
  out[id] = r;
  if (!json) {
    const top = Object.entries(stats.byName)
      .slice(0, 6)
      .map(([n, c]) => `${n} ${c}`)
      .join(', ');
    console.log(
      `${id.padEnd(12)} ${String(r.kernels).padStart(7)} ${String(r.uploadBytes).padStart(11)} ${String(r.readBytes).padStart(12)}${r.programs === null ? '' : `  programs ${r.programs}`}  (${top})`,
    );
  }
  tr.dispose();
}
if (json) console.log(JSON.stringify(out));
