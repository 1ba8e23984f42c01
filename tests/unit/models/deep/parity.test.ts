/**
 * The deep family against PyTorch (tests/fixtures/deep/parity.json, from
 * scripts/fixtures/make_deep_fixtures.py): forwards, every method's loss terms, masks and
 * gradients, and weights + EMA shadow after 3 steps of Adam (rsb) and SGD/cosine (readme), both
 * quirks, within 1e-4 relative, on the cpu and wasm backends (wasm with the SIMD batched
 * products of batchMatMul.ts, as the trainer installs them).
 */
import { readFileSync } from 'node:fs';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { describe, expect, it } from 'vitest';
import { installWasmBatchMatMul } from '../../../../src/lib/models/deep/batchMatMul.ts';
import { checkParity, type ParityFixture } from './parityCheck.ts';

const fx = JSON.parse(
  readFileSync(new URL('../../../fixtures/deep/parity.json', import.meta.url), 'utf8'),
) as ParityFixture;
const TOL = 1e-4;

// wasm runs with activation recomputation (the rsb-size default), cpu without: both paths checked.
describe.each([
  ['cpu', false],
  ['wasm', true],
] as const)('deep parity with PyTorch on %s (recompute %s)', (backend, recompute) => {
  it('matches forwards, losses, masks, gradients and 3-step weights', async () => {
    expect(await tf.setBackend(backend)).toBe(true);
    // The trainer's batched-product kernel on wasm (batchMatMul.ts), so parity covers what runs.
    if (backend === 'wasm') expect(installWasmBatchMatMul()).toBe(true);
    const before = tf.memory().numTensors;
    const { errors, mismatches } = await checkParity(fx, undefined, { recompute });
    expect(mismatches).toEqual([]);
    const bad = Object.entries(errors).filter(([, e]) => !(e <= TOL));
    expect(
      bad,
      `worst: ${JSON.stringify(
        Object.entries(errors)
          .sort((a, b) => b[1] - a[1])
          .slice(0, 5),
      )}`,
    ).toEqual([]);
    expect(Object.keys(errors).length).toBeGreaterThan(24 * 8);
    expect(tf.memory().numTensors).toBe(before);
  });
});
