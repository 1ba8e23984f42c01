/**
 * The affine phase of Label Propagation by Chebyshev polynomials of S (the other exact fast path
 * beside the leaps of labelPropagationFast.ts; that file chooses between them).
 *
 * In the scaled coordinates of labelPropagationFast.ts (S symmetric positive semi-definite with
 * spectrum in [0, 1), y_{a+J} = S^J y_a, z_{a+J} = z_a + Σ_{j=1..J} S^j y_a), every quantity the
 * loop needs J steps ahead is a polynomial of S applied to y_a:
 *   g_J(λ) = λ^J            (the difference at step a + J, whose ‖·‖₁ is the stopping test)
 *   h_J(λ) = λ(1 − λ^J)/(1 − λ)  (what F gains over those J steps).
 * On [0, 1] both are approximated to ≈ 1e-17 of their size by Chebyshev series of degree
 * K ≈ √(80·J) (λ^J is that smooth: its Chebyshev coefficients fall off like exp(−k²/2J)), and
 * every such series shares the vectors T_k(2S − I) y_a. So one recurrence of K products S·T
 * (n_u²·k each) yields z and y at a whole grid of candidate steps at once, instead of J products.
 *
 * The search: a pass over the remaining span stores (z, y) at `GRID` evenly spaced steps; the
 * first candidate whose ‖ΔF‖₁ is below tol brackets the stopping step, and the next pass covers
 * only that bracket (span / GRID), until a span of ≤ `WALK` steps is walked one step at a time.
 * As the leaps do, this assumes ‖ΔF‖₁ does not dip below tol and come back inside one bracket.
 * When no candidate is below tol, the loop ran to max_iter and the last candidate is F there.
 *
 * Cost ≈ √(80·J) + √(80·J/GRID) + … + WALK products of n_u²·k, against J for the direct loop
 * and ≈ 2·log₂J·n_u/(2k) for the leaps: the better choice once n_u is a few thousand rows.
 */

/** Candidate steps per pass. */
const GRID = 32;
/** A span this short is walked one step at a time. */
const WALK = 40;
/** Relative accuracy of the Chebyshev series (well under float64 rounding of the results). */
const SERIES_EPS = 1e-17;

export interface ChebyshevInput {
  /** The symmetric iteration matrix S (m×m, row-major). */
  S: Float64Array;
  m: number;
  k: number;
  /** b = s^½ · G_ul Y_l / r: z ← S z + b is one step of the loop. */
  b: Float64Array;
  /** z and y = z − z_prev at step `step`. */
  z: Float64Array;
  y: Float64Array;
  step: number;
  maxIter: number;
  tol: number;
  /** ‖ΔF‖₁ from a scaled difference y. */
  l1: (y: Float64Array) => number;
  /** out (m×c) = S · X (m×c). */
  mul: (S: Float64Array, m: number, X: Float64Array, c: number, out: Float64Array) => void;
  tick?: (step: number, what: string) => Promise<void>;
}

export interface ChebyshevResult {
  z: Float64Array;
  nIter: number;
  converged: boolean;
  /** Recurrence passes, products S·T in them, and single steps walked. */
  passes: number;
  products: number;
  singleSteps: number;
}

/** Degree of the series that keeps λ^J (and h_J) to SERIES_EPS on [0, 1]. */
export function chebyshevDegree(J: number): number {
  return Math.ceil(Math.sqrt(2 * J * Math.log(2 / SERIES_EPS))) + 8;
}

/**
 * Chebyshev coefficients (in u = 2λ − 1) of λ^J and of h_J(λ) = Σ_{j=1..J} λ^j for each J, by
 * interpolation at the N = degree + 1 Chebyshev nodes (compensated sums: h reaches J at λ = 1).
 */
export function seriesCoefficients(
  Js: readonly number[],
  degree: number,
): { g: Float64Array[]; h: Float64Array[] } {
  const N = degree + 1;
  const theta = Float64Array.from({ length: N }, (_, j) => (Math.PI * (j + 0.5)) / N);
  const g: Float64Array[] = [];
  const h: Float64Array[] = [];
  const gv = new Float64Array(N);
  const hv = new Float64Array(N);
  const cosTable = new Float64Array(N * N); // cos(k·θ_j), row k
  for (let kk = 0; kk < N; kk++) for (let j = 0; j < N; j++) cosTable[kk * N + j] = Math.cos(kk * theta[j]);
  for (const J of Js) {
    for (let j = 0; j < N; j++) {
      // λ = cos²(θ/2) and 1 − λ = sin²(θ/2), both without cancellation.
      const c = Math.cos(theta[j] / 2);
      const s = Math.sin(theta[j] / 2);
      const lam = c * c;
      const oneMinus = s * s;
      const logLam = Math.log1p(-oneMinus);
      gv[j] = Math.exp(J * logLam);
      hv[j] = (lam * -Math.expm1(J * logLam)) / oneMinus;
    }
    const cg = new Float64Array(N);
    const ch = new Float64Array(N);
    for (let kk = 0; kk < N; kk++) {
      cg[kk] = (compensatedDot(cosTable, kk * N, gv, N) * 2) / N;
      ch[kk] = (compensatedDot(cosTable, kk * N, hv, N) * 2) / N;
    }
    cg[0] /= 2;
    ch[0] /= 2;
    g.push(cg);
    h.push(ch);
  }
  return { g, h };
}

