/**
 * The device probe behind the header badge: initialise tfjs like every other worker does and
 * check the backend's arithmetic against plain JS.
 */
import { expose } from 'comlink';
import {
  currentReport,
  initBackend,
  simulateDeviceLost,
  tf,
  type BackendPref,
  type BackendReport,
} from './backend.ts';
import {
  SELF_CHECK_TOLERANCE,
  matmulPlain,
  maxAbsDiff,
  testMatrix,
  type SelfCheckResult,
} from '../src/lib/env/selfCheck.ts';

const SELF_CHECK_N = 64;

const api = {
  /** Initialise (or switch) the backend. `onChange` hears later switches, e.g. after a device loss. */
  async init(pref: BackendPref, onChange?: (r: BackendReport) => void): Promise<BackendReport> {
    // onChange arrives as a comlink proxy (the page wraps it with `proxy`).
    return initBackend(pref, { onChange });
  },

  report(): BackendReport | null {
    return currentReport();
  },

  /** A 64×64 matmul on the active backend vs the plain-JS product; asserts no tensors leak. */
  async selfCheck(): Promise<SelfCheckResult> {
    const n = SELF_CHECK_N;
    const a = testMatrix(n, 1);
    const b = testMatrix(n, 2);
    const expected = matmulPlain(a, b, n);
    const numTensorsBefore = tf.memory().numTensors;
    const first = await timedMatmul(a, b, n);
    const warm = await timedMatmul(a, b, n);
    const numTensorsAfter = tf.memory().numTensors;
    const diff = Math.max(maxAbsDiff(first.out, expected), maxAbsDiff(warm.out, expected));
    const reference = await wasmReference(a, b, n);
    return {
      backend: tf.getBackend(),
      n,
      firstMs: first.ms,
      matmulMs: warm.ms,
      maxAbsDiffVsCpu: Number.isNaN(diff) ? Infinity : diff,
      numTensorsBefore,
      numTensorsAfter,
      ok: diff <= SELF_CHECK_TOLERANCE && numTensorsAfter === numTensorsBefore,
      ...(reference ? { reference } : {}),
    };
  },

  /** Test hook: lose the WebGPU device on purpose. */
  simulateDeviceLost(): boolean {
    return simulateDeviceLost();
  },
};

/** Best of three warm matmuls, ms. */
async function bestOf3(a: Float32Array, b: Float32Array, n: number): Promise<number> {
  let best = Infinity;
  for (let i = 0; i < 3; i++) best = Math.min(best, (await timedMatmul(a, b, n)).ms);
  return best;
}

/**
 * On a GPU backend, the same warm matmul on WASM and again on the GPU (best of three each side),
 * then back to the GPU: a software adapter's GPU is far slower than WASM, and the page says so
 * before a run (issue 21, item 10). Undefined on WASM or CPU, or when WASM cannot start here.
 */
async function wasmReference(
  a: Float32Array,
  b: Float32Array,
  n: number,
): Promise<SelfCheckResult['reference']> {
  const active = tf.getBackend();
  if ((active !== 'webgpu' && active !== 'webgl') || !tf.findBackendFactory('wasm')) return undefined;
  const activeMs = await bestOf3(a, b, n);
  try {
    if (!(await tf.setBackend('wasm'))) return undefined;
    await tf.ready();
    await timedMatmul(a, b, n); // warm-up
    return { backend: 'wasm', ms: await bestOf3(a, b, n), activeMs };
  } catch {
    return undefined;
  } finally {
    // Back to the GPU, unless an init for another preference ran meanwhile (its choice stands).
    if (tf.getBackend() === 'wasm' && currentReport()?.backend === active) {
      await tf.setBackend(active);
      await tf.ready();
    }
  }
}

/** One n×n matmul with read-back; every tensor is disposed before returning. */
async function timedMatmul(
  a: Float32Array,
  b: Float32Array,
  n: number,
): Promise<{ out: Float32Array; ms: number }> {
  const t0 = performance.now();
  const c = tf.tidy(() => tf.matMul(tf.tensor2d(a, [n, n]), tf.tensor2d(b, [n, n])));
  try {
    const out = (await c.data()) as Float32Array;
    return { out, ms: Math.round((performance.now() - t0) * 10) / 10 };
  } finally {
    c.dispose();
  }
}

export type ProbeApi = typeof api;
expose(api);
