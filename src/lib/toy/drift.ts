/**
 * Where the toy's unlabeled points are at inconsistency degree t ∈ [0, 1], for the three settings
 * of PROTOCOL.md §5 in cartoon form (the labeled points never move):
 *   distribution  the unlabeled points are drawn from a region shifted by t·shift;
 *   feature       a share t of them has one coordinate replaced by the labeled mean;
 *   label         a share t of them is replaced by points of a class the labeled set never shows.
 * Shares are exact (round(t·n) points, in the toy's fixed drift order), so they nest as t grows.
 */
import type { Setting } from '../types.ts';
import type { Toy } from './generate.ts';

export interface UnlabeledView {
  /** Positions, x0, y0, x1, y1, … */
  xy: Float64Array;
  /** True class of each point; k for the unseen class. */
  y: Int32Array;
  /** 1 where the point has drifted (shifted, masked or unseen), else 0. */
  drifted: Uint8Array;
  /** How many points have drifted. */
  nDrifted: number;
}

export function checkT(t: number, where: string): void {
  if (!(t >= 0 && t <= 1)) throw new RangeError(`${where}: t must be in [0, 1]; got ${t}.`);
}

/** How many of n points have drifted at t (feature and label). */
export function driftCount(t: number, n: number): number {
  return Math.round(t * n);
}

export function unlabeledAt(toy: Toy, setting: Setting, t: number): UnlabeledView {
  checkT(t, 'unlabeledAt');
  const n = toy.baseY.length;
  const xy = Float64Array.from(toy.baseXY);
  const y = Int32Array.from(toy.baseY);
  const drifted = new Uint8Array(n);
  if (setting === 'distribution') {
    const dx = t * toy.shift[0];
    const dy = t * toy.shift[1];
    for (let i = 0; i < n; i++) {
      xy[2 * i] += dx;
      xy[2 * i + 1] += dy;
    }
    if (t > 0) drifted.fill(1);
    return { xy, y, drifted, nDrifted: t > 0 ? n : 0 };
  }
  const m = driftCount(t, n);
  for (let r = 0; r < m; r++) {
    const i = toy.order[r];
    drifted[i] = 1;
    if (setting === 'feature') {
      const c = toy.maskCol[i];
      xy[2 * i + c] = toy.labeledMean[c];
    } else {
      xy[2 * i] = toy.unseenXY[2 * i];
      xy[2 * i + 1] = toy.unseenXY[2 * i + 1];
      y[i] = toy.k;
    }
  }
  return { xy, y, drifted, nDrifted: m };
}
