/**
 * One-kernel forms of fused.ts's ops for the cpu and wasm backends. Each replaces 4–19 tf kernels
 * (and their passes over memory) by one pass per row; dropout masks are drawn in place from
 * dropout.ts's hash, never uploaded.
 * - wasm: the SIMD functions of batchMatMul.wat, run in the backend's own memory (no copies);
 *   `RacMatMul` is its GEMM (either operand transposed, optional bias), which also spares the
 *   explicit transposes tfjs-wasm needs to stay on XNNPACK.
 * - cpu, and wasm engines without SIMD: the same arithmetic in JavaScript over the backend's arrays
 *   (sums over a row in float64, rounded once), which is also the reference the tests compare with.
 *
 * `registerFusedKernels()` is idempotent and registers for both backends whether or not they are
 * loaded (kernels are looked up by backend name at run time).
 */
import * as tf from '@tensorflow/tfjs';
import {
  batchMatMulCounts,
  deepWasmAvailable,
  deepWasmKernels,
  GEMM_SCRATCH_FLOATS,
  type DeepWasmKernels,
} from './batchMatMul.ts';
import { dropCut, dropDraw, dropKeys } from './dropout.ts';

type Shapes = Record<string, number[]>;
type Arrays = Record<string, Float32Array>;
type Attrs = Record<string, number>;

type Ptrs = Record<string, number>;

interface FusedKernel {
  name: string;
  outShapes(shapes: Shapes, attrs: Attrs): number[][];
  run(ins: Arrays, outs: Float32Array[], shapes: Shapes, attrs: Attrs): void;
  /** The WebAssembly form on the wasm backend (byte offsets into its memory). */
  wat?(
    k: DeepWasmKernels,
    ins: Ptrs,
    outs: number[],
    shapes: Shapes,
    attrs: Attrs,
    scratch: () => number,
  ): void;
}

interface WasmBackendLike {
  wasm: { asm?: { memory?: WebAssembly.Memory } };
  dataIdMap: { get(dataId: object): { memoryOffset: number } | undefined };
  makeOutput(shape: number[], dtype: 'float32'): tf.TensorInfo;
  typedArrayFromHeap(t: tf.TensorInfo): Float32Array;
  disposeData(dataId: object): boolean;
}
interface CpuBackendLike {
  data: { get(dataId: object): { values?: unknown } };
  makeTensorInfo(shape: number[], dtype: 'float32', values: Float32Array): tf.TensorInfo;
}

const size = (s: readonly number[]) => s.reduce((a, b) => a * b, 1);

/** The WebAssembly kernels' dropout arguments: cut, the two keys, the kept value's scale. */
function dropArgs(attrs: Attrs): [number, number, number, number] {
  if (!(attrs.rate > 0)) return [0, 0, 0, 1];
  const [a, b] = dropKeys(attrs.seed);
  return [dropCut(attrs.rate), a | 0, b | 0, Math.fround(1 / (1 - attrs.rate))];
}

/** Keep test of element i of a dropout call, and the kept value's scale. */
function dropper(attrs: Attrs): { keep: (i: number) => boolean; scale: number } | null {
  if (!(attrs.rate > 0)) return null;
  const cut = dropCut(attrs.rate);
  const [a, b] = dropKeys(attrs.seed);
  return { keep: (i) => dropDraw(a, b, i) >= cut, scale: Math.fround(1 / (1 - attrs.rate)) };
}

const lastDim = (s: number[]) => s[s.length - 1];

