/**
 * Comparing runs: a diff table of the RAC metrics per panel × algorithm (each run's value and
 * Δ against the first run) and the curves of all runs for an overlay. Runs under a different
 * protocol mode, quirks or protocol version than the first are refused, never pooled (PROTOCOL.md §2).
 */
import { metricRows, METRIC_COLUMNS, type MetricColumn } from '../charts/metricsTable.ts';
import type { MetricForm } from '../charts/viewState.ts';
import type { PT } from '../metrics/index.ts';
import { panelCurves, type CurveRecord } from '../suite/curves.ts';
import { versionMismatch } from '../suite/protocolVersion.ts';
import type { RunRecord } from '../suite/schema.ts';

export interface CompareInput {
  /** Short name shown in headings ("A", "B", …). */
  name: string;
  run: RunRecord;
}

export interface CompareRow {
  key: string;
  dataset: string;
  setting: string;
  labels: number;
  algorithm: string;
  /** values[metric][i]: run i's value (null: missing or incomplete). */
  values: Record<MetricColumn, (number | null)[]>;
  /** delta[metric][i]: run i minus the first run (null where either is missing; 0 for run 0). */
  delta: Record<MetricColumn, (number | null)[]>;
}

export interface Comparison {
  /** Runs in the table (the first run and those with the same mode and quirks). */
  included: CompareInput[];
  /** Runs left out, with the reason in one sentence. */
  refused: { name: string; reason: string }[];
  rows: CompareRow[];
  /** Curves per included run (for overlays), algorithms renamed `<algorithm>@<name>`. */
  curves: CurveRecord[];
}

export interface CompareOptions {
  form: MetricForm;
  pt?: PT;
  isBaseline: (algorithm: string) => boolean;
}

export function compareRuns(
  inputs: readonly CompareInput[],
  { form, pt, isBaseline }: CompareOptions,
): Comparison {
  const refused: Comparison['refused'] = [];
  const included: CompareInput[] = [];
  const ref = inputs[0]?.run.plan;
  for (const x of inputs) {
    const p = x.run.plan;
    if (ref && (p.mode !== ref.mode || p.quirks !== ref.quirks)) {
      refused.push({
        name: x.name,
        reason: `Run ${x.name} used protocol mode "${p.mode}" with quirks "${p.quirks}", but run ${inputs[0].name} used mode "${ref.mode}" with quirks "${ref.quirks}"; results under different protocols are not compared or pooled.`,
      });
    } else {
      const mismatch = inputs[0] ? versionMismatch(inputs[0], x) : null;
      if (mismatch) refused.push({ name: x.name, reason: mismatch });
      else included.push(x);
    }
  }
  const n = included.length;
  const rows = new Map<string, CompareRow>();
  const curves: CurveRecord[] = [];
  included.forEach((x, i) => {
    const cs = panelCurves(x.run.cells, { isBaseline, pt });
    curves.push(...cs.map((c) => ({ ...c, algorithm: `${c.algorithm}@${x.name}` })));
    for (const r of metricRows(cs, form)) {
      let row = rows.get(r.key);
      if (!row) {
        const empty = () =>
          Object.fromEntries(METRIC_COLUMNS.map((m) => [m, Array<number | null>(n).fill(null)])) as Record<
            MetricColumn,
            (number | null)[]
          >;
        row = {
          key: r.key,
          dataset: r.dataset,
          setting: r.setting,
          labels: r.labels,
          algorithm: r.algorithm,
          values: empty(),
          delta: empty(),
        };
        rows.set(r.key, row);
      }
      for (const m of METRIC_COLUMNS) {
        const v = r.values[m];
        row.values[m][i] = v !== null && Number.isFinite(v) ? v : null;
      }
    }
  });
  for (const row of rows.values()) {
    for (const m of METRIC_COLUMNS) {
      const base = row.values[m][0];
      row.delta[m] = row.values[m].map((v) => (v === null || base === null ? null : v - base));
    }
  }
  return { included, refused, rows: [...rows.values()], curves };
}
