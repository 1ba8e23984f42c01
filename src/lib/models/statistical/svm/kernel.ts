/**
 * RBF kernel over one fixed float64 matrix, with an LRU cache of full kernel rows (libsvm's Cache,
 * simplified: whole rows). Entries are computed in float64 with libsvm's formula
 * exp(−γ(‖x_i‖² + ‖x_j‖² − 2 x_i·x_j)) and rounded to float32, because libsvm stores Q as float
 * (Qfloat): with the rounding our SMO walks libsvm's exact path (same iterations, same ρ to 1e-15);
 * without it, near-ties (duplicate rows in iris) break differently and results drift by ~1e-3.
 * The rows are therefore Float32Array, which also doubles what the cache holds.
 * The cache holds K, not Q = y yᵀ ∘ K, so one instance serves every fit on the same rows whatever
 * the labels and per-sample C (TSVM rounds, OvR classes).
 */

export interface RbfKernelOptions {
  /** Cache budget in MiB (libsvm's cache_size; default 256). At least two rows are always kept. */
  cacheMb?: number;
}

/** gamma = 1 / (d · Var(all entries of X)) — scikit-learn's gamma='scale'; 1 when the variance is 0. */
export function scaleGamma(x: ArrayLike<number>, n: number, d: number): number {
  const m = n * d;
  if (m === 0) return 1;
  let mean = 0;
  for (let i = 0; i < m; i++) mean += x[i];
  mean /= m;
  let v = 0;
  for (let i = 0; i < m; i++) {
    const t = x[i] - mean;
    v += t * t;
  }
  v /= m;
  return v !== 0 ? 1 / (d * v) : 1;
}

/**
 * K(a, b) = exp(−γ Σ (a_f − b_f)²) for rows a (from aOff) and b (from bOff) of length d: libsvm's
 * k_function, summing the squared differences in feature order (prediction against support vectors).
 */
export function rbf(
  a: ArrayLike<number>,
  aOff: number,
  b: ArrayLike<number>,
  bOff: number,
  d: number,
  gamma: number,
): number {
  let s = 0;
  for (let f = 0; f < d; f++) {
    const t = a[aOff + f] - b[bOff + f];
    s += t * t;
  }
  return Math.exp(-gamma * s);
}

export class RbfKernel {
  readonly n: number;
  readonly d: number;
  readonly gamma: number;
  /** Row-major n × d float64 copy of the data. */
  readonly x: Float64Array;
  /** ‖x_i‖², as libsvm precomputes (x_square). */
  readonly sq: Float64Array;
  private readonly cache = new Map<number, Float32Array>();
  private readonly maxRows: number;
  /** Kernel rows computed (cache misses), for tests and timing reports. */
  rowsComputed = 0;

  constructor(x: ArrayLike<number>, n: number, d: number, gamma: number, opts: RbfKernelOptions = {}) {
    if (x.length !== n * d)
      throw new RangeError(`RbfKernel: expected ${n}×${d} = ${n * d} entries; got ${x.length}.`);
    if (!(gamma > 0) || !Number.isFinite(gamma))
      throw new RangeError(`RbfKernel: gamma must be a positive finite number; got ${gamma}.`);
    this.n = n;
    this.d = d;
    this.gamma = gamma;
    this.x = Float64Array.from(x);
    this.sq = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      let s = 0;
      for (let a = 0; a < d; a++) s += this.x[i * d + a] * this.x[i * d + a];
      this.sq[i] = s;
    }
    const bytes = (opts.cacheMb ?? 256) * 1024 * 1024;
    this.maxRows = Math.max(2, Math.floor(bytes / (4 * Math.max(1, n))));
  }

  /** Row i of K (length n). The returned array is owned by the cache: read it, don't keep it. */
  row(i: number): Float32Array {
    // The most recent row is already at the LRU's most-recent end: no Map traffic (SMO asks for
    // the same row several times per iteration).
    if (i === this.lastKey && this.lastRow) return this.lastRow;
    const row = this.lookup(i);
    this.lastKey = i;
    this.lastRow = row;
    return row;
  }

  private lastKey = -1;
  private lastRow: Float32Array | null = null;

  private lookup(i: number): Float32Array {
    const hit = this.cache.get(i);
    if (hit) {
      // Move to the most-recent end (Map keeps insertion order).
      this.cache.delete(i);
      this.cache.set(i, hit);
      return hit;
    }
    let out: Float32Array;
    if (this.cache.size >= this.maxRows) {
      const oldest = this.cache.keys().next().value as number;
      out = this.cache.get(oldest)!;
      this.cache.delete(oldest);
    } else {
      out = new Float32Array(this.n);
    }
    this.fillRow(i, out);
    this.cache.set(i, out);
    return out;
  }

  /** How many rows the cache holds at once (≥ 2): rows from that many row() calls stay valid. */
  get capacity(): number {
    return this.maxRows;
  }

  /** K(i, i) = 1 for the RBF kernel. */
  diag(_i: number): number {
    return 1;
  }

  private fillRow(i: number, out: Float32Array): void {
    this.rowsComputed++;
    const { x, d, n, sq, gamma } = this;
    const oi = i * d;
    const sqi = sq[i];
    // Four entries at a time: four independent dot products in flight instead of one chain of
    // dependent additions. Each dot still sums over a in order, so every entry is bit-identical.
    let j = 0;
    for (; j + 4 <= n; j += 4) {
      const o0 = j * d;
      const o1 = o0 + d;
      const o2 = o1 + d;
      const o3 = o2 + d;
      let t0 = 0;
      let t1 = 0;
      let t2 = 0;
      let t3 = 0;
      for (let a = 0; a < d; a++) {
        const xa = x[oi + a];
        t0 += xa * x[o0 + a];
        t1 += xa * x[o1 + a];
        t2 += xa * x[o2 + a];
        t3 += xa * x[o3 + a];
      }
      out[j] = Math.exp(-gamma * (sqi + sq[j] - 2 * t0)); // rounded to float32 on store
      out[j + 1] = Math.exp(-gamma * (sqi + sq[j + 1] - 2 * t1));
      out[j + 2] = Math.exp(-gamma * (sqi + sq[j + 2] - 2 * t2));
      out[j + 3] = Math.exp(-gamma * (sqi + sq[j + 3] - 2 * t3));
    }
    for (; j < n; j++) {
      const oj = j * d;
      let dot = 0;
      for (let a = 0; a < d; a++) dot += x[oi + a] * x[oj + a];
      out[j] = Math.exp(-gamma * (sqi + sq[j] - 2 * dot));
    }
  }

  clearCache(): void {
    this.cache.clear();
    this.lastKey = -1;
    this.lastRow = null;
  }
}
