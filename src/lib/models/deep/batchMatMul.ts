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
 */
import * as tf from '@tensorflow/tfjs';
import { BATCH_MATMUL_WASM_BASE64 } from './batchMatMulWasm.ts';

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
) => void;
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
export const batchMatMulCounts = { simd: 0, tfjs: 0 };
const modules = new WeakMap<WebAssembly.Memory, Bmm>();

/** The module's bytes (atob: browsers, workers and Node ≥ 16 alike). */
function decode(b64: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
}

/** The kernel instantiated on the backend's memory (one instance per memory, made on first use). */
function bmmFor(backend: WasmBackendLike): Bmm | null {
  const memory = backend.wasm.asm?.memory;
  if (!(memory instanceof WebAssembly.Memory)) return null;
  if (typeof SharedArrayBuffer !== 'undefined' && memory.buffer instanceof SharedArrayBuffer) return null;
  let fn = modules.get(memory);
  if (!fn) {
    const mod = new WebAssembly.Module(decode(BATCH_MATMUL_WASM_BASE64));
    const inst = new WebAssembly.Instance(mod, { env: { memory } });
    fn = inst.exports.bmm as Bmm;
    modules.set(memory, fn);
  }
  return fn;
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

/** Replaces tfjs-wasm's BatchMatMul with the SIMD one for batched products (see the file comment). */
export function installWasmBatchMatMul(): boolean {
  if (installed) return true;
  if (typeof WebAssembly !== 'object' || !WebAssembly.validate(decode(BATCH_MATMUL_WASM_BASE64)))
    return false;
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
    const bmm = plan && bmmFor(backend);
    if (!plan || !bmm) {
      batchMatMulCounts.tfjs++;
      return fallback(args as unknown as Parameters<tf.KernelFunc>[0]) as tf.TensorInfo;
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
    );
    backend.disposeData(scratch.dataId);
    return out;
  };
  tf.unregisterKernel(KERNEL, 'wasm');
  tf.registerKernel({ ...original, kernelFunc: kernelFunc as unknown as tf.KernelFunc });
  installed = true;
  return true;
}
