/**
 * The metric table's data: one row per curve (algorithm × panel) with AUC, EA (or Acc_T0 in the
 * code form), WA, EVM, VS, RCC; the best value per column within each panel; sorting. Pure.
 */
import type { CurveRecord } from '../suite/curves.ts';
import type { MetricForm, ResultsViewState } from './viewState.ts';

export const METRIC_COLUMNS = ['auc', 'ea', 'wa', 'evm', 'vs', 'rcc'] as const;
export type MetricColumn = (typeof METRIC_COLUMNS)[number];

/** Higher is better for AUC/EA/WA/RCC, lower for EVM/VS (less variation). */
export const HIGHER_IS_BETTER: Record<MetricColumn, boolean> = {
  auc: true,
  ea: true,
  wa: true,
  evm: false,
  vs: false,
  rcc: true,
};

/** Column headers per form: the code form reports Acc_T0 instead of EA (PROTOCOL.md §8.2). */
export function metricHeader(col: MetricColumn, form: MetricForm): string {
  if (col === 'ea') return form === 'code' ? 'Acc_T0' : 'EA';
  return col.toUpperCase();
}

export interface MetricRow {
  /** Unique: panel key + algorithm. */
  key: string;
  panelKey: string;
  panelIndex: number;
  dataset: string;
  setting: string;
  labels: number;
  algorithm: string;
  baseline: boolean;
  /** null until the curve is complete; NaN where undefined (flat curve RCC). */
  values: Record<MetricColumn, number | null>;
  /** Columns where this row holds the panel's best value (ties all marked). */
  best: Set<MetricColumn>;
  /**
   * A semi-supervised curve with the same mean accuracy at every t: the unlabeled data changed
   * nothing (a Pseudo-Label whose mask rate stayed at 0, a loop too short for its term to act). Its
   * EVM and VS of 0 are not robustness, so they are never marked best (issue 21, item 14).
   */
  flat: boolean;
}

/** Why a flat curve's EVM and VS are not marked best (the table's tag and its caption say it). */
export const FLAT_CURVE_TEXT =
  'flat: the same accuracy at every t, so the unlabeled data made no difference; its EVM and VS of 0 are not marked best';

/** Every t has a mean and all are equal (as shown, 3 decimals). */
function isFlat(mean: readonly number[]): boolean {
  if (mean.length === 0 || !mean.every(Number.isFinite)) return false;
  const shown = mean.map((m) => m.toFixed(3));
  return shown.every((m) => m === shown[0]);
}

/** Rows in curve order, with the chosen form's values and the best marks. */
export function metricRows(curves: readonly CurveRecord[], form: MetricForm): MetricRow[] {
  const panelIndex = new Map<string, number>();
  const rows: MetricRow[] = curves.map((c) => {
    const panelKey = JSON.stringify([c.dataset, c.setting, c.labels]);
    if (!panelIndex.has(panelKey)) panelIndex.set(panelKey, panelIndex.size);
    const mt = c.metrics;
    const values: Record<MetricColumn, number | null> = mt
      ? form === 'code'
        ? {
            auc: mt.code.auc,
            ea: mt.code.accT0,
            wa: mt.code.wa,
            evm: mt.code.evm,
            vs: mt.code.vs,
            rcc: mt.code.rcc,
          }
        : {
            auc: mt.integral.auc,
            ea: mt.integral.ea,
            wa: mt.integral.wa,
            evm: mt.integral.evm,
            vs: mt.integral.vs,
            rcc: mt.integral.rcc,
          }
      : { auc: null, ea: null, wa: null, evm: null, vs: null, rcc: null };
    return {
      key: `${panelKey}|${c.algorithm}`,
      panelKey,
      panelIndex: panelIndex.get(panelKey)!,
      dataset: c.dataset,
      setting: c.setting,
      labels: c.labels,
      algorithm: c.algorithm,
      baseline: c.baseline,
      values,
      best: new Set(),
      flat: !c.baseline && c.metrics !== null && isFlat(c.mean),
    };
  });
  markBest(rows);
  return rows;
}

