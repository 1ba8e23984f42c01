/**
 * The reproduction rule: when one of our curves agrees with a published one, and when a panel is
 * "reproduced". Written once here; the Results page's badge and `rac-bench published` both use it
 * and print its words (RULE_TEXT, EXACT_TEXT, comparisonSummary). Pure.
 *
 * Both sides are means over seeds, so the rule compares means with the noise *of means*, not with
 * the spread of single seeds (the old max(2·std, 2 pts) let a curve 10–13 points low pass):
 *
 * - A point agrees when |Δ| ≤ 2·√(s_pub²/n_pub + s_ours²/n_ours) + 1e-6. s is the sample std of the
 *   seeds; both sides record the population std σ (÷ n), so s²/n = σ²/(n − 1). One seed of ours has
 *   no spread of its own: the published seed spread stands in for it (the same protocol should
 *   scatter alike). The floor 1e-6 is the precision of the published files (9 printed digits) and
 *   of our float sums: below it two means are the same number, so two std-0 points that print
 *   alike agree, and any visible difference between them does not.
 * - A curve leans when a two-sided exact sign test over its non-zero differences (|Δ| > 1e-6)
 *   rejects at the 5 % level: 6 of 6 on one side does (p = 0.031), 5 of 5 cannot (p = 0.0625).
 *   A baseline's curve is one fit drawn flat, so it gives one sign (its first compared point).
 * - A panel is reproduced when every compared point agrees and no curve leans.
 * - Exactly equal: with our seeds equal to the original's, mean and std agree to 1e-6. The
 *   original's per-seed accuracies are not published, so equal mean and std is all that can be
 *   checked.
 *
 * @example
 * const r = reproduction(curve, series, table);        // one curve against its published series
 * const pc = comparePanel(panel.curves, table);        // the panel's verdict, with its caveats
 * comparisonHeadline(pc);                              // "✓ Reproduced" / "✗ Not reproduced" / …
 */
import { T_GRID } from '../types.ts';

/** Multiple of the standard error of the difference of two means. */
export const AGREEMENT_Z = 2;
/** Added to every tolerance: the precision of the published numbers (see the module comment). */
export const AGREEMENT_FLOOR = 1e-6;
/** Level of the two-sided sign test per curve. */
export const SIGN_TEST_ALPHA = 0.05;
/** Mean and std both within this are "exactly equal" (with the same seeds). */
export const EXACT_TOL = 1e-6;

/** The rule in words, as the badge and the CLI print it. */
export const RULE_TEXT =
  'A point agrees when |Δ| ≤ 2·√(s_pub²/n_pub + s_ours²/n_ours) + 1e-6 (s: the seeds’ sample std, ' +
  's² = σ²·n/(n−1) from the population std σ; one seed of ours borrows the published spread). ' +
  'A panel is reproduced when every point agrees and no curve leans to one side: a two-sided sign ' +
  'test per curve over its non-zero differences (a baseline counts once) must not reject at the 5 % ' +
  'level (6 of 6 on one side rejects, p = 0.031).';

/** What "exactly equal" means, as the badge and the CLI print it. */
export const EXACT_TEXT =
  'Exactly equal: mean and std agree to 1e-6, counted only when our seeds are the original’s ' +
  '(its per-seed accuracies are not published, so equal mean and std is all that can be checked).';

/** One published series, as the comparison reads it. */
export interface SeriesLike {
  mean: readonly (number | null)[];
  std: readonly (number | null)[];
  defects: readonly { t: number | 'all'; reason: string }[];
}

/** One of our curves, as the comparison reads it (a CurveRecord is one). */
export interface OursLike {
  mean: readonly number[];
  std: readonly number[];
  /** Seeds averaged per t; absent: `seeds.length` everywhere. */
  nSeeds?: readonly number[];
  /** Seeds with a score, ascending. */
  seeds?: readonly number[];
  /** A supervised baseline drawn flat (one fit): one sign in the sign test. */
  baseline?: boolean;
}

export interface PointComparison {
  tIndex: number;
  ours: number;
  oursStd: number;
  nOurs: number;
  published: number;
  publishedStd: number;
  nPublished: number;
  /** ours − published (accuracy, 0..1). */
  diff: number;
  /** 2·√(s_pub²/n_pub + s_ours²/n_ours) + floor. */
  tolerance: number;
  agrees: boolean;
  /** Mean and std to 1e-6; null when our seeds are not the original's (then unknowable). */
  exact: boolean | null;
}

