/**
 * Distribution setting (PROTOCOL.md §5.2): each class is cut into a near half (source) and a far
 * half by the distance of its rows to the class mean; U moves towards the far side as t grows.
 */
import type { Dataset } from '../types.ts';
import { append, classRows, labeledTotal, pick, type CellSplit } from './cellSplit.ts';
import type { ProtocolOptions } from './options.ts';
import { mt, type MT19937 } from './rng.ts';
import { stratifiedSplit } from './stratifiedSplit.ts';

export interface ClassHalves {
  /** Near half S_c = O_c[0:h_c], distance order. */
  near: readonly number[];
  /** Far half F_c = O_c[h_c:], distance order. */
  far: readonly number[];
}

/**
 * Rows of class c ordered by Euclidean distance to the class mean on raw features: float64,
 * left-to-right sums, stable sort (equal distances keep id order; iris has exact ties).
 */
export function distanceOrder(ds: Pick<Dataset, 'X' | 'd'>, rows: readonly number[]): number[] {
  const { X, d } = ds;
  const n = rows.length;
  const mu = new Float64Array(d);
  for (let f = 0; f < d; f++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += X[rows[i] * d + f];
    mu[f] = s / n;
  }
  const dist = rows.map((r) => {
    let s = 0;
    for (let f = 0; f < d; f++) {
      const diff = X[r * d + f] - mu[f];
      s += diff * diff;
    }
    return Math.sqrt(s);
  });
  // Array.prototype.sort is stable (ES2019); the index tie-break makes that explicit.
  const order = rows.map((_, i) => i).sort((a, b) => dist[a] - dist[b] || a - b);
  return order.map((i) => rows[i]);
}

// The halves depend only on (X, y): every t, seed and labels tag of a dataset reuses them.
const halvesCache = new WeakMap<Float64Array, WeakMap<Int32Array, readonly ClassHalves[]>>();

/** Near and far halves of every class 0..k−1 (h_c = ⌈n_c/2⌉). Read-only: cached per dataset. */
export function classHalves(ds: Pick<Dataset, 'X' | 'd' | 'y' | 'k'>): readonly ClassHalves[] {
  let byY = halvesCache.get(ds.X);
  if (!byY) halvesCache.set(ds.X, (byY = new WeakMap()));
  let halves = byY.get(ds.y);
  if (!halves) byY.set(ds.y, (halves = computeHalves(ds)));
  return halves;
}

function computeHalves(ds: Pick<Dataset, 'X' | 'd' | 'y' | 'k'>): ClassHalves[] {
  return classRows(ds.y, ds.k).map((rows) => {
    const ordered = distanceOrder(ds, rows);
    const h = Math.ceil(rows.length / 2);
    return { near: ordered.slice(0, h), far: ordered.slice(h) };
  });
}

/** rsb: a 20 % distance band of each far half (t>0), or a random fifth-of-far-size subset of the near half (t=0). */
export function distributionRsb(
  ds: Dataset,
  labels: number,
  t: number,
  seed: number,
  options: ProtocolOptions,
): CellSplit {
  const halves = classHalves(ds);
  const shared = options.t0Stream === 'shared' ? mt(seed) : null;
  const unlabeled: number[] = [];
  for (const { near, far } of halves) {
    const nt = far.length;
    if (t === 0) {
      const rng: MT19937 = shared ?? mt(seed);
      const P = rng.permutation(near.length);
      append(unlabeled, pick(near, P.slice(0, Math.ceil(nt * 0.2))));
    } else {
      // Literal doubles: at t=0.8, t-0.2 = 0.6000000000000001 shifts the band start (§5.2).
      append(unlabeled, far.slice(Math.ceil(nt * (t - 0.2)), Math.ceil(nt * t)));
    }
  }
  const source = halves.flatMap((h) => h.near);
  const ySource = source.map((r) => ds.y[r]);
  const { first, second } = stratifiedSplit(
    ySource,
    labeledTotal('distribution', labels, ds.k),
    seed,
    options,
  );
  return {
    labeled: pick(source, first),
    test: pick(source, second),
    unlabeled,
    nUnlabeledOod: 0,
    numClasses: ds.k,
  };
}

/** readme: per class, `labels` labeled rows and a test half from the near side; U mixes near and far rows by t. */
export function distributionReadme(ds: Dataset, labels: number, tIndex: number, seed: number): CellSplit {
  const halves = classHalves(ds);
  const rng = mt(seed);
  const labeled: number[] = [];
  const test: number[] = [];
  const unlabeled: number[] = [];
  halves.forEach(({ near, far }, c) => {
    if (near.length <= labels) {
      throw new Error(
        `distribution/readme: class ${c} has ${near.length} rows in its source half; expected more than labels=${labels}.`,
      );
    }
    const P = rng.permutation(near.length);
    append(labeled, pick(near, P.slice(0, labels)));
    const rest = pick(near, P.slice(labels));
    const e = Math.ceil(rest.length / 2);
    append(test, rest.slice(0, e));
    const pool = rest.slice(e);
    const nt = far.length;
    const nu = Math.min(pool.length, nt);
    const nOut = Math.floor((nu * tIndex) / 5);
    const nIn = Math.floor((nu * (5 - tIndex)) / 5);
    const Pin = rng.permutation(pool.length);
    const Pout = rng.permutation(nt);
    append(unlabeled, pick(pool, Pin.slice(0, nIn)), pick(far, Pout.slice(0, nOut)));
  });
  return { labeled, test, unlabeled, nUnlabeledOod: 0, numClasses: ds.k };
}
