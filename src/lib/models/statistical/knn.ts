/**
 * k-nearest-neighbour labels as scikit-learn's `KNeighborsClassifier(n_neighbors)` with uniform
 * weights and Euclidean distance: the label most frequent among the nearest rows, ties between
 * labels to the lower class (weighted_mode/argmax). Equal distances are broken by row order.
 * Distances are float64 over the float32 inputs.
 */
import type { Matrix } from '../../types.ts';

export function knnPredict(
  train: Matrix,
  y: Int32Array,
  k: number,
  query: Matrix,
  nNeighbors: number,
): Int32Array {
  if (train.cols !== query.cols) {
    throw new Error(
      `knnPredict: query has ${query.cols} features, but the training rows have ${train.cols}.`,
    );
  }
  if (train.rows < 1) throw new Error('knnPredict: needs at least 1 training row. Got 0 instead.');
  const nn = Math.min(nNeighbors, train.rows);
  const d = train.cols;
  const n = train.rows;
  const out = new Int32Array(query.rows);
  const dist = new Float64Array(n);
  const bestD = new Float64Array(nn);
  const bestI = new Int32Array(nn);
  const votes = new Int32Array(k);
  for (let q = 0; q < query.rows; q++) {
    const qo = q * d;
    for (let i = 0; i < n; i++) {
      let s = 0;
      const io = i * d;
      for (let f = 0; f < d; f++) {
        const t = query.data[qo + f] - train.data[io + f];
        s += t * t;
      }
      dist[i] = s;
    }
    // Partial insertion sort of the nn smallest (stable: earlier rows win equal distances).
    let m = 0;
    for (let i = 0; i < n; i++) {
      const v = dist[i];
      if (m === nn && v >= bestD[m - 1]) continue;
      let j = m < nn ? m++ : nn - 1;
      while (j > 0 && bestD[j - 1] > v) {
        bestD[j] = bestD[j - 1];
        bestI[j] = bestI[j - 1];
        j--;
      }
      bestD[j] = v;
      bestI[j] = i;
    }
    votes.fill(0);
    for (let j = 0; j < nn; j++) votes[y[bestI[j]]]++;
    let best = 0;
    for (let c = 1; c < k; c++) if (votes[c] > votes[best]) best = c;
    out[q] = best;
  }
  return out;
}