/** Σ_j a[off + j]·v[j], Neumaier-compensated. */
function compensatedDot(a: Float64Array, off: number, v: Float64Array, n: number): number {
  let sum = 0;
  let comp = 0;
  for (let j = 0; j < n; j++) {
    const term = a[off + j] * v[j];
    const t = sum + term;
    comp += Math.abs(sum) >= Math.abs(term) ? sum - t + term : term - t + sum;
    sum = t;
  }
  return sum + comp;
}

/** The candidate steps of one pass over a span: GRID evenly spaced, the last one = span. */
function candidateSteps(span: number): number[] {
  const out: number[] = [];
  for (let i = 1; i <= GRID; i++) {
    const J = Math.ceil((i * span) / GRID);
    if (J > (out.at(-1) ?? 0)) out.push(J);
  }
  return out;
}

export async function propagateChebyshev(input: ChebyshevInput): Promise<ChebyshevResult> {
  const { S, m, k, b, maxIter, tol, l1, mul, tick } = input;
  const size = m * k;
  let z = input.z;
  let y = input.y;
  let a = input.step;
  // Steps at and beyond `hi` need no look: ‖ΔF‖₁ is below tol there (or hi = maxIter).
  let hi = maxIter;
  let passes = 0;
  let products = 0;
  let singleSteps = 0;
  const prod = new Float64Array(size);
  for (;;) {
    if (l1(y) < tol) return { z, nIter: a, converged: true, passes, products, singleSteps };
    if (a >= maxIter) return { z, nIter: maxIter, converged: false, passes, products, singleSteps };
    const span = hi - a;
    if (span <= WALK) {
      // One step of the loop: z' = S z + b, y' = z' − z.
      mul(S, m, z, k, prod);
      const zNew = new Float64Array(size);
      const yNew = new Float64Array(size);
      for (let i = 0; i < size; i++) {
        zNew[i] = prod[i] + b[i];
        yNew[i] = zNew[i] - z[i];
      }
      z = zNew;
      y = yNew;
      a++;
      singleSteps++;
      if (a === hi && hi < maxIter) hi = maxIter; // re-checked at the top; a near tie walks on
      if (tick && singleSteps % 16 === 0) await tick(a, 'final window');
      continue;
    }
    // One pass: T_0 = y, T_1 = (2S − I) y, T_{j+1} = 2(2S − I) T_j − T_{j−1}; every candidate
    // accumulates its two series from the shared T_j.
    const Js = candidateSteps(span);
    const degree = chebyshevDegree(span);
    const { g, h } = seriesCoefficients(Js, degree);
    const ys = Js.map(() => new Float64Array(size));
    const zs = Js.map(() => Float64Array.from(z));
    const accumulate = (T: Float64Array, j: number) => {
      for (let c = 0; c < Js.length; c++) {
        const cg = g[c][j];
        const ch = h[c][j];
        const yc = ys[c];
        const zc = zs[c];
        for (let i = 0; i < size; i++) {
          yc[i] += cg * T[i];
          zc[i] += ch * T[i];
        }
      }
    };
    let prev = Float64Array.from(y);
    accumulate(prev, 0);
    mul(S, m, prev, k, prod);
    products++;
    let cur = new Float64Array(size);
    for (let i = 0; i < size; i++) cur[i] = 2 * prod[i] - prev[i];
    accumulate(cur, 1);
    for (let j = 2; j <= degree; j++) {
      mul(S, m, cur, k, prod);
      products++;
      const next = prev; // reuse: T_{j+1} overwrites T_{j−1}
      for (let i = 0; i < size; i++) next[i] = 4 * prod[i] - 2 * cur[i] - prev[i];
      prev = cur;
      cur = next;
      accumulate(cur, j);
      if (tick && j % 8 === 0) await tick(a, `series ${j}/${degree} over ${span} steps`);
    }
    passes++;
    // The first candidate below tol (before max_iter) brackets the stopping step.
    let found = -1;
    for (let c = 0; c < Js.length; c++) {
      if (a + Js[c] >= maxIter) break;
      if (l1(ys[c]) < tol) {
        found = c;
        break;
      }
    }
    if (found < 0) {
      const last = Js.length - 1;
      if (a + Js[last] >= maxIter)
        return { z: zs[last], nIter: maxIter, converged: false, passes, products, singleSteps };
      // hi < maxIter but the re-computed end is not below tol (a near tie): go on from there.
      z = zs[last];
      y = ys[last];
      a += Js[last];
      hi = maxIter;
      continue;
    }
    hi = a + Js[found];
    if (found > 0) {
      z = zs[found - 1];
      y = ys[found - 1];
      a += Js[found - 1];
    }
  }
}
