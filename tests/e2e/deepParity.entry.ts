/**
 * Bundled by tests/e2e/deep-parity.spec.ts (vite library build) and loaded into a localhost page:
 * runs the same PyTorch parity check as the vitest suite on a browser backend (webgpu, or wasm
 * with the trainer's SIMD batched products, whose .wasm files the spec serves under the page).
 */
import * as tf from '@tensorflow/tfjs';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import '@tensorflow/tfjs-backend-webgpu';
import { batchMatMulCounts, installWasmBatchMatMul } from '../../src/lib/models/deep/batchMatMul.ts';
import { checkParity, type ParityFixture } from '../unit/models/deep/parityCheck.ts';

/** `runs`: 'method/mode/quirks' keys to check (all when omitted). */
(globalThis as unknown as { deepParity: unknown }).deepParity = async (
  fx: ParityFixture,
  backend: string,
  runs?: string[],
) => {
  if (backend === 'wasm') setWasmPaths('/__deep-parity/');
  if (!(await tf.setBackend(backend))) throw new Error(`tf.setBackend('${backend}') failed.`);
  await tf.ready();
  const simd = backend === 'wasm' && installWasmBatchMatMul();
  const before = tf.memory().numTensors;
  const res = await checkParity(
    fx,
    runs ? (r) => runs.includes(`${r.method}/${r.mode}/${r.quirks}`) : undefined,
  );
  const adapter =
    backend === 'webgpu'
      ? await (
          navigator as unknown as {
            gpu: { requestAdapter(): Promise<{ info?: { architecture?: string } } | null> };
          }
        ).gpu.requestAdapter()
      : null;
  return {
    backend: tf.getBackend(),
    leaked: tf.memory().numTensors - before,
    simdBatchedProducts: simd ? batchMatMulCounts.simd : null,
    adapter: adapter?.info?.architecture ?? null,
    ...res,
  };
};
