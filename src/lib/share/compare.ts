/**
 * Comparing runs: a diff table of the RAC metrics per panel × algorithm (each run's value and
 * Δ against the first run) and the curves of all runs for an overlay. Runs under a different
 * protocol mode, quirks or protocol version than the first are refused, never pooled (PROTOCOL.md §2).
 * Image/text runs (`rsb-run/3`) compare with image/text runs of the same tier (tiers are different
 * protocols, PROTOCOL-IMAGE-TEXT.md §2, §9), their records drawn through modalCurveCell; a tabular
 * and an image/text run are never in one comparison.
 */
import { metricRows, METRIC_COLUMNS, type MetricColumn } from '../charts/metricsTable.ts';
import type { MetricForm } from '../charts/viewState.ts';
import type { PT } from '../metrics/index.ts';
import { panelCurves, type CurveRecord } from '../suite/curves.ts';
import { versionMismatch } from '../suite/protocolVersion.ts';
import type { RunRecord } from '../suite/schema.ts';
import { isModalBaseline, modalCurveCell } from '../suite/modalCurves.ts';
import type { ModalRunRecord } from '../suite/schemaV3.ts';
import type { AnyRun } from './runFile.ts';

/** A run of either suite (an image/text run's plan has `spec`). */
export type ComparableRun = RunRecord | ModalRunRecord;

export const isModalRecord = (run: ComparableRun): run is ModalRunRecord => 'spec' in run.plan;

export interface CompareInput {
  /** Short name shown in headings ("A", "B", …). */
  name: string;
  run: ComparableRun;
}

/** Why run `x` cannot join a comparison whose first run is `a` (suite, mode, quirks, tier), or null. */
function protocolRefusal(a: CompareInput, x: CompareInput): string | null {
  const ma = isModalRecord(a.run);
  const mx = isModalRecord(x.run);
  if (ma !== mx) {
    const kind = (m: boolean) => (m ? 'an image/text run' : 'a tabular run');
    return (
      `Run ${x.name} is ${kind(mx)} and run ${a.name} is ${kind(ma)}: their panels, protocols and metrics differ, ` +
      'so they are not compared. Compare image/text runs with image/text runs, and tabular runs with tabular runs.'
    );
  }
  const p = x.run.plan;
  const ref = a.run.plan;
  if (p.mode !== ref.mode || p.quirks !== ref.quirks)
    return `Run ${x.name} used protocol mode "${p.mode}" with quirks "${p.quirks}", but run ${a.name} used mode "${ref.mode}" with quirks "${ref.quirks}"; results under different protocols are not compared or pooled.`;
  if (ma && mx) {
    const ta = (a.run as ModalRunRecord).plan.tier;
    const tx = (x.run as ModalRunRecord).plan.tier;
    if (ta !== tx)
      return `Run ${x.name} ran the ${tx} tier and run ${a.name} the ${ta} tier; tiers are different protocols (a frozen or a trained backbone, other steps and pools), so their results are not compared or pooled.`;
  }
  // Only the cells' protocol versions are read (both suites' cells carry `protocol.version`).
  return versionMismatch(
    { name: a.name, run: a.run as Pick<RunRecord, 'cells'> },
    { name: x.name, run: x.run as Pick<RunRecord, 'cells'> },
  );
}

/** The curves of a run: tabular records as they are, image/text records through modalCurveCell. */
function runCurves(run: ComparableRun, isBaseline: (a: string) => boolean, pt?: PT): CurveRecord[] {
  return isModalRecord(run)
    ? panelCurves(run.cells.map(modalCurveCell), { isBaseline: isModalBaseline, pt })
    : panelCurves(run.cells, { isBaseline, pt });
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
  /** The tabular baseline test (image/text runs use theirs: Supervised). */
  isBaseline: (algorithm: string) => boolean;
}

export function compareRuns(
  inputs: readonly CompareInput[],
  { form, pt, isBaseline }: CompareOptions,
): Comparison {
  const refused: Comparison['refused'] = [];
  const included: CompareInput[] = [];
  for (const x of inputs) {
    const reason = protocolRefusal(inputs[0], x);
    if (reason) refused.push({ name: x.name, reason });
    else included.push(x);
  }
  const n = included.length;
  const rows = new Map<string, CompareRow>();
  const curves: CurveRecord[] = [];
  included.forEach((x, i) => {
    const cs = runCurves(x.run, isBaseline, pt);
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

/** A run of either suite in the tagged form the link and file functions take. */
export function asAnyRun(run: ComparableRun): AnyRun {
  return isModalRecord(run) ? { kind: 'modal', run } : { kind: 'tabular', run };
}
