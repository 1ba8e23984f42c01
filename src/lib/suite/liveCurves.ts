/**
 * Curve rows for the live results table: per (algorithm, dataset, setting, labels), the mean
 * accuracy over seeds at each t with the population std (PROTOCOL.md §1, §10). Small on purpose;
 * the full curve records with metrics live in curves.ts.
 */
import { T_GRID } from '../types.ts';
import type { CellResult } from './schema.ts';

export interface CurveRow {
  id: string;
  algorithm: string;
  dataset: string;
  setting: string;
  labels: number;
  /** Per t index: mean accuracy over the seeds with an accuracy, or null when none has one yet. */
  mean: (number | null)[];
  /** Population std (÷ n) over the same seeds. */
  std: (number | null)[];
  /** Seeds with an accuracy, per t index. */
  n: number[];
  /** Cells that failed or were skipped. */
  notOk: number;
  /** Mean of the six means (the code-form AUC) once every t has one; null before. */
  auc: number | null;
}

export function curveRows(results: readonly CellResult[]): CurveRow[] {
  const groups = new Map<string, { row: CurveRow; acc: number[][] }>();
  for (const r of results) {
    const id = `${r.algorithm.name}|${r.dataset.id}|${r.setting}|${r.labels}`;
    let g = groups.get(id);
    if (!g) {
      const empty = () => T_GRID.map(() => null);
      g = {
        row: { id, algorithm: r.algorithm.name, dataset: r.dataset.id, setting: r.setting, labels: r.labels,
          mean: empty(), std: empty(), n: T_GRID.map(() => 0), notOk: 0, auc: null },
        acc: T_GRID.map(() => []),
      };
      groups.set(id, g);
    }
    if (r.outcome.status === 'ok' && r.outcome.accuracy !== null) g.acc[r.t_index].push(r.outcome.accuracy);
    else g.row.notOk++;
  }
  const rows: CurveRow[] = [];
  for (const { row, acc } of groups.values()) {
    acc.forEach((xs, i) => {
      row.n[i] = xs.length;
      if (xs.length === 0) return;
      const m = xs.reduce((s, x) => s + x, 0) / xs.length;
      row.mean[i] = m;
      row.std[i] = Math.sqrt(xs.reduce((s, x) => s + (x - m) ** 2, 0) / xs.length);
    });
    row.auc = row.mean.every((m) => m !== null) ? (row.mean as number[]).reduce((s, x) => s + x, 0) / row.mean.length : null;
    rows.push(row);
  }
  return rows;
}
