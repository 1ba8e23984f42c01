/**
 * The backend self-check's reference side (pure): a fixed test matrix and a plain-JS product to
 * compare the backend's matmul against, in the spirit of the tfjs benchmark page's CPU check.
 */

/** Result of running the check on a backend. Crosses the worker boundary as a plain record. */
export interface SelfCheckResult {
  backend: string;
  /** n of the n×n matmul. */
  n: number;
  /** First matmul + read-back, ms: includes shader/kernel compilation and upload set-up. */
  firstMs: number;
  /** A second (warm) matmul + read-back, ms. */
  matmulMs: number;
  /** max |backend − plain JS| over all entries of both calls. */
  maxAbsDiffVsCpu: number;
  numTensorsBefore: number;
  numTensorsAfter: number;
  /** Passed: diff within SELF_CHECK_TOLERANCE and no tensors leaked. */
  ok: boolean;
  /**
   * On a GPU backend, the same warm matmul on WASM (best of a few, both sides), so the page can say
   * when the GPU is the slower of the two (a software adapter); absent on WASM and CPU.
   */
  reference?: { backend: string; ms: number; activeMs: number };
}

/** float32 accumulation over 64 terms of size ≤ 1 stays far below this. */
export const SELF_CHECK_TOLERANCE = 1e-3;

/**
 * A deterministic n×n test matrix, entries in [-0.5, 0.5). `salt` makes A and B differ.
 * Integer hashing, so no RNG and no clock.
 */
export function testMatrix(n: number, salt: number): Float32Array {
  const out = new Float32Array(n * n);
  for (let i = 0; i < out.length; i++) {
    const h = Math.imul(i + 1, 2654435761) ^ Math.imul(salt + 1, 40503);
    out[i] = ((h >>> 0) % 1000) / 1000 - 0.5;
  }
  return out;
}

/** C = A·B for row-major n×n matrices, accumulated in float64. */
export function matmulPlain(a: Float32Array, b: Float32Array, n: number): Float64Array {
  const c = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < n; k++) {
      const aik = a[i * n + k];
      for (let j = 0; j < n; j++) c[i * n + j] += aik * b[k * n + j];
    }
  }
  return c;
}

export function maxAbsDiff(x: ArrayLike<number>, y: ArrayLike<number>): number {
  if (x.length !== y.length) {
    throw new Error(`maxAbsDiff: expected arrays of equal length, got ${x.length} and ${y.length}.`);
  }
  let m = 0;
  for (let i = 0; i < x.length; i++) {
    const d = Math.abs(x[i] - y[i]);
    if (Number.isNaN(d)) return NaN;
    if (d > m) m = d;
  }
  return m;
}
