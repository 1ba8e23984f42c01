/**
 * The original benchmark's published results (Robust-SSL-Benchmark @ c405226) and how a panel of
 * ours compares with them. Two tables of one shape: the tabular one (its result CSVs: mean and
 * population std over seeds 0–4; rsbPublished.json, ~90 kB, `loadPublished()`) and the image/text
 * one (imageText.ts: seeds 0–2, tier finetune, `loadImageTextPublished()`). Both load on demand.
 *
 * The rule (agreement.ts) is written once and used by the Results page and `rac-bench published`
 * alike. Points the original's files got wrong (README of the data: copies of other rows, other
 * label counts) are marked `defects` and left out, with the reason kept for display. Published
 * rows never enter our curves, pooled statistics or metric tables: they are only compared with.
 *
 * Which curves may be compared (PROTOCOL.md §2, PROTOCOL-IMAGE-TEXT.md §9): a tabular run in
 * `readme` mode or with overrides is compared with a caveat; an image/text curve outside the
 * `finetune` tier is a different protocol (drawn as a reference, no verdict); an image/text curve
 * with overrides, `amazonPool: test` or nonstandard data has no published curve at all.
 *
 * @example
 * const table = await loadPublished();
 * const pc = comparePanel(panel.curves, table, { label: algorithmLabel });
 * comparisonHeadline(pc); // "✓ Reproduced"
 */
import { T_GRID, type Setting } from '../types.ts';
import {
  combine,
  isReproduced,
  reproduction,
  reproductionSummary,
  type OursLike,
  type Reproduction,
} from './agreement.ts';

export interface PublishedDefect {
  t: number | 'all';
  reason: string;
}

export interface PublishedSeries {
  setting: Setting;
  /** Our dataset id of the panel ("wine"; "image-clef:i->p" for an image/text pair). */
  dataset: string;
  family: 'statistical' | 'deep';
  labels: number;
  /** The original's algorithm name (XGBClassifier, Tri_Training, FixMatch, …). */
  algorithm: string;
  /** Per t of T_GRID; null where the file has no row. */
  mean: (number | null)[];
  std: (number | null)[];
  /** The result CSV in the original repository. */
  source: string;
  defects: PublishedDefect[];
}

export type PublishedSuite = 'tabular' | 'image-text';

