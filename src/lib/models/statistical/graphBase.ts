/**
 * Shared base of LabelPropagation and LabelSpreading: scikit-learn 1.2.1's
 * `BaseLabelPropagation.fit` / `predict_proba` (rbf kernel), PROTOCOL.md §7.1. The variants supply
 * one step, `buildGraph` (how W becomes the iteration matrix), plus the `variant` flag that picks the
 * update rule (propagation: normalise rows and clamp L; spreading: αGF + (1−α)F⁰).
 *
 * The model always outputs k columns; a class without labeled rows keeps an all-zero column
 * (sklearn's `classes_` holds only labeled classes; its columns are ours restricted to them).
 */
import * as tf from '@tensorflow/tfjs';
import type { Matrix } from '../../types.ts';
import { NotFittedError, argmaxRows, throwIfAborted, type LiveFitContext } from '../estimator.ts';
import { BaseEstimator } from '../baseEstimator.ts';
import { yieldToEventLoop } from '../yieldToEventLoop.ts';
import { integerIn, interval, oneOf, type ConstraintTable } from '../params.ts';
import {
  BlockedGraph,
  affinity64,
  applySpec64,
  matMulGF64,
  sqDistRow,
  stackRows64,
  type Degrees,
  type GraphSpec,
} from './graphKernel.ts';
import { f64Kernels } from './f64Kernels.ts';
import { affineReady, propagateAffine } from './labelPropagationFast.ts';

export type { Degrees, GraphSpec } from './graphKernel.ts';

export interface GraphParams {
  /** Affinity kernel; only 'rbf' (sklearn `kernel`). Default 'rbf'. */
  kernel: 'rbf';
  /** RBF width γ in exp(−γ‖x−x'‖²), ≥ 0 (sklearn `gamma`). `rsb` default 1; `readme` 20. */
  gamma: number;
  /** Maximum number of iterations, integer ≥ 1 (sklearn `max_iter`). `rsb` default 10 000. */
  maxIter: number;
  /** Stop when Σ|F − F_prev| < tol, ≥ 0 (sklearn `tol`). Default 1e-3. */
  tol: number;
}

/** sklearn's `BaseLabelPropagation._parameter_constraints` for the parameters we expose. */
export const GRAPH_CONSTRAINTS: ConstraintTable = {
  kernel: oneOf('rbf'),
  gamma: interval(0, undefined, 'left'),
  maxIter: integerIn(1),
  tol: interval(0, undefined, 'left'),
};

/** How the graph is computed; does not change the algorithm, only precision and memory. */
export interface GraphComputeOptions {
  /**
   * 'auto': float64 JS up to `float64MaxRows` rows (LabelPropagation's fast path: up to
   * `float64FastMaxRows`), float32 tfjs above.
   */
  precision: 'auto' | 'float64' | 'float32';
  float64MaxRows: number;
  /**
   * LabelPropagation with `fastPropagation`: the exact path stays float64 up to this many rows
   * (every letter cell: 10 130 at most). The Chebyshev series needs S and a few thin blocks, about
   * 3·n²·8 bytes (2.6 GB at 10 130 rows), and ≈ 900 products instead of up to 10 000 iterations.
   */
  float64FastMaxRows: number;
  /** Rows per block of the tfjs graph (B×n tensors). */
  blockRows: number;
  /** Cache the whole float32 graph on the backend when n²·4 bytes fit this budget. */
  cacheBytes: number;
  /**
   * LabelPropagation, float64: jump through the affine phase of the loop (labelPropagationFast.ts)
   * instead of iterating it; same n_iter and F up to rounding. false = the direct loop (reference).
   */
  fastPropagation: boolean;
  /** Memory for the fast path's stored matrix powers (bisection); beyond it, window walks. */
  fastPropagationBudgetBytes: number;
  /** The fast path's way through the affine phase: 'auto' (by cost), 'leaps' or 'chebyshev'. */
  fastPropagationMethod: 'auto' | 'leaps' | 'chebyshev';
  /**
   * float64 products on the WebAssembly SIMD kernels where they exist: LabelSpreading's iterations
   * and the prediction's kernel rows × F (blocks of SCORE_BLOCK test rows). false = the JS loops,
   * the reference. (LabelPropagation's direct loop always stays in JS: it is the fast path's
   * reference.)
   */
  simd: boolean;
}

/** Test rows per SIMD block of the float64 prediction (64 × 10 240 doubles: 5 MiB of kernel rows). */
const SCORE_BLOCK = 64;

