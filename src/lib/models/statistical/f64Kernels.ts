/**
 * Float64 matrix products of the exact Label Propagation (labelPropagationFast.ts) on WebAssembly
 * SIMD: the symmetric square A·A and the product A·X with a thin X. The dot-product kernel
 * (f64Kernels.wat, two lanes of f64) runs over cache-sized chunks of the rows; the blocking and
 * the bookkeeping stay here. Same sums as the plain loops up to the order of the additions (the
 * unit tests bound the difference at a few ulps); 3–7× faster than the JS loops on this CPU.
 *
 * Matrices are copied into the module's memory padded to a multiple of 4 (zero rows and columns
 * add exact zeros). The last matrix copied in stays resident: the leaps reuse one power of S
 * many times in a row, so each is copied once per level, not once per product.
 *
 * Where WebAssembly SIMD is missing (very old browsers), `f64Kernels()` returns null and the
 * callers keep their JS loops (labelPropagationFast.ts's `symSquareJs` / `mulSquareJs`).
 */
import { F64_KERNELS_WASM_BASE64 } from './f64KernelsWasm.ts';

type Dot2x4 = (
  a0: number,
  a1: number,
  b0: number,
  bstride: number,
  len: number,
  out0: number,
  out1: number,
) => void;

/** Doubles per chunk of a row: 4 rows of B (32 KiB) stay in L1/L2 while a band of A rows streams. */
const CHUNK = 1024;
/** A rows per band: each band is one event-loop turn (≈ 2.7·10⁸ MACs at 4 096 rows). */
const BAND = 32;

const pad4 = (x: number) => (x + 3) & ~3;

export interface F64Kernels {
  /** C = A·A for a symmetric A (m×m, row-major). Yields through `tick` between bands of rows. */
  symSquare(A: Float64Array, m: number, tick?: () => Promise<void>): Promise<Float64Array>;
  /** out (m×c) = A (m×m) · X (m×c), row-major. */
  mulSquare(A: Float64Array, m: number, X: Float64Array, c: number, out: Float64Array): void;
  /**
   * out (r×c) = A (r×m) · X (m×c), row-major, for a thin X that stays the same over many calls
   * (the inductive prediction: blocks of kernel rows times the label distributions F).
   */
  mulThin(A: Float64Array, r: number, m: number, X: Float64Array, c: number, out: Float64Array): void;
}

class WasmF64Kernels implements F64Kernels {
  private readonly memory: WebAssembly.Memory;
  private readonly dot: Dot2x4;
  private heap: Float64Array;
  /** The matrix now held at offset 0 (by identity) and its padded order. */
  private resident: Float64Array | null = null;
  private residentM = 0;

  constructor(instance: WebAssembly.Instance) {
    this.memory = instance.exports.memory as WebAssembly.Memory;
    this.dot = instance.exports.dot2x4acc as Dot2x4;
    this.heap = new Float64Array(this.memory.buffer);
  }

  /** Grows the memory to `doubles` (views are renewed: growing detaches the old buffer). */
  private reserve(doubles: number): void {
    const bytes = doubles * 8;
    const have = this.memory.buffer.byteLength;
    if (bytes > have) this.memory.grow(Math.ceil((bytes - have) / 65536));
    if (this.heap.buffer !== this.memory.buffer) this.heap = new Float64Array(this.memory.buffer);
  }

  /** Copies A (m×m) to offset 0 with row stride mp = pad4(m), unless it is there already. */
  private loadSquare(A: Float64Array, m: number, extraDoubles: number): number {
    const mp = pad4(m);
    this.reserve(mp * mp + extraDoubles);
    if (this.resident !== A || this.residentM !== m) {
      const heap = this.heap;
      heap.fill(0, 0, mp * mp);
      for (let i = 0; i < m; i++) heap.set(A.subarray(i * m, i * m + m), i * mp);
      this.resident = A;
      this.residentM = m;
    }
    return mp;
  }

  async symSquare(A: Float64Array, m: number, tick?: () => Promise<void>): Promise<Float64Array> {
    const mp = pad4(m);
    this.loadSquare(A, m, mp * mp);
    const heap = this.heap;
    const cBase = mp * mp; // C (padded) right after A, in doubles
    heap.fill(0, cBase, cBase + mp * mp);
    const rowBytes = mp * 8;
    const dot = this.dot;
    // Lower triangle in 2×4 blocks (a block may reach one column past the diagonal: same value).
    for (let i0 = 0; i0 < mp; i0 += BAND) {
      const i1 = Math.min(mp, i0 + BAND);
      for (let l0 = 0; l0 < mp; l0 += CHUNK) {
        const len = Math.min(CHUNK, mp - l0);
        for (let j = 0; j < i1; j += 4) {
          const b0 = j * rowBytes + l0 * 8;
          // Pairs (i, i+1) with i ≥ j reach the block's columns on or below the diagonal.
          for (let i = Math.max(i0, j); i < i1; i += 2) {
            const a0 = i * rowBytes + l0 * 8;
            const out0 = (cBase + i * mp + j) * 8;
            dot(a0, a0 + rowBytes, b0, rowBytes, len, out0, out0 + rowBytes);
          }
        }
      }
      if (tick) await tick();
    }
    const C = new Float64Array(m * m);
    for (let i = 0; i < m; i++) {
      const row = cBase + i * mp;
      for (let j = 0; j <= i; j++) {
        const v = this.heap[row + j];
        C[i * m + j] = v;
        C[j * m + i] = v;
      }
    }
    return C;
  }

