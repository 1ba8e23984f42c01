/**
 * From a split to model inputs (PROTOCOL.md §5.3, §6): gather raw rows, fill the feature masks
 * with the raw labeled means, scale, and hand out float32 matrices with labels 0..numClasses−1.
 */
import type { Dataset, Matrix, ProtocolMode } from '../types.ts';
import type { CellSplit } from './cellSplit.ts';
import { resolveOptions, type ProtocolOptions } from './options.ts';
import { applyScaler, fitScaler } from './scaler.ts';

export interface CellData {
  Xl: Matrix;
  yl: Int32Array;
  Xu: Matrix;
  Xe: Matrix;
  ye: Int32Array;
  numClasses: number;
}

/** The same cell in float64, before the cast to model inputs (what the Python oracle compares). */
export interface CellData64 {
  Xl: Float64Array;
  yl: Int32Array;
  Xu: Float64Array;
  Xe: Float64Array;
  ye: Int32Array;
  nl: number;
  nu: number;
  ne: number;
  d: number;
  numClasses: number;
}

function gatherRows(ds: Dataset, rows: readonly number[]): Float64Array {
  const { X, d } = ds;
  const out = new Float64Array(rows.length * d);
  rows.forEach((r, i) => out.set(X.subarray(r * d, r * d + d), i * d));
  return out;
}

/** Column means of raw labeled rows: left-to-right sums in L order, then / |L| (numpy's mean over axis 0). */
export function labeledMeans(ds: Dataset, labeled: readonly number[]): Float64Array {
  const { X, d } = ds;
  const sums = new Float64Array(d);
  for (const r of labeled) for (let f = 0; f < d; f++) sums[f] += X[r * d + f];
  for (let f = 0; f < d; f++) sums[f] /= labeled.length;
  return sums;
}

/** Raw U with the masks of the feature setting filled by the raw labeled means. */
export function maskedUnlabeled(ds: Dataset, split: CellSplit): Float64Array {
  const { d } = ds;
  const Xu = gatherRows(ds, split.unlabeled);
  if (!split.maskedColumns && !split.rowMasks) return Xu;
  const fill = labeledMeans(ds, split.labeled);
  if (split.maskedColumns) {
    for (let i = 0; i < split.unlabeled.length; i++)
      for (const f of split.maskedColumns) Xu[i * d + f] = fill[f];
  }
  if (split.rowMasks) {
    if (split.rowMasks.length !== split.unlabeled.length) {
      throw new Error(
        `maskedUnlabeled: rowMasks has ${split.rowMasks.length} rows; expected one per unlabeled row (${split.unlabeled.length}).`,
      );
    }
    split.rowMasks.forEach((cols, i) => {
      for (const f of cols) Xu[i * d + f] = fill[f];
    });
  }
  return Xu;
}

function relabel(ds: Dataset, rows: readonly number[], kept: readonly number[] | undefined): Int32Array {
  const out = new Int32Array(rows.length);
  if (!kept) {
    rows.forEach((r, i) => (out[i] = ds.y[r]));
    return out;
  }
  const index = new Map(kept.map((c, j) => [c, j]));
  rows.forEach((r, i) => {
    const j = index.get(ds.y[r]);
    if (j === undefined)
      throw new Error(
        `relabel: row ${r} has class ${ds.y[r]}, which is not a kept class (${kept.join(', ')}).`,
      );
    out[i] = j;
  });
  return out;
}

/** Scaled float64 cell: s_L fit on raw L for L and E; U by its own scaler (`split`) or by s_L (`labeled`). */
export function buildCellData64(
  ds: Dataset,
  split: CellSplit,
  mode: ProtocolMode,
  options?: Partial<ProtocolOptions>,
): CellData64 {
  const opts = resolveOptions(mode, options);
  const { d } = ds;
  const nl = split.labeled.length;
  const ne = split.test.length;
  const nu = split.unlabeled.length;
  const rawL = gatherRows(ds, split.labeled);
  const rawE = gatherRows(ds, split.test);
  const rawU = maskedUnlabeled(ds, split);
  const sL = fitScaler(rawL, nl, d);
  // An empty U has nothing to fit (the run is recorded as skipped upstream, §5.5).
  const sU = opts.scaler === 'split' && nu > 0 ? fitScaler(rawU, nu, d) : sL;
  return {
    Xl: applyScaler(sL, rawL, nl, d),
    yl: relabel(ds, split.labeled, split.keptClasses),
    Xu: applyScaler(sU, rawU, nu, d),
    Xe: applyScaler(sL, rawE, ne, d),
    ye: relabel(ds, split.test, split.keptClasses),
    nl,
    nu,
    ne,
    d,
    numClasses: split.numClasses,
  };
}

function toMatrix(data: Float64Array, rows: number, cols: number): Matrix {
  return { data: Float32Array.from(data), rows, cols };
}

/** Model inputs of one cell: float32 matrices, labels re-indexed to 0..m−1 in `label`. */
export function buildCellData(
  ds: Dataset,
  split: CellSplit,
  mode: ProtocolMode,
  options?: Partial<ProtocolOptions>,
): CellData {
  const c = buildCellData64(ds, split, mode, options);
  return {
    Xl: toMatrix(c.Xl, c.nl, c.d),
    yl: c.yl,
    Xu: toMatrix(c.Xu, c.nu, c.d),
    Xe: toMatrix(c.Xe, c.ne, c.d),
    ye: c.ye,
    numClasses: c.numClasses,
  };
}
