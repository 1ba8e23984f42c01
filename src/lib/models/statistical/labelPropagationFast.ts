/**
 * Exact fast Label Propagation (float64): the same stopping step and the same F as scikit-learn's
 * loop, with far fewer dense products.
 *
 * Once every row of F carries mass (normally after one step), each U row's normaliser equals the
 * row sum r_i of the graph, so the clamped update is affine: F_u ← Q F_u + B with Q = G_uu / r and
 * B = G_ul Y_l / r. Q = diag(s)⁻¹ W_uu with s = r·d is similar to the symmetric S = s^-½ W_uu s^-½,
 * so we run in scaled coordinates z = s^½ F_u, b = s^½ B, y = s^½ ΔF_u:
 *   z ← S z + b,   y_{m+1} = S y_m,   ‖ΔF_m‖₁ = Σ |y_m| / s^½.
 * Leaps of g = 2^p steps use S^g (built by symmetric squaring) and c_g = Σ_{i<g} S^i b:
 *   [z, y] ← S^g [z, y] + [c_g, 0]. When a leap lands below tol, the first crossing inside it is
 * found by bisection down the stored powers S^(2^q) and a final single step (or, when the powers do
 * not fit `powerBudgetBytes`, by walking the window one step at a time). This assumes ‖ΔF‖₁ does not
 * dip below tol and come back inside one leap (it decays with the spectrum of the PSD matrix S; the
 * tests compare every path with the direct loop). Squaring is adaptive: it happens once the leaps
 * at the current level have cost as much as a squaring.
 *
 * The products run on WebAssembly SIMD (f64Kernels.ts) where it exists, else in the JS loops below.
 *
 * Cost: ≈ log₂g symmetric squarings (n_u³/2 each) + n_iter/g + log₂g products n_u²·2k, instead
 * of n_iter products n_u²·k. The direct loop in graphBase.ts stays the reference path.
 */

import { f64Kernels } from './f64Kernels.ts';
import { chebyshevDegree, propagateChebyshev } from './labelPropagationChebyshev.ts';

export interface AffineLpInput {
  /** The iteration matrix G (n×n, row-major; G = D⁻¹W) — read only. */
  G: Float64Array;
  /** Row sums of W with self-loops (the divisor G was built with), length n. */
  deg: Float64Array;
  n: number;
  nl: number;
  k: number;
  /** F at step `step` (n×k, rows normalised, L rows one-hot); every U row carries mass. */
  F: Float64Array;
  step: number;
  maxIter: number;
  tol: number;
  /** Memory for the stored powers S^(2^p) (bisection); default 512 MiB. */
  powerBudgetBytes?: number;
  /** Called between heavy operations (abort checks, progress, event-loop yields). */
  tick?: (step: number, what: string) => Promise<void>;
  /** false: the plain JS products (reference for the SIMD kernels); default true where available. */
  simd?: boolean;
  /**
   * How to cross the affine phase: 'leaps' (powers of S by squaring), 'chebyshev' (series in S,
   * labelPropagationChebyshev.ts) or 'auto' (the cheaper by the cost estimate; the default).
   */
  method?: 'auto' | 'leaps' | 'chebyshev';
}

export interface AffineLpResult {
  /** F at the stopping step (n×k, before the final row normalisation). */
  F: Float64Array;
  nIter: number;
  converged: boolean;
  squarings: number;
  leaps: number;
  singleSteps: number;
  /** Largest leap length used (g). */
  maxLeap: number;
  /** The path taken, and for 'chebyshev' its passes and products S·T. */
  method: 'leaps' | 'chebyshev';
  passes: number;
  products: number;
}

/**
 * Product-equivalents (n_u²·k multiply-adds each) each path is expected to need for J steps. The
 * leaps square until a squaring (n_u/(2k) + 1) costs as much as the leaps it saves: about
 * log₂(J / that) squarings and as much again in leaps. The series needs √(80·J) products in the
 * first pass and √(80·J/32) in the next, each ≈ 1.3× a leap's per multiply-add (thin X, the
 * candidates' sums). Measured on letter distribution · 5 · t0 (n_u 2 012, J 5 003): leaps 14 s
 * CPU, series 40 s; the series wins from n_u ≈ 5 000 on, and needs no stored powers.
 */
