/**
 * Symmetric eigendecomposition of a small dense float64 matrix by the cyclic Jacobi method.
 * Jacobi is slow for large n but accurate (small eigenvalues get small absolute error relative to
 * the largest one, which is what the singular-covariance cutoff of PROTOCOL.md §7.1 relies on) and
 * simple; our matrices are d × d with d ≤ 54.
 */

export interface SymEig {
  /** Eigenvalues, ascending (LAPACK `eigh` order). */
  values: Float64Array;
  /** Eigenvectors as columns, row-major n × n: vectors[i * n + j] is component i of vector j. */
  vectors: Float64Array;
  n: number;
  /** Jacobi sweeps used. */
  sweeps: number;
}

/**
 * @param a symmetric matrix, row-major n × n (only read; the upper triangle wins if not symmetric)
 * @param maxSweeps safety bound; Jacobi converges quadratically, usually in 6–10 sweeps
 */
export function symEig(a: ArrayLike<number>, n: number, maxSweeps = 100): SymEig {
  if (a.length !== n * n) {
    throw new RangeError(`symEig expects an n × n matrix with n = ${n} (${n * n} entries); got ${a.length}.`);
  }
  const A = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = i; j < n; j++) {
      A[i * n + j] = a[i * n + j];
      A[j * n + i] = a[i * n + j];
    }
  }
  const V = new Float64Array(n * n);
  for (let i = 0; i < n; i++) V[i * n + i] = 1;

  let sweeps = 0;
  for (; sweeps < maxSweeps; sweeps++) {
    let off = 0;
    let diag = 0;
    for (let i = 0; i < n; i++) {
      diag += A[i * n + i] * A[i * n + i];
      for (let j = i + 1; j < n; j++) off += A[i * n + j] * A[i * n + j];
    }
    // Stop when the off-diagonal mass is negligible against the diagonal (or exactly zero).
    if (off === 0 || off <= 1e-30 * diag) break;
    for (let p = 0; p < n - 1; p++) {
      for (let q = p + 1; q < n; q++) {
        const apq = A[p * n + q];
        if (apq === 0) continue;
        const app = A[p * n + p];
        const aqq = A[q * n + q];
        // Rotation angle from the stable formulas of Golub & Van Loan §8.5 (Rutishauser).
        const theta = (aqq - app) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < n; k++) {
          const akp = A[k * n + p];
          const akq = A[k * n + q];
          A[k * n + p] = c * akp - s * akq;
          A[k * n + q] = s * akp + c * akq;
        }
        for (let k = 0; k < n; k++) {
          const apk = A[p * n + k];
          const aqk = A[q * n + k];
          A[p * n + k] = c * apk - s * aqk;
          A[q * n + k] = s * apk + c * aqk;
        }
        A[p * n + q] = 0;
        A[q * n + p] = 0;
        for (let k = 0; k < n; k++) {
          const vkp = V[k * n + p];
          const vkq = V[k * n + q];
          V[k * n + p] = c * vkp - s * vkq;
          V[k * n + q] = s * vkp + c * vkq;
        }
      }
    }
  }

  const order = Array.from({ length: n }, (_, i) => i).sort((x, y) => A[x * n + x] - A[y * n + y]);
  const values = new Float64Array(n);
  const vectors = new Float64Array(n * n);
  order.forEach((src, dst) => {
    values[dst] = A[src * n + src];
    for (let i = 0; i < n; i++) vectors[i * n + dst] = V[i * n + src];
  });
  return { values, vectors, n, sweeps };
}
