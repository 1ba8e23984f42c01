#!/usr/bin/env node
/**
 * The deep trainer's wasm GEMM (batchMatMul.wat `gemm`) alone, on the products of one rsb-size
 * FT-Transformer step (letter, FixMatch's 512 gradient rows × 17 tokens): GFLOP/s per shape and
 * operand layout, from process CPU time, plus the engine's f32x4 multiply-add ceiling (ten
 * independent accumulators in a register loop, no memory). Compiles the .wat given (default the
 * committed one), so kernel variants can be compared in one process.
 * Usage: node --experimental-wasm-relaxed-simd scripts/bench/gemmMicro.mjs [WAT] [--plain] [--reps N]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { compileWat, relaxedMadd } from '../wasm/build.mjs';

const { values: opt, positionals } = parseArgs({
  allowPositionals: true,
  options: { plain: { type: 'boolean', default: false }, reps: { type: 'string', default: '5' } },
});
const watPath =
  positionals[0] ?? new URL('../../src/lib/models/deep/batchMatMul.wat', import.meta.url).pathname;
const text = readFileSync(watPath, 'utf8');
const memory = new WebAssembly.Memory({ initial: 4096 }); // 256 MiB
const { instance } = await WebAssembly.instantiate(
  await compileWat('k.wat', opt.plain ? text : relaxedMadd(text)),
  {
    env: { memory },
  },
);
const k = instance.exports;

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const F = new Float32Array(memory.buffer);
let top = 8 << 20; // bytes: the first 8 MiB left for scratch
const alloc = (floats) => {
  const at = top;
  top += Math.ceil((floats * 4) / 64) * 64;
  return at;
};
const scratch = Number(process.env.SCRATCH_OFF ?? 0);
const M = 8704;
// [label, m, k, n, transA, transB]: the step's products (FFN 192→512, 256→192; QKV 192→576)
const shapes = [
  ['x·W   192→192', M, 192, 192, false, false],
  ['x·W   192→512', M, 192, 512, false, false],
  ['x·W   256→192', M, 256, 192, false, false],
  ['dy·Wᵀ 576→192', M, 576, 192, false, true],
  ['dy·Wᵀ 512→256', M, 192, 256, false, true],
  ['xᵀ·dy 192×576', 192, M, 576, true, false],
  ['xᵀ·dy 256×192', 256, M, 192, true, false],
  ['x·W  ftt 1088', 1088, 192, 192, false, false],
  ['x·W   pl 2176', 2176, 192, 192, false, false],
  ['dy·Wᵀ pl 2176', 2176, 576, 192, false, true],
];
const reps = Number(opt.reps);
let total = { flops: 0, ms: 0 };
console.log(`${watPath.split('/').pop()} (${opt.plain ? 'plain' : 'relaxed'} SIMD)`);
for (const [label, m, kk, n, tA, tB] of shapes) {
  const a = alloc(m * kk),
    b = alloc(kk * n),
    c = alloc(m * n);
  for (let i = 0; i < m * kk; i++) F[a / 4 + i] = ((i * 7919) % 1000) / 1000 - 0.5;
  for (let i = 0; i < kk * n; i++) F[b / 4 + i] = ((i * 104729) % 1000) / 1000 - 0.5;
  const [sAi, sAp] = tA ? [1, m] : [kk, 1];
  const [sBp, sBj] = tB ? [1, kk] : [n, 1];
  k.gemm(a, b, c, scratch, m, kk, n, sAi, sAp, sBp, sBj, 0);
  // A few entries against a float64 dot product: a variant that is fast and wrong is refused.
  for (let t = 0; t < 64; t++) {
    const i = (t * 2654435761) % m,
      j = (t * 40503) % n;
    let want = 0;
    for (let p = 0; p < kk; p++) want += F[a / 4 + i * sAi + p * sAp] * F[b / 4 + p * sBp + j * sBj];
    const got = F[c / 4 + i * n + j];
    if (Math.abs(got - want) > 1e-4 * (1 + Math.abs(want)))
      throw new Error(`${label}: C[${i}, ${j}] = ${got}, expected ${want}`);
  }
  const times = [];
  for (let r = 0; r < reps; r++) {
    const t0 = cpuMs();
    k.gemm(a, b, c, scratch, m, kk, n, sAi, sAp, sBp, sBj, 0);
    times.push(cpuMs() - t0);
  }
  times.sort((x, y) => x - y);
  const ms = times[0]; // the fastest rep: the least disturbed by other work on the machine
  const flops = 2 * m * kk * n;
  total.flops += flops;
  total.ms += ms;
  console.log(
    `${label.padEnd(16)} ${String(m).padStart(5)}×${String(kk).padStart(4)}×${String(n).padStart(3)}  ${ms.toFixed(2).padStart(7)} ms  ${(flops / ms / 1e6).toFixed(1).padStart(5)} GFLOP/s`,
  );
  top = 8 << 20;
}
console.log(`all shapes: ${(total.flops / total.ms / 1e6).toFixed(1)} GFLOP/s`);
