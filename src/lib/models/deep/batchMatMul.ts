/**
 * A faster BatchMatMul for tfjs's WASM backend where its own kernel is slowest: batched products
 * (attention's [B, H, 17, 24] × [B, H, 24, 17] and their gradients, which carry transpose flags).
 * tfjs-wasm sends every batched or flagged product to a plain scalar loop (≈ 1 GFLOP/s here); this
 * one (batchMatMul.wat) packs each batch's operands and runs f32x4 SIMD inside the backend's own
 * memory, with no copies between JS and WebAssembly. Everything else (the 2-D products, which go
 * to XNNPACK) keeps tfjs's kernel.
 *
 * Sums run over the inner dimension in order in float32, as tfjs's loop does, so results agree to
 * float32 rounding (tests/unit/deep/batchMatMul.test.ts compares both kernels on every shape kind
 * the model uses; the PyTorch parity fixtures run through it).
 *
 * `installWasmBatchMatMul()` is idempotent; it replaces the registered kernel (keeping the original
 * as the fallback) and returns false where it cannot run: no WebAssembly SIMD, or a backend build
 * whose memory is not reachable (a threaded build's shared memory included).
 *
 * The same module (one instance per backend memory, `deepWasmKernels`) also holds the trainer's
 * other WebAssembly kernels, which fusedKernels.ts registers: a GEMM with transposed operands and
 * bias, the FT-Transformer's fused element-wise ops and the optimiser step.
 *
 * The module comes in two builds (scripts/wasm/build.mjs): plain SIMD, and relaxed SIMD, whose GEMM
 * micro-kernel multiply-adds are `f32x4.relaxed_madd` (an FMA on x86-64 with FMA3 and on arm64:
 * ≈ 10–20 % faster GEMMs on the reference Zen 4 machine; one rounding per multiply-add instead of
 * two, so results move at float32 rounding level). The relaxed build runs where the engine
 * validates it (Chrome and Edge ≥ 114, whose V8 has it on; Node 20's V8 only with
 * --experimental-wasm-relaxed-simd), else the plain one; `deepWasmFlavour()` says which, and fits record it.
 */
import * as tf from '@tensorflow/tfjs';
import { BATCH_MATMUL_RELAXED_WASM_BASE64, BATCH_MATMUL_WASM_BASE64 } from './batchMatMulWasm.ts';

interface WasmData {
  memoryOffset: number;
}
interface WasmBackendLike {
  wasm: { asm?: { memory?: WebAssembly.Memory } };
  dataIdMap: { get(dataId: object): WasmData | undefined };
  makeOutput(shape: number[], dtype: 'float32'): tf.TensorInfo;
  disposeData(dataId: object): boolean;
}
type Bmm = (
  a: number,
  b: number,
  c: number,
  scratch: number,
  batch: number,
  m: number,
  k: number,
  n: number,
  sAb: number,
  sAi: number,
  sAp: number,
  sBb: number,
  sBp: number,
  sBj: number,
  sCb: number,
  sCi: number,
) => void;

/** The module's exports (batchMatMul.wat): `bmm` here, the rest for fusedKernels.ts. */
export interface DeepWasmKernels {
  bmm: Bmm;
  gemm(
    a: number,
    b: number,
    c: number,
    scratch: number,
    m: number,
    k: number,
    n: number,
    sAi: number,
    sAp: number,
    sBp: number,
    sBj: number,
    acc: number,
    /** Offset of n bias values added to every row (0: none). */
    bias: number,
  ): void;
  ln_fwd(x: number, g: number, b: number, y: number, M: number, D: number, eps: number): void;
  ln_bwd(
    x: number,
    g: number,
    dy: number,
    dres: number,
    dx: number,
    dg: number,
    db: number,
    M: number,
    D: number,
    eps: number,
  ): void;
  smd_fwd(
    s: number,
    p: number,
    pd: number,
    R: number,
    n: number,
    scale: number,
    cut: number,
    ka: number,
    kb: number,
    keep: number,
  ): void;
  smd_bwd(
    p: number,
    dpd: number,
    ds: number,
    R: number,
    n: number,
    scale: number,
    cut: number,
    ka: number,
    kb: number,
    keep: number,
  ): void;
  fill_zero(c: number, n: number): void;
  colsum(x: number, out: number, M: number, N: number): void;
  dropout(x: number, y: number, n: number, cut: number, ka: number, kb: number, keep: number): void;
  /** (θ, g, m, v, s, wd, θ', m', v', s', n, b1, 1−b1, b2, 1−b2, √bc2, ε, lr/bc1, ema?, a, 1−a) */
  adam(...args: number[]): void;
  /** (θ, g, buf, s, wd, θ', buf', s', n, momentum, lr, ema?, a, 1−a) */
  sgd(...args: number[]): void;
  reglu_fwd(
    f: number,
    g: number,
    M: number,
    F: number,
    cut: number,
    ka: number,
    kb: number,
    keep: number,
  ): void;
  reglu_bwd(
    f: number,
    dg: number,
    df: number,
    M: number,
    F: number,
    cut: number,
    ka: number,
    kb: number,
    keep: number,
  ): void;
}
/** Floats of `gemm`'s scratch: packed A (100 × 288), packed B (288 × 1 024), one 5 × 8 tile (48). */
export const GEMM_SCRATCH_FLOATS = 100 * 288 + 288 * 1024 + 48;

