/**
 * The FT-Transformer's fused ops (fused.ts) three ways: the WebAssembly kernels on tfjs-wasm
 * (batchMatMul.wat), the JavaScript kernels on cpu (fusedKernels.ts) and the tf-op composites
 * (what webgpu and webgl run). They agree to float32 rounding on odd sizes (SIMD tails), dropout
 * masks are the same on every path and equal dropout.ts's host mask, the GEMM handles every
 * transpose combination and the bias, and nothing leaks.
 */
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropoutMask } from '../../../../src/lib/models/deep/dropout.ts';
import { FlatLayout } from '../../../../src/lib/models/deep/flatParams.ts';
import * as F from '../../../../src/lib/models/deep/fused.ts';
import { registerFusedKernels } from '../../../../src/lib/models/deep/fusedKernels.ts';
import { SlotOptimizer, variableFrom, type OptimizerKind } from '../../../../src/lib/models/deep/optim.ts';
import { hostNormals, onBackend, type Host } from './hostOps.ts';

const rand = hostNormals(5);

/** Runs f on `backend` with host inputs; returns every output as host arrays, leaving no tensor. */
async function on(backend: string, inputs: Host[], f: (...t: tf.Tensor[]) => tf.Tensor | tf.Tensor[]) {
  const { arrays, leaked } = await onBackend(backend, inputs, f);
  expect(leaked).toBe(0);
  return arrays;
}

function relErr(a: Float32Array, b: Float32Array): number {
  let num = 0,
    den = 0;
  for (let i = 0; i < a.length; i++) {
    num = Math.max(num, Math.abs(a[i] - b[i]));
    den = Math.max(den, Math.abs(b[i]));
  }
  return a.length !== b.length ? Infinity : den === 0 ? num : num / den;
}

/** The three paths of one op; kernels on wasm and cpu, composites on cpu. */
async function threeWays(
  inputs: Host[],
  fused: (...t: tf.Tensor[]) => tf.Tensor | tf.Tensor[],
  composite: (...t: tf.Tensor[]) => tf.Tensor | tf.Tensor[],
  tol = 2e-6,
) {
  const wasm = await on('wasm', inputs, fused);
  const cpu = await on('cpu', inputs, fused);
  const ref = await on('cpu', inputs, composite);
  expect(wasm.length).toBe(ref.length);
  for (let i = 0; i < ref.length; i++) {
    expect(relErr(wasm[i], ref[i]), `wasm output ${i}`).toBeLessThan(tol);
    expect(relErr(cpu[i], ref[i]), `cpu output ${i}`).toBeLessThan(tol);
    // Dropped entries are exact zeros on every path (of either sign).
    for (let j = 0; j < ref[i].length; j++)
      if (ref[i][j] === 0) expect(wasm[i][j] === 0 && cpu[i][j] === 0, `zero at ${j}`).toBe(true);
  }
  return { wasm, cpu, ref };
}

beforeAll(async () => {
  await tf.setBackend('wasm');
  await tf.ready();
});
afterAll(async () => {
  await tf.setBackend('wasm');
});

