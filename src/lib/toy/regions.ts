/**
 * Label Propagation on the toy (labeled points + unlabeled points at t) and its decision regions on a
 * res×res grid over the toy's fixed bounds: the class and the confidence (top probability) per cell.
 * Uses the benchmark's own LabelPropagation (float64 path for these few hundred points).
 */
import { mt } from '../protocol/rng.ts';
import { LabelPropagation } from '../models/statistical/labelPropagation.ts';
import type { Matrix, Setting } from '../types.ts';
import type { Bounds, Toy } from './generate.ts';
import { unlabeledAt } from './drift.ts';

export interface ToyLpOptions {
  /** RBF width γ in exp(−γ‖x−x'‖²) on the toy's raw coordinates. Default 12. */
  gamma: number;
  /** Iteration cap. Default 1000. */
  maxIter: number;
  /** Stop when Σ|ΔF| < tol. Default 1e-2: the benchmark's 1e-3 changes ≤ 0.2 % of the grid cells on these toys, for up to 2× the iterations. */
  tol: number;
  /** Grid cells per side, integer in [2, 256]. Default 64. */
  res: number;
}

export const TOY_LP_DEFAULTS: Readonly<ToyLpOptions> = Object.freeze({
  gamma: 12,
  maxIter: 1000,
  tol: 1e-2,
  res: 64,
});

/** Row r of the grid is the top row (largest y), so the array paints straight into an ImageData. */
export interface RegionGrid {
  res: number;
  k: number;
  bounds: Bounds;
  /** Winning class per cell (row-major, top row first). */
  cls: Uint8Array;
  /** Its probability per cell, in [1/k, 1]. */
  confidence: Float32Array;
  nIter: number;
  converged: boolean;
}

/** Cell centres, row-major from the top-left cell, as a float32 matrix (res²×2). */
export function gridPoints(bounds: Bounds, res: number): Matrix {
  const data = new Float32Array(res * res * 2);
  const w = (bounds.x1 - bounds.x0) / res;
  const h = (bounds.y1 - bounds.y0) / res;
  for (let r = 0; r < res; r++) {
    for (let c = 0; c < res; c++) {
      const i = r * res + c;
      data[2 * i] = bounds.x0 + (c + 0.5) * w;
      data[2 * i + 1] = bounds.y1 - (r + 0.5) * h;
    }
  }
  return { data, rows: res * res, cols: 2 };
}

function toMatrix(xy: Float64Array): Matrix {
  return { data: Float32Array.from(xy), rows: xy.length / 2, cols: 2 };
}

/** Fit LP on (labeled, any points) and return its regions on the grid. */
export async function lpRegions(
  labeledXY: Float64Array,
  labeledY: Int32Array,
  unlabeledXY: Float64Array,
  k: number,
  bounds: Bounds,
  options: Partial<ToyLpOptions> = {},
  signal?: AbortSignal,
): Promise<RegionGrid> {
  const o = { ...TOY_LP_DEFAULTS, ...options };
  if (!Number.isInteger(o.res) || o.res < 2 || o.res > 256) {
    throw new RangeError(`lpRegions: 'res' must be an integer in [2, 256]; got ${o.res}.`);
  }
  const lp = new LabelPropagation(
    { gamma: o.gamma, maxIter: o.maxIter, tol: o.tol },
    { precision: 'float64' },
  );
  try {
    // 'fixed' quirks: a grid cell far from every point still gets its nearest class, not class 0.
    await lp.fit(toMatrix(labeledXY), labeledY, toMatrix(unlabeledXY), k, {
      rng: mt(0),
      signal,
      quirks: 'fixed',
    });
    const proba = await lp.predictProba(gridPoints(bounds, o.res));
    const cells = o.res * o.res;
    const cls = new Uint8Array(cells);
    const confidence = new Float32Array(cells);
    for (let i = 0; i < cells; i++) {
      let best = 0;
      for (let c = 1; c < k; c++) if (proba[i * k + c] > proba[i * k + best]) best = c;
      cls[i] = best;
      confidence[i] = proba[i * k + best];
    }
    const info = lp.info();
    return {
      res: o.res,
      k,
      bounds,
      cls,
      confidence,
      nIter: Number(info.nIter ?? 0),
      converged: Boolean(info.converged),
    };
  } finally {
    lp.dispose();
  }
}

/** The toy at (setting, t): LP on its labeled points and its unlabeled points at t. */
export function toyRegions(
  toy: Toy,
  setting: Setting,
  t: number,
  options: Partial<ToyLpOptions> = {},
  signal?: AbortSignal,
): Promise<RegionGrid> {
  const u = unlabeledAt(toy, setting, t);
  return lpRegions(toy.labeledXY, toy.labeledY, u.xy, toy.k, toy.bounds, options, signal);
}
