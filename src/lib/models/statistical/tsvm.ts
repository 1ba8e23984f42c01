/**
 * TSVM: transductive SVM by label switching (Joachims 1999), as run by LAMDA-SSL (PROTOCOL.md §7.1).
 * Binary core with labels ±1, RBF kernel, γ = 1/(d·Var(all entries)) of the matrix being fit:
 *   1. fit an SVC on L (C_l); pseudo-label U with the sign of its decision (f ≥ 0 → +1, libsvm's vote);
 *   2. per-row C: C_l for L, C_u for U; while C_u < C_l: fit on L ∪ U; repeat { ξ_j = 1 − ŷ_j f(x_j);
 *      a = max ξ over ŷ = +1, b = max ξ over ŷ = −1 (first argmax); if a > 0, b > 0, a + b > 2 flip
 *      both and refit, else stop }; C_u ← min(2 C_u, C_l). Swaps are skipped when U has no
 *      positives or no negatives;
 *   3. predict with the last model.
 * k = 2: one binary TSVM (positive = class 1). k > 2: one-vs-rest, argmax of decision values; the
 * OvR wrapper is our reconstruction and is flagged `tsvm_multiclass: 'ovr-reconstructed'`.
 * Classes without labeled rows get decision −∞ (never predicted); with a single labeled class, that
 * class is always predicted.
 *
 * predictProba: option `proba` 'softmax' (default) = softmax of the k decision scores (k = 2:
 * scores [−f, f]); 'onehot' = one-hot of the argmax. Accuracy uses the argmax either way, which both
 * options share. The SVC is libsvm-equivalent (svm/smo.ts); decision values on U come from the
 * solver's gradient (float32 kernel values, within ~1e-6 of sklearn's recomputed decision_function).
 *
 * @see T. Joachims, "Transductive inference for text classification using support vector machines",
 *   ICML 1999. LAMDA-SSL `TSVM`.
 * @example
 * const m = new TSVM();
 * await m.fit(Xl, yl, Xu, 3, { rng: mt(0) });
 * const p = await m.predictProba(Xtest); // n × 3, argmax = predicted class
 */
import type { Matrix } from '../../types.ts';
import { NotFittedError, throwIfAborted, type FitContext, type LiveFitContext } from '../estimator.ts';
import { BaseEstimator } from '../baseEstimator.ts';
import { integerIn, interval, oneOf, type ConstraintTable } from '../params.ts';
import { RbfKernel, scaleGamma } from './svm/kernel.ts';
import { fitBinarySvc, svcDecision, warmAfterFlips, type BinarySvcModel } from './svm/svc.ts';
import type { SmoWarmStart } from './svm/smo.ts';
import { yieldToEventLoop } from '../yieldToEventLoop.ts';

export interface TSVMParams {
  /** C for labeled rows (LAMDA-SSL Cl). Default 15. */
  Cl: number;
  /** Initial C for unlabeled rows, doubled each round up to Cl (LAMDA-SSL Cu). Default 1e-4. */
  Cu: number;
  /** SMO stopping tolerance (libsvm eps). Default 1e-3. */
  tol: number;
  /** libsvm shrinking heuristic. Default true. */
  shrinking: boolean;
  /**
   * Kernel-row cache budget in MiB per kernel matrix. Default 512: the whole float32 kernel of a
   * letter cell (≈ 10 260 rows, 421 MB) stays cached, so each row is computed once per cell and
   * shared by the 26 one-vs-rest problems and every round (with 256 MiB the LRU recomputed rows
   * ≈ 6× over on letter feature cells).
   */
  cacheMb: number;
  /** Safety cap on label swaps within one round (never reached in practice; a warning if it is). */
  maxSwapsPerRound: number;
  /** 'softmax' of the decision values or 'onehot' of their argmax. Default 'softmax'. */
  proba: 'softmax' | 'onehot';
}

export const TSVM_DEFAULTS: Readonly<TSVMParams> = Object.freeze({
  Cl: 15,
  Cu: 1e-4,
  tol: 1e-3,
  shrinking: true,
  cacheMb: 512,
  maxSwapsPerRound: 100_000,
  proba: 'softmax',
});

export const TSVM_CONSTRAINTS: ConstraintTable = {
  Cl: interval(0, undefined, 'neither'),
  Cu: interval(0, undefined, 'neither'),
  tol: interval(0, undefined, 'neither'),
  shrinking: oneOf(true, false),
  cacheMb: interval(0, undefined, 'neither'),
  maxSwapsPerRound: integerIn(0),
  proba: oneOf('softmax', 'onehot'),
};

/** What one binary TSVM did, for info(). */
export interface BinaryTsvmTrace {
  positiveClass: number;
  rounds: number;
  fits: number;
  swaps: number;
  smoIterations: number;
  swapsSkipped: boolean;
}