/**
 * Marks the best value per column within each panel, compared as displayed (3 decimals), so
 * equal-looking values are all marked. Baselines are flat by construction, so they are left out
 * of EVM and VS (they would always "win" with 0) and have no RCC; so are flat SSL curves.
 */
function markBest(rows: MetricRow[]): void {
  const byPanel = new Map<string, MetricRow[]>();
  for (const r of rows) byPanel.set(r.panelKey, [...(byPanel.get(r.panelKey) ?? []), r]);
  for (const group of byPanel.values()) {
    for (const col of METRIC_COLUMNS) {
      const eligible = group.filter(
        (r) => Number.isFinite(r.values[col]) && !((r.baseline || r.flat) && (col === 'evm' || col === 'vs')),
      );
      if (eligible.length < 2) continue;
      const shown = (r: MetricRow) => Number((r.values[col] as number).toFixed(3));
      const best = HIGHER_IS_BETTER[col]
        ? Math.max(...eligible.map(shown))
        : Math.min(...eligible.map(shown));
      for (const r of eligible) if (shown(r) === best) r.best.add(col);
    }
  }
}

/** "0.781"; NaN and missing values are "—"; a tiny negative value is "0.000", never "-0.000". */
export function formatMetric(v: number | null): string {
  return v !== null && Number.isFinite(v) ? fixed3(v) : '—';
}

/** x.toFixed(3) without the sign of a value that rounds to zero. */
export function fixed3(x: number): string {
  const s = x.toFixed(3);
  return /^-0\.0+$/.test(s) ? s.slice(1) : s;
}

/** Why a cell shows "—". */
export function missingReason(v: number | null): string | null {
  if (v === null) return 'not complete yet: waiting for every t to have a result';
  return Number.isNaN(v) ? 'flat curve: the correlation is undefined' : null;
}

const panelOrder = (a: MetricRow, b: MetricRow) => a.panelIndex - b.panelIndex;
const PANEL_FIELDS = new Set(['panel', 'dataset', 'setting', 'labels']);

/**
 * Sorted rows. A metric or algorithm column sorts the rows inside each panel (panels keep their
 * order: comparing AUCs across datasets means little); a panel column (dataset, setting, labels)
 * orders the panels. Missing values go last in either direction; ties keep the curve order.
 */
export function sortRows(rows: readonly MetricRow[], sort: ResultsViewState['sort']): MetricRow[] {
  const sign = sort.dir === 'desc' ? -1 : 1;
  const col = sort.column;
  const indexed = rows.map((r, i) => ({ r, i }));
  const cmpText = (a: string | number, b: string | number) =>
    typeof a === 'number' && typeof b === 'number' ? a - b : String(a).localeCompare(String(b));
  indexed.sort((p, q) => {
    const a = p.r;
    const b = q.r;
    if (PANEL_FIELDS.has(col)) {
      const key =
        col === 'panel'
          ? panelOrder(a, b)
          : cmpText(a[col as 'dataset' | 'setting' | 'labels'], b[col as 'dataset' | 'setting' | 'labels']);
      return sign * key || panelOrder(a, b) || p.i - q.i;
    }
    const byPanel = panelOrder(a, b);
    if (byPanel) return byPanel;
    if (col === 'algorithm') return sign * a.algorithm.localeCompare(b.algorithm) || p.i - q.i;
    if ((METRIC_COLUMNS as readonly string[]).includes(col)) {
      const va = a.values[col as MetricColumn];
      const vb = b.values[col as MetricColumn];
      const ma = va === null || Number.isNaN(va);
      const mb = vb === null || Number.isNaN(vb);
      if (ma || mb) return ma === mb ? p.i - q.i : ma ? 1 : -1;
      return sign * (va! - vb!) || p.i - q.i;
    }
    return p.i - q.i;
  });
  return indexed.map((p) => p.r);
}
