/**
 * The estimator contract (scikit-learn style). Every algorithm is a class built from a plain,
 * serialisable hyperparameter object; `fit` learns from scaled labeled rows (with labels) and
 * scaled unlabeled rows, `predictProba` scores new rows. Nothing reads globals, the clock or
 * Math.random: all randomness comes from `ctx.rng`.
 */
import type { MT19937 } from '../protocol/rng.ts';
import type { Matrix } from '../types.ts';

/**
 * A typed progress event. `fraction` (0..1 of this fit) is what the Run page's bar shows; the rest
 * is for long fits (deep training): optimiser step of total, named loss terms, free scalars.
 * Fits report as often as they like: the harness (runCell's caller) throttles what reaches the page.
 */
export interface Progress {
  /** 0..1 of this fit. */
  fraction: number;
  message?: string;
  step?: number;
  total?: number;
  /** Named loss terms of the last step, e.g. { supervised: 0.41, unsupervised: 0.07 }. */
  losses?: Record<string, number>;
  /** Any other scalars worth showing (mask rate, learning rate). */
  scalars?: Record<string, number>;
}

export interface FitContext {
  /** The seeded generator for model-internal randomness (bootstraps, inits, batches). */
  rng: MT19937;
  /** Checked between iterations; an aborted fit throws an AbortError. */
  signal?: AbortSignal;
  onProgress?: (p: Progress) => void;
  /** Protocol quirks switch (PROTOCOL.md §7.5). */
  quirks?: 'rsb' | 'fixed';
  /** The run seed `rng` was seeded with (the root of the named streams). Default 0. */
  seed?: number;
  /**
   * Seed of initial weights (PROTOCOL.md §7.2): 0 in `rsb` (one initialisation shared by every t and
   * seed), the run seed in `readme`. Default: `seed`.
   */
  initSeed?: number;
  /**
   * A named generator independent of `rng` and of every other name (e.g. 'batches', 'noise'):
   * seeded from (seed, name), the same generator object for the same name within one fit.
   */
  stream?: (name: string) => MT19937;
  /**
   * The one call a long loop makes between steps: throws AbortError once the signal is aborted,
   * reports `p` (if given) and gives the event loop a turn so that a cancel message can land.
   */
  tick?: (p?: Progress) => Promise<void>;
}

/** The context an estimator's fit body receives: every field filled in (see fitContext.ts). */
export type LiveFitContext = FitContext &
  Required<Pick<FitContext, 'seed' | 'initSeed' | 'stream' | 'tick' | 'quirks'>>;

/** Anything learned that the result record should carry (warnings, iteration counts, choices). */
export interface FitInfo {
  nIter?: number;
  converged?: boolean;
  warnings?: string[];
  /** Test rows whose scores were degenerate (NaN or all zero) before the quirk rule. */
  nNanRows?: number;
  [key: string]: unknown;
}

export interface Estimator {
  /** Registry id, e.g. 'lp'. */
  readonly name: string;
  /** Every effective hyperparameter value, for the result record. */
  readonly hyper: Record<string, unknown>;
  /**
   * @param Xl labeled rows (scaled), yl their labels in 0..k-1
   * @param Xu unlabeled rows (scaled, no labels)
   * @param k number of classes the model must output (full dataset k, or m in `label`)
   */
  fit(Xl: Matrix, yl: Int32Array, Xu: Matrix, k: number, ctx: FitContext): Promise<this>;
  /** n × k class probabilities (row-major). */
  predictProba(X: Matrix): Promise<Float32Array>;
  /** Information about the last fit / predict for the result record. */
  info(): FitInfo;
  /** Frees every tensor the estimator holds. */
  dispose(): void;
}

export class NotFittedError extends Error {
  constructor(name: string) {
    super(`This ${name} instance is not fitted yet. Call 'fit' before 'predictProba'.`);
    this.name = 'NotFittedError';
  }
}

export class AbortError extends Error {
  constructor(message = 'The fit was aborted.') {
    super(message);
    this.name = 'AbortError';
  }
}

export function throwIfAborted(signal?: AbortSignal): void {
  if (signal?.aborted) throw new AbortError();
}

/** argmax per row of an n × k score matrix; ties go to the lower class (numpy argmax). */
export function argmaxRows(p: ArrayLike<number>, n: number, k: number): Int32Array {
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    let best = 0;
    let bv = p[i * k];
    for (let c = 1; c < k; c++) {
      const v = p[i * k + c];
      // NaN never wins, so an all-NaN row gives class 0 (the original's argmax behaviour).
      if (v > bv || (Number.isNaN(bv) && !Number.isNaN(v))) {
        bv = v;
        best = c;
      }
    }
    out[i] = best;
  }
  return out;
}

/** Bad fit inputs (shapes, labels, class count, non-finite features): what, where, expected, got. */
export class InputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InputError';
  }
}

function checkMatrix(name: string, which: string, X: Matrix, cols?: number): void {
  if (X.data.length !== X.rows * X.cols) {
    throw new InputError(
      `${name}.fit: ${which}.data has ${X.data.length} values; expected rows × cols = ${X.rows * X.cols}.`,
    );
  }
  if (cols !== undefined && X.rows > 0 && X.cols !== cols) {
    throw new InputError(`${name}.fit: ${which} has ${X.cols} features, but Xl has ${cols}.`);
  }
  const d = X.data;
  for (let i = 0; i < d.length; i++) {
    if (!Number.isFinite(d[i])) {
      const r = Math.floor(i / X.cols);
      throw new InputError(
        `${name}.fit: ${which} has a non-finite value (${d[i]}) at row ${r}, column ${i - r * X.cols}. ` +
          'Features must be finite numbers: check the dataset for missing or non-numeric values.',
      );
    }
  }
}

/**
 * The checks every estimator runs first: k ≥ 2 (a one-class dataset cannot be benchmarked),
 * at least one labeled row, consistent shapes, labels in 0..k-1, finite features in Xl and Xu.
 * A class with no labeled rows is allowed (covertype class 3 in `rsb`): models still output k columns.
 */
export function checkFitInputs(name: string, Xl: Matrix, yl: Int32Array, Xu: Matrix | null, k: number): void {
  if (!Number.isInteger(k) || k < 2) {
    throw new InputError(
      `${name}.fit: k must be an integer ≥ 2 (number of model outputs). Got ${k} instead: a dataset needs at least two classes.`,
    );
  }
  if (Xl.rows < 1) throw new InputError(`${name}.fit: needs at least one labeled row. Got 0 instead.`);
  if (yl.length !== Xl.rows) {
    throw new InputError(`${name}.fit: yl has ${yl.length} labels, but Xl has ${Xl.rows} rows.`);
  }
  for (let i = 0; i < yl.length; i++) {
    if (!(yl[i] >= 0 && yl[i] < k)) {
      throw new InputError(`${name}.fit: labels must be in 0..${k - 1}. Got ${yl[i]} at row ${i} instead.`);
    }
  }
  checkMatrix(name, 'Xl', Xl);
  if (Xu) checkMatrix(name, 'Xu', Xu, Xl.cols);
}
