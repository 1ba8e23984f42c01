/**
 * The guided demo's one-line findings: per (dataset, setting), an algorithm's mean accuracy at t = 0
 * and at t = 1 (over seeds and label counts), from the classroom run's cell results. Pure.
 */
import { SETTINGS, type Setting } from '../types.ts';

/** The fields of a cell result the summary reads. */
export interface SummaryCell {
  dataset: { id: string };
  setting: Setting;
  t_index: number;
  algorithm: { name: string };
  outcome: { accuracy: number | null };
}

export interface SummaryRow {
  dataset: string;
  setting: Setting;
  /** Mean accuracy at t = 0 and t = 1 (NaN when no cell has scored yet). */
  start: number;
  end: number;
  nStart: number;
  nEnd: number;
}

export function demoSummary(
  cells: readonly SummaryCell[],
  algorithm: string,
  datasets: readonly string[],
): SummaryRow[] {
  const rows: SummaryRow[] = [];
  for (const dataset of datasets) {
    for (const setting of SETTINGS) {
      const acc = (ti: number) =>
        cells
          .filter(
            (c) =>
              c.algorithm.name === algorithm &&
              c.dataset.id === dataset &&
              c.setting === setting &&
              c.t_index === ti &&
              c.outcome.accuracy !== null,
          )
          .map((c) => c.outcome.accuracy as number);
      const a0 = acc(0);
      const a5 = acc(5);
      const mean = (xs: number[]) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : NaN);
      rows.push({ dataset, setting, start: mean(a0), end: mean(a5), nStart: a0.length, nEnd: a5.length });
    }
  }
  return rows;
}

/** "falls from 93% to 71%", "stays at 90%", "rises from 80% to 85%" (change under 2 points: stays). */
export function describeChange(start: number, end: number): string {
  if (!Number.isFinite(start) || !Number.isFinite(end)) return 'is still running';
  const p = (x: number) => `${Math.round(x * 100)}%`;
  if (Math.abs(end - start) < 0.02) return `stays near ${p(start)}`;
  return end < start ? `falls from ${p(start)} to ${p(end)}` : `rises from ${p(start)} to ${p(end)}`;
}