interface BatchMatMulArgs {
  inputs: { a: tf.TensorInfo; b: tf.TensorInfo };
  backend: WasmBackendLike;
  attrs: { transposeA: boolean; transposeB: boolean };
}

const KERNEL = 'BatchMatMul';
/** Largest packed operand (floats): keeps each batch's A and B in L1/L2; larger goes to tfjs. */
const MAX_PACKED = 64 * 1024;

let installed = false;
/** Products served by this kernel and handed back to tfjs's (tests, benchmarks). */
/** Products served: by the SIMD kernel, by tfjs's, and of those by tfjs with operands transposed first. */
export const batchMatMulCounts = { simd: 0, tfjs: 0, untransposed: 0 };
/** Which build of the module runs: relaxed SIMD (FMA), plain SIMD, or none (no WebAssembly SIMD). */
export type DeepWasmFlavour = 'relaxed-simd' | 'simd';
const BYTES: Record<DeepWasmFlavour, string> = {
  'relaxed-simd': BATCH_MATMUL_RELAXED_WASM_BASE64,
  simd: BATCH_MATMUL_WASM_BASE64,
};
const modules = new WeakMap<WebAssembly.Memory, Partial<Record<DeepWasmFlavour, DeepWasmKernels>>>();
const valid: Partial<Record<DeepWasmFlavour, boolean>> = {};
/** Set by `preferDeepWasmFlavour` (tests, benchmarks): the plain build even where relaxed validates. */
let preferPlain = false;

/** The module's bytes (atob: browsers, workers and Node ≥ 16 alike). */
function decode(b64: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
}

function validates(f: DeepWasmFlavour): boolean {
  valid[f] ??= typeof WebAssembly === 'object' && WebAssembly.validate(decode(BYTES[f]));
  return valid[f];
}

/** Whether this engine can run the module (WebAssembly with SIMD). */
export function deepWasmAvailable(): boolean {
  return validates('simd');
}

/** The build that runs here: the relaxed one where the engine validates it, else plain SIMD; null: neither. */
export function deepWasmFlavour(): DeepWasmFlavour | null {
  if (!preferPlain && validates('relaxed-simd')) return 'relaxed-simd';
  return validates('simd') ? 'simd' : null;
}

/**
 * Runs the plain-SIMD build from now on even where the relaxed one validates (`'simd'`), or goes
 * back to the best one (`'auto'`): lets a test or a benchmark compare both in one process.
 */
export function preferDeepWasmFlavour(f: 'simd' | 'auto'): void {
  preferPlain = f === 'simd';
}

/** The kernels instantiated on a wasm backend's memory (one instance per memory, made on first use). */
export function deepWasmKernels(backend: {
  wasm: { asm?: { memory?: WebAssembly.Memory } };
}): DeepWasmKernels | null {
  const memory = backend.wasm.asm?.memory;
  if (!(memory instanceof WebAssembly.Memory)) return null;
  if (typeof SharedArrayBuffer !== 'undefined' && memory.buffer instanceof SharedArrayBuffer) return null;
  const flavour = deepWasmFlavour();
  if (!flavour) return null;
  let byFlavour = modules.get(memory);
  if (!byFlavour) modules.set(memory, (byFlavour = {}));
  let k = byFlavour[flavour];
  if (!k) {
    const mod = new WebAssembly.Module(decode(BYTES[flavour]));
    k = new WebAssembly.Instance(mod, { env: { memory } }).exports as unknown as DeepWasmKernels;
    byFlavour[flavour] = k;
  }
  return k;
}

const size = (shape: readonly number[]) => shape.reduce((p, x) => p * x, 1);

/**
 * The plan of one product: null where tfjs's own kernel should run (2-D products, XNNPACK's
 * territory; batch dims that broadcast other than "equal or one is 1"; large operands).
 */
