/**
 * RBF affinity code shared by LabelPropagation and LabelSpreading (PROTOCOL.md §7.1).
 *
 * Two implementations of the same maths:
 * - float64, plain JS, dense n×n graph: the protocol's preferred precision, used up to 4 096 rows
 *   (LabelPropagation's exact fast path: up to 10 240, graphBase.ts `float64FastMaxRows`);
 * - float32 on the tfjs backend, in row blocks of B×n (never an n×n tensor in one buffer), for the
 *   large graphs of letter (≈10 000 rows in `feature`). The blocks the products need are cached on
 *   the backend when they fit `cacheBytes`, otherwise recomputed from squared distances every
 *   iteration (≈10× slower per iteration: a kernel block costs far more than its product with F).
 */
import * as tf from '@tensorflow/tfjs';
import type { Matrix } from '../../types.ts';

/**
 * How the variants turn the affinity W (self-loops included) into their iteration matrix G:
 * G_ij = W_ij / rowDivisor_i / colDivisor_j, with the diagonal set to 0 when `zeroDiagonal`.
 */
export interface GraphSpec {
  rowDivisor: Float64Array;
  colDivisor: Float64Array | null;
  zeroDiagonal: boolean;
}

/** Row sums of W with (`withSelf`) and without (`noSelf`) the diagonal. */
export interface Degrees {
  withSelf: Float64Array;
  noSelf: Float64Array;
}

/** L rows then U rows, widened to float64 (exact: the inputs are float32). */
export function stackRows64(a: Matrix, b: Matrix): Float64Array {
  const out = new Float64Array((a.rows + b.rows) * a.cols);
  out.set(a.data, 0);
  out.set(b.data, a.rows * a.cols);
  return out;
}

/** Squared euclidean distances of row i of A to every row of B (length nb), summed left to right. */
export function sqDistRow(
  A: ArrayLike<number>,
  i: number,
  B: Float64Array,
  nb: number,
  d: number,
  out: Float64Array,
): void {
  const ai = i * d;
  // Four rows of B at a time: four independent sums in flight; each still runs over c in order,
  // so every distance is bit-identical to one row at a time.
  let j = 0;
  for (; j + 4 <= nb; j += 4) {
    const b0 = j * d;
    const b1 = b0 + d;
    const b2 = b1 + d;
    const b3 = b2 + d;
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    for (let c = 0; c < d; c++) {
      const a = A[ai + c];
      const e0 = a - B[b0 + c];
      const e1 = a - B[b1 + c];
      const e2 = a - B[b2 + c];
      const e3 = a - B[b3 + c];
      s0 += e0 * e0;
      s1 += e1 * e1;
      s2 += e2 * e2;
      s3 += e3 * e3;
    }
    out[j] = s0;
    out[j + 1] = s1;
    out[j + 2] = s2;
    out[j + 3] = s3;
  }
  for (; j < nb; j++) {
    let s = 0;
    const bj = j * d;
    for (let c = 0; c < d; c++) {
      const diff = A[ai + c] - B[bj + c];
      s += diff * diff;
    }
    out[j] = s;
  }
}

/** Dense float64 affinity W_ij = exp(−γ‖x_i − x_j‖²) with exact zero self-distance, and its degrees. */
export function affinity64(
  X: Float64Array,
  n: number,
  d: number,
  gamma: number,
): { W: Float64Array; deg: Degrees } {
  const W = new Float64Array(n * n);
  const row = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    sqDistRow(X, i, X, n, d, row);
    row[i] = 0;
    const base = i * n;
    for (let j = 0; j < n; j++) W[base + j] = Math.exp(-gamma * row[j]);
  }
  // Column sums (sklearn sums axis 0), accumulated row by row like numpy.
  const withSelf = new Float64Array(n);
  const noSelf = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const base = i * n;
    for (let j = 0; j < n; j++) {
      withSelf[j] += W[base + j];
      if (i !== j) noSelf[j] += W[base + j];
    }
  }
  return { W, deg: { withSelf, noSelf } };
}

