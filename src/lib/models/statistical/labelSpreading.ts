/**
 * LabelSpreading (Zhou et al. 2004) as in scikit-learn 1.2.1, rbf kernel, PROTOCOL.md §7.1:
 * S = D^{-1/2} W D^{-1/2} with W's diagonal left out of D (isolated rows: D = 1) and S's diagonal set
 * to 0; F ← αSF + (1−α)F⁰ (no clamping) until Σ|F − F_prev| < tol or maxIter; final row
 * normalisation; inductive prediction by kernel-weighted F.
 *
 * @see https://proceedings.neurips.cc/paper/2003/hash/87682805257e619d49b8e0dfdc14affa-Abstract.html
 * @example
 *   const ls = new LabelSpreading({ gamma: 1, alpha: 0.2 });
 *   await ls.fit(Xl, yl, Xu, k, { rng: mt(0) });
 *   const proba = await ls.predictProba(Xe); // Float32Array Xe.rows × k
 *   ls.dispose();
 */
import { interval, type ConstraintTable } from '../params.ts';
import {
  GRAPH_CONSTRAINTS,
  GraphEstimatorBase,
  type Degrees,
  type GraphComputeOptions,
  type GraphParams,
  type GraphSpec,
} from './graphBase.ts';

export interface LabelSpreadingParams extends GraphParams {
  /** Clamping factor in (0, 1): the share of F taken from neighbours (sklearn `alpha`). Default 0.2. */
  alpha: number;
}

/** `rsb` values (the original's code): γ 1, α 0.2, max_iter 10 000, tol 1e-3. */
export const LABEL_SPREADING_DEFAULTS: Readonly<LabelSpreadingParams> = Object.freeze({
  kernel: 'rbf',
  gamma: 1,
  alpha: 0.2,
  maxIter: 10_000,
  tol: 1e-3,
});

/** `readme` preset: scikit-learn's defaults (γ 20, max_iter 30). */
export const LS_README_PARAMS: Readonly<LabelSpreadingParams> = Object.freeze({
  ...LABEL_SPREADING_DEFAULTS,
  gamma: 20,
  maxIter: 30,
});

export class LabelSpreading extends GraphEstimatorBase<LabelSpreadingParams> {
  /** sklearn's table with `alpha` narrowed to the open interval (0, 1). */
  static readonly constraints: ConstraintTable = { ...GRAPH_CONSTRAINTS, alpha: interval(0, 1, 'neither') };
  readonly name = 'ls';
  readonly className = 'LabelSpreading';
  protected readonly variant = 'spreading';
  protected readonly constraints = LabelSpreading.constraints;

  constructor(params: Partial<LabelSpreadingParams> = {}, compute: Partial<GraphComputeOptions> = {}) {
    super(LABEL_SPREADING_DEFAULTS, params, compute);
  }

  protected override get alpha(): number {
    return this.params.alpha;
  }

  /** Normalised Laplacian weights: divide by √d_j, then by √d_i (scipy's order); zero diagonal. */
  protected buildGraph(deg: Degrees): GraphSpec {
    const w = deg.noSelf.map((v) => (v === 0 ? 1 : Math.sqrt(v)));
    return { rowDivisor: w, colDivisor: w, zeroDiagonal: true };
  }
}
