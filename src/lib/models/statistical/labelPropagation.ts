/**
 * LabelPropagation (Zhu & Ghahramani 2002) as in scikit-learn 1.2.1, rbf kernel, PROTOCOL.md §7.1:
 * T = W with each row divided by its sum (self-loops kept); F ← T F, rows normalised, L rows reset to
 * one-hot, until Σ|F − F_prev| < tol or maxIter; inductive prediction by kernel-weighted F.
 *
 * @see http://pages.cs.wisc.edu/~jerryzhu/pub/CMU-CALD-02-107.pdf
 * @example
 *   const lp = new LabelPropagation({ gamma: 1 });
 *   await lp.fit(Xl, yl, Xu, k, { rng: mt(0) });
 *   const proba = await lp.predictProba(Xe); // Float32Array Xe.rows × k
 *   lp.dispose();
 */
import type { ConstraintTable } from '../params.ts';
import {
  GRAPH_CONSTRAINTS,
  GraphEstimatorBase,
  type Degrees,
  type GraphComputeOptions,
  type GraphParams,
  type GraphSpec,
} from './graphBase.ts';

export type LabelPropagationParams = GraphParams;

/** `rsb` values (the original's code): γ 1, max_iter 10 000, tol 1e-3. */
export const LABEL_PROPAGATION_DEFAULTS: Readonly<LabelPropagationParams> = Object.freeze({
  kernel: 'rbf',
  gamma: 1,
  maxIter: 10_000,
  tol: 1e-3,
});

/** `readme` preset: scikit-learn's defaults (γ 20, max_iter 1 000). */
export const LP_README_PARAMS: Readonly<LabelPropagationParams> = Object.freeze({
  ...LABEL_PROPAGATION_DEFAULTS,
  gamma: 20,
  maxIter: 1000,
});

export class LabelPropagation extends GraphEstimatorBase<LabelPropagationParams> {
  /** sklearn's table without `alpha` (LabelPropagation does not take one). */
  static readonly constraints: ConstraintTable = { ...GRAPH_CONSTRAINTS };
  readonly name = 'lp';
  readonly className = 'LabelPropagation';
  protected readonly variant = 'propagation';
  protected readonly constraints = LabelPropagation.constraints;

  constructor(params: Partial<LabelPropagationParams> = {}, compute: Partial<GraphComputeOptions> = {}) {
    super(LABEL_PROPAGATION_DEFAULTS, params, compute);
  }

  /** T = D⁻¹W, D the (column = row, W symmetric) sums of W with self-loops. */
  protected buildGraph(deg: Degrees): GraphSpec {
    return { rowDivisor: deg.withSelf, colDivisor: null, zeroDiagonal: false };
  }
}