/** Turns W into G in place (sklearn's division order: by column divisor, then row divisor). */
export function applySpec64(W: Float64Array, n: number, spec: GraphSpec): Float64Array {
  const { rowDivisor, colDivisor, zeroDiagonal } = spec;
  for (let i = 0; i < n; i++) {
    const base = i * n;
    const r = rowDivisor[i];
    for (let j = 0; j < n; j++) {
      let v = W[base + j];
      if (colDivisor) v /= colDivisor[j];
      W[base + j] = v / r;
    }
    if (zeroDiagonal) W[base + i] = 0;
  }
  return W;
}

/**
 * Rows fromRow..n−1 of out = G · F for dense float64 G (n×n) and F (n×k); rows above are untouched.
 * F is transposed first so that every output entry is one contiguous dot product (≈10× faster in
 * V8 than scattering into out).
 */
export function matMulGF64(
  G: Float64Array,
  F: Float64Array,
  n: number,
  k: number,
  out: Float64Array,
  fromRow = 0,
): void {
  const Ft = new Float64Array(n * k);
  for (let j = 0; j < n; j++) for (let c = 0; c < k; c++) Ft[c * n + j] = F[j * k + c];
  for (let i = fromRow; i < n; i++) {
    const base = i * n;
    let c = 0;
    // Four classes per sweep: each G entry is loaded once for four dot products.
    for (; c + 4 <= k; c += 4) {
      const f0 = c * n;
      const f1 = f0 + n;
      const f2 = f1 + n;
      const f3 = f2 + n;
      let a0 = 0;
      let a1 = 0;
      let a2 = 0;
      let a3 = 0;
      for (let j = 0; j < n; j++) {
        const g = G[base + j];
        a0 += g * Ft[f0 + j];
        a1 += g * Ft[f1 + j];
        a2 += g * Ft[f2 + j];
        a3 += g * Ft[f3 + j];
      }
      out[i * k + c] = a0;
      out[i * k + c + 1] = a1;
      out[i * k + c + 2] = a2;
      out[i * k + c + 3] = a3;
    }
    // Two classes per sweep for the rest (k = 2 and 3 are the iris/wine cases).
    for (; c + 2 <= k; c += 2) {
      const f0 = c * n;
      const f1 = f0 + n;
      let a0 = 0;
      let a1 = 0;
      for (let j = 0; j < n; j++) {
        const g = G[base + j];
        a0 += g * Ft[f0 + j];
        a1 += g * Ft[f1 + j];
      }
      out[i * k + c] = a0;
      out[i * k + c + 1] = a1;
    }
    for (; c < k; c++) {
      const fc = c * n;
      let acc = 0;
      for (let j = 0; j < n; j++) acc += G[base + j] * Ft[fc + j];
      out[i * k + c] = acc;
    }
  }
}

/**
 * Float32 blocked graph on the tfjs backend. Rows are centred on their mean first (distances do
 * not change; the ‖a‖²+‖b‖²−2a·b form loses less to cancellation). Owns its tensors: `dispose()`.
 */
export class BlockedGraph {
  readonly n: number;
  readonly blockRows: number;
  /** Centred training rows (n×d) and their squared norms (1×n). */
  readonly X: tf.Tensor2D;
  readonly norms: tf.Tensor2D;
  readonly mean: tf.Tensor1D;
  private readonly gamma: number;
  private spec: GraphSpec | null = null;
  private rowDiv: tf.Tensor2D | null = null;
  private colDiv: tf.Tensor2D | null = null;
  private cache: tf.Tensor2D[] | null = null;
  private fromRow = 0;

