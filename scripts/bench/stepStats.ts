/**
 * What one deep training step costs beyond its time (issue 20): kernels dispatched (tf.profile) and
 * bytes crossing between the host (JavaScript) and the backend's memory (the WASM heap, a GPU
 * buffer). Bytes are counted by wrapping the active backend's `write`/`move` (uploads of host
 * values) and `read`/`readSync` (read-backs) for the duration of one call; the kernel count comes
 * from a separate tf.profile run, because profiling itself reads each kernel's outputs back on
 * backends without a timer.
 */
import * as tf from '@tensorflow/tfjs';

export interface StepStats {
  kernels: number;
  /** Peak bytes of live tensors during the call (tf.profile). */
  peakBytes: number;
  /** Kernel name → count, most frequent first. */
  byName: Record<string, number>;
}

export interface StepBytes {
  /** Host values written into the backend (tensor creation from arrays). */
  uploadBytes: number;
  uploads: number;
  /** Read back by the caller (data(), dataSync()), outside any kernel. */
  readBytes: number;
  reads: number;
  /** Read by kernels themselves from the backend's memory (tfjs-wasm's JS kernels copy their input). */
  kernelReadBytes: number;
  /** webgpu: compute programs dispatched (a kernel may run several); null on other backends. */
  programs: number | null;
}

/** Kernel count of one call of `f` (awaited), by name. */
export async function profileKernels(f: () => Promise<unknown>): Promise<StepStats> {
  const info = await tf.profile(async () => {
    await f();
    return [] as tf.Tensor[];
  });
  const byName: Record<string, number> = {};
  for (const k of info.kernels) byName[k.name] = (byName[k.name] ?? 0) + 1;
  const sorted = Object.fromEntries(Object.entries(byName).sort((a, b) => b[1] - a[1]));
  return { kernels: info.kernels.length, peakBytes: info.peakBytes, byName: sorted };
}

type AnyFn = (...a: unknown[]) => unknown;

const bytesOf = (values: unknown): number =>
  values && ArrayBuffer.isView(values) ? (values as ArrayBufferView).byteLength : 0;

/** Host ↔ backend bytes of one call of `f` (awaited) on the active backend. */
export async function countTransfers(f: () => Promise<unknown>): Promise<StepBytes> {
  const b = tf.backend() as unknown as Record<string, AnyFn | undefined>;
  const s: StepBytes = {
    uploadBytes: 0,
    uploads: 0,
    readBytes: 0,
    reads: 0,
    kernelReadBytes: 0,
    programs: typeof b.runWebGPUProgram === 'function' ? 0 : null,
  };
  const state = (tf.engine() as unknown as { state: { kernelDepth: number } }).state;
  const saved: [string, AnyFn][] = [];
  let depth = 0;
  const wrap = (name: string, onCall: (args: unknown[], out: unknown) => void) => {
    const orig = b[name];
    if (typeof orig !== 'function') return;
    saved.push([name, orig]);
    b[name] = function (this: unknown, ...args: unknown[]) {
      depth++;
      try {
        const out = orig.apply(this, args);
        if (depth === 1) {
          if (out instanceof Promise) void out.then((v) => onCall(args, v));
          else onCall(args, out);
        }
        return out;
      } finally {
        depth--;
      }
    } as AnyFn;
  };
  const up = (values: unknown) => {
    const n = bytesOf(values);
    if (n > 0) {
      s.uploadBytes += n;
      s.uploads++;
    }
  };
  wrap('write', (a) => up(a[0]));
  wrap('move', (a) => up(a[1]));
  const down = (_a: unknown[], out: unknown, inKernel: boolean) => {
    if (inKernel) s.kernelReadBytes += bytesOf(out);
    else {
      s.readBytes += bytesOf(out);
      s.reads++;
    }
  };
  wrap('runWebGPUProgram', () => (s.programs = (s.programs ?? 0) + 1));
  wrap('read', (a, o) => down(a, o, false));
  wrap('readSync', (a, o) => down(a, o, state.kernelDepth > 0));
  try {
    await f();
  } finally {
    for (const [name, fn] of saved) b[name] = fn;
  }
  return s;
}
