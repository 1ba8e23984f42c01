/**
 * The augmenter seam of the deep trainer: how the rows of L and U become a step's views. The
 * tabular suite adds Gaussian noise to raw rows (PROTOCOL.md §7.2); the image and text `features`
 * tiers read precomputed views from a feature bank (bankViews.ts); fresh image and text
 * augmentations (finetune, suite/finetuneViews.ts) are a third kind. A source draws its host randomness from the stream
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
  /**
   * Optional: every view of a step at once, from data already on the device and one small upload
   * (the trainer prefers it): the labeled batch (drawn as `drawsLabeled` says), one tensor per
   * unlabeled view, and the batch's row ids on the device (int32).
   */
  render?(
    idxL: Int32Array,
    idxU: Int32Array,
    labeledView: 'raw' | 'weak',
    views: readonly View[],
    draws: readonly ViewDraw[],
  ): RenderedViews;
  /** Frees what the source keeps on the device (the trainer calls it for sources it made). */
  dispose?(): void;
}

export interface RenderedViews {
  xl: tf.Tensor2D;
  u: tf.Tensor2D[];
  idxL: tf.Tensor1D;
  idxU: tf.Tensor1D;
}

/** Row ids travel as float32 in the step's one upload; exact below 2²⁴. */
const EXACT_F32_INT = 1 << 24;

/**
 * Tabular views: weak = x + N(0, sdWeak²), strong = x + N(0, sdStrong²), from one normal stream.
 * `render` keeps L and U on the device (uploaded once, on first use) and sends per step one
 * float32 buffer: the row ids, then the noise of every view; gathers and x + sd·z run on the device
 * in float32 (`labeled` / `unlabeled` render on the host, in float64 rounded once).
 */
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
  let dev: { Xl: tf.Tensor2D; Xu: tf.Tensor2D } | null = null;
  const onDevice = () =>
    (dev ??= {
      Xl: tf.keep(tf.tensor2d(Xl.data, [Xl.rows, d])),
      Xu: tf.keep(tf.tensor2d(Xu.data, [Math.max(Xu.rows, 0), d])),
    });
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
    render(idxL, idxU, labeledView, views, draws) {
      const { Xl: L, Xu: U } = onDevice();
      const bL = idxL.length,
        bU = idxU.length;
      const weakL = labeledView === 'weak';
      const noise = draws.reduce((a, z) => a + z.length, 0);
      if (Xl.rows >= EXACT_F32_INT || Xu.rows >= EXACT_F32_INT)
        throw new RangeError(
          `noiseViews: ${Math.max(Xl.rows, Xu.rows)} rows; row ids travel as float32 below 2^24.`,
        );
      const buf = new Float32Array(bL + bU + noise);
      buf.set(idxL);
      buf.set(idxU, bL);
      let o = bL + bU;
      for (const z of draws) {
        buf.set(z, o);
        o += z.length;
      }
      const [ids, zs] = tf.split(tf.tensor1d(buf, 'float32'), [bL + bU, noise]);
      const [iL, iU] = tf.split(tf.cast(ids, 'int32'), [bL, bU]) as tf.Tensor1D[];
      const rows = [...(weakL ? [bL] : []), ...views.map(() => bU)];
      const z = rows.length ? tf.split(tf.reshape(zs, [noise / d, d]), rows) : [];
      const xL = tf.gather(L, iL);
      let zi = 0;
      const xl = (weakL ? tf.add(xL, tf.mul(z[zi++], sdWeak)) : xL) as tf.Tensor2D;
      const xU = views.length ? tf.gather(U, iU) : null;
      const u = views.map(
        (v) => tf.add(xU!, tf.mul(z[zi++], v === 'weak' ? sdWeak : sdStrong)) as tf.Tensor2D,
      );
      return { xl, u, idxL: iL, idxU: iU };
    },
    dispose() {
      if (dev) tf.dispose([dev.Xl, dev.Xu]);
      dev = null;
    },
  };
}