const KERNELS: FusedKernel[] = [
  {
    name: 'RacLayerNorm',
    outShapes: (s) => [s.x],
    wat: (k, i, [y], s, { eps }) => k.ln_fwd(i.x, i.g, i.b, y, size(s.x) / lastDim(s.x), lastDim(s.x), eps),
    run({ x, g, b }, [y], s, { eps }) {
      const D = lastDim(s.x);
      const M = x.length / D;
      for (let r = 0, o = 0; r < M; r++, o += D) {
        let sum = 0;
        for (let j = 0; j < D; j++) sum += x[o + j];
        const mean = Math.fround(sum / D);
        let sq = 0;
        for (let j = 0; j < D; j++) {
          const c = x[o + j] - mean;
          sq += c * c;
        }
        const rs = 1 / Math.sqrt(Math.fround(sq / D) + eps);
        for (let j = 0; j < D; j++) y[o + j] = (x[o + j] - mean) * rs * g[j] + b[j];
      }
    },
  },
  {
    name: 'RacLayerNormGrad',
    outShapes: (s) => [s.x, [lastDim(s.x)], [lastDim(s.x)]],
    wat: (k, i, [dx, dg, db], s, { eps }) =>
      k.ln_bwd(i.x, i.g, i.dy, i.dres ?? 0, dx, dg, db, size(s.x) / lastDim(s.x), lastDim(s.x), eps),
    run({ x, g, dy, dres }, [dx, dg, db], s, { eps }) {
      const D = lastDim(s.x);
      const M = x.length / D;
      const accG = new Float64Array(D),
        accB = new Float64Array(D);
      const xh = new Float64Array(D);
      for (let r = 0, o = 0; r < M; r++, o += D) {
        let sum = 0;
        for (let j = 0; j < D; j++) sum += x[o + j];
        const mean = Math.fround(sum / D);
        let sq = 0;
        for (let j = 0; j < D; j++) {
          const c = x[o + j] - mean;
          sq += c * c;
        }
        const rs = 1 / Math.sqrt(Math.fround(sq / D) + eps);
        let m1 = 0,
          m2 = 0;
        for (let j = 0; j < D; j++) {
          const h = (x[o + j] - mean) * rs;
          xh[j] = h;
          const e = dy[o + j];
          const d = e * g[j];
          m1 += d;
          m2 += d * h;
          accG[j] += e * h;
          accB[j] += e;
        }
        m1 /= D;
        m2 /= D;
        for (let j = 0; j < D; j++) {
          const v = rs * (dy[o + j] * g[j] - m1 - xh[j] * m2);
          dx[o + j] = dres ? Math.fround(v) + dres[o + j] : v;
        }
      }
      dg.set(accG);
      db.set(accB);
    },
  },
  {
    name: 'RacSoftmaxDropout',
    outShapes: (s, a) => (a.rate > 0 ? [s.s, s.s] : [s.s]),
    wat: (k, i, [p, pd], s, a) =>
      k.smd_fwd(i.s, p, pd ?? 0, size(s.s) / lastDim(s.s), lastDim(s.s), a.scale, ...dropArgs(a)),
    run({ s: x }, [p, pd], sh, attrs) {
      const n = lastDim(sh.s);
      const R = x.length / n;
      const sc = attrs.scale;
      const dr = dropper(attrs);
      for (let r = 0, o = 0; r < R; r++, o += n) {
        let mx = -Infinity;
        for (let j = 0; j < n; j++) mx = Math.max(mx, Math.fround(x[o + j] * sc));
        let sum = 0;
        for (let j = 0; j < n; j++) {
          const e = Math.exp(Math.fround(x[o + j] * sc) - mx);
          p[o + j] = e;
          sum += e;
        }
        for (let j = 0; j < n; j++) p[o + j] = p[o + j] / sum;
        if (dr) for (let j = 0; j < n; j++) pd[o + j] = dr.keep(o + j) ? p[o + j] * dr.scale : 0;
      }
    },
  },
  {
    name: 'RacSoftmaxDropoutGrad',
    outShapes: (s) => [s.p],
    wat: (k, i, [ds], s, a) =>
      k.smd_bwd(i.p, i.dpd, ds, size(s.p) / lastDim(s.p), lastDim(s.p), a.scale, ...dropArgs(a)),
    run({ p, dpd }, [ds], sh, attrs) {
      const n = lastDim(sh.p);
      const R = p.length / n;
      const sc = attrs.scale;
      const dr = dropper(attrs);
      const dp = new Float32Array(n);
      for (let r = 0, o = 0; r < R; r++, o += n) {
        let dot = 0;
        for (let j = 0; j < n; j++) {
          const v = !dr ? dpd[o + j] : dr.keep(o + j) ? Math.fround(dpd[o + j] * dr.scale) : 0;
          dp[j] = v;
          dot += v * p[o + j];
        }
        for (let j = 0; j < n; j++) ds[o + j] = p[o + j] * (dp[j] - dot) * sc;
      }
    },
  },
  {
    name: 'RacReglu',
    outShapes: (s) => [[s.f[0], s.f[1] / 2]],
    wat: (k, i, [g], s, a) => k.reglu_fwd(i.f, g, s.f[0], s.f[1] / 2, ...dropArgs(a)),
    run({ f }, [g], sh, attrs) {
      const [M, F2] = sh.f;
      const F = F2 / 2;
      const dr = dropper(attrs);
      for (let r = 0; r < M; r++) {
        const o = r * F2,
          q = r * F;
        for (let j = 0; j < F; j++) {
          const b = f[o + F + j];
          const v = Math.fround(f[o + j] * (b > 0 ? b : 0));
          g[q + j] = !dr ? v : dr.keep(q + j) ? v * dr.scale : 0;
        }
      }
    },
  },
  {
    name: 'RacRegluGrad',
    outShapes: (s) => [s.f],
    wat: (k, i, [df], s, a) => k.reglu_bwd(i.f, i.dg, df, s.f[0], s.f[1] / 2, ...dropArgs(a)),
    run({ f, dg }, [df], sh, attrs) {
      const [M, F2] = sh.f;
      const F = F2 / 2;
      const dr = dropper(attrs);
      for (let r = 0; r < M; r++) {
        const o = r * F2,
          q = r * F;
        for (let j = 0; j < F; j++) {
          const d = !dr ? dg[q + j] : dr.keep(q + j) ? Math.fround(dg[q + j] * dr.scale) : 0;
          const a = f[o + j],
            b = f[o + F + j];
          df[o + j] = b > 0 ? d * b : 0;
          df[o + F + j] = b > 0 ? d * a : 0;
        }
      }
    },
  },
  {
    name: 'RacTokenize',
    outShapes: (s) => [[s.W[0] * s.x[0], s.W[1]]],
    run({ x, W, bias }, [h], sh) {
      const [B, d] = sh.x;
      const [n, D] = sh.W;
      h.set(W.subarray(0, D), 0);
      for (let b = 1; b < B; b++) h.copyWithin(b * D, 0, D);
      for (let t = 1; t < n; t++)
        for (let b = 0; b < B; b++) {
          const xv = x[b * d + t - 1];
          const o = (t * B + b) * D;
          for (let j = 0; j < D; j++) h[o + j] = xv * W[t * D + j] + bias[(t - 1) * D + j];
        }
    },
  },
  {
    name: 'RacTokenizeGrad',
    outShapes: (s, a) => [
      [a.n, s.dh[1]],
      [a.n - 1, s.dh[1]],
    ],
    run({ x, dh }, [dW, db], sh, { n }) {
      const [B, d] = sh.x;
      const D = sh.dh[1];
      const aw = new Float64Array(D),
        ab = new Float64Array(D);
      for (let t = 0; t < n; t++) {
        aw.fill(0);
        ab.fill(0);
        for (let b = 0; b < B; b++) {
          const xv = t === 0 ? 1 : x[b * d + t - 1];
          const o = (t * B + b) * D;
          for (let j = 0; j < D; j++) {
            aw[j] += dh[o + j] * xv;
            ab[j] += dh[o + j];
          }
        }
        dW.set(aw, t * D);
        if (t > 0) db.set(ab, (t - 1) * D);
      }
    },
  },
  {
    name: 'RacDropout',
    outShapes: (s) => [s.x],
    wat: (k, i, [y], s, a) => k.dropout(i.x, y, size(s.x), ...dropArgs(a)),
    run({ x }, [y], _s, a) {
      const dr = dropper(a);
      for (let i = 0; i < x.length; i++) y[i] = !dr ? x[i] : dr.keep(i) ? x[i] * dr.scale : 0;
    },
  },
  {
    name: 'RacColSum',
    outShapes: (s) => [[s.x[1]]],
    wat: (k, i, [o], s) => k.colsum(i.x, o, s.x[0], s.x[1]),
    run({ x }, [o], s) {
      const [M, N] = s.x;
      const acc = new Float64Array(N);
      for (let r = 0; r < M; r++) for (let j = 0; j < N; j++) acc[j] += x[r * N + j];
      o.set(acc);
    },
  },
  {
    // One Adam step over the flat parameters and the EMA shadow (optim.ts; float32 op by op).
    name: 'RacAdam',
    outShapes: (s) => (s.s ? [s.th, s.th, s.th, s.th] : [s.th, s.th, s.th]),
    wat: (k, i, [th2, m2, v2, s2], s, a) =>
      k.adam(
        i.th,
        i.g,
        i.m,
        i.v,
        i.s ?? 0,
        i.wd ?? 0,
        th2,
        m2,
        v2,
        s2 ?? 0,
        size(s.th),
        a.b1,
        a.c1,
        a.b2,
        a.c2,
        a.sbc2,
        a.eps,
        a.lrc,
        i.s ? 1 : 0,
        a.ema,
        a.cema,
      ),
    run({ th, g, m, v, s: sh, wd }, [th2, m2, v2, s2], _s, a) {
      const f = Math.fround;
      const [b1, c1, b2, c2, sbc2, eps, lrc, ea, ca] = [
        a.b1,
        a.c1,
        a.b2,
        a.c2,
        a.sbc2,
        a.eps,
        a.lrc,
        a.ema,
        a.cema,
      ].map(f);
      for (let i = 0; i < th.length; i++) {
        const t = th[i];
        const gd = wd ? f(g[i] + f(t * wd[i])) : g[i];
        const mm = f(f(m[i] * b1) + f(gd * c1));
        const vv = f(f(v[i] * b2) + f(f(gd * gd) * c2));
        m2[i] = mm;
        v2[i] = vv;
        const t2 = f(t - f(f(mm / f(f(f(Math.sqrt(vv)) / sbc2) + eps)) * lrc));
        th2[i] = t2;
        if (sh) s2[i] = f(f(sh[i] * ea) + f(t2 * ca));
      }
    },
  },
  {
    // One SGD-momentum step over the flat parameters and the EMA shadow (optim.ts).
    name: 'RacSgd',
    outShapes: (s) => (s.s ? [s.th, s.th, s.th] : [s.th, s.th]),
    wat: (k, i, [th2, b2, s2], s, a) =>
      k.sgd(
        i.th,
        i.g,
        i.b,
        i.s ?? 0,
        i.wd ?? 0,
        th2,
        b2,
        s2 ?? 0,
        size(s.th),
        a.mom,
        a.lr,
        i.s ? 1 : 0,
        a.ema,
        a.cema,
      ),
    run({ th, g, b, s: sh, wd }, [th2, b2, s2], _s, a) {
      const f = Math.fround;
      const [mom, lr, ea, ca] = [a.mom, a.lr, a.ema, a.cema].map(f);
      for (let i = 0; i < th.length; i++) {
        const t = th[i];
        const gd = wd ? f(g[i] + f(t * wd[i])) : g[i];
        const bb = f(f(b[i] * mom) + gd);
        b2[i] = bb;
        const t2 = f(t - f(bb * lr));
        th2[i] = t2;
        if (sh) s2[i] = f(f(sh[i] * ea) + f(t2 * ca));
      }
    },
  },
  {
    // Batched product through element strides (attention on token-major activations, fused.ts):
    // C[t, i, j] at t·sCb + i·sCi + j = Σ_p A[t·sAb + i·sAi + p·sAp] · B[t·sBb + p·sBp + j·sBj].
    name: 'RacStridedBmm',
    outShapes: (_s, a) => [a.outShape as unknown as number[]],
    run({ a, b }, [c], _s, at) {
      if (at.zero) c.fill(0);
      for (let t = 0; t < at.batch; t++)
        for (let i = 0; i < at.m; i++)
          for (let j = 0; j < at.n; j++) {
            let acc = 0;
            for (let p = 0; p < at.k; p++)
              acc = Math.fround(
                acc + a[t * at.sAb + i * at.sAi + p * at.sAp] * b[t * at.sBb + p * at.sBp + j * at.sBj],
              );
            c[t * at.sCb + i * at.sCi + j] = acc;
          }
    },
    wat(k, { a, b }, [c], _s, at, scratch) {
      batchMatMulCounts.simd++; // served by the SIMD batched kernel, as the attention products were
      if (at.zero) k.fill_zero(c, size(at.outShape as unknown as number[]));
      k.bmm(
        a,
        b,
        c,
        scratch(),
        at.batch,
        at.m,
        at.k,
        at.n,
        at.sAb,
        at.sAi,
        at.sAp,
        at.sBb,
        at.sBp,
        at.sBj,
        at.sCb,
        at.sCi,
      );
    },
  },
  {
    // C = op(A)·op(B) (+ bias), op = transpose where asked: wasm only (the GEMM of batchMatMul.wat).
    name: 'RacMatMul',
    outShapes: (s, a) => [[a.transposeA ? s.a[1] : s.a[0], a.transposeB ? s.b[0] : s.b[1]]],
    run({ a, b, bias }, [c], s, at) {
      const [m, k] = at.transposeA ? [s.a[1], s.a[0]] : s.a;
      const n = at.transposeB ? s.b[0] : s.b[1];
      const [sAi, sAp] = at.transposeA ? [1, m] : [k, 1];
      const [sBp, sBj] = at.transposeB ? [1, k] : [n, 1];
      for (let i = 0; i < m; i++)
        for (let j = 0; j < n; j++) {
          let acc = bias ? bias[j] : 0;
          for (let p = 0; p < k; p++) acc += a[i * sAi + p * sAp] * b[p * sBp + j * sBj];
          c[i * n + j] = acc;
        }
    },
    wat(k, { a, b, bias }, [c], s, at, scratch) {
      const [m, kk] = at.transposeA ? [s.a[1], s.a[0]] : s.a;
      const n = at.transposeB ? s.b[0] : s.b[1];
      const [sAi, sAp] = at.transposeA ? [1, m] : [kk, 1];
      const [sBp, sBj] = at.transposeB ? [1, kk] : [n, 1];
      // The bias joins in the GEMM's epilogue (bias + sums, the bits of filling C with it first).
      k.gemm(a, b, c, scratch(), m, kk, n, sAi, sAp, sBp, sBj, 0, bias ?? 0);
    },
  },
];

