/**
 * What a deep training step costs the backend (issue 20), as a regression guard at the tiny size on
 * wasm (`npm run bench:deep` reports the rsb size): kernels per step (tf.profile) stay within a
 * budget for every method, the host uploads only the step's one buffer of row ids and noise (plus a
 * few 4-byte scalars), nothing is read back inside a step, and no tensor leaks.
 */
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import { countTransfers, profileKernels } from '../../../../scripts/bench/stepStats.ts';
import { trainerConfig } from '../../../../src/lib/models/deep/config.ts';
import { createMethod, DEEP_METHOD_IDS } from '../../../../src/lib/models/deep/methods/index.ts';
import { DeepTrainer } from '../../../../src/lib/models/deep/trainer.ts';
import { MT19937 } from '../../../../src/lib/protocol/rng.ts';
import { cyclicLabels, fixedStreams, normalRows } from '../../../../scripts/bench/stepFixture.ts';

const d = 4,
  k = 3,
  bL = 8;
/** Kernels of one step at the tiny size (2 blocks); measured 207 (FT-T) to 400 (SoftMatch). */
const BUDGET: Record<string, number> = { ftt: 240 };
const DEFAULT_BUDGET = 460;

beforeAll(async () => {
  await tf.setBackend('wasm');
});

describe('a deep training step on wasm', () => {
  it.each(DEEP_METHOD_IDS)('%s: kernels within budget, one small upload, no read-back', async (id) => {
    const rng = new MT19937(7);
    const mk = (rows: number) => normalRows(rng, rows, d);
    const method = createMethod(id);
    const tr = new DeepTrainer(
      trainerConfig(d, k, { size: 'tiny', steps: 10, batchL: bL, progressEvery: 100 }),
      method,
      { Xl: mk(12), yl: cyclicLabels(12, k), Xu: mk(40), k },
      fixedStreams(),
    );
    try {
      await tr.run({}, 1); // first use: data and labels go to the device
      const before = tf.memory().numTensors;
      const bytes = await countTransfers(() => tr.run({}, 2));
      const { kernels } = await profileKernels(() => tr.run({}, 3));
      expect(kernels).toBeLessThanOrEqual(BUDGET[id] ?? DEFAULT_BUDGET);
      const bU = method.mu * bL;
      const noiseRows = (method.labeledView === 'weak' ? bL : 0) + method.views.length * bU;
      expect(bytes.uploadBytes).toBeLessThanOrEqual(4 * (bL + bU + noiseRows * d) + 128);
      expect(bytes.readBytes).toBe(0);
      expect(tf.memory().numTensors).toBe(before);
    } finally {
      tr.dispose();
    }
  });
});
