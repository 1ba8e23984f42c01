/**
 * Stratified split of a pool into (first, second), reproducing scikit-learn's
 * StratifiedShuffleSplit draws under numpy's legacy RandomState, plus the edge rules that the
 * original toolkit's split would raise on (PROTOCOL.md §3.4).
 */
import { allocate } from './allocate.ts';
import { mt } from './rng.ts';

export type TakeZero = 'one-per-class' | 'empty';

export interface SplitOptions {
  /** A request below one row per class: raise it to one per class (rsb default) or return an empty first part. */
  takeZero: TakeZero;
}

export interface SplitResult {
  /** Positions in the pool passed in (not dataset row ids). */
  first: number[];
  second: number[];
}

/** Size of the first part: a fraction in (0, 1) means ceil(size·N); an integer means a count. */
export function firstPartSize(size: number, N: number): number {
  if (Number.isInteger(size)) {
    if (size < 0)
      throw new RangeError(
        `stratifiedSplit: size must be a fraction in (0, 1) or an integer count >= 0; got ${size}.`,
      );
    return size;
  }
  if (!(size > 0 && size < 1)) {
    throw new RangeError(
      `stratifiedSplit: size must be a fraction in (0, 1) or an integer count >= 0; got ${size}.`,
    );
  }
  return Math.ceil(size * N);
}

export function stratifiedSplit(
  y: ArrayLike<number>,
  size: number,
  seed: number,
  opts: Partial<SplitOptions> = {},
): SplitResult {
  const takeZero = opts.takeZero ?? 'one-per-class';
  const N = y.length;
  let n1 = firstPartSize(size, N);
  if (n1 >= N) return { first: range(N), second: [] }; // take all: no draws, identity order

  // Classes present, ascending, with their positions ascending.
  const byClass = new Map<number, number[]>();
  for (let i = 0; i < N; i++) {
    const list = byClass.get(y[i]);
    if (list) list.push(i);
    else byClass.set(y[i], [i]);
  }
  const classes = Array.from(byClass.keys()).sort((a, b) => a - b);
  const C = classes.length;
  if (n1 < C) {
    if (takeZero === 'empty') return { first: [], second: range(N) };
    n1 = C; // then allocated as usual, draws included
  }
  const n2 = N - n1;

  const rng = mt(seed);
  const idx = classes.map((c) => byClass.get(c) as number[]);
  const count = idx.map((list) => list.length);
  const a = allocate(count, n1, rng);
  // Float rounding can make the second allocation draw, so it always runs.
  const b = allocate(
    count.map((n, c) => n - a[c]),
    n2,
    rng,
  );
  const first: number[] = [];
  const second: number[] = [];
  for (let c = 0; c < C; c++) {
    const P = rng.permutation(count[c]);
    for (let q = 0; q < a[c]; q++) first.push(idx[c][P[q]]);
    for (let q = a[c]; q < a[c] + b[c]; q++) second.push(idx[c][P[q]]);
  }
  rng.shuffle(first);
  rng.shuffle(second);
  return { first, second };
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}
