/**
 * The augmenter seam of the deep trainer: how the rows of L and U become a step's views. The
 * tabular suite adds Gaussian noise to raw rows (PROTOCOL.md §7.2); the image and text `features`
 * tiers read precomputed views from a feature bank (bankViews.ts); fresh image and text
 * augmentations (finetune) are a third kind. A source draws its host randomness from the stream
 * the trainer hands it, then renders tensors; the trainer imports no augmentation.
 */
import * as tf from '@tensorflow/tfjs';
import type { MT19937 } from '../../protocol/rng.ts';
import type { Matrix } from '../../types.ts';
import type { View } from './methods/types.ts';

/** One view's host draws for a batch: noise (row-major) or one view index per row. */
export type ViewDraw = Float64Array | Int32Array;

export interface ViewSource {
  /** Rows of L and of U. */
  readonly nL: number;
  readonly nU: number;
  /** Input width of the network. */
  readonly dim: number;
  /**
   * The step's draws, in this order: the labeled view (when `labeledView` is 'weak'), then one per
   * unlabeled view. `rng` is the trainer's view stream (checkpointed with the fit).
   */
  draw(bL: number, bU: number, labeledView: 'raw' | 'weak', views: readonly View[], rng: MT19937): ViewDraw[];
  /** Whether `draw` puts a labeled draw first for a method whose labeled view is `labeledView`. */
  drawsLabeled(labeledView: 'raw' | 'weak'): boolean;
  /** The labeled batch: rows `idx` of L as drawn (`draw` null: the raw/clean rows). */
  labeled(idx: Int32Array, draw: ViewDraw | null): tf.Tensor2D;
  /** One unlabeled view of rows `idx` of U. */
  unlabeled(idx: Int32Array, view: View, draw: ViewDraw): tf.Tensor2D;
}

/** Tabular views: weak = x + N(0, sdWeak²), strong = x + N(0, sdStrong²), from one normal stream. */
export function noiseViews(Xl: Matrix, Xu: Matrix, sdWeak: number, sdStrong: number): ViewSource {
  const d = Xl.cols;
  const render = (X: Matrix, idx: Int32Array, z: Float64Array | null, sd: number): tf.Tensor2D => {
    const out = new Float32Array(idx.length * d);
    for (let r = 0; r < idx.length; r++) {
      const base = idx[r] * d;
      for (let j = 0; j < d; j++)
        out[r * d + j] = z ? X.data[base + j] + sd * z[r * d + j] : X.data[base + j];
    }
    return tf.tensor2d(out, [idx.length, d]);
  };
  return {
    nL: Xl.rows,
    nU: Xu.rows,
    dim: d,
    draw(bL, bU, labeledView, views, rng) {
      const out: ViewDraw[] = [];
      const fill = (rows: number) => {
        const z = new Float64Array(rows * d);
        for (let i = 0; i < z.length; i++) z[i] = rng.normal();
        out.push(z);
      };
      if (labeledView === 'weak') fill(bL);
      for (let v = 0; v < views.length; v++) fill(bU);
      return out;
    },
    drawsLabeled: (labeledView) => labeledView === 'weak',
    labeled: (idx, z) => render(Xl, idx, z as Float64Array | null, sdWeak),
    unlabeled: (idx, view, z) => render(Xu, idx, z as Float64Array, view === 'weak' ? sdWeak : sdStrong),
  };
}
