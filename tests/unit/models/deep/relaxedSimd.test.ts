/**
 * The relaxed-SIMD build of the deep wasm kernels (batchMatMul.ts, scripts/wasm/build.mjs): the
 * build rewrites exactly the GEMM micro-kernel's multiply-adds and nothing else; the relaxed build
 * runs exactly where the engine validates relaxed SIMD, the plain one elsewhere or when asked; and
 * both builds' GEMMs agree with a float64 reference to float32 rounding. Run it under Node 20 with
 * and without --experimental-wasm-relaxed-simd to cover both engines:
 *   node --experimental-wasm-relaxed-simd node_modules/vitest/vitest.mjs run <this file>
 */
import { readFileSync } from 'node:fs';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  deepWasmAvailable,
  deepWasmFlavour,
  preferDeepWasmFlavour,
} from '../../../../src/lib/models/deep/batchMatMul.ts';
import { createDeepEstimator } from '../../../../src/lib/models/deep/deepEstimator.ts';
import { matMul } from '../../../../src/lib/models/deep/fused.ts';
import { MT19937 } from '../../../../src/lib/protocol/rng.ts';
// @ts-expect-error: a plain .mjs build script without types
import { relaxedMadd } from '../../../../scripts/wasm/build.mjs';

const WAT = readFileSync(new URL('../../../../src/lib/models/deep/batchMatMul.wat', import.meta.url), 'utf8');
/** (func (param v128 v128 v128) (result v128) f32x4.relaxed_madd): validates iff the engine has relaxed SIMD. */
const TINY_RELAXED = Uint8Array.from(
  '0061736d0100000001080160037b7b7b017b03020100070501016600000a0d010b00200020012002fd85020b'
    .match(/../g)!
    .map((h) => parseInt(h, 16)),
);

describe('relaxed-SIMD build of the deep kernels', () => {
  it('rewrites the micro-kernel multiply-adds, and nothing outside the markers', () => {
    const relaxed: string = relaxedMadd(WAT);
    const fused = relaxed.match(/\(f32x4\.relaxed_madd /g) ?? [];
    // 5 × 8 tile = ten accumulators, one multiply-add each per p (the loop is not unrolled).
    expect(fused.length).toBe(10);
    const back = relaxed.replace(
      /\(f32x4\.relaxed_madd \(local\.get (\$\w+)\) \(local\.get (\$\w+)\) \(local\.get (\$\w+)\)\)/g,
      '(f32x4.add (local.get $3) (f32x4.mul (local.get $1) (local.get $2)))',
    );
    expect(back).toBe(WAT);
    const micro = relaxed.slice(
      relaxed.indexOf(';; @relaxed-madd begin'),
      relaxed.indexOf(';; @relaxed-madd end'),
    );
    expect(micro).not.toMatch(/f32x4\.mul/);
    expect(() => relaxedMadd('(module)')).toThrow(/no multiply-add between @relaxed-madd markers/);
  });

  it('runs the relaxed build exactly where the engine validates relaxed SIMD', () => {
    expect(deepWasmAvailable()).toBe(true);
    const engine = WebAssembly.validate(TINY_RELAXED);
    expect(deepWasmFlavour()).toBe(engine ? 'relaxed-simd' : 'simd');
    preferDeepWasmFlavour('simd');
    expect(deepWasmFlavour()).toBe('simd');
    preferDeepWasmFlavour('auto');
    expect(deepWasmFlavour()).toBe(engine ? 'relaxed-simd' : 'simd');
  });

  it('a fit records the build that ran (wasmKernels), and null off wasm', async () => {
    const rng = new MT19937(3);
    const mk = (rows: number) => ({
      rows,
      cols: 4,
      data: Float32Array.from({ length: rows * 4 }, () => rng.normal()),
    });
    const yl = Int32Array.from({ length: 12 }, (_, i) => i % 3);
    const size = { blocks: 1, dToken: 8, heads: 2, ffnHidden: 8 };
    for (const [backend, flavour, want] of [
      ['wasm', 'auto', WebAssembly.validate(TINY_RELAXED) ? 'relaxed-simd' : 'simd'],
      ['wasm', 'simd', 'simd'],
      ['cpu', 'auto', null],
    ] as const) {
      await tf.setBackend(backend);
      preferDeepWasmFlavour(flavour);
      const est = createDeepEstimator('ftt', { size, steps: 2, batchL: 4 });
      await est.fit(mk(12), yl, mk(8), 3, { rng: new MT19937(0) });
      expect(est.info().wasmKernels, `${backend} ${flavour}`).toBe(want);
      est.dispose();
    }
    preferDeepWasmFlavour('auto');
  });

  describe('GEMM on both builds', () => {
    beforeAll(async () => {
      await tf.setBackend('wasm');
      await tf.ready();
    });
    afterAll(() => preferDeepWasmFlavour('auto'));

    const rng = new MT19937(11);
    const rand = (n: number) => Float32Array.from({ length: n }, () => rng.normal());
    // [m, k, n, transposeA, transposeB]: edge tiles (m % 5, n % 8), k past one 288-deep block.
    const CASES: [number, number, number, boolean, boolean][] = [
      [37, 300, 29, false, false],
      [64, 192, 576, false, true],
      [23, 600, 41, true, false],
      [5, 8, 8, true, true],
    ];
    for (const [m, k, n, tA, tB] of CASES)
      it(`${m}×${k}×${n}${tA ? ' Aᵀ' : ''}${tB ? ' Bᵀ' : ''} with bias agrees with float64`, async () => {
        const a = rand(m * k),
          b = rand(k * n),
          bias = rand(n);
        const ref = new Float64Array(m * n);
        for (let i = 0; i < m; i++)
          for (let j = 0; j < n; j++) {
            let s = bias[j];
            for (let p = 0; p < k; p++) s += a[tA ? p * m + i : i * k + p] * b[tB ? j * k + p : p * n + j];
            ref[i * n + j] = s;
          }
        const scale = ref.reduce((x, v) => Math.max(x, Math.abs(v)), 0);
        for (const flavour of ['simd', 'auto'] as const) {
          preferDeepWasmFlavour(flavour);
          const before = tf.memory().numTensors;
          const c = tf.tidy(() =>
            matMul(
              tf.tensor(a, tA ? [k, m] : [m, k]),
              tf.tensor(b, tB ? [n, k] : [k, n]),
              tA,
              tB,
              tf.tensor(bias),
            ),
          );
          const got = (await c.data()) as Float32Array;
          c.dispose();
          expect(tf.memory().numTensors).toBe(before);
          let err = 0;
          for (let i = 0; i < got.length; i++) err = Math.max(err, Math.abs(got[i] - ref[i]));
          expect(err / scale, `${deepWasmFlavour()}`).toBeLessThan(2e-6);
        }
      });
  });
});