export const GRAPH_COMPUTE_DEFAULTS: Readonly<GraphComputeOptions> = Object.freeze({
  precision: 'auto',
  float64MaxRows: 4096,
  float64FastMaxRows: 10_240,
  simd: true,
  blockRows: 1024,
  cacheBytes: 512 * 1024 * 1024,
  fastPropagation: true,
  fastPropagationBudgetBytes: 512 * 1024 * 1024,
  fastPropagationMethod: 'auto',
});

/** Everything learned by `fit` (sklearn's trailing-underscore attributes). */
interface GraphFitted {
  k: number;
  d: number;
  n: number;
  precision: 'float64' | 'float32';
  nIter: number;
  converged: boolean;
  /** How the float64 LabelPropagation loop was run (labelPropagationFast.ts), for info(). */
  lpPath?: Record<string, unknown>;
  /** float64 path: training rows and F (n×k). */
  X64?: Float64Array;
  F64?: Float64Array;
  /** float32 path: graph (training rows on the backend) and F (n×k) tensor. */
  graph?: BlockedGraph;
  F32?: tf.Tensor2D;
}

/** Smallest γ·d² whose exp underflows to 0 in float64 is just above 745.13. */
function underflows64(gamma: number, d2: number): boolean {
  return Math.exp(-gamma * d2) === 0;
}

/** Yield to the event loop so an abort posted to the worker can land. */
const yieldToLoop = yieldToEventLoop;

export abstract class GraphEstimatorBase<P extends GraphParams> extends BaseEstimator<P> {
  /** Which update rule the loop applies (sklearn `_variant`). */
  protected abstract readonly variant: 'propagation' | 'spreading';
  /** The one step the variants differ in: normalisation of the affinity into the iteration matrix. */
  protected abstract buildGraph(deg: Degrees): GraphSpec;

  readonly compute: Readonly<GraphComputeOptions>;
  protected fitted: GraphFitted | null = null;
  private quirks: 'rsb' | 'fixed' = 'rsb';

  protected constructor(defaults: P, params: Partial<P>, compute: Partial<GraphComputeOptions>) {
    super(defaults, params);
    this.compute = Object.freeze({ ...GRAPH_COMPUTE_DEFAULTS, ...compute });
  }

  /** Clamping weight for spreading; propagation ignores it. */
  protected get alpha(): number {
    return 1;
  }

  /** True when fits take the exact fast path (LabelPropagation, float64, not switched off). */
  private exactFastPath(): boolean {
    return this.variant === 'propagation' && this.compute.fastPropagation;
  }

  protected async fitImpl(
    Xl: Matrix,
    yl: Int32Array,
    Xu: Matrix,
    k: number,
    ctx: LiveFitContext,
  ): Promise<void> {
    this.quirks = ctx.quirks ?? 'rsb';
    const n = Xl.rows + Xu.rows;
    const precision =
      this.compute.precision === 'auto'
        ? n <= (this.exactFastPath() ? this.compute.float64FastMaxRows : this.compute.float64MaxRows)
          ? 'float64'
          : 'float32'
        : this.compute.precision;
    const fitted =
      precision === 'float64' ? await this.fit64(Xl, yl, Xu, k, ctx) : await this.fit32(Xl, yl, Xu, k, ctx);
    this.fitted = fitted;
    const warnings = fitted.converged
      ? []
      : [`max_iter=${this.params.maxIter} was reached without convergence.`];
    this.lastInfo = {
      nIter: fitted.nIter,
      converged: fitted.converged,
      warnings,
      floatPrecision: precision,
      graphRows: n,
      ...(precision === 'float32'
        ? { blockRows: this.compute.blockRows, graphCached: fitted.graph!.cached }
        : {}),
      ...(fitted.lpPath ?? {}),
    };
    ctx.onProgress?.({ fraction: 1, message: `${this.className}: ${fitted.nIter} iterations` });
  }

  /** F⁰ (one-hot on L rows, zero on U) and the static term the loop adds back. */
  private initialF(yl: Int32Array, n: number, k: number): { F0: Float64Array; Y: Float64Array } {
    const F0 = new Float64Array(n * k);
    for (let i = 0; i < yl.length; i++) F0[i * k + yl[i]] = 1;
    const Y = Float64Array.from(F0);
    if (this.variant === 'spreading') for (let i = 0; i < Y.length; i++) Y[i] *= 1 - this.alpha;
    return { F0, Y };
  }

  /** Progress and event-loop yields every `stride` iterations (≈ a fixed amount of work). */
  private stride(n: number, k: number): number {
    return Math.max(1, Math.floor(2e7 / Math.max(1, n * n * k)));
  }

