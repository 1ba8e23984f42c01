/**
 * The estimator shell, in the spirit of scikit-learn's BaseEstimator: every algorithm extends it and
 * writes only its fit and predict bodies (`fitImpl`, `predictImpl`). The shell owns the contract:
 *
 * - the constructor stores the params merged over the defaults and freezes them (an `undefined`
 *   entry means "use the default", so a preset may pass `{ x: undefined }`);
 * - `fit` refuses a second concurrent fit (EstimatorBusyError), validates the params once against the
 *   class's constraint table (ParamError), checks the inputs once (InputError), completes the
 *   FitContext (`tick`, `stream`, `initSeed`) and records the feature count;
 * - `predictProba` refuses an unfitted model (NotFittedError) and a wrong shape (InputError), with
 *   scikit-learn's messages;
 * - `info()` returns a copy of what the last fit/predict reported; `dispose()` frees the fitted state.
 *
 * Messages name the estimator by `className` (scikit-learn's class name); `name` is the catalogue id.
 */
import type { Matrix } from '../types.ts';
import { completeFitContext } from './fitContext.ts';
import {
  checkFitInputs,
  InputError,
  NotFittedError,
  type Estimator,
  type FitContext,
  type FitInfo,
  type LiveFitContext,
} from './estimator.ts';
import { validateParams, type ConstraintTable } from './params.ts';

/** A second `fit` on an instance whose fit is still running. */
export class EstimatorBusyError extends Error {
  constructor(className: string) {
    super(
      `${className}.fit: a fit is already running on this instance. Wait for it or use another instance.`,
    );
    this.name = 'EstimatorBusyError';
  }
}

/** Params without their `undefined` entries (they fall back to the defaults). */
export function definedParams<P extends object>(params: Partial<P>): Partial<P> {
  return Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined)) as Partial<P>;
}

export abstract class BaseEstimator<P extends object> implements Estimator {
  /** Catalogue id (e.g. 'lp'). */
  abstract readonly name: string;
  /** Name used in messages (scikit-learn's class name, e.g. 'LabelPropagation'). */
  abstract readonly className: string;
  /** The constraint table the params are validated against (scikit-learn `_parameter_constraints`). */
  protected abstract readonly constraints: ConstraintTable;
  /** Supervised baselines never read Xu, so they do not check it. */
  protected readonly readsUnlabeled: boolean = true;

  readonly params: Readonly<P>;
  protected lastInfo: FitInfo = {};
  /** Features seen by the last successful fit (scikit-learn `n_features_in_`); null = not fitted. */
  private nFeaturesIn: number | null = null;
  private busy = false;
  private validated = false;

  protected constructor(defaults: Readonly<P>, params: Partial<P> = {}) {
    this.params = Object.freeze({ ...defaults, ...definedParams(params) }) as Readonly<P>;
  }

  /** Every effective hyperparameter value, for the result record. */
  get hyper(): Record<string, unknown> {
    return { ...this.params };
  }

  /** The fit body: inputs and params are already checked; use `ctx.tick()` between steps. */
  protected abstract fitImpl(
    Xl: Matrix,
    yl: Int32Array,
    Xu: Matrix,
    k: number,
    ctx: LiveFitContext,
  ): Promise<void>;
  /** The predict body: the model is fitted and X has the fitted feature count. */
  protected abstract predictImpl(X: Matrix): Promise<Float32Array>;
  /** Frees the fitted state (tensors included). Called before a refit and by dispose(). */
  protected abstract release(): void;

  /** Validates the params once per instance (they are frozen, so once is enough). */
  protected validate(): void {
    if (this.validated) return;
    validateParams(this.className, this.constraints, this.params as Record<string, unknown>);
    this.validated = true;
  }

  async fit(Xl: Matrix, yl: Int32Array, Xu: Matrix, k: number, ctx: FitContext): Promise<this> {
    if (this.busy) throw new EstimatorBusyError(this.className);
    this.validate();
    checkFitInputs(this.className, Xl, yl, this.readsUnlabeled ? Xu : null, k);
    this.busy = true;
    try {
      this.nFeaturesIn = null;
      this.release();
      await this.fitImpl(Xl, yl, Xu, k, completeFitContext(ctx));
      this.nFeaturesIn = Xl.cols;
      return this;
    } finally {
      this.busy = false;
    }
  }

  async predictProba(X: Matrix): Promise<Float32Array> {
    this.checkPredictInput(X);
    return this.predictImpl(X);
  }

  /** NotFittedError before fit; InputError for a shape that does not match the fit. */
  protected checkPredictInput(X: Matrix): void {
    if (this.nFeaturesIn === null) throw new NotFittedError(this.className);
    if (X.cols !== this.nFeaturesIn) {
      throw new InputError(
        `X has ${X.cols} features, but ${this.className} is expecting ${this.nFeaturesIn} features as input.`,
      );
    }
    if (X.data.length !== X.rows * X.cols) {
      throw new InputError(
        `${this.className}.predictProba: X.data has ${X.data.length} values; expected rows × cols = ${X.rows * X.cols}.`,
      );
    }
  }

  /** For a subclass's own synchronous fit path (the ensembles' inner learners): mark it fitted. */
  protected markFitted(nFeatures: number): void {
    this.nFeaturesIn = nFeatures;
  }

  get isFitted(): boolean {
    return this.nFeaturesIn !== null;
  }

  info(): FitInfo {
    return { ...this.lastInfo };
  }

  dispose(): void {
    this.nFeaturesIn = null;
    this.release();
  }
}
