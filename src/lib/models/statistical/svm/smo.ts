/**
 * SMO for the binary C-SVC dual with per-sample upper bounds, following libsvm's `Solver`
 * (Chang & Lin; libsvm 3.x as vendored by scikit-learn 1.2) step for step:
 *
 *   min ½ αᵀQα − eᵀα   s.t.  yᵀα = 0,  0 ≤ α_i ≤ C_i,   Q_ij = y_i y_j K_ij
 *
 * Second-order working-set selection (WSS 2 of Fan, Chen & Lin, JMLR 2005), libsvm's two-variable
 * update and clipping, its shrinking heuristic (every min(n, 1000) iterations, with G_bar to rebuild
 * the gradient of shrunk variables and the one-time unshrink at 10·tol), and ρ = mean of y_i G_i
 * over free α (else the midpoint of the bounds). Variables are visited in the order of `order`
 * and shrinking swaps positions exactly as libsvm's swap_index, so tie-breaks follow libsvm's path.
 * Kernel values come rounded to float32 like libsvm's Qfloat (see kernel.ts), so on the fixtures the
 * iteration count, support set and ρ equal scikit-learn's exactly.
 *
 * @see R.-E. Fan, P.-H. Chen, C.-J. Lin, "Working set selection using second order information for
 *   training SVM", JMLR 6 (2005). https://www.csie.ntu.edu.tw/~cjlin/libsvm/
 */
import type { RbfKernel } from './kernel.ts';

const TAU = 1e-12;
const LOWER = 0;
const UPPER = 1;
const FREE = 2;

export interface SmoOptions {
  /** Stopping tolerance on the maximal violating pair (libsvm eps). Default 1e-3. */
  tol?: number;
  /** libsvm's shrinking heuristic (sklearn's default true). Default true. */
  shrinking?: boolean;
  /** Iteration cap; libsvm uses max(10⁷, 100·n). */
  maxIter?: number;
  /** Called every `chunk` iterations; throw from it to abort (e.g. throwIfAborted). */
  onChunk?: (iter: number) => void;
  /** Default 1000. */
  chunk?: number;
  /**
   * The order in which libsvm would see the rows (sklearn groups them by class, first class first,
   * stable within a class). Default: 0..n−1.
   */
  order?: Int32Array;
  /**
   * Warm start from a feasible α (0 ≤ α_i ≤ C_i, Σ y_i α_i = 0), e.g. the previous TSVM solution
   * after a label swap or a C_u increase (libsvm's Solver accepts an initial α the same way).
   * `u` and `v` (optional) carry the gradient pieces so that no kernel row is needed:
   * u_j = Σ_i y_i α_i K_ij and v_j = Σ_{α_i = C_i} C_i y_i K_ij, with y as handed to this solver.
   * All by original row index.
   */
  warm?: SmoWarmStart;
}

export interface SmoWarmStart {
  alpha: Float64Array;
  u?: Float64Array;
  v?: Float64Array;
}

export interface SmoResult {
  /** α_i in [0, C_i], by original row index. */
  alpha: Float64Array;
  /** Gradient of the dual objective at the solution, G_i = (Qα)_i − 1, by original row index. */
  G: Float64Array;
  rho: number;
  nIter: number;
  /** True when the violating-pair gap fell below tol (false: maxIter reached). */
  converged: boolean;
  /** Dual objective ½αᵀQα − eᵀα. */
  objective: number;
  /** u_j = Σ_i y_i α_i K_ij and v_j = Σ_{α_i = C_i} C_i y_i K_ij (see SmoOptions.warm), by original row. */
  u: Float64Array;
  v: Float64Array;
}

/**
 * @param y labels ±1 as libsvm sees them (its +1 is the first class), by original row index
 * @param Cin per-sample upper bounds C_i > 0, by original row index
 */
