/**
 * A seeded 2-D toy for the Learn page: two moons (2 classes) or three blobs (3 classes), a few
 * labeled points per class, an unlabeled pool, and everything the drift rules need drawn up front
 * (an unseen-class twin per unlabeled point, a masked coordinate per point, a drift order), so that
 * moving t only moves points: the same seed gives the same picture at every t.
 *
 * Pure: one MT19937 stream, drawn in a fixed order (labeled, unlabeled, twins, masks, order).
 */
import { MT19937 } from '../protocol/rng.ts';

export const TOY_SHAPES = ['moons', 'blobs'] as const;
export type ToyShape = (typeof TOY_SHAPES)[number];

export interface ToyOptions {
  /** 'moons' (2 classes) or 'blobs' (3 classes). Default 'moons'. */
  shape: ToyShape;
  /** Seed of the one MT19937 stream, integer in [0, 2^32 − 1]. Default 1. */
  seed: number;
  /** Labeled points per class, integer ≥ 1. Default 4. */
  labeledPerClass: number;
  /** Unlabeled points, integer ≥ 1. Default 180. */
  unlabeled: number;
  /** Standard deviation of the Gaussian noise added to each coordinate. Default 0.12 (moons), 0.22 (blobs). */
  noise?: number;
}

export const TOY_DEFAULTS: Readonly<ToyOptions> = Object.freeze({
  shape: 'moons',
  seed: 1,
  labeledPerClass: 4,
  unlabeled: 180,
});

export interface Bounds {
  x0: number;
  x1: number;
  y0: number;
  y1: number;
}

/** Columnar points: `xy` holds x0, y0, x1, y1, … */
export interface Toy {
  shape: ToyShape;
  seed: number;
  /** Classes seen in the labeled set (the model's outputs). The unseen class has id k. */
  k: number;
  labeledXY: Float64Array;
  labeledY: Int32Array;
  /** Unlabeled points before any drift (t = 0) and their true classes. */
  baseXY: Float64Array;
  baseY: Int32Array;
  /** One unseen-class point per unlabeled point: what it becomes in the label setting. */
  unseenXY: Float64Array;
  /** Which coordinate (0 = x, 1 = y) each unlabeled point loses in the feature setting. */
  maskCol: Uint8Array;
  /** Drift order: unlabeled point order[r] drifts once round(t·n) > r (feature and label settings). */
  order: Int32Array;
  /** Where the unlabeled region moves at t = 1 in the distribution setting. */
  shift: readonly [number, number];
  /** Mean of the labeled points per coordinate (the feature setting's fill value). */
  labeledMean: readonly [number, number];
  /** A fixed view that holds every point at every t and setting. */
  bounds: Bounds;
}

interface ShapeSpec {
  k: number;
  noise: number;
  /** A noiseless point of class c. */
  sample(c: number, rng: MT19937): [number, number];
  unseenCentre: readonly [number, number];
  unseenSpread: number;
  shift: readonly [number, number];
}

const BLOB_CENTRES: readonly (readonly [number, number])[] = [
  [-0.8, -0.5],
  [0.8, -0.5],
  [0, 0.85],
];

const SHAPES: Record<ToyShape, ShapeSpec> = {
  // scikit-learn's make_moons: upper arc of class 0, lower arc of class 1, with a random angle.
  moons: {
    k: 2,
    noise: 0.12,
    sample(c, rng) {
      const a = Math.PI * rng.random();
      return c === 0 ? [Math.cos(a), Math.sin(a)] : [1 - Math.cos(a), 0.5 - Math.sin(a)];
    },
    unseenCentre: [0.5, -1.05],
    unseenSpread: 0.2,
    shift: [0.75, -0.55],
  },
  blobs: {
    k: 3,
    noise: 0.22,
    sample(c) {
      return [BLOB_CENTRES[c][0], BLOB_CENTRES[c][1]];
    },
    unseenCentre: [0, -0.1],
    unseenSpread: 0.15,
    shift: [0.8, 0.45],
  },
};

