/**
 * The regularised incomplete beta function I_x(a, b), our own implementation (no dependency):
 * a continued fraction evaluated with the modified Lentz method, on the side where it converges
 * fast (symmetry I_x(a,b) = 1 − I_{1−x}(b,a)), times a prefactor built from an accurate log-beta.
 * Accuracy: about 1e-15 absolute for moderate a, b (tested against mpmath at 50 digits); for very
 * large a, b (hundreds and up) the prefactor exponent loses roughly |a ln x| · 1e-16.
 */

const LN_SQRT_2PI = 0.9189385332046727; // ½ ln(2π)
const EPS = 1e-16;
const TINY = 1e-300;
const MAX_ITER = 100_000;

/** Stirling correction lgamma(x) − [(x−½)ln x − x + ½ln 2π] for x ≥ 10 (error < 1e-17 there). */
function lgammaCorrection(x: number): number {
  const r = 1 / x;
  const r2 = r * r;
  return (
    r *
    (1 / 12 +
      r2 * (-1 / 360 + r2 * (1 / 1260 + r2 * (-1 / 1680 + r2 * (1 / 1188 + r2 * (-691 / 360360 + r2 * (1 / 156)))))))
  );
}

/** Lanczos coefficients (g = 671/128, 14 terms; Numerical Recipes 3rd ed., gammln). */
const LANCZOS = [
  57.1562356658629235, -59.5979603554754912, 14.1360979747417471, -0.491913816097620199, 0.339946499848118887e-4,
  0.465236289270485756e-4, -0.983744753048795646e-4, 0.158088703224912494e-3, -0.210264441724104883e-3,
  0.217439618115212643e-3, -0.16431810653676389e-3, 0.844182239838527433e-4, -0.261908384015814087e-4,
  0.368991826595316234e-5,
];

/** ln Γ(x) for x > 0: Lanczos below 10 (≈1e-15 absolute there), Stirling from 10 up. */
export function logGamma(x: number): number {
  if (!(x > 0) || !Number.isFinite(x)) {
    throw new RangeError(`logGamma: expected a finite number > 0, got ${x}.`);
  }
  if (x >= 10) return (x - 0.5) * Math.log(x) - x + LN_SQRT_2PI + lgammaCorrection(x);
  let tmp = x + 671 / 128;
  tmp = (x + 0.5) * Math.log(tmp) - tmp;
  let ser = 0.999999999999997092;
  let y = x;
  for (const c of LANCZOS) ser += c / ++y;
  return tmp + Math.log((2.5066282746310005 * ser) / x);
}

/** ln B(a, b), arranged (as in R's lbeta) so that the large Stirling terms cancel analytically. */
export function logBeta(a: number, b: number): number {
  const p = Math.min(a, b);
  const q = Math.max(a, b);
  if (p >= 10) {
    const corr = lgammaCorrection(p) + lgammaCorrection(q) - lgammaCorrection(p + q);
    return -0.5 * Math.log(q) + LN_SQRT_2PI + corr + (p - 0.5) * Math.log(p / (p + q)) + q * Math.log1p(-p / (p + q));
  }
  if (q >= 10) {
    const corr = lgammaCorrection(q) - lgammaCorrection(p + q);
    return logGamma(p) + corr + p - p * Math.log(p + q) + (q - 0.5) * Math.log1p(-p / (p + q));
  }
  return logGamma(p) + logGamma(q) - logGamma(p + q);
}

/** Continued fraction for I_x(a,b) (Numerical Recipes' betacf), modified Lentz. Converges for x < (a+1)/(a+b+2). */
function betaContinuedFraction(x: number, a: number, b: number): number {
  const qab = a + b;
  const qap = a + 1;
  const qam = a - 1;
  let c = 1;
  let d = 1 - (qab * x) / qap;
  if (Math.abs(d) < TINY) d = TINY;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= MAX_ITER; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + aa / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (qab + m) * x) / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + aa / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < EPS) return h;
  }
  throw new Error(`regularizedIncompleteBeta: continued fraction did not converge for a=${a}, b=${b}, x=${x}.`);
}

/** I_x(a,b) on the side where the continued fraction converges quickly. */
function lowerSide(x: number, a: number, b: number): number {
  const logFront = a * Math.log(x) + b * Math.log1p(-x) - logBeta(a, b);
  return (Math.exp(logFront) * betaContinuedFraction(x, a, b)) / a;
}

/**
 * Regularised incomplete beta I_x(a, b) = B(x; a, b) / B(a, b), the CDF of Beta(a, b) at x.
 * @param x in [0, 1]
 * @param a shape α > 0 (finite)
 * @param b shape β > 0 (finite)
 */
export function regularizedIncompleteBeta(x: number, a: number, b: number): number {
  if (!(a > 0) || !Number.isFinite(a)) {
    throw new RangeError(`regularizedIncompleteBeta: a must be a finite number > 0, got ${a}.`);
  }
  if (!(b > 0) || !Number.isFinite(b)) {
    throw new RangeError(`regularizedIncompleteBeta: b must be a finite number > 0, got ${b}.`);
  }
  if (!(x >= 0 && x <= 1)) {
    throw new RangeError(`regularizedIncompleteBeta: x must be a number in [0, 1], got ${x}.`);
  }
  if (x === 0) return 0;
  if (x === 1) return 1;
  if (x < (a + 1) / (a + b + 2)) return lowerSide(x, a, b);
  return 1 - lowerSide(1 - x, b, a);
}