  constructor(Xall: Float32Array, n: number, d: number, gamma: number, blockRows: number) {
    this.n = n;
    this.gamma = gamma;
    this.blockRows = Math.max(1, Math.min(blockRows, n));
    const kept = tf.tidy(() => {
      const raw = tf.tensor2d(Xall, [n, d]);
      const mean = raw.mean(0);
      const X = raw.sub(mean);
      const norms = X.square().sum(1).reshape([1, n]);
      return [X, norms, mean];
    });
    this.X = tf.keep(kept[0] as tf.Tensor2D);
    this.norms = tf.keep(kept[1] as tf.Tensor2D);
    this.mean = tf.keep(kept[2] as tf.Tensor1D);
  }

  /** Squared distances of centred rows Q (b×d, norms b×1) to every training row, clamped at 0. */
  private sqDist(Q: tf.Tensor2D, qNorms: tf.Tensor2D): tf.Tensor2D {
    return tf.relu(qNorms.add(this.norms).sub(tf.matMul(Q, this.X, false, true).mul(2))) as tf.Tensor2D;
  }

  /** Affinity rows r0..r1 of the training graph (self-distance forced to exactly 0). */
  private affinityBlock(r0: number, r1: number, offDiag: tf.Tensor2D): tf.Tensor2D {
    return tf.tidy(() => {
      const Q = this.X.slice([r0, 0], [r1 - r0, -1]);
      const qn = this.norms.slice([0, r0], [1, r1 - r0]).reshape([r1 - r0, 1]) as tf.Tensor2D;
      return tf.exp(this.sqDist(Q, qn).mul(offDiag).mul(-this.gamma)) as tf.Tensor2D;
    });
  }

  private offDiagonalMask(r0: number, r1: number): tf.Tensor2D {
    return tf.tidy(
      () => tf.scalar(1).sub(tf.oneHot(tf.range(r0, r1, 1, 'int32'), this.n).toFloat()) as tf.Tensor2D,
    );
  }

  /** Row blocks: rows 0..fromRow−1 (degrees only), then fromRow..n−1 (the rows products need). */
  private blocks(): [number, number][] {
    const out: [number, number][] = [];
    for (const [a, b] of [
      [0, this.fromRow],
      [this.fromRow, this.n],
    ]) {
      for (let r0 = a; r0 < b; r0 += this.blockRows) out.push([r0, Math.min(b, r0 + this.blockRows)]);
    }
    return out;
  }

  /**
   * One pass over W: row sums with and without the self-loop (read back to JS), keeping the raw
   * blocks of rows fromRow..n−1 (LabelPropagation skips the clamped L rows) when their
   * (n − fromRow)·n·4 bytes fit `cacheBytes`; otherwise they are recomputed every product.
   */
  async prepare(fromRow: number, cacheBytes: number, signal?: AbortSignal): Promise<Degrees> {
    this.fromRow = fromRow;
    const keep = (this.n - fromRow) * this.n * 4 <= cacheBytes;
    if (keep) this.cache = [];
    const withSelf = new Float64Array(this.n);
    const noSelf = new Float64Array(this.n);
    for (const [r0, r1] of this.blocks()) {
      if (signal?.aborted) break;
      const W = tf.tidy(() => this.affinityBlock(r0, r1, this.offDiagonalMask(r0, r1)));
      const [a, b] = tf.tidy(() => [W.sum(1), W.mul(this.offDiagonalMask(r0, r1)).sum(1)]);
      if (keep && r0 >= fromRow) this.cache!.push(tf.keep(W));
      else W.dispose();
      const [av, bv] = await Promise.all([a.data(), b.data()]);
      a.dispose();
      b.dispose();
      withSelf.set(av, r0);
      noSelf.set(bv, r0);
    }
    return { withSelf, noSelf };
  }

  /** Fixes G's normalisation; cached raw blocks become graph blocks in place. */
  setSpec(spec: GraphSpec): void {
    this.spec = spec;
    this.rowDiv = tf.keep(tf.tensor2d(Float32Array.from(spec.rowDivisor), [this.n, 1]));
    this.colDiv = spec.colDivisor
      ? tf.keep(tf.tensor2d(Float32Array.from(spec.colDivisor), [1, this.n]))
      : null;
    if (this.cache) {
      const ranges = this.blocks().filter(([r0]) => r0 >= this.fromRow);
      this.cache = this.cache.map((W, b) => {
        const G = tf.keep(this.normalise(W, ranges[b][0], ranges[b][1]));
        W.dispose();
        return G;
      });
    }
  }