function checkOptions(o: ToyOptions): void {
  if (!(TOY_SHAPES as readonly string[]).includes(o.shape)) {
    throw new RangeError(
      `makeToy: 'shape' must be one of ${TOY_SHAPES.join(', ')}; got ${JSON.stringify(o.shape)}.`,
    );
  }
  for (const key of ['labeledPerClass', 'unlabeled'] as const) {
    if (!Number.isInteger(o[key]) || o[key] < 1) {
      throw new RangeError(`makeToy: '${key}' must be an integer >= 1; got ${o[key]}.`);
    }
  }
  if (o.noise !== undefined && !(o.noise >= 0))
    throw new RangeError(`makeToy: 'noise' must be >= 0; got ${o.noise}.`);
}

export function makeToy(options: Partial<ToyOptions> = {}): Toy {
  const o: ToyOptions = { ...TOY_DEFAULTS, ...options };
  checkOptions(o);
  const spec = SHAPES[o.shape];
  const rng = new MT19937(o.seed); // throws its own RangeError on a bad seed
  const noise = o.noise ?? spec.noise;
  const k = spec.k;
  const draw = (c: number): [number, number] => {
    const [x, y] = spec.sample(c, rng);
    return [x + noise * rng.normal(), y + noise * rng.normal()];
  };

  const nl = k * o.labeledPerClass;
  const labeledXY = new Float64Array(2 * nl);
  const labeledY = new Int32Array(nl);
  for (let i = 0; i < nl; i++) {
    const c = i % k;
    labeledY[i] = c;
    labeledXY.set(draw(c), 2 * i);
  }
  const n = o.unlabeled;
  const baseXY = new Float64Array(2 * n);
  const baseY = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const c = i % k;
    baseY[i] = c;
    baseXY.set(draw(c), 2 * i);
  }
  const unseenXY = new Float64Array(2 * n);
  for (let i = 0; i < n; i++) {
    unseenXY[2 * i] = spec.unseenCentre[0] + spec.unseenSpread * rng.normal();
    unseenXY[2 * i + 1] = spec.unseenCentre[1] + spec.unseenSpread * rng.normal();
  }
  const maskCol = new Uint8Array(n);
  for (let i = 0; i < n; i++) maskCol[i] = rng.randint(2);
  const order = Int32Array.from(rng.permutation(n));

  let mx = 0;
  let my = 0;
  for (let i = 0; i < nl; i++) {
    mx += labeledXY[2 * i];
    my += labeledXY[2 * i + 1];
  }
  const labeledMean = [mx / nl, my / nl] as const;
  const shift = spec.shift;
  const bounds = boundsOf([labeledXY, baseXY, shifted(baseXY, shift[0], shift[1]), unseenXY], 0.12);
  return {
    shape: o.shape,
    seed: o.seed,
    k,
    labeledXY,
    labeledY,
    baseXY,
    baseY,
    unseenXY,
    maskCol,
    order,
    shift,
    labeledMean,
    bounds,
  };
}

function shifted(xy: Float64Array, dx: number, dy: number): Float64Array {
  const out = new Float64Array(xy.length);
  for (let i = 0; i < xy.length; i += 2) {
    out[i] = xy[i] + dx;
    out[i + 1] = xy[i + 1] + dy;
  }
  return out;
}

/** The box around all points, padded by `pad` of its larger side and made square (one scale for x and y). */
export function boundsOf(sets: readonly Float64Array[], pad: number): Bounds {
  let x0 = Infinity,
    x1 = -Infinity,
    y0 = Infinity,
    y1 = -Infinity;
  for (const xy of sets) {
    for (let i = 0; i < xy.length; i += 2) {
      x0 = Math.min(x0, xy[i]);
      x1 = Math.max(x1, xy[i]);
      y0 = Math.min(y0, xy[i + 1]);
      y1 = Math.max(y1, xy[i + 1]);
    }
  }
  const side = Math.max(x1 - x0, y1 - y0) * (1 + 2 * pad);
  const cx = (x0 + x1) / 2;
  const cy = (y0 + y1) / 2;
  return { x0: cx - side / 2, x1: cx + side / 2, y0: cy - side / 2, y1: cy + side / 2 };
}
