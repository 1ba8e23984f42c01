/**
 * The fitted cost formulas of the catalogue's entries: seconds of one fit + predict on the reference
 * machine, from a cell's shape. Each formula counts abstract work units (about one multiply-add each);
 * `SECONDS_PER_UNIT` is the reference machine's rate. suite/costModel.ts reads the catalogue's `cost`
 * back into units and rescales them with the device's calibration (the micro-benchmark), so the
 * catalogue stays the one source and the calibration stays in suite/.
 *
 * The per-algorithm constants were fitted on `rac-bench run --dataset iris,wine` fit times
 * (timing.fit_ms) on a 2-core x86 VM under tfjs wasm, so units are comparable across algorithms.
 */

/** The shape of one cell, for cost estimates. `graph` = rows in a graph/kernel (L ∪ U). */
export interface CellShape {
  labeled: number;
  unlabeled: number;
  test: number;
  graph: number;
  d: number;
  k: number;
  /** Optimiser steps (deep family); 0 for the rest. */
  steps: number;
}

/** Seconds per work unit on the reference machine (2.5e-6 ms: about 400 M multiply-adds a second). */
export const SECONDS_PER_UNIT = 2.5e-9;

const log2 = (x: number) => Math.log2(Math.max(2, x));

/**
 * Letter-scale terms, measured on letter cells (issue 9; `npm run bench:letter`, `rac-bench
 * estimate`) rather than fitted on iris/wine, where fixed costs dominate. Work units as below.
 * Update them when a code path changes: LP's large-graph terms are the ones the large-graph LP
 * work will replace.
 */
export const LARGE_SCALE_TERMS = {
  /** Graph rows up to which LP's cost is the leaps' (∝ n_u³); above, the Chebyshev series'. */
  float64MaxRows: 4096,
  /**
   * LP up to float64MaxRows: the fast exact path squares the n_u × n_u iteration matrix about
   * log2(max_iter) times: units per n_u³ (letter distribution · 5, 2 012 U rows: 18.5 s CPU with
   * the WebAssembly f64 kernels).
   */
  lpUnitsPerCubicU: 1.4,
  /**
   * LP above float64MaxRows (the exact Chebyshev series, labelPropagationChebyshev.ts): products
   * S·T it takes (≈ 900 at 10 000 unlabeled rows) and units per n²·k of one (0.594 s CPU per
   * product at 10 130 rows × 26 classes, measured by the large-graph LP work).
   */
  lpLargeProducts: 900,
  lpLargeUnitsPerN2K: 0.145,
  /**
   * TSVM: SMO work per one-vs-rest problem grows as n^1.7 (letter distribution → feature: 4.7×
   * the rows, ≈ 14× the time): units per d·n^1.7, plus a fixed cost per binary fit (≈ 20 fits
   * per problem: the L fit and 18 annealing rounds, more with swaps).
   */
  tsvmUnitsPerDN17: 21,
  tsvmUnitsPerBinaryFit: 1e5,
};

/** Dense RBF graph over L ∪ U, then propagation iterations, then the prediction kernel. */
function graphUnits({ graph: n, test: e, k, d }: CellShape): number {
  return n ** 2 * (d + 30 * k) + e * n * d;
}

/**
 * Work units per algorithm. Graph methods are quadratic in the graph's nodes (dense RBF kernel,
 * then propagation iterations); boosting is linear in rows per round; SSGMM is EM with d×d
 * covariances; TSVM is SMO on the kernel matrix, once per class (one-vs-rest).
 */
export const COST_UNITS = {
  xgb: ({ labeled: l, test: e, k, d }: CellShape) => 100 * k * (l * d * log2(l) + e * 6),
  graph: (s: CellShape): number => graphUnits(s),
  /** The graph's work plus LP's loop: the fast path (∝ n_u³) or the float32 loop above 4 096 rows. */
  lp: (s: CellShape): number => {
    const T = LARGE_SCALE_TERMS;
    const { graph: n, unlabeled: u, k } = s;
    const loop =
      n <= T.float64MaxRows
        ? T.lpUnitsPerCubicU * u ** 3
        : T.lpLargeProducts * T.lpLargeUnitsPerN2K * n * n * k;
    return graphUnits(s) + loop;
  },
  ssgmm: ({ labeled: l, unlabeled: u, test: e, k, d }: CellShape) => 100 * (l + u + e) * k * (d * d + d),
  tsvm: ({ graph: n, test: e, k, d }: CellShape) =>
    k * (20 * LARGE_SCALE_TERMS.tsvmUnitsPerBinaryFit + LARGE_SCALE_TERMS.tsvmUnitsPerDN17 * d * n ** 1.7) +
    (e * n * (d + k)) / 2,
  tritraining: ({ labeled: l, unlabeled: u, test: e, k, d }: CellShape) =>
    3 * 10 * 100 * k * ((l + u) * d * log2(l + u) + e * 6),
  assemble: ({ labeled: l, unlabeled: u, test: e, k, d }: CellShape) =>
    10 * 100 * k * ((l + u) * d * log2(l + u) + e * 6),
  /** Deep methods: steps × batch (64) × a small MLP's multiply-adds, forward and backward. */
  deep: ({ k, d, steps, test: e }: CellShape) =>
    (steps || 1000) * 64 * 3 * (d * 128 + 128 * 128 + 128 * k) + e * (d * 128 + 128 * k),
} as const satisfies Record<string, (s: CellShape) => number>;

/** A formula in work units as a catalogue `cost` (seconds on the reference machine). */
export function seconds(units: (s: CellShape) => number): (s: CellShape) => number {
  return (s) => units(s) * SECONDS_PER_UNIT;
}