export function affineCosts(m: number, k: number, J: number): { leaps: number; chebyshev: number } {
  const square = m / (2 * k) + 1;
  return {
    leaps: 2 * Math.max(1, Math.log2(Math.max(2, J) / square)) * square,
    chebyshev: 1.3 * (chebyshevDegree(J) + chebyshevDegree(Math.ceil(J / 32))) + 40,
  };
}

/** True when the affine form is exact from F on: every U row of F carries mass. */
export function affineReady(F: Float64Array, n: number, nl: number, k: number): boolean {
  for (let i = nl; i < n; i++) {
    let s = 0;
    for (let c = 0; c < k; c++) s += F[i * k + c];
    if (!(s > 0)) return false;
  }
  return true;
}

/**
 * C = A·A for a symmetric A (m×m): C_ij = Σ_l A_il A_jl (row by row), lower triangle computed in
 * 2×4 register blocks, then mirrored. Async: yields through `tick` between row bands.
 */
export async function symSquareJs(
  A: Float64Array,
  m: number,
  tick?: () => Promise<void>,
): Promise<Float64Array> {
  const C = new Float64Array(m * m);
  const band = Math.max(8, Math.floor(2_000_000 / Math.max(1, m)) & ~1);
  for (let i0 = 0; i0 < m; i0 += band) {
    const i1 = Math.min(m, i0 + band);
    let i = i0;
    for (; i + 2 <= i1; i += 2) {
      const a0 = i * m;
      const a1 = a0 + m;
      let j = 0;
      for (; j + 4 <= i + 2; j += 4) {
        const b0 = j * m;
        const b1 = b0 + m;
        const b2 = b1 + m;
        const b3 = b2 + m;
        let s00 = 0,
          s01 = 0,
          s02 = 0,
          s03 = 0,
          s10 = 0,
          s11 = 0,
          s12 = 0,
          s13 = 0;
        for (let l = 0; l < m; l++) {
          const x0 = A[a0 + l];
          const x1 = A[a1 + l];
          const y0 = A[b0 + l];
          const y1 = A[b1 + l];
          const y2 = A[b2 + l];
          const y3 = A[b3 + l];
          s00 += x0 * y0;
          s01 += x0 * y1;
          s02 += x0 * y2;
          s03 += x0 * y3;
          s10 += x1 * y0;
          s11 += x1 * y1;
          s12 += x1 * y2;
          s13 += x1 * y3;
        }
        C[a0 + j] = s00;
        C[a0 + j + 1] = s01;
        C[a0 + j + 2] = s02;
        C[a0 + j + 3] = s03;
        C[a1 + j] = s10;
        C[a1 + j + 1] = s11;
        C[a1 + j + 2] = s12;
        C[a1 + j + 3] = s13;
      }
      for (; j < i + 2; j++) {
        const b0 = j * m;
        let s0 = 0;
        let s1 = 0;
        for (let l = 0; l < m; l++) {
          const y = A[b0 + l];
          s0 += A[a0 + l] * y;
          s1 += A[a1 + l] * y;
        }
        C[a0 + j] = s0;
        C[a1 + j] = s1;
      }
    }
    for (; i < i1; i++) {
      const a0 = i * m;
      for (let j = 0; j <= i; j++) {
        const b0 = j * m;
        let s = 0;
        for (let l = 0; l < m; l++) s += A[a0 + l] * A[b0 + l];
        C[a0 + j] = s;
      }
    }
    if (tick) await tick();
  }
  // Mirror the lower triangle (the blocks above wrote a few entries past the diagonal: same values).
  for (let i = 0; i < m; i++) for (let j = i + 1; j < m; j++) C[i * m + j] = C[j * m + i];
  return C;
}

/**
 * out (m×c) = A (m×m) · X (m×c), row-major. X is transposed first; then 2 rows × 4 columns per
 * register block (8 accumulators, 6 loads per step): ≈ 1.5× matMulGF64 for the leaps' c = 2k.
 */