describe('fused ops: wasm kernels, cpu kernels and tf-op composites agree', () => {
  it('the kernels are registered for wasm (all) and cpu (all but the GEMM)', async () => {
    for (const name of [
      'RacLayerNorm',
      'RacLayerNormGrad',
      'RacSoftmaxDropout',
      'RacReglu',
      'RacStridedBmm',
      'RacMatMul',
    ])
      expect(tf.getKernel(name, 'wasm'), name).toBeDefined();
    expect(tf.getKernel('RacLayerNorm', 'cpu')).toBeDefined();
    expect(tf.getKernel('RacMatMul', 'cpu')).toBeUndefined();
  });

  it('LayerNorm and its backward (with and without the residual gradient), odd widths', async () => {
    for (const [M, D] of [
      [7, 13],
      [33, 192],
      [5, 3],
    ]) {
      const x = rand([M, D]),
        g = rand([D]),
        b = rand([D]),
        dy = rand([M, D]),
        dres = rand([M, D]);
      await threeWays([x, g, b], F.layerNorm, F.layerNormComposite);
      await threeWays(
        [x, g, dy],
        (a, c, d) => F.layerNormGrad(a, c, d),
        (a, c, d) => F.layerNormGradComposite(a, c, d, null),
        1e-5,
      );
      await threeWays(
        [x, g, dy, dres],
        (a, c, d, e) => F.layerNormGrad(a, c, d, e),
        F.layerNormGradComposite,
        1e-5,
      );
    }
  });

  it('softmax + dropout and its backward: same values and the same mask as dropout.ts', async () => {
    const drop = { rate: 0.3, seed: 1234567 };
    for (const shape of [
      [3, 2, 5, 17],
      [2, 7],
      [4, 1, 3, 3],
    ]) {
      const s = rand(shape),
        dpd = rand(shape);
      for (const d of [null, drop]) {
        const { wasm } = await threeWays(
          [s],
          (x) => F.softmaxDropout(x, 0.7, d),
          (x) => F.softmaxDropoutComposite(x, 0.7, d),
        );
        if (d) {
          const mask = dropoutMask(wasm[1].length, d.rate, d.seed);
          for (let i = 0; i < mask.length; i++) expect(wasm[1][i] === 0).toBe(mask[i] === 0);
        }
        await threeWays(
          [s, dpd],
          (x, y) => F.softmaxDropoutGrad(tf.softmax(tf.mul(x, 0.7)), y, 0.7, d),
          (x, y) => F.softmaxDropoutGradComposite(tf.softmax(tf.mul(x, 0.7)), y, 0.7, d),
          1e-5,
        );
      }
    }
  });

  it('ReGLU + dropout and its backward, odd widths', async () => {
    for (const [M, Fh] of [
      [9, 7],
      [16, 256],
    ]) {
      const f = rand([M, 2 * Fh]),
        dg = rand([M, Fh]);
      for (const d of [null, { rate: 0.1, seed: 99 }]) {
        await threeWays(
          [f],
          (x) => F.regluDropout(x as tf.Tensor2D, d),
          (x) => F.regluDropoutComposite(x as tf.Tensor2D, d),
        );
        await threeWays(
          [f, dg],
          (x, y) => F.regluDropoutGrad(x as tf.Tensor2D, y as tf.Tensor2D, d),
          (x, y) => F.regluDropoutGradComposite(x as tf.Tensor2D, y as tf.Tensor2D, d),
        );
      }
    }
  });

  it('dropout of any tensor and its gradient: the mask of dropout.ts on every path', async () => {
    const x = rand([7, 3, 5]);
    const d = { rate: 0.4, seed: 77 };
    const mask = dropoutMask(7 * 3 * 5, d.rate, d.seed);
    const composite = (t: tf.Tensor) => tf.mul(t, tf.tensor(mask, t.shape));
    await threeWays([x], (t) => F.dropout(t, d), composite);
    // The gradient is the same mask on dy (tf.grads through the custom gradient).
    await threeWays(
      [x],
      (t) => tf.grads((a: tf.Tensor) => tf.sum(tf.mul(F.dropout(a, d), a)))([t])[0],
      (t) => tf.add(composite(t), composite(t)),
    );
  });

  it("attention's strided products on token-major rows equal the transposed-heads products", async () => {
    const [n, B, H, dh] = [7, 3, 2, 5];
    const D = H * dh;
    const q = rand([n * B, D]),
      k = rand([n, B * D]);
    const heads = (t: tf.Tensor, rows: number) => tf.transpose(tf.reshape(t, [rows, B, H, dh]), [1, 2, 0, 3]);
    for (const nq of [n, 1]) {
      // scores: S[bh, i, j] = Σ_e q[i·B + b, h·dh + e] · k[j·B + b, h·dh + e]
      await threeWays(
        [q, k],
        (a, c) =>
          F.stridedBmm(a, c, {
            ...{ batch: B * H, m: nq, k: dh, n },
            ...{ sAb: dh, sAi: B * D, sAp: 1, sBb: dh, sBp: 1, sBj: B * D, sCb: nq * n, sCi: n },
            outShape: [B, H, nq, n],
          }),
        (a, c) => tf.matMul(heads(tf.slice(a, [0, 0], [nq * B, D]), nq), heads(c, n), false, true),
        1e-5,
      );
    }
    // CLS-only output rows into a zeroed token-major buffer: merged = P·V (nq = 1).
    const pr = rand([B * H, 1, n]);
    await threeWays(
      [pr, k],
      (a, c) =>
        F.stridedBmm(a, c, {
          ...{ batch: B * H, m: 1, k: n, n: dh },
          ...{ sAb: n, sAi: n, sAp: 1, sBb: dh, sBp: B * D, sBj: 1, sCb: dh, sCi: B * D },
          outShape: [n * B, D],
          zero: true,
        }),
      (a, c) => {
        const ctx = tf.matMul(tf.reshape(a, [B, H, 1, n]), heads(c, n)); // [B, H, 1, dh]
        const rows = tf.reshape(tf.transpose(ctx, [2, 0, 1, 3]), [B, D]);
        return tf.concat([rows, tf.zeros([(n - 1) * B, D])]);
      },
      1e-5,
    );
  });

  it('the FT tokenizer and its backward', async () => {
    const [B, d, D] = [5, 3, 8];
    const x = rand([B, d]),
      W = rand([d + 1, D]),
      b = rand([d, D]),
      dh = rand([(d + 1) * B, D]);
    await threeWays(
      [x, W, b],
      (a, c, e) => F.tokenize(a as tf.Tensor2D, c as tf.Tensor2D, e as tf.Tensor2D),
      (a, c, e) => F.tokenizeComposite(a as tf.Tensor2D, c as tf.Tensor2D, e as tf.Tensor2D),
    );
    await threeWays(
      [x, dh],
      (a, c) => F.tokenizeGrad(a as tf.Tensor2D, c as tf.Tensor2D, d + 1),
      (a, c) => F.tokenizeGradComposite(a as tf.Tensor2D, c as tf.Tensor2D, d + 1),
      1e-5,
    );
  });

  it('the GEMM: every transpose combination, bias, edge tiles and long inner dimensions', async () => {
    for (const [m, k, n] of [
      [13, 17, 21],
      [100, 300, 70],
      [6, 8, 8],
      [1, 600, 3],
      [97, 5, 300],
      [40, 2000, 37], // several blocks of the inner dimension (accumulated in C)
    ])
      for (const tA of [false, true])
        for (const tB of [false, true]) {
          const a = rand(tA ? [k, m] : [m, k]),
            b = rand(tB ? [n, k] : [k, n]),
            bias = rand([n]);
          const ref = await on('cpu', [a, b, bias], (x, y, z) =>
            tf.add(tf.matMul(x as tf.Tensor2D, y as tf.Tensor2D, tA, tB), z),
          );
          const got = await on('wasm', [a, b, bias], (x, y, z) => F.matMul(x, y, tA, tB, z));
          expect(relErr(got[0], ref[0]), `${m}×${k}×${n} ${tA} ${tB}`).toBeLessThan(1e-5);
          const plain = await on('wasm', [a, b], (x, y) => F.matMul(x, y, tA, tB));
          const refPlain = await on('cpu', [a, b], (x, y) =>
            tf.matMul(x as tf.Tensor2D, y as tf.Tensor2D, tA, tB),
          );
          expect(relErr(plain[0], refPlain[0])).toBeLessThan(1e-5);
        }
  });

  it('the optimiser: one kernel (with the EMA shadow), bit for bit the tf-op composite', async () => {
    const specs = [
      { name: 'W', shape: [5, 7], init: 'uniform' as const, decay: true },
      { name: 'b', shape: [7], init: 'zeros' as const, decay: false },
      { name: 'E', shape: [3, 3], init: 'uniform' as const, decay: true },
    ];
    const layout = new FlatLayout(specs);
    const theta0 = rand([layout.size]).data;
    const grads = [0, 1, 2].map(() => rand([layout.size]).data);
    /** θ, slots and shadow after three steps on `backend`, fused or composite. */
    const fit = async (backend: string, kind: OptimizerKind, fused: boolean) => {
      await tf.setBackend(backend);
      const name = kind === 'adam' ? 'RacAdam' : 'RacSgd';
      if (!fused) tf.unregisterKernel(name, backend);
      try {
        const before = tf.memory().numTensors;
        const th = variableFrom(tf.tensor1d(theta0), true);
        const sh = variableFrom(tf.tensor1d(theta0), false);
        const opt = new SlotOptimizer({ kind, weightDecay: 1e-2 }, th, layout, new Set(['W', 'E']));
        for (let t = 0; t < 3; t++) {
          const g = tf.tensor1d(grads[t]);
          opt.step(g, 0.01 * (t + 1), { shadow: sh, decay: 0.9 });
          g.dispose();
        }
        const out = {
          theta: (await th.data()) as Float32Array,
          shadow: (await sh.data()) as Float32Array,
          slots: (await opt.save()).slots,
        };
        tf.dispose([th, sh]);
        opt.dispose();
        expect(tf.memory().numTensors).toBe(before);
        return out;
      } finally {
        registerFusedKernels();
      }
    };
    for (const kind of ['adam', 'sgd'] as const) {
      const ref = await fit('cpu', kind, false);
      for (const [backend, fused] of [
        ['cpu', true],
        ['wasm', true],
        ['wasm', false],
      ] as const) {
        const got = await fit(backend, kind, fused);
        expect(got.theta, `${kind} ${backend} ${fused}`).toEqual(ref.theta);
        expect(got.shadow).toEqual(ref.shadow);
        expect(got.slots).toEqual(ref.slots);
      }
    }
  });
});