  get cached(): boolean {
    return this.cache !== null;
  }

  /** G rows r0..r1 from W rows r0..r1: ÷ column divisor, ÷ row divisor, optional zero diagonal. */
  private normalise(W: tf.Tensor2D, r0: number, r1: number): tf.Tensor2D {
    const spec = this.spec;
    if (!spec || !this.rowDiv) throw new Error('BlockedGraph: setSpec must run before graph products.');
    return tf.tidy(() => {
      let G = W;
      if (this.colDiv) G = G.div(this.colDiv);
      G = G.div(this.rowDiv!.slice([r0, 0], [r1 - r0, 1]));
      if (spec.zeroDiagonal) G = G.mul(this.offDiagonalMask(r0, r1));
      return G;
    });
  }

  private graphBlock(r0: number, r1: number): tf.Tensor2D {
    return tf.tidy(() => this.normalise(this.affinityBlock(r0, r1, this.offDiagonalMask(r0, r1)), r0, r1));
  }

  /** Rows fromRow..n−1 of G · F ((n − fromRow)×k), block by block. The caller owns the result. */
  multiply(F: tf.Tensor2D): tf.Tensor2D {
    return tf.tidy(() => {
      const parts: tf.Tensor2D[] = [];
      const ranges = this.blocks().filter(([r0]) => r0 >= this.fromRow);
      for (let b = 0; b < ranges.length; b++) {
        const [r0, r1] = ranges[b];
        const G = this.cache ? this.cache[b] : this.graphBlock(r0, r1);
        parts.push(tf.matMul(G, F));
        if (!this.cache) G.dispose();
      }
      if (parts.length === 0) return tf.zeros([0, F.shape[1]]) as tf.Tensor2D;
      return parts.length === 1 ? parts[0] : tf.concat(parts, 0);
    });
  }

  /**
   * Kernel-weighted scores of new rows against the training rows: for each row, the kernel is
   * shifted by the row's smallest squared distance (the ratio of scores does not change) and that
   * distance is returned so the caller can tell which rows the unshifted kernel underflows.
   */
  async predictScores(
    Xq: Float32Array,
    nq: number,
    d: number,
    F: tf.Tensor2D,
    k: number,
  ): Promise<{ scores: Float32Array; dmin: Float32Array }> {
    const scores = new Float32Array(nq * k);
    const dmin = new Float32Array(nq);
    for (let r0 = 0; r0 < nq; r0 += this.blockRows) {
      const r1 = Math.min(nq, r0 + this.blockRows);
      const [s, m] = tf.tidy(() => {
        const Q = tf.tensor2d(Xq.subarray(r0 * d, r1 * d), [r1 - r0, d]).sub(this.mean) as tf.Tensor2D;
        const D = this.sqDist(Q, Q.square().sum(1, true) as tf.Tensor2D);
        const m = D.min(1, true);
        const K = tf.exp(D.sub(m).mul(-this.gamma));
        return [tf.matMul(K, F), m];
      });
      const [sv, mv] = await Promise.all([s.data(), m.data()]);
      s.dispose();
      m.dispose();
      scores.set(sv as Float32Array, r0 * k);
      dmin.set(mv as Float32Array, r0);
    }
    return { scores, dmin };
  }

  dispose(): void {
    this.X.dispose();
    this.norms.dispose();
    this.mean.dispose();
    this.rowDiv?.dispose();
    this.colDiv?.dispose();
    this.cache?.forEach((t) => t.dispose());
    this.cache = null;
    this.rowDiv = null;
    this.colDiv = null;
  }
}
