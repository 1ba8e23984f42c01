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
 * Letter-scale terms, measured on letter cells rather than fitted on iris/wine, where fixed costs
 * dominate: `rac-bench run --dataset letter --data-dir DIR --setting S --labels L --seeds 0 --t T`
 * on distribution · 5 · t0 (2 142 graph rows, 9 877 test rows), label · 10 · t0.6 (8 516 / 4 834) and
 * feature · 10 · t0 (10 260 / 9 740), timing.fit_ms and predict_ms of each record. Update them
 * when a code path changes.
 */
export const LARGE_SCALE_TERMS = {
  /** Graph rows up to which LP's cost is the leaps' (∝ n_u³); above, the Chebyshev series'. */
  float64MaxRows: 4096,
  /**
   * LP up to float64MaxRows: the fast exact path squares the n_u × n_u iteration matrix about
   * log2(max_iter) times: units per n_u³ (letter distribution · 5 · t0, 2 012 U rows: 13.1 s fit
   * with the WebAssembly f64 kernels, of which ≈ 3 s build the graph).
   */
  lpUnitsPerCubicU: 0.5,
  /**
   * LP above float64MaxRows (the exact Chebyshev series, labelPropagationChebyshev.ts): products
   * S·T it takes (≈ 900 at 10 000 unlabeled rows) and units per n²·k of one (0.594 s CPU per
   * product at 10 130 rows × 26 classes, measured by the large-graph LP work).
   */
  lpLargeProducts: 900,
  lpLargeUnitsPerN2K: 0.145,
  /**
   * Graph rows up to which LabelSpreading (and the graph build) run in float64 JS, and up to which
   * LP's exact path does (GRAPH_COMPUTE_DEFAULTS.float64MaxRows / float64FastMaxRows).
   */
  lsFloat64MaxRows: 4096,
  lpFloat64MaxRows: 10_240,
  /**
   * Units per graph pair n²·(d + k) of a graph fit (RBF kernel plus LabelSpreading's handful of
   * iterations) and per test pair e·n·(d + k) of the inductive prediction, in float64 JS and in
   * float32 tfjs: LS fit ≈ 1 s at 2 142 rows (float64, products on the SIMD kernels; 3.3 s in JS)
   * and 6.3 s / 11.1 s at 8 516 / 10 260 rows (float32); prediction ≈ 2 s (float64 on the SIMD
   * kernels, 2.1·10⁷ pairs; 6.5 s in JS) and 2.3 s / 5.6 s (float32, 4.1·10⁷ / 1.0·10⁸ pairs).
   */
  graphFitPerPair: { float64: 2, float32: 1 },
  graphPredictPerPair: { float64: 0.8, float32: 0.5 },
  /**
   * TSVM: SMO work per one-vs-rest problem grows as n^1.7 (letter distribution → feature: 4.7×
   * the rows, ≈ 14× the time): units per d·n^1.7, plus a fixed cost per binary fit (≈ 20 fits
   * per problem: the L fit and 18 annealing rounds, more with swaps).
   */
  tsvmUnitsPerDN17: 21,
  tsvmUnitsPerBinaryFit: 1e5,
  /**
   * SSGMM: EM iterations (≈ 170 on letter distribution and feature cells) × units per row·k·(d²+d)
   * of one (11.2 s at 2 142 rows; the label cells converge sooner).
   */
  ssgmmIterations: 170,
  ssgmmUnitsPerRowKD2: 1.8,
  /**
   * Tri-Training: units per (u + e)·k·d. Its three learners label U each pass and predict E (two
   * one-vs-one SVCs: 325 pairs at 26 classes, sharing one kernel value per support vector), and
   * refit on L ∪ L_i: 6.1 s at (2 012 + 9 877) rows, 22.1 s at (10 000 + 9 740), 8.0 s at
   * (8 381 + 4 834).
   */
  triTrainingUnitsPerRowKD: 800,
  /** Assemble: XGBoost rounds on L ∪ U, units per k·n·d·log₂n (6.4 s, 23.6 s, 51 s on the three). */
  assembleUnitsPerKNDLogN: 300,
};

type GraphPrecision = 'float64' | 'float32';