  mulSquare(A: Float64Array, m: number, X: Float64Array, c: number, out: Float64Array): void {
    const mp = pad4(m);
    const cp = pad4(c);
    this.loadSquare(A, m, 2 * cp * mp);
    const heap = this.heap;
    // Xᵀ (cp×mp) then out (mp×cp), after A.
    const xtBase = mp * mp;
    const outBase = xtBase + cp * mp;
    heap.fill(0, xtBase, outBase + mp * cp);
    for (let l = 0; l < m; l++) for (let j = 0; j < c; j++) heap[xtBase + j * mp + l] = X[l * c + j];
    this.rowsTimesXt(0, m, mp, xtBase, c, outBase, out);
  }

  /**
   * out (rows×c) = A · X with A's rows at `aBase` (stride mp) and Xᵀ at `xtBase` (cp rows of
   * stride mp), both padded with zeros; the padded product goes to `outBase` (stride cp). Offsets
   * in doubles. The shared inner loop of mulSquare and mulThin.
   */
  private rowsTimesXt(
    aBase: number,
    rows: number,
    mp: number,
    xtBase: number,
    c: number,
    outBase: number,
    out: Float64Array,
  ): void {
    const cp = pad4(c);
    const rp = (rows + 1) & ~1;
    const rowBytes = mp * 8;
    const outRowBytes = cp * 8;
    const dot = this.dot;
    for (let l0 = 0; l0 < mp; l0 += CHUNK) {
      const len = Math.min(CHUNK, mp - l0);
      for (let i = 0; i < rp; i += 2) {
        const a0 = (aBase + i * mp + l0) * 8;
        for (let j = 0; j < cp; j += 4) {
          const out0 = (outBase + i * cp + j) * 8;
          dot(a0, a0 + rowBytes, (xtBase + j * mp + l0) * 8, rowBytes, len, out0, out0 + outRowBytes);
        }
      }
    }
    const heap = this.heap;
    for (let i = 0; i < rows; i++) for (let j = 0; j < c; j++) out[i * c + j] = heap[outBase + i * cp + j];
  }

  mulThin(A: Float64Array, r: number, m: number, X: Float64Array, c: number, out: Float64Array): void {
    const mp = pad4(m);
    const cp = pad4(c);
    const rp = (r + 1) & ~1;
    // Xᵀ (cp×mp) at offset 0, kept while X is the same array; then A (rp×mp), then out (rp×cp).
    const aBase = cp * mp;
    const outBase = aBase + rp * mp;
    this.reserve(outBase + rp * cp);
    const heap = this.heap;
    if (this.resident !== X || this.residentM !== -m) {
      heap.fill(0, 0, aBase);
      for (let l = 0; l < m; l++) for (let j = 0; j < c; j++) heap[j * mp + l] = X[l * c + j];
      this.resident = X;
      this.residentM = -m; // never equal to a square's order: loadSquare reloads after this
    }
    heap.fill(0, aBase, outBase + rp * cp);
    for (let i = 0; i < r; i++) heap.set(A.subarray(i * m, i * m + m), aBase + i * mp);
    this.rowsTimesXt(aBase, r, mp, 0, c, outBase, out);
  }
}

let compiled: WebAssembly.Module | null | undefined;

/**
 * A fresh set of SIMD kernels with its own memory (one per fit: fits that interleave at their
 * awaits never share a buffer), or null where this runtime cannot compile WebAssembly SIMD.
 */
export function f64Kernels(): F64Kernels | null {
  if (compiled === undefined) {
    compiled = null;
    try {
      const bytes = Uint8Array.from(atob(F64_KERNELS_WASM_BASE64), (ch) => ch.charCodeAt(0));
      // Synchronous compile: the module is < 1 KiB, under every browser's main-thread limit.
      if (typeof WebAssembly === 'object' && WebAssembly.validate(bytes))
        compiled = new WebAssembly.Module(bytes);
    } catch {
      compiled = null; // no WebAssembly (or a CSP without 'wasm-unsafe-eval'): the JS loops run
    }
  }
  return compiled ? new WasmF64Kernels(new WebAssembly.Instance(compiled, {})) : null;
}