/** Kernels registered for wasm only (the others run as tf ops on cpu). */
const WASM_ONLY = new Set(['RacMatMul']);

function wasmFunc(k: FusedKernel) {
  return ({
    inputs,
    backend,
    attrs,
  }: {
    inputs: Record<string, tf.TensorInfo>;
    backend: WasmBackendLike;
    attrs: Attrs;
  }) => {
    const shapes: Shapes = {};
    for (const [nm, t] of Object.entries(inputs)) shapes[nm] = t.shape;
    const outs = k.outShapes(shapes, attrs).map((s) => backend.makeOutput(s, 'float32'));
    const wasm = k.wat ? deepWasmKernels(backend) : null;
    if (wasm && k.wat) {
      const off = (t: tf.TensorInfo) => backend.dataIdMap.get(t.dataId)!.memoryOffset;
      const ptrs: Ptrs = {};
      for (const [nm, t] of Object.entries(inputs)) ptrs[nm] = off(t);
      let scratch: tf.TensorInfo | null = null;
      k.wat(wasm, ptrs, outs.map(off), shapes, attrs, () =>
        off((scratch = backend.makeOutput([GEMM_SCRATCH_FLOATS], 'float32'))),
      );
      if (scratch) backend.disposeData((scratch as tf.TensorInfo).dataId);
    } else {
      // Views only after every allocation: growing the heap detaches older views.
      const ins: Arrays = {};
      for (const [nm, t] of Object.entries(inputs)) ins[nm] = backend.typedArrayFromHeap(t);
      k.run(
        ins,
        outs.map((o) => backend.typedArrayFromHeap(o)),
        shapes,
        attrs,
      );
    }
    return outs.length === 1 ? outs[0] : outs;
  };
}