export function mulSquareJs(A: Float64Array, m: number, X: Float64Array, c: number, out: Float64Array): void {
  const Xt = new Float64Array(m * c);
  for (let l = 0; l < m; l++) for (let j = 0; j < c; j++) Xt[j * m + l] = X[l * c + j];
  let i = 0;
  for (; i + 2 <= m; i += 2) {
    const a0 = i * m;
    const a1 = a0 + m;
    let j = 0;
    for (; j + 4 <= c; j += 4) {
      const b0 = j * m;
      const b1 = b0 + m;
      const b2 = b1 + m;
      const b3 = b2 + m;
      let s00 = 0,
        s01 = 0,
        s02 = 0,
        s03 = 0,
        s10 = 0,
        s11 = 0,
        s12 = 0,
        s13 = 0;
      for (let l = 0; l < m; l++) {
        const x0 = A[a0 + l];
        const x1 = A[a1 + l];
        const y0 = Xt[b0 + l];
        const y1 = Xt[b1 + l];
        const y2 = Xt[b2 + l];
        const y3 = Xt[b3 + l];
        s00 += x0 * y0;
        s01 += x0 * y1;
        s02 += x0 * y2;
        s03 += x0 * y3;
        s10 += x1 * y0;
        s11 += x1 * y1;
        s12 += x1 * y2;
        s13 += x1 * y3;
      }
      out[i * c + j] = s00;
      out[i * c + j + 1] = s01;
      out[i * c + j + 2] = s02;
      out[i * c + j + 3] = s03;
      out[(i + 1) * c + j] = s10;
      out[(i + 1) * c + j + 1] = s11;
      out[(i + 1) * c + j + 2] = s12;
      out[(i + 1) * c + j + 3] = s13;
    }
    for (; j < c; j++) {
      const b0 = j * m;
      let s0 = 0;
      let s1 = 0;
      for (let l = 0; l < m; l++) {
        s0 += A[a0 + l] * Xt[b0 + l];
        s1 += A[a1 + l] * Xt[b0 + l];
      }
      out[i * c + j] = s0;
      out[(i + 1) * c + j] = s1;
    }
  }
  for (; i < m; i++) {
    const a0 = i * m;
    for (let j = 0; j < c; j++) {
      const b0 = j * m;
      let s = 0;
      for (let l = 0; l < m; l++) s += A[a0 + l] * Xt[b0 + l];
      out[i * c + j] = s;
    }
  }
}

/** ‖ΔF‖₁ from the scaled difference y (m×k) and 1/√s. */
function l1Unscaled(y: Float64Array, invRoot: Float64Array, m: number, k: number): number {
  let total = 0;
  for (let i = 0; i < m; i++) {
    let s = 0;
    for (let c = 0; c < k; c++) s += Math.abs(y[i * k + c]);
    total += s * invRoot[i];
  }
  return total;
}

/** out (m×2k) = [z | y] side by side, for one product with both. */
function pack(z: Float64Array, y: Float64Array, m: number, k: number, out: Float64Array): void {
  const k2 = 2 * k;
  for (let i = 0; i < m; i++) {
    for (let c = 0; c < k; c++) {
      out[i * k2 + c] = z[i * k + c];
      out[i * k2 + k + c] = y[i * k + c];
    }
  }
}