interface TSVMFitted {
  k: number;
  d: number;
  /** One model per class (OvR) or a single model at index 1 (k = 2); null = no model. */
  models: (BinarySvcModel | null)[];
  /** Class predicted everywhere when fewer than two classes have labeled rows. */
  constantClass: number | null;
  present: boolean[];
  /** The L ∪ U rows (row-major) and γ every OvR model was fitted on, for shared test kernels. */
  train: { x: Float64Array; d: number; gamma: number } | null;
}

export class TSVM extends BaseEstimator<TSVMParams> {
  readonly name = 'tsvm';
  readonly className = 'TSVM';
  protected readonly constraints = TSVM_CONSTRAINTS;
  private fitted: TSVMFitted | null = null;
  /**
   * Warm-start each SMO solve on L ∪ U from the previous solution (α swapped with the two flipped
   * labels; kept as is when C_u grows). false = every solve from α = 0 (the reference).
   */
  warmStart = true;

  constructor(params: Partial<TSVMParams> = {}) {
    super(TSVM_DEFAULTS, params);
  }

  override get hyper(): Record<string, unknown> {
    return { ...this.params, kernel: 'rbf', gamma: 'scale' };
  }

  protected async fitImpl(
    Xl: Matrix,
    yl: Int32Array,
    Xu: Matrix,
    k: number,
    ctx: LiveFitContext,
  ): Promise<void> {
    const p = this.params;
    const d = Xl.cols;
    const nl = Xl.rows;
    const nu = Xu.rows;
    const present = Array.from({ length: k }, () => false);
    for (let i = 0; i < nl; i++) present[yl[i]] = true;
    const presentClasses = present.flatMap((v, c) => (v ? [c] : []));
    const multiclass = k > 2 ? 'ovr-reconstructed' : 'binary';
    const warnings: string[] = [];
    const traces: BinaryTsvmTrace[] = [];
    const models: (BinarySvcModel | null)[] = new Array(k).fill(null);

    let constantClass: number | null = null;
    let gammaL: number | null = null;
    let gammaLU: number | null = null;
    let kernelRows = 0;
    let train: TSVMFitted['train'] = null;
    if (presentClasses.length < 2) {
      constantClass = presentClasses[0];
      warnings.push(`TSVM: only class ${constantClass} has labeled rows; it is predicted everywhere.`);
    } else {
      const xl = Float64Array.from(Xl.data);
      const xlu = new Float64Array((nl + nu) * d);
      xlu.set(xl);
      xlu.set(Xu.data, nl * d);
      gammaL = scaleGamma(xl, nl, d);
      gammaLU = scaleGamma(xlu, nl + nu, d);
      // One kernel (and cache) per matrix, shared by every round and every OvR class.
      const kernelL = new RbfKernel(xl, nl, d, gammaL, { cacheMb: p.cacheMb });
      const kernelLU = new RbfKernel(xlu, nl + nu, d, gammaLU, { cacheMb: p.cacheMb });
      const targets = k === 2 ? [1] : presentClasses;
      for (let t = 0; t < targets.length; t++) {
        const c = targets[t];
        const ylBin = new Int8Array(nl);
        for (let i = 0; i < nl; i++) ylBin[i] = yl[i] === c ? 1 : -1;
        const { model, trace } = await this.fitBinary(kernelL, kernelLU, ylBin, ctx, (f) =>
          ctx.onProgress?.({
            fraction: (t + f) / targets.length,
            message: k === 2 ? 'TSVM' : `TSVM class ${c} vs rest (${t + 1}/${targets.length})`,
          }),
        );
        trace.positiveClass = c;
        models[c] = model;
        traces.push(trace);
        if (!model.converged) warnings.push(`TSVM: SMO reached its iteration cap for class ${c}.`);
        if (trace.swaps >= p.maxSwapsPerRound)
          warnings.push(`TSVM: maxSwapsPerRound reached for class ${c}.`);
      }
      kernelRows = kernelL.rowsComputed + kernelLU.rowsComputed;
      train = { x: kernelLU.x, d, gamma: gammaLU };
    }
    this.fitted = { k, d, models, constantClass, present, train };
    this.lastInfo = {
      tsvm_multiclass: multiclass,
      gammaL,
      gammaLU,
      rounds: traces[0]?.rounds ?? 0,
      fits: traces.reduce((s, t) => s + t.fits, 0),
      swaps: traces.reduce((s, t) => s + t.swaps, 0),
      nIter: traces.reduce((s, t) => s + t.smoIterations, 0),
      /** Kernel rows computed (cache misses) over the whole fit, L and L ∪ U kernels. */
      kernelRows,
      converged: warnings.every((w) => !w.includes('iteration cap')),
      perClass: traces,
      absentClasses: present.flatMap((v, c) => (v ? [] : [c])),
      warnings,
    };
    ctx.onProgress?.({ fraction: 1, message: 'TSVM fitted' });
  }

