/**
 * The SIMD batched product for tfjs-wasm (src/lib/models/deep/batchMatMul.ts) against tfjs's own
 * kernel: every transpose combination of the attention shapes, broadcast batches both ways, odd
 * sizes (16-, 4- and 1-column tails), the cases it hands back to tfjs (2-D, large operands), its
 * gradients, no leaked tensors or heap, and the committed binary against a fresh build.
 */
import { readFileSync } from 'node:fs';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  batchMatMulCounts,
  batchMatMulPlan,
  installWasmBatchMatMul,
} from '../../../../src/lib/models/deep/batchMatMul.ts';
// @ts-expect-error: a plain .mjs build script without types
import { buildKernelsModule } from '../../../../scripts/wasm/build.mjs';

type Case = [number[], number[], boolean, boolean];
const CASES: Case[] = [
  // attention at rsb size (8 heads × 24, 17 tokens) and its gradients' flag combinations
  [[6, 8, 17, 24], [6, 8, 24, 17], false, false],
  [[6, 8, 17, 24], [6, 8, 17, 24], false, true],
  [[6, 8, 17, 17], [6, 8, 17, 24], true, false],
  [[6, 8, 17, 24], [6, 8, 17, 17], true, false],
  [[6, 8, 24, 17], [6, 8, 17, 24], true, true],
  // odd sizes: n = 37 (two 16-blocks + one 4-block + one column), n = 3 (columns only), k = 1
  [[4, 9, 5], [4, 5, 37], false, false],
  [[4, 9, 5], [4, 3, 5], false, true],
  [[5, 2, 1], [5, 1, 7], false, false],
  // broadcast batches: A over B's batch, B over A's, and leading 1s
  [[7, 5], [3, 7, 4], true, false],
  [[3, 5, 7], [7, 4], false, false],
  [[1, 3, 5, 7], [3, 7, 4], false, false],
  [[2, 3, 5, 7], [2, 3, 4, 5], true, true],
  [[1, 1, 3, 4], [4, 4, 5], false, false], // output [1, 4, 3, 5], as tfjs broadcasts
];