export interface PublishedTable {
  suite: PublishedSuite;
  /** The original's seeds behind every mean and std. */
  seeds: readonly number[];
  /** Legend text of the dashed curves. */
  label: string;
  /** Our algorithm ids → the original's names. */
  names: Readonly<Record<string, string>>;
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

/** PROTOCOL.md §1: the original's tabular runs used seeds 0–4. */
export const TABULAR_PUBLISHED_SEEDS: readonly number[] = Object.freeze([0, 1, 2, 3, 4]);

let cached: Promise<PublishedTable> | null = null;

/** The published tabular table (one lazy import, shared). */
export function loadPublished(): Promise<PublishedTable> {
  cached ??= import('./rsbPublished.json').then((m) => {
    const json = (m.default ?? m) as unknown as Pick<PublishedTable, 'provenance' | 'series'>;
    return {
      suite: 'tabular',
      seeds: TABULAR_PUBLISHED_SEEDS,
      label: 'RSB published',
      names: PUBLISHED_NAMES,
      provenance: json.provenance,
      series: json.series,
    };
  });
  return cached;
}

export interface PanelKey {
  dataset: string;
  setting: Setting;
  labels: number;
}

/** The published series of one of our algorithms in one panel, or null. */
export function publishedSeries(
  table: Pick<PublishedTable, 'names' | 'series'>,
  key: PanelKey & { algorithm: string },
): PublishedSeries | null {
  const name = table.names[key.algorithm];
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

/** One of our curves (a CurveRecord is one). */
export interface CurveLike extends PanelKey, OursLike {
  algorithm: string;
  mean: readonly number[];
  std: readonly number[];
  /** The protocol fields the curve ran under (a CurveRecord's). */
  protocol?: { mode?: string; options?: object; overrides?: object };
}

/** Whether and how a curve may be compared with the published table. */
export interface Comparability {
  /** False: no published curve is drawn for it (PROTOCOL-IMAGE-TEXT.md §9), `why` says why. */
  show: boolean;
  /** False: a different protocol (drawn as a reference only, no verdict). */
  comparable: boolean;
  /** Why not shown, or why a different protocol; null otherwise. */
  why: string | null;
  /** Caveats of a comparison that is made all the same (readme mode, overrides). */
  caveats: string[];
}

function optionOf(c: CurveLike, key: string): unknown {
  const o = c.protocol?.options as Record<string, unknown> | undefined;
  return o && Object.prototype.hasOwnProperty.call(o, key) ? o[key] : undefined;
}

function overridesText(o: object | undefined): string | null {
  const keys = o ? Object.keys(o) : [];
  if (!keys.length) return null;
  const shown = keys.slice(0, 4).join(', ');
  return keys.length > 4 ? `${shown} and ${keys.length - 4} more` : shown;
}

/**
 * Whether a curve may be compared with `table` (see the module comment).
 * @param nonstandard the curve's data are not the standard files (§4.2), as its records say
 */
export function comparability(
  c: CurveLike,
  table: Pick<PublishedTable, 'suite'>,
  nonstandard = false,
): Comparability {
  const overrides = overridesText(c.protocol?.overrides);
  if (table.suite === 'image-text') {
    const no = (why: string): Comparability => ({ show: false, comparable: false, why, caveats: [] });
    if (nonstandard) return no('its data are not the standard files (PROTOCOL-IMAGE-TEXT.md §4.2)');
    if (optionOf(c, 'amazonPool') === 'test') return no('it draws Amazon texts from the test split');
    if (overrides) return no(`it overrides ${overrides}, values of PROTOCOL-IMAGE-TEXT.md §5–§7`);
    const tier = optionOf(c, 'tier');
    if (tier !== 'finetune') {
      return {
        show: true,
        comparable: false,
        why: `this run's tier is ${typeof tier === 'string' ? tier : 'not recorded'}, the published curves are finetune (ResNet-50 / RoBERTa-base)`,
        caveats: [],
      };
    }
    return { show: true, comparable: true, why: null, caveats: [] };
  }
  const caveats: string[] = [];
  if (c.protocol?.mode === 'readme')
    caveats.push('this run is in readme mode, not the rsb code path behind the published numbers');
  if (overrides) caveats.push(`this run has overrides (${overrides}), not the published protocol`);
  return { show: true, comparable: true, why: null, caveats };
}

export type Verdict = 'reproduced' | 'not-reproduced' | 'different-protocol' | 'not-compared';

/** One panel against the published table: what to draw, and the verdict with its numbers. */
export interface PanelComparison {
  suite: PublishedSuite;
  label: string;
  verdict: Verdict;
  /** Curves with a published series that is drawn, in panel order. */
  curves: {
    algorithm: string;
    published: string;
    source: string;
    series: PublishedSeries;
    comparable: boolean;
    /** Null for a different protocol (no verdict is given). */
    r: Reproduction | null;
  }[];
  /** The comparable curves together; null when there are none. */
  total: Reproduction | null;
  /** Why the panel is a different protocol (verdict 'different-protocol'). */
  differentProtocol: string | null;
  /** Caveats of the comparison (readme mode, overrides), each once. */
  caveats: string[];
  /** Curves with a published series that is not drawn, and why. */
  notShown: { algorithm: string; why: string }[];
}

export interface ComparePanelOptions {
  /** Algorithm ids not drawn (legend clicks): left out of the overlay and the verdict. */
  hidden?: readonly string[];
  /** The panel's data are nonstandard (image/text, §4.2). */
  nonstandard?: boolean;
}

/**
 * A panel's curves against the published table: the series to overlay, and the verdict under
 * the rule of agreement.ts. Null when no shown curve has a published series.
 */
export function comparePanel(
  curves: readonly CurveLike[],
  table: PublishedTable,
  { hidden = [], nonstandard = false }: ComparePanelOptions = {},
): PanelComparison | null {
  const out: PanelComparison['curves'] = [];
  const notShown: PanelComparison['notShown'] = [];
  const caveats = new Set<string>();
  let differentProtocol: string | null = null;
  for (const c of curves) {
    if (hidden.includes(c.algorithm)) continue;
    const series = publishedSeries(table, c);
    if (!series) continue;
    const how = comparability(c, table, nonstandard);
    if (!how.show) {
      notShown.push({ algorithm: c.algorithm, why: how.why ?? '' });
      continue;
    }
    how.caveats.forEach((x) => caveats.add(x));
    if (!how.comparable) differentProtocol ??= how.why;
    out.push({
      algorithm: c.algorithm,
      published: series.algorithm,
      source: series.source,
      series,
      comparable: how.comparable,
      r: how.comparable ? reproduction(c, series, table.seeds) : null,
    });
  }
  if (!out.length && !notShown.length) return null;
  const parts = out.flatMap((x) => (x.r ? [x.r] : []));
  const total = parts.length ? combine(parts) : null;
  const verdict: Verdict = differentProtocol
    ? 'different-protocol'
    : !total || !total.points
      ? 'not-compared'
      : isReproduced(parts)
        ? 'reproduced'
        : 'not-reproduced';
  return {
    suite: table.suite,
    label: table.label,
    verdict,
    curves: out,
    total,
    differentProtocol,
    caveats: [...caveats],
    notShown,
  };
}

/** "✓ Reproduced", "✗ Not reproduced", "Different protocol", "Not compared". */
export function comparisonHeadline(pc: Pick<PanelComparison, 'verdict'>): string {
  switch (pc.verdict) {
    case 'reproduced':
      return '✓ Reproduced';
    case 'not-reproduced':
      return '✗ Not reproduced';
    case 'different-protocol':
      return 'Different protocol';
    case 'not-compared':
      return 'Not compared';
  }
}

/** The legend text of the dashed curves: "RSB published · finetune (different protocol)". */
export function referenceLegend(pc: Pick<PanelComparison, 'label' | 'verdict'>): string {
  return pc.verdict === 'different-protocol' ? `${pc.label} (different protocol)` : pc.label;
}

/** How a leaning curve is named: "SSGMM lies below at 6 of 6 points". */
function leanWords(pc: PanelComparison, label: (id: string) => string): string | undefined {
  const leaning = pc.curves.filter((c) => c.r?.sign.leans).sort((a, b) => a.r!.sign.p - b.r!.sign.p)[0];
  if (!leaning?.r) return undefined;
  const { above, below } = leaning.r.sign;
  return `${label(leaning.algorithm)} lies ${below > above ? 'below' : 'above'} at ${Math.max(above, below)} of ${above + below} points`;
}

/**
 * The verdict's numbers in one line, as the badge and the CLI print them: the reproduction
 * summary, or why no verdict is given, then the caveats.
 */
export function comparisonSummary(pc: PanelComparison, label: (id: string) => string = (id) => id): string {
  const parts: string[] = [];
  if (pc.verdict === 'different-protocol')
    parts.push(`reference only, no reproduction verdict: ${pc.differentProtocol}`);
  else if (pc.total) parts.push(reproductionSummary(pc.total, leanWords(pc, label)));
  else if (pc.notShown.length) parts.push(`no published curve shown: ${pc.notShown[0].why}`);
  else parts.push('no published points to compare');
  for (const c of pc.caveats) parts.push(`caveat: ${c}`);
  return parts.join(' · ');
}

/** One curve's line: its numbers, or why no verdict is given. */
export function curveSummary(
  c: PanelComparison['curves'][number],
  pc: Pick<PanelComparison, 'differentProtocol'>,
  label: (id: string) => string = (id) => id,
): string {
  if (!c.r) return `reference only (${pc.differentProtocol ?? 'different protocol'})`;
  const { above, below } = c.r.sign;
  const lean = c.r.sign.leans
    ? `${label(c.algorithm)} lies ${below > above ? 'below' : 'above'} at ${Math.max(above, below)} of ${above + below} points`
    : undefined;
  return reproductionSummary(c.r, lean);
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
    const how = comparability(c, table);
    if (!how.show || !how.comparable) continue;
    const list = by.get(c.algorithm) ?? [];
    list.push(reproduction(c, ref, table.seeds));
    by.set(c.algorithm, list);
  }
  return [...by].map(([algorithm, rs]) => ({
    algorithm,
    published: table.names[algorithm],
    r: combine(rs),
  }));
}
