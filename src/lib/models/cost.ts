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
 * Work units per algorithm. Graph methods are quadratic in the graph's nodes (dense RBF kernel,
 * then propagation iterations); boosting is linear in rows per round; SSGMM is EM with d×d
 * covariances; TSVM is SMO on the kernel matrix, once per class (one-vs-rest).
 */
export const COST_UNITS = {
  xgb: ({ labeled: l, test: e, k, d }: CellShape) => 100 * k * (l * d * log2(l) + e * 6),
  graph: ({ graph: n, test: e, k, d }: CellShape) => n ** 2 * (d + 30 * k) + e * n * d,
  ssgmm: ({ labeled: l, unlabeled: u, test: e, k, d }: CellShape) => 100 * (l + u + e) * k * (d * d + d),
  tsvm: ({ graph: n, test: e, k, d }: CellShape) => k * (n ** 2 * d * 300 + e * n * d),
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
