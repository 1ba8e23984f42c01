/**
 * Slice and SplitV for tfjs's WASM backend without its whole-input copy: tfjs-wasm's Slice reads
 * its input out of the WebAssembly heap (`readSync`, a copy of the whole tensor) before copying the
 * slice, and its SplitV does that once per output, so splitting the 2.4 M flat parameters
 * (flatParams.ts) into ~40 views copied ≈ 400 MB per step. These read the input in place (a view of
 * the heap) and copy only the slice. Same values, bit for bit (a copy); strings and other dtypes go
 * to tfjs's own kernels.
 */
import * as tf from '@tensorflow/tfjs';

interface WasmSliceBackend {
  makeOutput(shape: number[], dtype: tf.DataType): tf.TensorInfo;
  typedArrayFromHeap(t: tf.TensorInfo): Float32Array | Int32Array | Uint8Array;
}

type Args = {
  inputs: { x: tf.TensorInfo };
  backend: WasmSliceBackend;
  attrs: Record<string, unknown>;
};

/** Copies x[begin : begin + size] (any rank) as runs along the last axis. */
function copySlice(
  backend: WasmSliceBackend,
  x: tf.TensorInfo,
  begin: number[],
  size: number[],
): tf.TensorInfo {
  const out = backend.makeOutput(size, x.dtype);
  const n = size.reduce((a, b) => a * b, 1);
  if (n === 0) return out;
  // Views after makeOutput: an allocation may grow the heap and detach older views.
  const xv = backend.typedArrayFromHeap(x);
  const ov = backend.typedArrayFromHeap(out);
  const shape = x.shape;
  const rank = shape.length;
  const strides = new Array<number>(rank);
  strides[rank - 1] = 1;
  for (let i = rank - 2; i >= 0; i--) strides[i] = strides[i + 1] * shape[i + 1];
  // Merge trailing axes that are taken whole into one run.
  let inner = rank - 1;
  let run = size[rank - 1];
  while (inner > 0 && size[inner] === shape[inner] && begin[inner] === 0) {
    inner--;
    run *= size[inner];
  }
  if (inner === 0) {
    const s = begin[0] * strides[0];
    ov.set(xv.subarray(s, s + n));
    return out;
  }
  // Odometer over the axes before `inner`; each position copies one run.
  const idx = new Array<number>(inner).fill(0);
  let o = 0;
  for (;;) {
    let s = begin[inner] * strides[inner];
    for (let a = 0; a < inner; a++) s += (begin[a] + idx[a]) * strides[a];
    ov.set(xv.subarray(s, s + run), o);
    o += run;
    let a = inner - 1;
    while (a >= 0 && ++idx[a] === size[a]) idx[a--] = 0;
    if (a < 0) break;
  }
  return out;
}

const copyable = (t: tf.TensorInfo) => t.dtype === 'float32' || t.dtype === 'int32' || t.dtype === 'bool';

let installed = false;

/** Replaces tfjs-wasm's Slice and SplitV (idempotent; false where wasm kernels are missing). */
export function installWasmSlice(): boolean {
  if (installed) return true;
  const slice0 = tf.getKernel('Slice', 'wasm');
  const split0 = tf.getKernel('SplitV', 'wasm');
  if (!slice0 || !split0) return false;
  const sliceFn = (args: Args): tf.TensorInfo => {
    const { x } = args.inputs;
    if (!copyable(x))
      return slice0.kernelFunc(args as unknown as Parameters<tf.KernelFunc>[0]) as tf.TensorInfo;
    const [begin, size] = tf.slice_util.parseSliceParams(
      x as unknown as tf.Tensor,
      args.attrs.begin as number[],
      args.attrs.size as number[],
    );
    return copySlice(args.backend, x, begin, size);
  };
  const splitFn = (args: Args): tf.TensorInfo[] => {
    const { x } = args.inputs;
    if (!copyable(x))
      return split0.kernelFunc(args as unknown as Parameters<tf.KernelFunc>[0]) as tf.TensorInfo[];
    const axis = tf.util.parseAxisParam(args.attrs.axis as number, x.shape)[0];
    const sizes = tf.backend_util.prepareSplitSize(
      x as unknown as tf.Tensor,
      args.attrs.numOrSizeSplits as number[] | number,
      axis,
    );
    const begin = new Array<number>(x.shape.length).fill(0);
    return sizes.map((s) => {
      const size = [...x.shape];
      size[axis] = s;
      const out = copySlice(args.backend, x, [...begin], size);
      begin[axis] += s;
      return out;
    });
  };
  tf.unregisterKernel('Slice', 'wasm');
  tf.registerKernel({ ...slice0, kernelFunc: sliceFn as unknown as tf.KernelFunc });
  tf.unregisterKernel('SplitV', 'wasm');
  tf.registerKernel({ ...split0, kernelFunc: splitFn as unknown as tf.KernelFunc });
  installed = true;
  return true;
}
