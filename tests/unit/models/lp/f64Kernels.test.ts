/**
 * The WebAssembly SIMD products of the exact Label Propagation (f64Kernels.ts) against plain
 * float64 sums: symmetric squares and thin products of every size class (padding to 4, odd
 * lengths, one row), matrices that change between calls (the resident-matrix cache), the fast
 * path with and without SIMD, and the committed binary against a fresh build of the .wat source.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { f64Kernels } from '../../../../src/lib/models/statistical/f64Kernels.ts';
import { mulSquareJs, propagateAffine } from '../../../../src/lib/models/statistical/labelPropagationFast.ts';
import { mt } from '../../../../src/lib/protocol/rng.ts';
// @ts-expect-error: a plain .mjs build script without types
import { buildKernelsModule } from '../../../../scripts/wasm/build.mjs';

function symmetric(m: number, seed: number): Float64Array {
  const rng = mt(seed);
  const A = new Float64Array(m * m);
  for (let i = 0; i < m; i++) for (let j = 0; j <= i; j++) A[i * m + j] = A[j * m + i] = rng.normal();
  return A;
}

/**
 * |got − exact| ≤ 1e-14 · Σ|terms| (a few ulps of the largest partial sums), entry by entry, for
 * got = A·X with A rows × m (square by default) and X m × c.
 */
function expectProductsClose(
  got: Float64Array,
  A: Float64Array,
  m: number,
  X: Float64Array,
  c: number,
  rows = m,
) {
  let worst = 0;
  // Many rows (past one 1 024-double chunk): every 17th row, so the check stays quick.
  const rowStep = rows > 200 ? 17 : 1;
  for (let i = 0; i < rows; i += rowStep) {
    for (let j = 0; j < c; j++) {
      let s = 0;
      let mag = 0;
      for (let l = 0; l < m; l++) {
        s += A[i * m + l] * X[l * c + j];
        mag += Math.abs(A[i * m + l] * X[l * c + j]);
      }
      worst = Math.max(worst, Math.abs(got[i * c + j] - s) / (mag || 1));
    }
  }
  expect(worst).toBeLessThan(1e-14);
}