/** The graph's precision: float64 JS up to `float64MaxRows` L ∪ U rows, float32 tfjs above. */
const graphPrecision = (n: number, float64MaxRows: number): GraphPrecision =>
  n <= float64MaxRows ? 'float64' : 'float32';

/** The inductive prediction: an RBF kernel row over L ∪ U per test row, times F. */
const graphPredictUnits = ({ graph: n, test: e, k, d }: CellShape, p: GraphPrecision): number =>
  e * n * (d + k) * LARGE_SCALE_TERMS.graphPredictPerPair[p];

/** Dense RBF graph over L ∪ U (with LabelSpreading's iterations), then the prediction kernel. */
function graphUnits(s: CellShape, float64MaxRows: number): number {
  const { graph: n, k, d } = s;
  const p = graphPrecision(n, float64MaxRows);
  return n * n * (d + k) * LARGE_SCALE_TERMS.graphFitPerPair[p] + graphPredictUnits(s, p);
}

/**
 * Work units per algorithm. Graph methods are quadratic in the graph's nodes (dense RBF kernel,
 * then propagation iterations); boosting is linear in rows per round; SSGMM is EM with d×d
 * covariances; TSVM is SMO on the kernel matrix, once per class (one-vs-rest).
 */
export const COST_UNITS = {
  xgb: ({ labeled: l, test: e, k, d }: CellShape) => 100 * k * (l * d * log2(l) + e * 6),
  /** LabelSpreading: float64 JS up to lsFloat64MaxRows graph rows, float32 tfjs above. */
  graph: (s: CellShape): number => graphUnits(s, LARGE_SCALE_TERMS.lsFloat64MaxRows),
  /**
   * The graph's build and prediction (float64 on every letter cell) plus LP's loop: the leaps
   * (∝ n_u³) up to float64MaxRows rows, the Chebyshev series above.
   */
  lp: (s: CellShape): number => {
    const T = LARGE_SCALE_TERMS;
    const { graph: n, unlabeled: u, k, d } = s;
    const p = graphPrecision(n, T.lpFloat64MaxRows);
    const build = n * n * d * T.graphFitPerPair[p];
    const loop =
      n <= T.float64MaxRows
        ? T.lpUnitsPerCubicU * u ** 3
        : T.lpLargeProducts * T.lpLargeUnitsPerN2K * n * n * k;
    return build + loop + graphPredictUnits(s, p);
  },
  ssgmm: ({ labeled: l, unlabeled: u, test: e, k, d }: CellShape) =>
    (LARGE_SCALE_TERMS.ssgmmIterations * LARGE_SCALE_TERMS.ssgmmUnitsPerRowKD2 * (l + u) + 2 * e) *
    k *
    (d * d + d),
  tsvm: ({ graph: n, test: e, k, d }: CellShape) =>
    k * (20 * LARGE_SCALE_TERMS.tsvmUnitsPerBinaryFit + LARGE_SCALE_TERMS.tsvmUnitsPerDN17 * d * n ** 1.7) +
    (e * n * (d + k)) / 2,
  /** The letter-measured term plus the learners' fits on L (which dominate on iris and wine). */
  tritraining: ({ labeled: l, unlabeled: u, test: e, k, d }: CellShape) =>
    LARGE_SCALE_TERMS.triTrainingUnitsPerRowKD * (u + e) * k * d + 3 * 10 * 100 * k * l * d * log2(l),
  assemble: ({ labeled: l, unlabeled: u, test: e, k, d }: CellShape) =>
    LARGE_SCALE_TERMS.assembleUnitsPerKNDLogN * k * (l + u) * d * log2(l + u) + 1000 * k * e * 6,
  /** Deep methods: steps × batch (64) × a small MLP's multiply-adds, forward and backward. */
  deep: ({ k, d, steps, test: e }: CellShape) =>
    (steps || 1000) * 64 * 3 * (d * 128 + 128 * 128 + 128 * k) + e * (d * 128 + 128 * k),
} as const satisfies Record<string, (s: CellShape) => number>;

/** A formula in work units as a catalogue `cost` (seconds on the reference machine). */
export function seconds(units: (s: CellShape) => number): (s: CellShape) => number {
  return (s) => units(s) * SECONDS_PER_UNIT;
}
