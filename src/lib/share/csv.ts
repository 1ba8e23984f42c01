/**
 * Tidy CSV of a run: one row per cell (RFC 4180: CRLF rows, fields with a comma, quote or line
 * break are quoted, quotes doubled). Text that a spreadsheet would run as a formula (starting
 * with = + - @, or a tab / carriage return) gets a leading apostrophe, as OWASP advises; numbers
 * are written as numbers and never touched.
 */
import type { CellResult, RunRecord } from '../suite/schema.ts';

export const CSV_COLUMNS = [
  'dataset',
  'setting',
  'labels',
  'algorithm',
  'family',
  't',
  't_index',
  'seed',
  'status',
  'accuracy',
  'n_correct',
  'n_test',
  'fit_ms',
  'predict_ms',
  'backend',
  'protocol_mode',
  'protocol_version',
  'protocol_quirks',
  'dataset_sha256',
  'reason',
] as const;

/** One CSV field: numbers as they are; text quoted when needed and defused when formula-like. */
export function csvField(value: string | number | null): string {
  if (value === null) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  let s = value;
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

function row(c: CellResult): (string | number | null)[] {
  return [
    c.dataset.id,
    c.setting,
    c.labels,
    c.algorithm.name,
    c.algorithm.family,
    c.t,
    c.t_index,
    c.seed,
    c.outcome.status,
    c.outcome.accuracy,
    c.outcome.n_correct,
    c.outcome.n_test,
    c.timing.fit_ms,
    c.timing.predict_ms,
    c.env.backend,
    c.protocol.mode,
    c.protocol.version,
    c.protocol.quirks,
    c.dataset.sha256,
    c.outcome.reason ?? null,
  ];
}

/** CSV text: the header as it is, each row's fields through csvField; CRLF line ends, trailing CRLF. */
export function csvText(header: readonly string[], rows: Iterable<(string | number | null)[]>): string {
  const lines = [header.join(',')];
  for (const r of rows) lines.push(r.map(csvField).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

/** A plan cell without a record: its coordinates from the key, status "not run" or "failed", and the reason. */
function failureRow(f: { key: string; reason: string }): (string | number | null)[] {
  const [dataset, setting, labels, algorithm, tIndex, seed] = f.key.split('|');
  const status = f.reason.startsWith('not run') ? 'not run' : 'failed';
  const num = (x: string | undefined) =>
    x === undefined || x === '' || !Number.isFinite(Number(x)) ? null : Number(x);
  const row: (string | number | null)[] = [
    dataset ?? f.key,
    setting ?? null,
    num(labels),
    algorithm ?? null,
    null,
    null,
    num(tIndex),
    num(seed),
    status,
  ];
  while (row.length < CSV_COLUMNS.length - 1) row.push(null);
  row.push(f.reason);
  return row;
}

/** The CSV text (header + one row per cell, then cells without a record; CRLF line ends, trailing CRLF). */
export function runToCsv(run: Pick<RunRecord, 'cells'> & { failures?: RunRecord['failures'] }): string {
  return csvText(CSV_COLUMNS, [...run.cells.map(row), ...(run.failures ?? []).map(failureRow)]);
}