  /** Steps 1–2 of §7.1 for one ±1 problem. */
  private async fitBinary(
    kernelL: RbfKernel,
    kernelLU: RbfKernel,
    ylBin: Int8Array,
    ctx: FitContext,
    progress: (f: number) => void,
  ): Promise<{ model: BinarySvcModel; trace: BinaryTsvmTrace }> {
    const { Cl, Cu, tol, shrinking, maxSwapsPerRound } = this.params;
    const nl = kernelL.n;
    const nu = kernelLU.n - nl;
    const smo = { tol, shrinking, onChunk: () => throwIfAborted(ctx.signal) };
    const trace: BinaryTsvmTrace = {
      positiveClass: -1,
      rounds: 0,
      fits: 0,
      swaps: 0,
      smoIterations: 0,
      swapsSkipped: false,
    };
    let nRounds = 0;
    for (let c = Cu; c < Cl; c = Math.min(2 * c, Cl)) nRounds++;

    const fit = async (
      kernel: RbfKernel,
      y: Int8Array,
      C: Float64Array,
      warm?: () => SmoWarmStart,
    ): Promise<BinarySvcModel> => {
      throwIfAborted(ctx.signal);
      if (ctx.signal) await yieldToEventLoop();
      throwIfAborted(ctx.signal);
      const m = fitBinarySvc(kernel, y, C, warm && this.warmStart ? { ...smo, warm: warm() } : smo);
      trace.fits++;
      trace.smoIterations += m.nIter;
      return m;
    };

    // 1. Supervised SVC on L; pseudo-label U (f ≥ 0 → +1, as libsvm's vote with classes [−1, +1]).
    let model = await fit(kernelL, ylBin, new Float64Array(nl).fill(Cl));
    const yAll = new Int8Array(nl + nu);
    yAll.set(ylBin);
    if (nu > 0) {
      const fu = svcDecision(model, kernelLU.x.subarray(nl * kernelLU.d), nu);
      for (let j = 0; j < nu; j++) yAll[nl + j] = fu[j] >= 0 ? 1 : -1;
    }
    // 2. Annealing rounds with pairwise swaps.
    const C = new Float64Array(nl + nu).fill(Cl);
    let cu = Cu;
    let round = 0;
    let onLU = false; // the L-only model lives on another kernel: no warm start from it
    while (cu < Cl) {
      C.fill(cu, nl);
      // α and u stay valid when the U bounds grow (α_i ≤ old C_u < new C_u); v is rebuilt from
      // the rows now at their bound.
      const prev = model;
      model = await fit(kernelLU, yAll, C, onLU ? () => ({ alpha: prev.alpha, u: prev.u }) : undefined);
      onLU = true;
      let nPos = 0;
      for (let j = nl; j < nl + nu; j++) if (yAll[j] === 1) nPos++;
      if (nPos === 0 || nPos === nu) {
        trace.swapsSkipped = true;
      } else {
        for (let s = 0; s < maxSwapsPerRound; s++) {
          let a = -Infinity;
          let b = -Infinity;
          let ia = -1;
          let ib = -1;
          for (let j = nl; j < nl + nu; j++) {
            const xi = 1 - yAll[j] * model.trainingDecision[j];
            if (yAll[j] === 1) {
              if (xi > a) {
                a = xi;
                ia = j;
              }
            } else if (xi > b) {
              b = xi;
              ib = j;
            }
          }
          if (!(a > 0 && b > 0 && a + b > 2)) break;
          const yOld = Int8Array.from(yAll);
          yAll[ia] = -yAll[ia];
          yAll[ib] = -yAll[ib];
          trace.swaps++;
          // Swapping α_ia and α_ib with the labels keeps Σ y_i α_i = 0 (both share C_u).
          const prev = model;
          model = await fit(kernelLU, yAll, C, () => {
            const alpha = Float64Array.from(prev.alpha);
            alpha[ia] = prev.alpha[ib];
            alpha[ib] = prev.alpha[ia];
            return warmAfterFlips(prev, kernelLU, yOld, yAll, alpha, C, [ia, ib]);
          });
        }
      }
      cu = Math.min(2 * cu, Cl);
      round++;
      trace.rounds = round;
      progress(round / nRounds);
    }
    return { model, trace };
  }