export interface SignTest {
  above: number;
  below: number;
  /** Two-sided exact binomial p of the split (1 when there are no non-zero differences). */
  p: number;
  leans: boolean;
}

export interface Reproduction {
  /** Points both sides have, known defects left out. */
  points: number;
  agree: number;
  /** Exactly equal points; null when our seeds are not the original's. */
  exact: number | null;
  /** Mean of ours − published over the points (NaN when there are none). */
  meanDiff: number;
  defective: number;
  defectReasons: string[];
  sign: SignTest;
  /** Our seeds per point, smallest and largest (0 when no point). */
  nOurs: [number, number];
  nPublished: number;
  detail: PointComparison[];
}

/** Variance of a mean of n seeds from their population std σ: s²/n = σ²/(n − 1). */
function meanVariance(sigma: number, n: number): number {
  return (sigma * sigma) / (n - 1);
}

/** The agreement tolerance of one point (see the module comment). */
export function agreementTolerance(p: {
  publishedStd: number;
  nPublished: number;
  oursStd: number;
  nOurs: number;
}): number {
  if (!(p.nPublished >= 2))
    throw new RangeError(`agreementTolerance: the published side needs ≥ 2 seeds, got ${p.nPublished}.`);
  const pub = meanVariance(p.publishedStd, p.nPublished);
  const ours =
    p.nOurs >= 2
      ? meanVariance(p.oursStd, p.nOurs)
      : // One seed has no spread: the published seed variance s² stands in for it (n = 1).
        pub * p.nPublished;
  return AGREEMENT_Z * Math.sqrt(pub + ours) + AGREEMENT_FLOOR;
}

/**
 * The two-sided exact sign test of a list of differences: ties (|d| ≤ the floor) are dropped, as
 * the test prescribes; p = min(1, 2·P(X ≤ min(above, below))) with X ~ Binomial(n, ½).
 */
export function signTest(diffs: readonly number[], alpha = SIGN_TEST_ALPHA): SignTest {
  const above = diffs.filter((d) => d > AGREEMENT_FLOOR).length;
  const below = diffs.filter((d) => d < -AGREEMENT_FLOOR).length;
  const n = above + below;
  const k = Math.min(above, below);
  let term = 2 ** -n; // C(n, 0)/2ⁿ
  let tail = term;
  for (let i = 0; i < k; i++) {
    term = (term * (n - i)) / (i + 1);
    tail += term;
  }
  const p = n === 0 ? 1 : Math.min(1, 2 * tail);
  return { above, below, p, leans: p <= alpha };
}

function sameSeeds(ours: readonly number[] | undefined, theirs: readonly number[]): boolean {
  return !!ours && ours.length === theirs.length && ours.every((s, i) => s === theirs[i]);
}

const isDefectAt = (s: SeriesLike, i: number) => s.defects.some((d) => d.t === 'all' || d.t === T_GRID[i]);

/**
 * One of our curves against its published series, point by point (a baseline's flattened curve
 * too: the original refitted it at every t on the same labeled rows).
 * @param publishedSeeds the original's seeds behind every published mean and std
 */
export function reproduction(
  ours: OursLike,
  ref: SeriesLike,
  publishedSeeds: readonly number[],
): Reproduction {
  const nPublished = publishedSeeds.length;
  const same = sameSeeds(ours.seeds, publishedSeeds);
  const detail: PointComparison[] = [];
  let defective = 0;
  for (let i = 0; i < T_GRID.length; i++) {
    const m = ours.mean[i];
    const p = ref.mean[i];
    const ps = ref.std[i];
    if (!Number.isFinite(m) || p === null || ps === null) continue;
    if (isDefectAt(ref, i)) {
      defective++;
      continue;
    }
    const nOurs = ours.nSeeds?.[i] ?? ours.seeds?.length ?? 1;
    const oursStd = Number.isFinite(ours.std[i]) ? ours.std[i] : 0;
    const diff = m - p;
    const tolerance = agreementTolerance({ publishedStd: ps, nPublished, oursStd, nOurs });
    detail.push({
      tIndex: i,
      ours: m,
      oursStd,
      nOurs,
      published: p,
      publishedStd: ps,
      nPublished,
      diff,
      tolerance,
      agrees: Math.abs(diff) <= tolerance,
      exact:
        same && nOurs === nPublished
          ? Math.abs(diff) < EXACT_TOL && Math.abs(oursStd - ps) < EXACT_TOL
          : null,
    });
  }
  const signs = ours.baseline ? detail.slice(0, 1) : detail;
  return summarise(detail, signTest(signs.map((d) => d.diff)), defective, [
    ...new Set(ref.defects.map((d) => d.reason)),
  ]);
}