export function solveSmo(
  kernel: RbfKernel,
  yin: Int8Array,
  Cin: Float64Array,
  opts: SmoOptions = {},
): SmoResult {
  const l = kernel.n;
  if (yin.length !== l || Cin.length !== l) {
    throw new RangeError(
      `solveSmo: y (${yin.length}) and C (${Cin.length}) must have one entry per kernel row (${l}).`,
    );
  }
  const eps = opts.tol ?? 1e-3;
  const shrinking = opts.shrinking ?? true;
  const maxIter = opts.maxIter ?? Math.max(10_000_000, 100 * l);
  const chunk = opts.chunk ?? 1000;

  // Everything below is indexed by *position*; perm[pos] is the original row (libsvm active_set).
  const perm = opts.order ? Int32Array.from(opts.order) : Int32Array.from({ length: l }, (_, i) => i);
  if (perm.length !== l) throw new RangeError(`solveSmo: order must have ${l} entries; got ${perm.length}.`);
  const y = new Int8Array(l);
  const C = new Float64Array(l);
  for (let p = 0; p < l; p++) {
    y[p] = yin[perm[p]];
    C[p] = Cin[perm[p]];
  }
  const alpha = new Float64Array(l);
  const G = new Float64Array(l).fill(-1); // G = p = −e at α = 0
  const Gbar = new Float64Array(l); // Σ over upper-bounded j of C_j Q_ij
  const status = new Uint8Array(l); // all LOWER
  const warm = opts.warm;
  if (warm) {
    if (warm.alpha.length !== l)
      throw new RangeError(`solveSmo: warm.alpha must have ${l} entries; got ${warm.alpha.length}.`);
    for (let p = 0; p < l; p++) {
      alpha[p] = Math.min(Math.max(warm.alpha[perm[p]], 0), C[p]);
      status[p] = alpha[p] >= C[p] ? UPPER : alpha[p] <= 0 ? LOWER : FREE;
    }
    if (warm.u) for (let p = 0; p < l; p++) G[p] = y[p] * warm.u[perm[p]] - 1;
    if (warm.v) for (let p = 0; p < l; p++) Gbar[p] = y[p] * warm.v[perm[p]];
    // libsvm Solver::Solve: G = p + Σ_{α_i > 0} α_i Q_i, G_bar = Σ_{α_i = C_i} C_i Q_i.
    if (!warm.u || !warm.v) {
      for (let i = 0; i < l; i++) {
        if (status[i] === LOWER || (warm.u && status[i] !== UPPER)) continue;
        const Ki = kernel.row(perm[i]);
        if (!warm.u) {
          const ai = alpha[i] * y[i];
          for (let j = 0; j < l; j++) G[j] += ai * y[j] * Ki[perm[j]];
        }
        if (!warm.v && status[i] === UPPER) {
          const ci = C[i] * y[i];
          for (let j = 0; j < l; j++) Gbar[j] += ci * y[j] * Ki[perm[j]];
        }
      }
    }
  }
  let activeSize = l;
  let unshrink = false;

  // side[p]: bit 1 = p is in I_up (α_p can move so that y_p α_p grows), bit 2 = p is in I_low.
  // With it, WSS tests one flag and reads y_p G_p instead of branching on y and status.
  const side = new Uint8Array(l);
  const setSide = (p: number): void => {
    const st = status[p];
    side[p] =
      y[p] === 1
        ? (st !== UPPER ? 1 : 0) | (st !== LOWER ? 2 : 0)
        : (st !== LOWER ? 1 : 0) | (st !== UPPER ? 2 : 0);
  };
  for (let p = 0; p < l; p++) setSide(p);

  const updateStatus = (i: number): void => {
    status[i] = alpha[i] >= C[i] ? UPPER : alpha[i] <= 0 ? LOWER : FREE;
    setSide(i);
  };
  const swap = <T extends { [k: number]: number }>(a: T, i: number, j: number): void => {
    const t = a[i];
    a[i] = a[j];
    a[j] = t;
  };
  const swapIndex = (i: number, j: number): void => {
    swap(y, i, j);
    swap(G, i, j);
    swap(status, i, j);
    swap(alpha, i, j);
    swap(perm, i, j);
    swap(Gbar, i, j);
    swap(C, i, j);
    swap(side, i, j);
  };

  // G_bar changes (one kernel row times a coefficient per bound change) are queued and applied in
  // batches of rows when G_bar is read (reconstructGradient, the output) or the queue is long:
  // every entry gets the same additions in the same order as one pass per change, but G_bar, perm
  // and y are streamed once per batch instead of once per change.
  const batch = Math.max(1, Math.min(8, kernel.capacity));
  let pendRow = new Int32Array(256);
  let pendS = new Float64Array(256);
  let nPend = 0;
  const flushGbar = (): void => {
    const rows: Float32Array[] = [];
    for (let b0 = 0; b0 < nPend; b0 += batch) {
      const b1 = Math.min(nPend, b0 + batch);
      rows.length = 0;
      for (let q = b0; q < b1; q++) rows.push(kernel.row(pendRow[q]));
      const m = b1 - b0;
      for (let k = 0; k < l; k++) {
        const pk = perm[k];
        const yk = y[k];
        let g = Gbar[k];
        for (let q = 0; q < m; q++) g += pendS[b0 + q] * yk * rows[q][pk];
        Gbar[k] = g;
      }
    }
    nPend = 0;
  };
  const queueGbar = (row: number, s: number): void => {
    if (nPend === pendRow.length) {
      if (nPend >= 4096) flushGbar();
      else {
        const r = new Int32Array(2 * nPend);
        r.set(pendRow);
        pendRow = r;
        const c = new Float64Array(2 * nPend);
        c.set(pendS);
        pendS = c;
      }
    }
    pendRow[nPend] = row;
    pendS[nPend++] = s;
  };

  const reconstructGradient = (): void => {
    if (activeSize === l) return;
    flushGbar();
    let nFree = 0;
    for (let j = activeSize; j < l; j++) G[j] = Gbar[j] - 1;
    for (let j = 0; j < activeSize; j++) if (status[j] === FREE) nFree++;
    if (nFree * l > 2 * activeSize * (l - activeSize)) {
      for (let i = activeSize; i < l; i++) {
        const Ki = kernel.row(perm[i]);
        const yi = y[i];
        for (let j = 0; j < activeSize; j++) {
          if (status[j] === FREE) G[i] += alpha[j] * yi * y[j] * Ki[perm[j]];
        }
      }
    } else {
      for (let i = 0; i < activeSize; i++) {
        if (status[i] !== FREE) continue;
        const Ki = kernel.row(perm[i]);
        const ai = alpha[i] * y[i];
        for (let j = activeSize; j < l; j++) G[j] += ai * y[j] * Ki[perm[j]];
      }
    }
  };

  const beShrunk = (i: number, Gmax1: number, Gmax2: number): boolean => {
    if (status[i] === UPPER) return y[i] === 1 ? -G[i] > Gmax1 : -G[i] > Gmax2;
    if (status[i] === LOWER) return y[i] === 1 ? G[i] > Gmax2 : G[i] > Gmax1;
    return false;
  };

  const doShrinking = (): void => {
    let Gmax1 = -Infinity; // max { −y_i G_i | i in I_up }
    let Gmax2 = -Infinity; // max { y_i G_i | i in I_low }
    for (let i = 0; i < activeSize; i++) {
      if (y[i] === 1) {
        if (status[i] !== UPPER && -G[i] >= Gmax1) Gmax1 = -G[i];
        if (status[i] !== LOWER && G[i] >= Gmax2) Gmax2 = G[i];
      } else {
        if (status[i] !== UPPER && -G[i] >= Gmax2) Gmax2 = -G[i];
        if (status[i] !== LOWER && G[i] >= Gmax1) Gmax1 = G[i];
      }
    }
    if (!unshrink && Gmax1 + Gmax2 <= eps * 10) {
      unshrink = true;
      reconstructGradient();
      activeSize = l;
    }
    for (let i = 0; i < activeSize; i++) {
      if (!beShrunk(i, Gmax1, Gmax2)) continue;
      activeSize--;
      while (activeSize > i) {
        if (!beShrunk(activeSize, Gmax1, Gmax2)) {
          swapIndex(i, activeSize);
          break;
        }
        activeSize--;
      }
    }
  };

  // WSS 2 in two passes. The first (i = argmax over I_up of −y_i G_i, last of equal values) is
  // fused into the previous iteration's gradient update, which visits the same positions in the
  // same order with the same comparisons; it runs on its own only after shrinking or a gradient
  // reconstruction (`gmaxFresh` false). That saves one of the three O(active) passes per iteration.
  let Gmax = -Infinity;
  let GmaxIdx = -1;
  let gmaxFresh = false;
  const firstPass = (): void => {
    const n = activeSize;
    let gm = -Infinity;
    let gi = -1;
    for (let t = 0; t < n; t++) {
      // −y_t G_t: −G_t for y = +1, G_t for y = −1 (exact: a product by ±1).
      if ((side[t] & 1) !== 0) {
        const v = -y[t] * G[t];
        if (v >= gm) {
          gm = v;
          gi = t;
        }
      }
    }
    Gmax = gm;
    GmaxIdx = gi;
  };

  // Returns false when optimal (libsvm's select_working_set returning 1).
  let outI = -1;
  let outJ = -1;
  const selectWorkingSet = (): boolean => {
    if (!gmaxFresh) firstPass();
    gmaxFresh = false;
    const gmax = Gmax;
    let Gmax2 = -Infinity;
    let GminIdx = -1;
    let objDiffMin = Infinity;
    const i = GmaxIdx;
    const n = activeSize;
    if (i !== -1) {
      const Ki = kernel.row(perm[i]);
      for (let j = 0; j < n; j++) {
        if ((side[j] & 2) === 0) continue;
        // y_j G_j: libsvm's G_j for y = +1 and −G_j for y = −1 (Gmax − G_j = Gmax + (−G_j) exactly).
        const v = y[j] * G[j];
        if (v >= Gmax2) Gmax2 = v;
        const gradDiff = gmax + v;
        if (gradDiff > 0) {
          // QD_i + QD_j − 2 y_i Q_ij = 2 − 2 K_ij for the RBF kernel (K_ii = 1).
          const quad = 2 - 2 * Ki[perm[j]];
          const objDiff = -(gradDiff * gradDiff) / (quad > 0 ? quad : TAU);
          if (objDiff <= objDiffMin) {
            GminIdx = j;
            objDiffMin = objDiff;
          }
        }
      }
    } else {
      // No i: Gmax2 only, for the stopping test (libsvm reads it the same way).
      for (let j = 0; j < n; j++) {
        if ((side[j] & 2) !== 0 && y[j] * G[j] >= Gmax2) Gmax2 = y[j] * G[j];
      }
    }
    if (gmax + Gmax2 < eps || GminIdx === -1) return false;
    outI = i;
    outJ = GminIdx;
    return true;
  };

  let iter = 0;
  let converged = false;
  let counter = Math.min(l, 1000) + 1;
  while (iter < maxIter) {
    if (opts.onChunk && iter > 0 && iter % chunk === 0) opts.onChunk(iter);
    if (--counter === 0) {
      counter = Math.min(l, 1000);
      if (shrinking) {
        doShrinking();
        gmaxFresh = false;
      }
    }
    if (!selectWorkingSet()) {
      reconstructGradient();
      activeSize = l;
      if (!selectWorkingSet()) {
        converged = true;
        break;
      }
      counter = 1; // shrink at the next iteration
    }
    iter++;
    const i = outI;
    const j = outJ;
    const Ki = kernel.row(perm[i]);
    const Kj = kernel.row(perm[j]); // the cache keeps ≥ 2 rows, so Ki stays valid
    const yi = y[i];
    const yj = y[j];
    const Ci = C[i];
    const Cj = C[j];
    const oldAi = alpha[i];
    const oldAj = alpha[j];
    const Qij = yi * yj * Ki[perm[j]];
    if (yi !== yj) {
      let quad = 2 + 2 * Qij;
      if (quad <= 0) quad = TAU;
      const delta = (-G[i] - G[j]) / quad;
      const diff = alpha[i] - alpha[j];
      alpha[i] += delta;
      alpha[j] += delta;
      if (diff > 0) {
        if (alpha[j] < 0) {
          alpha[j] = 0;
          alpha[i] = diff;
        }
      } else if (alpha[i] < 0) {
        alpha[i] = 0;
        alpha[j] = -diff;
      }
      if (diff > Ci - Cj) {
        if (alpha[i] > Ci) {
          alpha[i] = Ci;
          alpha[j] = Ci - diff;
        }
      } else if (alpha[j] > Cj) {
        alpha[j] = Cj;
        alpha[i] = Cj + diff;
      }
    } else {
      let quad = 2 - 2 * Qij;
      if (quad <= 0) quad = TAU;
      const delta = (G[i] - G[j]) / quad;
      const sum = alpha[i] + alpha[j];
      alpha[i] -= delta;
      alpha[j] += delta;
      if (sum > Ci) {
        if (alpha[i] > Ci) {
          alpha[i] = Ci;
          alpha[j] = sum - Ci;
        }
      } else if (alpha[j] < 0) {
        alpha[j] = 0;
        alpha[i] = sum;
      }
      if (sum > Cj) {
        if (alpha[j] > Cj) {
          alpha[j] = Cj;
          alpha[i] = sum - Cj;
        }
      } else if (alpha[i] < 0) {
        alpha[i] = 0;
        alpha[j] = sum;
      }
    }
    // alpha_status first (it does not depend on G), so that the gradient pass below can also
    // find the next iteration's Gmax.
    const ui = status[i] === UPPER;
    const uj = status[j] === UPPER;
    updateStatus(i);
    updateStatus(j);
    // G_k += Q_ki Δα_i + Q_kj Δα_j over the active set, Q_ki = y_k y_i K_ki; fused with WSS's
    // first pass over the updated G.
    const dAi = (alpha[i] - oldAi) * yi;
    const dAj = (alpha[j] - oldAj) * yj;
    {
      const n = activeSize;
      let gm = -Infinity;
      let gi = -1;
      for (let k = 0; k < n; k++) {
        const pk = perm[k];
        const yk = y[k];
        const g = G[k] + yk * (Ki[pk] * dAi + Kj[pk] * dAj);
        G[k] = g;
        if ((side[k] & 1) !== 0) {
          const v = -yk * g;
          if (v >= gm) {
            gm = v;
            gi = k;
          }
        }
      }
      Gmax = gm;
      GmaxIdx = gi;
      gmaxFresh = true;
    }
    // G_bar_k += ±C_i y_i y_k K_ik when i enters or leaves its upper bound (queued, see flushGbar).
    if (ui !== (status[i] === UPPER)) queueGbar(perm[i], (ui ? -Ci : Ci) * yi);
    if (uj !== (status[j] === UPPER)) queueGbar(perm[j], (uj ? -Cj : Cj) * yj);
  }
  if (!converged && activeSize < l) {
    reconstructGradient();
    activeSize = l;
  }

  // calculate_rho
  let ub = Infinity;
  let lb = -Infinity;
  let nFree = 0;
  let sumFree = 0;
  for (let t = 0; t < l; t++) {
    const yG = y[t] * G[t];
    if (status[t] === UPPER) {
      if (y[t] === -1) ub = Math.min(ub, yG);
      else lb = Math.max(lb, yG);
    } else if (status[t] === LOWER) {
      if (y[t] === 1) ub = Math.min(ub, yG);
      else lb = Math.max(lb, yG);
    } else {
      nFree++;
      sumFree += yG;
    }
  }
  const rho = nFree > 0 ? sumFree / nFree : (ub + lb) / 2;

  flushGbar();
  const alphaOut = new Float64Array(l);
  const GOut = new Float64Array(l);
  const uOut = new Float64Array(l);
  const vOut = new Float64Array(l);
  let objective = 0;
  for (let p = 0; p < l; p++) {
    alphaOut[perm[p]] = alpha[p];
    GOut[perm[p]] = G[p];
    uOut[perm[p]] = y[p] * (G[p] + 1);
    vOut[perm[p]] = y[p] * Gbar[p];
    objective += alpha[p] * (G[p] - 1);
  }
  return {
    alpha: alphaOut,
    G: GOut,
    rho,
    nIter: iter,
    converged,
    objective: objective / 2,
    u: uOut,
    v: vOut,
  };
}