describe('SIMD batched matmul on tfjs-wasm', () => {
  const reference = new Map<number, Float32Array>();
  const shapes = new Map<number, number[]>();
  beforeAll(async () => {
    expect(await tf.setBackend('wasm')).toBe(true);
    // tfjs's own results first (the kernel is swapped once, for the whole process)
    for (const [i, [sa, sb, ta, tb]] of CASES.entries()) {
      const a = tf.randomNormal(sa, 0, 1, 'float32', 10 + i);
      const b = tf.randomNormal(sb, 0, 1, 'float32', 50 + i);
      const r = tf.matMul(a, b, ta, tb);
      reference.set(i, (await r.data()) as Float32Array);
      shapes.set(i, r.shape);
      tf.dispose([a, b, r]);
    }
    expect(installWasmBatchMatMul()).toBe(true);
    expect(installWasmBatchMatMul()).toBe(true); // idempotent
  });

  it.each(CASES.map((c, i) => [i, ...c] as const))(
    'case %i: %j × %j (tA %s, tB %s)',
    async (i, sa, sb, ta, tb) => {
      const a = tf.randomNormal(sa, 0, 1, 'float32', 10 + i);
      const b = tf.randomNormal(sb, 0, 1, 'float32', 50 + i);
      const served = batchMatMulCounts.simd;
      const r = tf.matMul(a, b, ta, tb);
      expect(batchMatMulCounts.simd).toBe(served + 1); // this kernel ran, not tfjs's
      expect(r.shape).toEqual(shapes.get(i));
      // the same float32 sums in the same order as tfjs's loop: equal, not just close
      expect(Array.from(await r.data())).toEqual(Array.from(reference.get(i)!));
      tf.dispose([a, b, r]);
    },
  );

  it('takes the batched shapes and hands 2-D, oversized and mismatched ones back to tfjs', () => {
    expect(batchMatMulPlan([512, 8, 17, 24], [512, 8, 24, 17], false, false)).toMatchObject({
      batch: 4096,
      m: 17,
      k: 24,
      n: 17,
    });
    expect(batchMatMulPlan([8704, 192], [192, 192], false, false)).toBeNull(); // XNNPACK's
    expect(batchMatMulPlan([2, 512, 512], [2, 512, 512], false, false)).toBeNull(); // too large
    expect(batchMatMulPlan([2, 3, 4], [3, 5, 4], false, false)).toBeNull(); // batch 2 vs 3
    expect(batchMatMulPlan([2, 3, 4], [2, 5, 6], false, false)).toBeNull(); // inner 4 vs 5
    expect(batchMatMulPlan([2, 1, 3, 4], [1, 2, 4, 5], false, false)).toBeNull(); // 4 output batches
    expect(batchMatMulPlan([2, 3, 3, 4], [3, 2, 4, 5], false, false)).toBeNull(); // no broadcast
  });

  it('a product tfjs keeps (2-D, oversized) takes its transposes as a Transpose + the plain product', async () => {
    // A head's weight and input gradients: xᵀ·dy and dy·Wᵀ, and an oversized batched case; each
    // equals the product of explicitly transposed operands exactly and a float64 sum closely.
    const cases: Case[] = [
      [[64, 300], [64, 40], true, false],
      [[64, 40], [300, 40], false, true],
      [[37, 20], [9, 37], true, true],
      [[2, 300, 260], [2, 300, 7], true, false],
    ];
    for (const [sa, sb, ta, tb] of cases) {
      const a = tf.randomNormal(sa, 0, 1, 'float32', 3);
      const b = tf.randomNormal(sb, 0, 1, 'float32', 4);
      const before = { tensors: tf.memory().numTensors, bytes: tf.memory().numBytes };
      const tfjs = batchMatMulCounts.tfjs,
        untransposed = batchMatMulCounts.untransposed;
      const r = tf.matMul(a, b, ta, tb);
      expect(batchMatMulCounts.tfjs).toBe(tfjs + 1);
      expect(batchMatMulCounts.untransposed).toBe(untransposed + 1);
      const swap = (t: tf.Tensor) => {
        const perm = [...t.shape.keys()];
        [perm[perm.length - 2], perm[perm.length - 1]] = [perm[perm.length - 1], perm[perm.length - 2]];
        return tf.transpose(t, perm);
      };
      const at = ta ? swap(a) : a,
        bt = tb ? swap(b) : b;
      const plain = tf.matMul(at, bt);
      expect(Array.from(await r.data())).toEqual(Array.from(await plain.data()));
      // float64 reference of one batch's product
      const [A, B] = [(await at.data()) as Float32Array, (await bt.data()) as Float32Array];
      const [m, k] = at.shape.slice(-2),
        n = bt.shape[bt.shape.length - 1];
      const got = (await r.data()) as Float32Array;
      let err = 0;
      for (let i = 0; i < m; i++)
        for (let j = 0; j < n; j++) {
          let acc = 0;
          for (let q = 0; q < k; q++) acc += A[i * k + q] * B[q * n + j];
          err = Math.max(err, Math.abs(acc - got[i * n + j]));
        }
      expect(err).toBeLessThan(1e-4);
      tf.dispose([r, plain, ...(at !== a ? [at] : []), ...(bt !== b ? [bt] : [])]);
      expect(tf.memory().numTensors).toBe(before.tensors);
      expect(tf.memory().numBytes).toBe(before.bytes);
      tf.dispose([a, b]);
    }
  });

  it('gradients through the batched product match tfjs and nothing leaks', async () => {
    const a = tf.randomNormal([3, 4, 17, 24], 0, 1, 'float32', 1);
    const b = tf.randomNormal([3, 4, 24, 17], 0, 1, 'float32', 2);
    const before = { tensors: tf.memory().numTensors, bytes: tf.memory().numBytes };
    const g = tf.grads((x: tf.Tensor, y: tf.Tensor) => tf.sum(tf.square(tf.matMul(x, y))));
    const served = batchMatMulCounts.simd;
    const [ga, gb] = g([a, b]);
    expect(batchMatMulCounts.simd).toBe(served + 3); // forward, dA, dB
    // the same gradients by 2-D products per batch (XNNPACK / tfjs's path, not this kernel)
    const [ea, eb] = tf.tidy(() => {
      const A = tf.unstack(tf.reshape(a, [12, 17, 24])),
        B = tf.unstack(tf.reshape(b, [12, 24, 17]));
      const dA = A.map((x, i) => tf.matMul(tf.mul(2, tf.matMul(x, B[i])), tf.transpose(B[i])));
      const dB = A.map((x, i) => tf.matMul(tf.transpose(x), tf.mul(2, tf.matMul(x, B[i]))));
      return [tf.reshape(tf.stack(dA), a.shape), tf.reshape(tf.stack(dB), b.shape)];
    });
    const close = async (x: tf.Tensor, y: tf.Tensor) => {
      const [p, q] = [await x.data(), await y.data()];
      let worst = 0;
      for (let i = 0; i < p.length; i++)
        worst = Math.max(worst, Math.abs(p[i] - q[i]) / (1 + Math.abs(q[i])));
      return worst;
    };
    expect(await close(ga, ea)).toBeLessThan(1e-5);
    expect(await close(gb, eb)).toBeLessThan(1e-5);
    tf.dispose([ga, gb, ea, eb]);
    expect(tf.memory().numTensors).toBe(before.tensors);
    expect(tf.memory().numBytes).toBe(before.bytes);
    tf.dispose([a, b]);
  });

  it('the committed binary is a fresh build of batchMatMul.wat', async () => {
    const committed = readFileSync(
      new URL('../../../../src/lib/models/deep/batchMatMulWasm.ts', import.meta.url),
      'utf8',
    );
    expect(committed).toBe(await buildKernelsModule('batchMatMul'));
  });
});