function cpuFunc(k: FusedKernel) {
  return ({
    inputs,
    backend,
    attrs,
  }: {
    inputs: Record<string, tf.TensorInfo>;
    backend: CpuBackendLike;
    attrs: Attrs;
  }) => {
    const shapes: Shapes = {};
    const ins: Arrays = {};
    for (const [nm, t] of Object.entries(inputs)) {
      shapes[nm] = t.shape;
      ins[nm] = backend.data.get(t.dataId).values as Float32Array;
    }
    const outShapes = k.outShapes(shapes, attrs);
    const arrays = outShapes.map((s) => new Float32Array(size(s)));
    k.run(ins, arrays, shapes, attrs);
    const outs = arrays.map((a, i) => backend.makeTensorInfo(outShapes[i], 'float32', a));
    return outs.length === 1 ? outs[0] : outs;
  };
}

/** Registers every fused kernel for cpu and wasm (idempotent). */
export function registerFusedKernels(): void {
  for (const k of KERNELS) {
    if (WASM_ONLY.has(k.name)) {
      if (deepWasmAvailable() && !tf.getKernel(k.name, 'wasm'))
        tf.registerKernel({
          kernelName: k.name,
          backendName: 'wasm',
          kernelFunc: wasmFunc(k) as unknown as tf.KernelFunc,
        });
      continue;
    }
    if (!tf.getKernel(k.name, 'wasm'))
      tf.registerKernel({
        kernelName: k.name,
        backendName: 'wasm',
        kernelFunc: wasmFunc(k) as unknown as tf.KernelFunc,
      });
    if (!tf.getKernel(k.name, 'cpu'))
      tf.registerKernel({
        kernelName: k.name,
        backendName: 'cpu',
        kernelFunc: cpuFunc(k) as unknown as tf.KernelFunc,
      });
  }
}

/** The fused kernels' names (tests). */
export const FUSED_KERNEL_NAMES = KERNELS.map((k) => k.name);