  private async fit64(
    Xl: Matrix,
    yl: Int32Array,
    Xu: Matrix,
    k: number,
    ctx: LiveFitContext,
  ): Promise<GraphFitted> {
    const { gamma, maxIter, tol } = this.params;
    const d = Xl.cols;
    const n = Xl.rows + Xu.rows;
    const nl = Xl.rows;
    const X64 = stackRows64(Xl, Xu);
    const { W, deg } = affinity64(X64, n, d, gamma);
    const spec = this.buildGraph(deg);
    const G = applySpec64(W, n, spec);
    const fast = this.variant === 'propagation' && this.compute.fastPropagation && nl > 0 && nl < n;
    let lpPath: Record<string, unknown> | undefined =
      this.variant === 'propagation' ? { lpPath: 'direct' } : undefined;
    const { F0, Y } = this.initialF(yl, n, k);
    let F: Float64Array = F0;
    let prev: Float64Array = new Float64Array(n * k);
    let next: Float64Array = new Float64Array(n * k);
    // LabelSpreading's products S·F on the SIMD kernels (S stays resident across iterations).
    const lsKernels = this.variant === 'spreading' && this.compute.simd ? f64Kernels() : null;
    const stride = this.stride(n, k);
    let nIter = 0;
    let converged = false;
    for (let it = 0; it < maxIter; it++) {
      nIter = it;
      let diff = 0;
      for (let i = 0; i < F.length; i++) diff += Math.abs(F[i] - prev[i]);
      if (diff < tol) {
        converged = true;
        break;
      }
      if (it % stride === 0) {
        ctx.onProgress?.({
          fraction: it / maxIter,
          message: `${this.className}: iteration ${it}, Σ|ΔF| ${diff.toExponential(3)}`,
        });
        await yieldToLoop();
        throwIfAborted(ctx.signal);
      }
      if (fast && it >= 1 && affineReady(F, n, nl, k)) {
        // From here on the loop is affine: jump through it (same stopping step, same F).
        const res = await propagateAffine({
          G,
          deg: spec.rowDivisor,
          n,
          nl,
          k,
          F,
          step: it,
          maxIter,
          tol,
          powerBudgetBytes: this.compute.fastPropagationBudgetBytes,
          method: this.compute.fastPropagationMethod,
          // ctx.tick: abort check and a (clock-throttled) turn of the event loop.
          tick: (step, what) =>
            ctx.tick({ fraction: step / maxIter, message: `${this.className}: step ${step}, ${what}` }),
        });
        F = res.F;
        nIter = res.nIter;
        converged = res.converged;
        lpPath = {
          lpPath: 'affine',
          lpAffineFrom: it,
          lpMethod: res.method,
          lpSquarings: res.squarings,
          lpLeaps: res.leaps,
          lpSingleSteps: res.singleSteps,
          lpMaxLeap: res.maxLeap,
          lpPasses: res.passes,
          lpProducts: res.products,
        };
        break;
      }
      if (this.variant === 'propagation') {
        // L rows are reset to one-hot right after, so only U rows are multiplied.
        matMulGF64(G, F, n, k, next, nl);
        normaliseRows64(next, n, k);
        next.set(Y.subarray(0, nl * k), 0);
      } else {
        if (lsKernels) lsKernels.mulSquare(G, n, F, k, next);
        else matMulGF64(G, F, n, k, next);
        const a = this.alpha;
        for (let i = 0; i < next.length; i++) next[i] = a * next[i] + Y[i];
      }
      // Rotate buffers: prev ← F, F ← next.
      const old = prev;
      prev = F;
      F = next;
      next = old;
    }
    if (!converged) nIter = maxIter;
    normaliseRows64(F, n, k);
    return { k, d, n, precision: 'float64', nIter, converged, X64, F64: F, lpPath };
  }