export function batchMatMulPlan(
  aShape: readonly number[],
  bShape: readonly number[],
  transposeA: boolean,
  transposeB: boolean,
): null | { batch: number; m: number; k: number; n: number; outShape: number[]; strides: number[] } {
  const ra = aShape.length,
    rb = bShape.length;
  if (ra < 2 || rb < 2) return null;
  const m = transposeA ? aShape[ra - 1] : aShape[ra - 2];
  const k = transposeA ? aShape[ra - 2] : aShape[ra - 1];
  const kb = transposeB ? bShape[rb - 1] : bShape[rb - 2];
  const n = transposeB ? bShape[rb - 2] : bShape[rb - 1];
  if (k !== kb) return null; // tfjs's kernel reports the mismatch
  const outerA = aShape.slice(0, -2),
    outerB = bShape.slice(0, -2);
  const batchA = size(outerA),
    batchB = size(outerB);
  const batch = Math.max(batchA, batchB);
  if (batch < 2 || (batchA !== batchB && batchA !== 1 && batchB !== 1)) return null;
  if (m * k > MAX_PACKED || k * n > MAX_PACKED || m * n * k === 0) return null;
  // tfjs's own broadcast of the batch dims; batch b of the output then pairs A's and B's batch b
  // (or their single one) exactly when it has `batch` entries ([2, 1] × [1, 2] has 4: tfjs's).
  let outerShape: number[];
  try {
    outerShape = tf.broadcast_util.assertAndGetBroadcastShape(outerA, outerB);
  } catch {
    return null; // tfjs's kernel reports it
  }
  if (size(outerShape) !== batch) return null;
  const sAb = batchA === 1 ? 0 : m * k;
  const [sAi, sAp] = transposeA ? [1, m] : [k, 1];
  const sBb = batchB === 1 ? 0 : k * n;
  const [sBp, sBj] = transposeB ? [1, k] : [n, 1];
  return { batch, m, k, n, outShape: [...outerShape, m, n], strides: [sAb, sAi, sAp, sBb, sBp, sBj] };
}

/**
 * tfjs-wasm's product with a transposed operand leaves XNNPACK for a scalar loop: xᵀ·dy at
 * [64, 2 048]ᵀ × [64, 256] (a head's weight gradient) took 109 ms of CPU against 5 ms for
 * transpose(x)·dy, and dy·Wᵀ 36 ms against 3 ms (npm run bench:modal, head steps). So a float32
 * product that asks for a transpose gets its operand transposed by the backend's Transpose kernel
 * (O(m·k), one pass) and the plain XNNPACK product; other dtypes go to tfjs as they were.
 */
function untransposedFallback(args: BatchMatMulArgs, fallback: tf.KernelFunc): tf.TensorInfo {
  const { inputs, backend, attrs } = args;
  const { a, b } = inputs;
  const call = (x: BatchMatMulArgs) =>
    fallback(x as unknown as Parameters<tf.KernelFunc>[0]) as tf.TensorInfo;
  const transpose = tf.getKernel('Transpose', 'wasm')?.kernelFunc;
  if (
    !transpose ||
    a.dtype !== 'float32' ||
    b.dtype !== 'float32' ||
    (!attrs.transposeA && !attrs.transposeB)
  )
    return call(args);
  const swapLast = (t: tf.TensorInfo): tf.TensorInfo => {
    const r = t.shape.length;
    const perm = [...t.shape.keys()];
    [perm[r - 2], perm[r - 1]] = [perm[r - 1], perm[r - 2]];
    return transpose({
      inputs: { x: t },
      backend,
      attrs: { perm },
    } as unknown as Parameters<tf.KernelFunc>[0]) as tf.TensorInfo;
  };
  batchMatMulCounts.untransposed++;
  const at = attrs.transposeA ? swapLast(a) : a;
  const bt = attrs.transposeB ? swapLast(b) : b;
  try {
    return call({
      inputs: { a: at, b: bt },
      backend,
      attrs: { ...attrs, transposeA: false, transposeB: false },
    });
  } finally {
    if (at !== a) backend.disposeData(at.dataId);
    if (bt !== b) backend.disposeData(bt.dataId);
  }
}

/** Replaces tfjs-wasm's BatchMatMul with the SIMD one for batched products (see the file comment). */
export function installWasmBatchMatMul(): boolean {
  if (installed) return true;
  if (!deepWasmAvailable()) return false;
  const original = tf.getKernel(KERNEL, 'wasm');
  if (!original) return false;
  const fallback = original.kernelFunc;
  const kernelFunc = (args: BatchMatMulArgs): tf.TensorInfo => {
    const { inputs, backend, attrs } = args;
    const { a, b } = inputs;
    const plan =
      a.dtype === 'float32' && b.dtype === 'float32'
        ? batchMatMulPlan(a.shape, b.shape, attrs.transposeA, attrs.transposeB)
        : null;
    const bmm = plan && deepWasmKernels(backend)?.bmm;
    if (!plan || !bmm) {
      batchMatMulCounts.tfjs++;
      return untransposedFallback(args, fallback);
    }
    batchMatMulCounts.simd++;
    const { batch, m, k, n, outShape, strides } = plan;
    const out = backend.makeOutput(outShape, 'float32');
    const scratch = backend.makeOutput([m * k + k * n], 'float32');
    const off = (t: tf.TensorInfo) => backend.dataIdMap.get(t.dataId)!.memoryOffset;
    bmm(
      off(a),
      off(b),
      off(out),
      off(scratch),
      batch,
      m,
      k,
      n,
      ...(strides as [number, number, number, number, number, number]),
      m * n,
      n,
    );
    backend.disposeData(scratch.dataId);
    return out;
  };
  tf.unregisterKernel(KERNEL, 'wasm');
  tf.registerKernel({ ...original, kernelFunc: kernelFunc as unknown as tf.KernelFunc });
  installed = true;
  return true;
}
