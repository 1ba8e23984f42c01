/**
 * Exports of an image/text run (`rsb-run/3`, PROTOCOL-IMAGE-TEXT.md §11) besides its JSON file:
 *   cells CSV     one row per record: panel (dataset, pair, setting, labels), method, t, seed, the
 *                 outcome, the tier and the provenance that must never be pooled (backbone feature,
 *                 weights, bank, content hashes);
 *   metrics CSV   one row per panel × method: the six RAC metrics in the chosen form, computed from
 *   and JSON      the run's own curves (Supervised flattened to a₀, §8), never from published rows.
 * CSV fields as csv.ts writes them (RFC 4180, CRLF, formula-like text defused).
 */
import { metricRows, METRIC_COLUMNS, type MetricColumn } from '../charts/metricsTable.ts';
import type { MetricForm } from '../charts/viewState.ts';
import type { PT } from '../metrics/index.ts';
import { panelCurves } from '../suite/curves.ts';
import { isModalBaseline, modalCurveCell } from '../suite/modalCurves.ts';
import type { ModalCellResult, ModalRunRecord } from '../suite/schemaV3.ts';
import { csvText } from './csv.ts';

export const MODAL_CSV_COLUMNS = [
  'modality',
  'dataset',
  'pair',
  'setting',
  'labels',
  'algorithm',
  't',
  't_index',
  'seed',
  'status',
  'accuracy',
  'n_correct',
  'n_test',
  'tier',
  'backbone',
  'feature',
  'weights_sha256',
  'bank_sha256',
  'steps',
  'fit_ms',
  'backend',
  'protocol_version',
  'protocol_quirks',
  'content_sha256',
  'nonstandard',
] as const;

function cellRow(c: ModalCellResult): (string | number | null)[] {
  const pair =
    'pair' in c.dataset && c.dataset.pair ? `${c.dataset.pair.source}->${c.dataset.pair.target}` : null;
  return [
    c.modality,
    c.dataset.id,
    pair,
    c.setting,
    c.labels,
    c.algorithm.name,
    c.t,
    c.t_index,
    c.seed,
    c.outcome.status,
    c.outcome.accuracy,
    c.outcome.n_correct,
    c.outcome.n_test,
    c.protocol.tier,
    c.backbone.id,
    c.backbone.feature,
    c.backbone.weights_sha256,
    c.feature_bank?.sha256 ?? null,
    c.timing.steps,
    c.timing.fit_ms,
    c.env.backend,
    c.protocol.version,
    c.protocol.quirks,
    c.dataset.content_sha256,
    c.dataset.nonstandard ? 'true' : 'false',
  ];
}

/** The cells as CSV (header + one row per record; CRLF line ends, trailing CRLF). */
export function modalRunToCsv(run: Pick<ModalRunRecord, 'cells'>): string {
  return csvText(MODAL_CSV_COLUMNS, run.cells.map(cellRow));
}

export interface ModalMetricRow {
  /** The curve's panel: dataset, and ":source->target" for a pair. */
  panel: string;
  setting: string;
  labels: number;
  algorithm: string;
  baseline: boolean;
  /** null until the curve has every t; NaN where undefined (a flat curve's RCC). */
  values: Record<MetricColumn, number | null>;
}

/** The run's metric rows in a form (and P_T for EA), as the Results table shows them. */
export function modalMetricRows(
  run: Pick<ModalRunRecord, 'cells'>,
  form: MetricForm,
  pt?: PT,
): ModalMetricRow[] {
  const curves = panelCurves(run.cells.map(modalCurveCell), { isBaseline: isModalBaseline, pt });
  return metricRows(curves, form).map((r) => ({
    panel: r.dataset,
    setting: r.setting,
    labels: r.labels,
    algorithm: r.algorithm,
    baseline: r.baseline,
    values: { ...r.values },
  }));
}

export function modalMetricsToCsv(run: Pick<ModalRunRecord, 'cells'>, form: MetricForm, pt?: PT): string {
  return csvText(
    ['panel', 'setting', 'labels', 'algorithm', 'baseline', 'form', ...METRIC_COLUMNS],
    modalMetricRows(run, form, pt).map((r) => [
      r.panel,
      r.setting,
      r.labels,
      r.algorithm,
      r.baseline ? 'true' : 'false',
      form,
      ...METRIC_COLUMNS.map((m) => r.values[m]),
    ]),
  );
}

/** The metrics as JSON: the run id, the form, and the rows (NaN and missing values as null). */
export function modalMetricsToJson(
  run: Pick<ModalRunRecord, 'id' | 'cells'>,
  form: MetricForm,
  pt?: PT,
): string {
  const rows = modalMetricRows(run, form, pt).map((r) => ({
    ...r,
    values: Object.fromEntries(
      METRIC_COLUMNS.map((m) => [
        m,
        r.values[m] !== null && Number.isFinite(r.values[m]) ? r.values[m] : null,
      ]),
    ),
  }));
  return `${JSON.stringify({ run: run.id, form, ...(pt ? { pt } : {}), rows }, null, 1)}\n`;
}
