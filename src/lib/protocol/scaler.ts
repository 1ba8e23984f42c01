/**
 * StandardScaler-compatible scaling (PROTOCOL.md §6), bit-close to scikit-learn 1.2's
 * `_incremental_mean_and_var` on a first fit: float64, left-to-right column sums, the corrected
 * two-pass variance, and scale 1 for (numerically) constant columns. Never divides by zero.
 */
const EPS = 2 ** -52;

export interface FittedScaler {
  mean: Float64Array;
  /** sqrt(population variance), or 1 where the column is constant. */
  scale: Float64Array;
  nSamples: number;
}

/** Fits on a row-major float64 matrix with `rows` rows and `cols` columns (rows ≥ 1). */
export function fitScaler(X: Float64Array, rows: number, cols: number): FittedScaler {
  if (rows < 1) throw new Error(`fitScaler: needs at least 1 row to fit; got ${rows}.`);
  const mean = new Float64Array(cols);
  const scale = new Float64Array(cols);
  for (let f = 0; f < cols; f++) {
    let sum = 0;
    for (let r = 0; r < rows; r++) sum += X[r * cols + f];
    const mu = sum / rows;
    let correction = 0;
    let squares = 0;
    for (let r = 0; r < rows; r++) {
      const diff = X[r * cols + f] - mu;
      correction += diff;
      squares += diff * diff;
    }
    const variance = (squares - (correction * correction) / rows) / rows;
    const bound = rows * EPS * variance + (rows * mu * EPS) ** 2;
    mean[f] = mu;
    scale[f] = variance <= bound ? 1 : Math.sqrt(variance);
  }
  return { mean, scale, nSamples: rows };
}

/** (x − mean) / scale, into a new float64 matrix. */
export function applyScaler(s: FittedScaler, X: Float64Array, rows: number, cols: number): Float64Array {
  if (s.mean.length !== cols) {
    throw new Error(
      `applyScaler: the scaler was fit on ${s.mean.length} columns; got a matrix with ${cols}.`,
    );
  }
  const out = new Float64Array(rows * cols);
  for (let r = 0; r < rows; r++) {
    for (let f = 0; f < cols; f++) out[r * cols + f] = (X[r * cols + f] - s.mean[f]) / s.scale[f];
  }
  return out;
}