function summarise(
  detail: PointComparison[],
  sign: SignTest,
  defective: number,
  defectReasons: string[],
): Reproduction {
  const ns = detail.map((d) => d.nOurs);
  const known = detail.every((d) => d.exact !== null);
  return {
    points: detail.length,
    agree: detail.filter((d) => d.agrees).length,
    exact: detail.length && known ? detail.filter((d) => d.exact).length : null,
    meanDiff: detail.length ? detail.reduce((a, d) => a + d.diff, 0) / detail.length : Number.NaN,
    defective,
    defectReasons,
    sign,
    nOurs: ns.length ? [Math.min(...ns), Math.max(...ns)] : [0, 0],
    nPublished: detail[0]?.nPublished ?? 0,
    detail,
  };
}

/**
 * Sums reproductions (a panel's curves, or an algorithm's panels): points and counts add up, and
 * the sign is the leaning one when any part leans (the test runs per curve, never on the pool).
 */
export function combine(rs: readonly Reproduction[]): Reproduction {
  const leaning = rs.filter((r) => r.sign.leans).sort((a, b) => a.sign.p - b.sign.p)[0];
  const sign: SignTest = leaning
    ? leaning.sign
    : {
        above: rs.reduce((a, r) => a + r.sign.above, 0),
        below: rs.reduce((a, r) => a + r.sign.below, 0),
        p: Math.min(1, ...rs.map((r) => r.sign.p)),
        leans: false,
      };
  return summarise(
    rs.flatMap((r) => r.detail),
    sign,
    rs.reduce((a, r) => a + r.defective, 0),
    [...new Set(rs.flatMap((r) => r.defectReasons))],
  );
}

/** Whether a set of compared points makes the verdict "reproduced". */
export function isReproduced(parts: readonly Reproduction[]): boolean {
  const points = parts.reduce((a, r) => a + r.points, 0);
  return points > 0 && parts.every((r) => r.agree === r.points && !r.sign.leans);
}

/** "3 seeds vs the original's 5" ("3–5 seeds" when the points differ). */
export function seedsText(r: Pick<Reproduction, 'nOurs' | 'nPublished'>): string {
  const [lo, hi] = r.nOurs;
  const ours = lo === hi ? `${lo}` : `${lo}–${hi}`;
  return `${ours} seed${hi === 1 ? '' : 's'} vs the original's ${r.nPublished}`;
}

/** "+0.21 pp", "−4.63 pp", "±0.00 pp" (a difference of accuracies in percentage points). */
export function ppText(x: number): string {
  if (!Number.isFinite(x)) return '–';
  const pp = x * 100;
  const sign = pp > 0.005 ? '+' : pp < -0.005 ? '−' : '±';
  return `${sign}${Math.abs(pp).toFixed(2)} pp`;
}

/** "p = 0.031" */
export const pText = (p: number): string => `p = ${p < 0.001 ? p.toExponential(1) : p.toFixed(3)}`;

/**
 * The numbers of one reproduction in one line, as the badge and the CLI print them:
 * "22/24 points agree · no one-sided lean · 5 seeds vs the original's 5 · 20 exactly equal · mean Δ −0.30 pp"
 * @param lean how to name a leaning curve ("SSGMM lies below at 6 of 6 points")
 */
export function reproductionSummary(r: Reproduction, lean?: string): string {
  if (!r.points) return 'no published points to compare';
  const side = r.sign.below > r.sign.above ? 'below' : 'above';
  const leanText = r.sign.leans
    ? (lean ??
        `${side} at ${Math.max(r.sign.above, r.sign.below)} of ${r.sign.above + r.sign.below} points`) +
      ` (sign test ${pText(r.sign.p)})`
    : 'no one-sided lean';
  const exact =
    r.exact === null
      ? 'exact equality not checked (other seeds than the original’s)'
      : `${r.exact} exactly equal`;
  return [
    `${r.agree}/${r.points} points agree`,
    leanText,
    seedsText(r),
    exact,
    `mean Δ ${ppText(r.meanDiff)}`,
  ].join(' · ');
}
