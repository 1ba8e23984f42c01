/**
 * The original benchmark's published results (Robust-SSL-Benchmark @ c405226, its tabular result
 * CSVs: per-point mean and population std over 5 seeds) and how a reproduction compares with them.
 * Pure; the table itself (rsbPublished.json, ~90 kB) is loaded on demand with `loadPublished()`.
 *
 * A point is *within noise* when |ours − published| ≤ max(2·std_published, 0.02) (2 accuracy points),
 * *exact* when mean and std both agree to 1e-6 (the files print 9 or more digits). Points the
 * original's files got wrong (README of the data: copies of other rows, other label counts) are
 * marked `defects` and left out of both counts, with the reason kept for display.
 *
 * @example
 * const table = await loadPublished();
 * const ref = publishedSeries(table, { dataset: 'iris', setting: 'feature', labels: 5, algorithm: 'tritraining' });
 * const r = reproduction(curve, ref!);   // { points, within, exact, meanDiff, … }
 */
import { T_GRID, type Setting } from '../types.ts';

export interface PublishedDefect {
  t: number | 'all';
  reason: string;
}

export interface PublishedSeries {
  setting: Setting;
  dataset: string;
  family: 'statistical' | 'deep';
  labels: number;
  /** The original's algorithm name (XGBClassifier, Tri_Training, …). */
  algorithm: string;
  /** Per t of T_GRID; null where the file has no row. */
  mean: (number | null)[];
  std: (number | null)[];
  /** The result CSV in the original repository. */
  source: string;
  defects: PublishedDefect[];
}

export interface PublishedTable {
  provenance: {
    repository: string;
    commit: string;
    files: string;
    statistic: string;
    builtBy: string;
    leftOut: string[];
  };
  series: PublishedSeries[];
}

/** Our registry ids → the original's names (deep ids as the deep suite names them). */
export const PUBLISHED_NAMES: Readonly<Record<string, string>> = Object.freeze({
  xgb: 'XGBClassifier',
  ssgmm: 'SSGMM',
  tsvm: 'TSVM',
  lp: 'LabelPropagation',
  ls: 'LabelSpreading',
  tritraining: 'Tri_Training',
  assemble: 'Assemble',
  ftt: 'FT_Transformer',
  fixmatch: 'FixMatch',
  flexmatch: 'FlexMatch',
  ict: 'ICT',
  pimodel: 'PiModel',
  pseudolabel: 'PseudoLabel',
  softmatch: 'SoftMatch',
  uda: 'UDA',
});

let cached: Promise<PublishedTable> | null = null;

/** The published table (one lazy import, shared). */
export function loadPublished(): Promise<PublishedTable> {
  cached ??= import('./rsbPublished.json').then((m) => (m.default ?? m) as unknown as PublishedTable);
  return cached;
}

export interface PanelKey {
  dataset: string;
  setting: Setting;
  labels: number;
}

/** The published series of one of our algorithms in one panel, or null. */
export function publishedSeries(
  table: PublishedTable,
  key: PanelKey & { algorithm: string },
): PublishedSeries | null {
  const name = PUBLISHED_NAMES[key.algorithm];
  if (!name) return null;
  return (
    table.series.find(
      (s) =>
        s.dataset === key.dataset &&
        s.setting === key.setting &&
        s.labels === key.labels &&
        s.algorithm === name,
    ) ?? null
  );
}

/** Whether the point at t index i is a known defect (left out of comparisons). */
export function isDefective(s: PublishedSeries, i: number): boolean {
  return s.defects.some((d) => d.t === 'all' || d.t === T_GRID[i]);
}

export interface PointComparison {
  tIndex: number;
  ours: number;
  published: number;
  publishedStd: number;
  /** ours − published (accuracy, 0..1). */
  diff: number;
  within: boolean;
  exact: boolean;
}

export interface Reproduction {
  /** Points both sides have, defects left out. */
  points: number;
  within: number;
  exact: number;
  /** Mean of ours − published over those points (accuracy units; NaN when there are none). */
  meanDiff: number;
  /** Points left out as known defects of the published files. */
  defective: number;
  defectReasons: string[];
  detail: PointComparison[];
}

export const NOISE_FLOOR = 0.02;
export const EXACT_TOL = 1e-6;

/**
 * Compares our per-t seed means/stds with a published series, point by point (a baseline's
 * flattened curve too: the original refitted it at every t on the same labeled rows).
 */
export function reproduction(
  ours: { mean: readonly number[]; std: readonly number[] },
  ref: PublishedSeries,
): Reproduction {
  const detail: PointComparison[] = [];
  let defective = 0;
  for (let i = 0; i < T_GRID.length; i++) {
    const m = ours.mean[i];
    const p = ref.mean[i];
    const ps = ref.std[i];
    if (!Number.isFinite(m) || p === null || ps === null) continue;
    if (isDefective(ref, i)) {
      defective++;
      continue;
    }
    const diff = m - p;
    detail.push({
      tIndex: i,
      ours: m,
      published: p,
      publishedStd: ps,
      diff,
      within: Math.abs(diff) <= Math.max(2 * ps, NOISE_FLOOR) + 1e-12,
      exact: Math.abs(diff) < EXACT_TOL && Math.abs(ours.std[i] - ps) < EXACT_TOL,
    });
  }
  const sum = detail.reduce((a, d) => a + d.diff, 0);
  return {
    points: detail.length,
    within: detail.filter((d) => d.within).length,
    exact: detail.filter((d) => d.exact).length,
    meanDiff: detail.length ? sum / detail.length : Number.NaN,
    defective,
    defectReasons: [...new Set(ref.defects.map((d) => d.reason))],
    detail,
  };
}

/** Sums reproductions (a panel's algorithms, or an algorithm's panels); the mean difference is per point. */
export function combine(rs: readonly Reproduction[]): Reproduction {
  const detail = rs.flatMap((r) => r.detail);
  return {
    points: detail.length,
    within: detail.filter((d) => d.within).length,
    exact: detail.filter((d) => d.exact).length,
    meanDiff: detail.length ? detail.reduce((a, d) => a + d.diff, 0) / detail.length : Number.NaN,
    defective: rs.reduce((a, r) => a + r.defective, 0),
    defectReasons: [...new Set(rs.flatMap((r) => r.defectReasons))],
    detail,
  };
}

/** "40/42 within noise · 38 exact · mean Δ −0.3 pp" */
export function reproductionSummary(r: Reproduction): string {
  if (!r.points) return 'no published points to compare';
  const pp = r.meanDiff * 100;
  const sign = pp > 0.0005 ? '+' : pp < -0.0005 ? '−' : '±';
  return `${r.within}/${r.points} within noise · ${r.exact} exact · mean Δ ${sign}${Math.abs(pp).toFixed(2)} pp`;
}

/** One of our curves (a CurveRecord suffices) against the table. */
export interface CurveLike extends PanelKey {
  algorithm: string;
  mean: readonly number[];
  std: readonly number[];
}

/** Per algorithm, over every panel that has a published series: the reproduction table of a run. */
export function reproductionByAlgorithm(
  curves: readonly CurveLike[],
  table: PublishedTable,
): { algorithm: string; published: string; r: Reproduction }[] {
  const by = new Map<string, Reproduction[]>();
  for (const c of curves) {
    const ref = publishedSeries(table, c);
    if (!ref) continue;
    const list = by.get(c.algorithm) ?? [];
    list.push(reproduction(c, ref));
    by.set(c.algorithm, list);
  }
  return [...by].map(([algorithm, rs]) => ({
    algorithm,
    published: PUBLISHED_NAMES[algorithm],
    r: combine(rs),
  }));
}