  protected async predictImpl(X: Matrix): Promise<Float32Array> {
    const f = this.fitted!;
    const scores = this.decisionScores(X);
    const { k } = f;
    const n = X.rows;
    const out = new Float32Array(n * k);
    let nNanRows = 0;
    const fallback = Math.max(0, f.present.indexOf(true));
    for (let i = 0; i < n; i++) {
      const row = scores.subarray(i * k, (i + 1) * k);
      // argmax, ties to the lower class; NaN never wins; −∞ everywhere → the first labeled class.
      let best = -1;
      for (let c = 0; c < k; c++) {
        if (Number.isNaN(row[c])) continue;
        if (best === -1 || row[c] > row[best]) best = c;
      }
      if (row.some(Number.isNaN)) nNanRows++;
      if (best === -1 || row[best] === -Infinity) best = fallback;
      const top = row[best];
      if (this.params.proba === 'onehot' || !Number.isFinite(top)) {
        out[i * k + best] = 1;
        continue;
      }
      let s = 0;
      for (let c = 0; c < k; c++) s += Number.isNaN(row[c]) ? 0 : Math.exp(row[c] - top);
      for (let c = 0; c < k; c++) out[i * k + c] = Number.isNaN(row[c]) ? 0 : Math.exp(row[c] - top) / s;
    }
    this.lastInfo = { ...this.lastInfo, nNanRows };
    return out;
  }

  /**
   * n × k decision scores: OvR decision values (−∞ for classes without labeled rows); k = 2:
   * [−f, f] of the single binary model. Argmax of a row = the predicted class.
   */
  decisionScores(X: Matrix): Float64Array {
    const f = this.fitted;
    if (!f) throw new NotFittedError('TSVM');
    const { k, models, constantClass } = f;
    const n = X.rows;
    const out = new Float64Array(n * k).fill(-Infinity);
    if (constantClass !== null) {
      for (let i = 0; i < n; i++) out[i * k + constantClass] = 0;
      return out;
    }
    if (k === 2) {
      const dec = svcDecision(models[1]!, X.data, n);
      for (let i = 0; i < n; i++) {
        out[i * 2] = -dec[i];
        out[i * 2 + 1] = dec[i];
      }
      return out;
    }
    if (f.train && models.every((m) => !m || m.gamma === f.train!.gamma)) {
      if (sharedOvrDecisions(models, f.train, X.data, n, k, out)) return out;
    }
    for (let c = 0; c < k; c++) {
      const m = models[c];
      if (!m) continue;
      const dec = svcDecision(m, X.data, n);
      for (let i = 0; i < n; i++) out[i * k + c] = dec[i];
    }
    return out;
  }

  protected release(): void {
    this.fitted = null;
  }
}

/**
 * OvR decision values with one test kernel for all classes: the support vectors of every model
 * are rows of the same L ∪ U matrix under the same γ, so K(test row, training row) is computed
 * once over the union of the support sets (in blocks of test rows) instead of once per class.
 * Each entry is the expression svcDecision evaluates and each sum runs over the same support
 * vectors in the same order, so the values are identical to svcDecision's. Returns false (nothing
 * written) when the support sets overlap too little for the shared kernel to pay.
 */
function sharedOvrDecisions(
  models: readonly (BinarySvcModel | null)[],
  train: { x: Float64Array; d: number; gamma: number },
  X: ArrayLike<number>,
  n: number,
  k: number,
  out: Float64Array,
): boolean {
  const { x, d, gamma } = train;
  const nTrain = x.length / d;
  const slot = new Int32Array(nTrain).fill(-1);
  const union: number[] = [];
  for (const m of models) if (m) for (const i of m.support) if (slot[i] === -1) slot[i] = union.push(i) - 1;
  const nu = union.length;
  // Worth it only when the classes' support sets overlap (letter: ≈ 26 sets over one union).
  let total = 0;
  for (const m of models) if (m) total += m.support.length;
  if (total < 2 * nu) return false;
  // Blocks of test rows whose kernel rows stay in a core's cache while every class reads them.
  const block = Math.max(1, Math.min(n, Math.floor((512 * 1024) / (8 * Math.max(1, nu)))));
  const Kb = new Float64Array(block * nu);
  for (let r0 = 0; r0 < n; r0 += block) {
    const r1 = Math.min(n, r0 + block);
    for (let r = r0; r < r1; r++) {
      const off = r * d;
      const base = (r - r0) * nu;
      for (let u = 0; u < nu; u++) {
        const ov = union[u] * d;
        let dist = 0;
        for (let a = 0; a < d; a++) {
          const t = x[ov + a] - X[off + a];
          dist += t * t;
        }
        Kb[base + u] = Math.exp(-gamma * dist);
      }
    }
    for (let c = 0; c < k; c++) {
      const m = models[c];
      if (!m) continue;
      const { support, dualCoef, intercept } = m;
      const nsv = support.length;
      for (let r = r0; r < r1; r++) {
        const base = (r - r0) * nu;
        let s = 0;
        for (let v = 0; v < nsv; v++) s += dualCoef[v] * Kb[base + slot[support[v]]];
        out[r * k + c] = s + intercept;
      }
    }
  }
  return true;
}