  private async fit32(
    Xl: Matrix,
    yl: Int32Array,
    Xu: Matrix,
    k: number,
    ctx: LiveFitContext,
  ): Promise<GraphFitted> {
    const { gamma, maxIter, tol } = this.params;
    const d = Xl.cols;
    const n = Xl.rows + Xu.rows;
    const nl = Xl.rows;
    const Xall = new Float32Array(n * d);
    Xall.set(Xl.data, 0);
    Xall.set(Xu.data, nl * d);
    const graph = new BlockedGraph(Xall, n, d, gamma, this.compute.blockRows);
    let F: tf.Tensor2D | null = null;
    let prev: tf.Tensor2D | null = null;
    const statics: tf.Tensor[] = [];
    try {
      const propagation = this.variant === 'propagation';
      // Propagation resets L rows after every product, so its graph only needs the U rows.
      const deg = await graph.prepare(propagation ? nl : 0, this.compute.cacheBytes, ctx.signal);
      throwIfAborted(ctx.signal);
      graph.setSpec(this.buildGraph(deg));
      const { F0, Y } = this.initialF(yl, n, k);
      const Yt = tf.tensor2d(Float32Array.from(Y), [n, k]);
      const Yl = Yt.slice([0, 0], [nl, k]);
      statics.push(Yt, Yl);
      F = tf.tensor2d(Float32Array.from(F0), [n, k]);
      prev = tf.zeros([n, k]);
      const stride = Math.max(1, Math.floor(this.stride(n, k) / 4));
      let nIter = 0;
      let converged = false;
      for (let it = 0; it < maxIter; it++) {
        nIter = it;
        const diffT = tf.tidy(() => F!.sub(prev!).abs().sum());
        const diff = (await diffT.data())[0];
        diffT.dispose();
        if (diff < tol) {
          converged = true;
          break;
        }
        if (it % stride === 0) {
          ctx.onProgress?.({
            fraction: it / maxIter,
            message: `${this.className}: iteration ${it}, Σ|ΔF| ${diff.toExponential(3)}`,
          });
          await yieldToLoop();
        }
        throwIfAborted(ctx.signal);
        const cur: tf.Tensor2D = F;
        const next: tf.Tensor2D = tf.tidy(() => {
          const GF = graph.multiply(cur);
          if (propagation) return tf.concat([Yl, normaliseRowsT(GF)], 0) as tf.Tensor2D;
          return GF.mul(this.alpha).add(Yt) as tf.Tensor2D;
        });
        prev.dispose();
        prev = cur;
        F = next;
      }
      if (!converged) nIter = maxIter;
      const Fn = tf.tidy(() => normaliseRowsT(F!));
      F.dispose();
      F = null;
      return { k, d, n, precision: 'float32', nIter, converged, graph, F32: Fn };
    } catch (e) {
      graph.dispose();
      throw e;
    } finally {
      F?.dispose();
      prev?.dispose();
      statics.forEach((t) => t.dispose());
    }
  }

  /**
   * Inductive scores p(x) ∝ Σ_j exp(−γ‖x − x_j‖²) F_j over all L ∪ U rows. A row whose unshifted
   * kernel (or score) is all zero is degenerate: `quirks` 'rsb' returns zeros (argmax → class 0,
   * like numpy on NaN), 'fixed' the shifted kernel's real prediction. `info().nNanRows` counts them.
   */
  protected async predictImpl(X: Matrix): Promise<Float32Array> {
    const f = this.fitted!;
    const { scores, degenerate } =
      f.precision === 'float64' ? this.scores64(f, X) : await this.scores32(f, X);
    const k = f.k;
    const out = new Float32Array(X.rows * k);
    let nNan = 0;
    let nearTies = 0;
    for (let i = 0; i < X.rows; i++) {
      if (degenerate[i]) {
        nNan++;
        if (this.quirks === 'rsb') continue;
      }
      let s = 0;
      for (let c = 0; c < k; c++) s += scores[i * k + c];
      if (!(s > 0)) continue;
      for (let c = 0; c < k; c++) out[i * k + c] = scores[i * k + c] / s;
      if (topTwoMargin(scores, i * k, k, s) < NEAR_TIE) nearTies++;
    }
    // Rows whose prediction may legitimately differ from another exact evaluation order.
    this.lastInfo = { ...this.lastInfo, nNanRows: nNan, nearTieRows: nearTies };
    return out;
  }