describe('f64Kernels (WebAssembly SIMD)', () => {
  const kernels = f64Kernels();

  it('compiles here (Node 20 and Chromium have WebAssembly SIMD)', () => {
    expect(kernels).not.toBeNull();
  });

  it.each([1, 2, 3, 5, 13, 37, 130, 1030])('symSquare equals A·A at order %i', async (m) => {
    const A = symmetric(m, m);
    const C = await kernels!.symSquare(A, m);
    expectProductsClose(C, A, m, A, m);
    let asymmetric = 0;
    for (let i = 0; i < m; i++) for (let j = 0; j < i; j++) if (C[i * m + j] !== C[j * m + i]) asymmetric++;
    expect(asymmetric).toBe(0);
  });

  it.each([
    [1, 1],
    [7, 3],
    [37, 26],
    [130, 52],
    [1031, 5],
  ])('mulSquare equals A·X at order %i with %i columns, as the JS loop does', (m, c) => {
    const A = symmetric(m, 7 * m + c);
    const rng = mt(c);
    const X = new Float64Array(m * c).map(() => rng.normal());
    const out = new Float64Array(m * c);
    kernels!.mulSquare(A, m, X, c, out);
    expectProductsClose(out, A, m, X, c);
    const js = new Float64Array(m * c);
    mulSquareJs(A, m, X, c, js);
    expectProductsClose(js, A, m, X, c);
  });

  it.each([
    [1, 1, 1],
    [3, 7, 3],
    [64, 37, 26],
    [5, 1031, 5],
  ])('mulThin equals A·X for A %i×%i with %i columns', (r, m, c) => {
    const rng = mt(r * 1000 + m);
    const A = new Float64Array(r * m).map(() => rng.normal());
    const X = new Float64Array(m * c).map(() => rng.normal());
    const out = new Float64Array(r * c).fill(NaN);
    kernels!.mulThin(A, r, m, X, c, out);
    expectProductsClose(out, A, m, X, c, r);
  });

  it('mulThin keeps X resident across row blocks, and squares after it never see a stale matrix', async () => {
    const k = f64Kernels()!;
    const rng = mt(9);
    const X = new Float64Array(21 * 4).map(() => rng.normal());
    const Y = new Float64Array(21 * 4).map(() => rng.normal());
    for (const M of [X, X, Y, X]) {
      const A = new Float64Array(5 * 21).map(() => rng.normal());
      const out = new Float64Array(5 * 4);
      k.mulThin(A, 5, 21, M, 4, out);
      expectProductsClose(out, A, 21, M, 4, 5);
      const S = symmetric(21, 4);
      expectProductsClose(await k.symSquare(S, 21), S, 21, S, 21);
    }
  });

  it('keeps one matrix resident but never a stale one: alternating matrices and orders', async () => {
    const k = f64Kernels()!;
    const A = symmetric(21, 1);
    const B = symmetric(21, 2);
    const D = symmetric(10, 3);
    const X = new Float64Array(21 * 4).map((_, i) => Math.cos(i));
    for (const [M, m] of [
      [A, 21],
      [B, 21],
      [A, 21],
      [D, 10],
      [A, 21],
    ] as const) {
      const out = new Float64Array(m * 4);
      k.mulSquare(M, m, X.subarray(0, m * 4), 4, out);
      expectProductsClose(out, M, m, X.subarray(0, m * 4), 4);
      const C = await k.symSquare(M, m);
      expectProductsClose(C, M, m, M, m);
    }
  });

  it('the fast propagation gives the same n_iter and F with and without SIMD', async () => {
    // A chain-like graph: slow enough to square several times, small enough to run in a moment.
    const n = 60;
    const nl = 2;
    const k = 2;
    const rng = mt(5);
    const x = Array.from({ length: n }, (_, i) => (i < nl ? i * 40 : rng.random() * 40));
    const W = new Float64Array(n * n);
    for (let i = 0; i < n; i++)
      for (let j = 0; j < n; j++) W[i * n + j] = Math.exp(-0.05 * (x[i] - x[j]) ** 2);
    const deg = new Float64Array(n);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) deg[i] += W[i * n + j];
    const G = W.map((w, idx) => w / deg[Math.floor(idx / n)]);
    const F = new Float64Array(n * k);
    F[0] = 1;
    F[1 * k + 1] = 1;
    for (let i = nl; i < n; i++) F[i * k] = F[i * k + 1] = 0.5;
    const input = { G, deg, n, nl, k, F, step: 1, maxIter: 100_000, tol: 1e-9 };
    const simd = await propagateAffine({ ...input });
    const js = await propagateAffine({ ...input, simd: false });
    expect(simd.squarings).toBeGreaterThan(2);
    expect(simd.nIter).toBe(js.nIter);
    expect(simd.converged).toBe(js.converged);
    for (let i = 0; i < F.length; i++) expect(Math.abs(simd.F[i] - js.F[i])).toBeLessThan(1e-12);
  });

  it('the committed binary is a fresh build of f64Kernels.wat', async () => {
    const committed = readFileSync(
      new URL('../../../../src/lib/models/statistical/f64KernelsWasm.ts', import.meta.url),
      'utf8',
    );
    expect(committed).toBe(await buildKernelsModule());
  });
});

describe('graph precision by path', () => {
  it('LabelPropagation stays float64 up to float64FastMaxRows on the exact fast path; LS and the direct loop switch at float64MaxRows', async () => {
    const { LabelPropagation } = await import('../../../../src/lib/models/statistical/labelPropagation.ts');
    const { LabelSpreading } = await import('../../../../src/lib/models/statistical/labelSpreading.ts');
    const rng = mt(11);
    const d = 2;
    const Xl = { data: Float32Array.from([0, 0, 3, 3]), rows: 2, cols: d };
    const yl = Int32Array.from([0, 1]);
    const Xu = { data: Float32Array.from({ length: 58 * d }, () => 3 * rng.random()), rows: 58, cols: d };
    const compute = { float64MaxRows: 40, float64FastMaxRows: 100 };
    const precisionOf = async (
      model: InstanceType<typeof LabelPropagation> | InstanceType<typeof LabelSpreading>,
    ) => {
      await model.fit(Xl, yl, Xu, 2, { rng: mt(0) });
      const info = model.info();
      model.dispose();
      return [info.floatPrecision, info.lpPath];
    };
    expect(await precisionOf(new LabelPropagation({}, compute))).toEqual(['float64', 'affine']);
    expect(await precisionOf(new LabelPropagation({}, { ...compute, fastPropagation: false }))).toEqual([
      'float32',
      undefined,
    ]);
    expect(await precisionOf(new LabelSpreading({}, compute))).toEqual(['float32', undefined]);
    expect(await precisionOf(new LabelPropagation({}, { ...compute, float64FastMaxRows: 50 }))).toEqual([
      'float32',
      undefined,
    ]);
  });
});
