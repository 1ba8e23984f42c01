// temp probe: wasm heap after two steps, recompute on/off
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { trainerConfig } from '../../src/lib/models/deep/config.ts';
import { createMethod, type DeepMethodId } from '../../src/lib/models/deep/methods/index.ts';
import { DeepTrainer } from '../../src/lib/models/deep/trainer.ts';
import { blockCacheBytes } from '../../src/lib/models/deep/ftTransformer.ts';
import { fixedStreams, stepData } from './stepFixture.ts';
const [id, dS, kS, rec] = process.argv.slice(2);
await tf.setBackend('wasm');
await tf.ready();
const d = +dS, k = +kS;
const cfg = trainerConfig(d, k, { size: 'rsb', steps: 1000, progressEvery: 1e6, recompute: rec === 'true' });
const tr = new DeepTrainer(cfg, createMethod(id as DeepMethodId), stepData(d, k), fixedStreams());
await tr.run({}, 2);
await tr.weights('params');
const heap = (tf.backend() as unknown as { wasm: { HEAPU8: Uint8Array } }).wasm.HEAPU8.length;
console.log(id, d, 'recompute', rec, 'heap MiB', (heap / 2 ** 20).toFixed(0), 'cache est MiB', (blockCacheBytes({ ...cfg.shape }, 512) / 2 ** 20).toFixed(0));