  private scores64(f: GraphFitted, X: Matrix): { scores: Float64Array; degenerate: Uint8Array } {
    const { n, d, k } = f;
    const X64 = f.X64!;
    const F = f.F64!;
    const { gamma } = this.params;
    const scores = new Float64Array(X.rows * k);
    const degenerate = new Uint8Array(X.rows);
    const d2 = new Float64Array(n);
    // Blocks of kernel rows times F on the WebAssembly SIMD kernels where they exist (the same sums
    // up to the order of the additions, as in the fit); else one row at a time in JS.
    const simd = this.compute.simd ? f64Kernels() : null;
    const B = simd ? SCORE_BLOCK : 1;
    const kern = new Float64Array(B * n);
    const blockScores = new Float64Array(B * k);
    // F transposed: each class score is then one contiguous dot product (the JS path).
    const Ft = new Float64Array(n * k);
    for (let j = 0; j < n; j++) for (let c = 0; c < k; c++) Ft[c * n + j] = F[j * k + c];
    const jsScores = (row: Float64Array, out: Float64Array, at: number) => {
      for (let c = 0; c < k; c++) {
        let acc = 0;
        const fc = c * n;
        for (let j = 0; j < n; j++) acc += row[j] * Ft[fc + j];
        out[at + c] = acc;
      }
    };
    for (let i0 = 0; i0 < X.rows; i0 += B) {
      const i1 = Math.min(X.rows, i0 + B);
      for (let i = i0; i < i1; i++) {
        sqDistRow(X.data, i, X64, n, d, d2);
        const base = (i - i0) * n;
        for (let j = 0; j < n; j++) kern[base + j] = Math.exp(-gamma * d2[j]);
      }
      if (simd) simd.mulThin(kern, i1 - i0, n, F, k, blockScores);
      else jsScores(kern, blockScores, 0);
      scores.set(blockScores.subarray(0, (i1 - i0) * k), i0 * k);
      for (let i = i0; i < i1; i++) {
        let s = 0;
        for (let c = 0; c < k; c++) s += scores[i * k + c];
        if (s > 0) continue;
        // Degenerate under the unshifted kernel: count it, and retry shifted for `fixed`.
        degenerate[i] = 1;
        if (this.quirks === 'rsb') continue;
        sqDistRow(X.data, i, X64, n, d, d2);
        let shift = Infinity;
        for (let j = 0; j < n; j++) if (d2[j] < shift) shift = d2[j];
        const row = kern.subarray(0, n);
        for (let j = 0; j < n; j++) row[j] = Math.exp(-gamma * (d2[j] - shift));
        jsScores(row, scores, i * k);
      }
    }
    return { scores, degenerate };
  }

  private async scores32(
    f: GraphFitted,
    X: Matrix,
  ): Promise<{ scores: Float32Array; degenerate: Uint8Array }> {
    const { scores, dmin } = await f.graph!.predictScores(X.data, X.rows, f.d, f.F32!, f.k);
    const degenerate = new Uint8Array(X.rows);
    for (let i = 0; i < X.rows; i++) {
      let s = 0;
      for (let c = 0; c < f.k; c++) s += scores[i * f.k + c];
      // The float64 verdict of the unshifted kernel, from the row's smallest squared distance.
      if (underflows64(this.params.gamma, dmin[i]) || !(s > 0)) degenerate[i] = 1;
    }
    return { scores, degenerate };
  }

  /** sklearn's `transduction_`: argmax of the final F for every L ∪ U row (ties → lower class). */
  async transduction(): Promise<Int32Array> {
    const F = await this.labelDistributions();
    return argmaxRows(F, this.fitted!.n, this.fitted!.k);
  }

  /** sklearn's `label_distributions_` with k columns (n×k, row-major). */
  async labelDistributions(): Promise<Float64Array> {
    const f = this.fitted;
    if (!f) throw new NotFittedError(this.className);
    if (f.F64) return Float64Array.from(f.F64);
    return Float64Array.from(await f.F32!.data());
  }

  protected release(): void {
    this.fitted?.graph?.dispose();
    this.fitted?.F32?.dispose();
    this.fitted = null;
  }
}

/** Test rows whose top-2 probability margin is below this count as near ties (info().nearTieRows). */
export const NEAR_TIE = 1e-7;

/** p_(1) − p_(2) of one row of scores (sum s > 0). */
function topTwoMargin(scores: ArrayLike<number>, off: number, k: number, s: number): number {
  let a = -Infinity;
  let b = -Infinity;
  for (let c = 0; c < k; c++) {
    const v = scores[off + c] / s;
    if (v > a) {
      b = a;
      a = v;
    } else if (v > b) b = v;
  }
  return k < 2 ? Infinity : a - b;
}

function normaliseRows64(F: Float64Array, n: number, k: number): void {
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let c = 0; c < k; c++) s += F[i * k + c];
    if (s === 0) continue;
    for (let c = 0; c < k; c++) F[i * k + c] /= s;
  }
}

function normaliseRowsT(F: tf.Tensor2D): tf.Tensor2D {
  return tf.tidy(() => {
    const s = F.sum(1, true);
    return F.div(tf.where(s.equal(0), tf.onesLike(s), s)) as tf.Tensor2D;
  });
}