export async function propagateAffine(input: AffineLpInput): Promise<AffineLpResult> {
  const { G, deg, n, nl, k, maxIter, tol, tick } = input;
  const m = n - nl;
  const kernels = input.simd === false ? null : f64Kernels();
  const symSquare = kernels ? kernels.symSquare.bind(kernels) : symSquareJs;
  const mulSquare = kernels ? kernels.mulSquare.bind(kernels) : mulSquareJs;
  // r_i (row sums of G over all columns), s = r·d, and the symmetric S = s^-½ W_uu s^-½ with
  // W_ij = G_ij d_i: S_ij = G_ij d_i / √(s_i s_j), symmetrised by averaging the two halves.
  const root = new Float64Array(m);
  const invRoot = new Float64Array(m);
  const r = new Float64Array(m);
  for (let i = 0; i < m; i++) {
    const base = (nl + i) * n;
    let s = 0;
    for (let j = 0; j < n; j++) s += G[base + j];
    r[i] = s;
    root[i] = Math.sqrt(s * deg[nl + i]);
    invRoot[i] = 1 / root[i];
  }
  const S = new Float64Array(m * m);
  for (let i = 0; i < m; i++) {
    const gi = (nl + i) * n + nl;
    const wi = deg[nl + i];
    for (let j = 0; j <= i; j++) {
      const a = (G[gi + j] * wi) / (root[i] * root[j]);
      const b = (G[(nl + j) * n + nl + i] * deg[nl + j]) / (root[j] * root[i]);
      const v = 0.5 * (a + b);
      S[i * m + j] = v;
      S[j * m + i] = v;
    }
  }
  // b = s^½ · G_ul Y_l / r (Y_l one-hot from F's L rows).
  const b = new Float64Array(m * k);
  for (let i = 0; i < m; i++) {
    const base = (nl + i) * n;
    for (let j = 0; j < nl; j++) {
      const g = G[base + j];
      if (g === 0) continue;
      for (let c = 0; c < k; c++) b[i * k + c] += g * input.F[j * k + c];
    }
    const f = root[i] / r[i];
    for (let c = 0; c < k; c++) b[i * k + c] *= f;
  }
  let z: Float64Array = new Float64Array(m * k);
  for (let i = 0; i < m; i++) for (let c = 0; c < k; c++) z[i * k + c] = input.F[(nl + i) * k + c] * root[i];

  const Q1 = S; // S itself stays for single steps
  const tmp = new Float64Array(m * k);
  let g = 1;
  const singleStep = (zIn: Float64Array, yOut: Float64Array): Float64Array => {
    // z' = S z + b; y = z' − z.
    const zNew = new Float64Array(m * k);
    mulSquare(Q1, m, zIn, k, zNew);
    for (let i = 0; i < zNew.length; i++) {
      zNew[i] += b[i];
      yOut[i] = zNew[i] - zIn[i];
    }
    return zNew;
  };
  const result = (zOut: Float64Array, nIter: number, converged: boolean): AffineLpResult => {
    const F = Float64Array.from(input.F);
    for (let i = 0; i < m; i++)
      for (let c = 0; c < k; c++) F[(nl + i) * k + c] = zOut[i * k + c] * invRoot[i];
    return {
      F,
      nIter,
      converged,
      squarings,
      leaps,
      singleSteps,
      maxLeap: g,
      method: 'leaps',
      passes: 0,
      products: 0,
    };
  };

  let squarings = 0;
  let leaps = 0;
  let singleSteps = 0;
  let a = input.step;
  let y: Float64Array = new Float64Array(m * k);
  z = singleStep(z, y);
  singleSteps++;
  a++;
  if (a >= maxIter) return result(z, maxIter, false);

  const costs = affineCosts(m, k, maxIter - a);
  // The leaps hold S, the current power and its square (and a copy for the kernels): past the
  // memory budget only the series fits.
  const leapsFit = 4 * m * m * 8 <= (input.powerBudgetBytes ?? 512 * 1024 * 1024);
  const method =
    input.method === 'auto' || !input.method
      ? costs.chebyshev < costs.leaps || !leapsFit
        ? 'chebyshev'
        : 'leaps'
      : input.method;
  if (method === 'chebyshev') {
    const res = await propagateChebyshev({
      S,
      m,
      k,
      b,
      z,
      y,
      step: a,
      maxIter,
      tol,
      mul: mulSquare,
      tick,
      l1: (v) => l1Unscaled(v, invRoot, m, k),
    });
    return {
      ...result(res.z, res.nIter, res.converged),
      method,
      passes: res.passes,
      products: res.products,
      singleSteps: singleSteps + res.singleSteps,
      maxLeap: 0,
    };
  }

  // Leap levels: powers[p] = S^(2^p), cs[p] = Σ_{i<2^p} S^i b. While every level fits the memory
  // budget, a crossing inside a leap is located by bisection down the levels; otherwise only the
  // top level is kept and the window is walked one step at a time (then g stays ≤ n_u/k).
  const powers: (Float64Array | null)[] = [S];
  const cs: Float64Array[] = [Float64Array.from(b)];
  let level = 0;
  let allLevels = true;
  const budget = input.powerBudgetBytes ?? 512 * 1024 * 1024;
  // Costs in units of one product n_u²·k: a leap is 2, a squaring ≈ n_u/(2k) + 1.
  const squareCost = m / (2 * k) + 1;
  const walkMax = Math.max(1, 2 ** Math.floor(Math.log2(Math.max(1, m / k))));
  let spentAtLevel = 0;
  const packed = new Float64Array(m * 2 * k);
  const prod = new Float64Array(m * 2 * k);
  const leap = (q: number, zIn: Float64Array, yIn: Float64Array): [Float64Array, Float64Array] => {
    pack(zIn, yIn, m, k, packed);
    mulSquare(powers[q]!, m, packed, 2 * k, prod);
    const z2 = new Float64Array(m * k);
    const y2 = new Float64Array(m * k);
    const k2 = 2 * k;
    const cq = cs[q];
    for (let i = 0; i < m; i++) {
      for (let cc = 0; cc < k; cc++) {
        z2[i * k + cc] = prod[i * k2 + cc] + cq[i * k + cc];
        y2[i * k + cc] = prod[i * k2 + k + cc];
      }
    }
    leaps++;
    return [z2, y2];
  };
  // Per-step log decay of ‖ΔF‖₁, measured across leaps: it predicts the steps still to go, and a
  // squaring pays off when those would take more than `squareCost` leaps at the current length.
  let rate = 0;
  let lastNorm = -1;
  let lastStep = -1;
  let turns = 0;
  for (;;) {
    // Leaps, bisection and single steps alike: give an abort a chance every few turns.
    if (tick && (++turns & 7) === 0) await tick(a, 'leaping');
    // Check at step a (a ≤ maxIter − 1 here), as the loop does at the top of iteration a.
    const norm = l1Unscaled(y, invRoot, m, k);
    if (norm < tol) return result(z, a, true);
    if (lastNorm > 0 && a > lastStep) rate = Math.log(norm / lastNorm) / (a - lastStep);
    lastNorm = norm;
    lastStep = a;
    const togo = rate < 0 ? Math.min(maxIter - a, Math.log(tol / norm) / rate) : maxIter - a;
    const worth = spentAtLevel >= squareCost || togo / g > squareCost;
    if ((allLevels || g < walkMax) && worth && maxIter - a >= 4 * g) {
      // c_{2g} = c_g + S^g c_g, then S^{2g} = (S^g)².
      const P = powers[level]!;
      mulSquare(P, m, cs[level], k, tmp);
      const c2 = Float64Array.from(cs[level]);
      for (let i = 0; i < c2.length; i++) c2[i] += tmp[i];
      if (tick) await tick(a, `squaring to ${2 * g} steps per leap`);
      const P2 = await symSquare(P, m, tick ? () => tick(a, 'squaring') : undefined);
      if (allLevels && (level + 2) * m * m * 8 > budget) {
        allLevels = false;
        for (let q = 0; q <= level; q++) if (q > 0) powers[q] = null; // S itself stays for single steps
      } else if (!allLevels && level > 0) powers[level] = null;
      level++;
      powers[level] = P2;
      cs[level] = c2;
      g *= 2;
      squarings++;
      spentAtLevel = 0;
    }
    if (a + g > maxIter) {
      // Not enough steps left for a leap: single steps to the end.
      z = singleStep(z, y);
      singleSteps++;
      a++;
      if (a >= maxIter) return result(z, maxIter, false);
      continue;
    }
    const [z2, y2] = leap(level, z, y);
    spentAtLevel += 2;
    if (a + g === maxIter) return result(z2, maxIter, false);
    if (g > 1 && l1Unscaled(y2, invRoot, m, k) < tol) {
      // The first crossing lies in (a, a + g]. Bisection down the stored levels: take each smaller
      // leap whose landing norm is still ≥ tol; the crossing is then the next single step.
      if (allLevels) {
        for (let q = level - 1; q >= 1; q--) {
          const [z3, y3] = leap(q, z, y);
          if (l1Unscaled(y3, invRoot, m, k) >= tol) {
            z = z3;
            y = y3;
            a += 2 ** q;
          }
        }
      }
      // Walk the rest of the window one step at a time (the whole window without bisection).
      for (;;) {
        z = singleStep(z, y);
        singleSteps++;
        a++;
        if (a >= maxIter) return result(z, maxIter, false);
        if (l1Unscaled(y, invRoot, m, k) < tol) return result(z, a, true);
        if (tick && singleSteps % 16 === 0) await tick(a, 'final window');
      }
    }
    z = z2;
    y = y2;
    a += g;
    if (tick && leaps % 8 === 0) await tick(a, `leaps of ${g}`);
  }
}
