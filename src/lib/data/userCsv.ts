/**
 * "Your own data": a user's CSV to a canonical Dataset (PROTOCOL.md §4 label encoding and hash),
 * with checks that name the row, the column and the value, so a user can fix the file. Pure (no
 * DOM, no IndexedDB): the data worker runs it on the whole file, the page on a preview.
 */
import { csvParseRows } from 'd3-dsv';
import type { Dataset } from '../types.ts';
import { canonicalSha256 } from './canonical.ts';
import { DatasetError, formatBytes } from './errors.ts';
import { classCounts, DECIMAL_NUMBER, encodeLabels, isDecimalNumber } from './labels.ts';

/** Bigger files are refused before a byte is read (the parse holds the text and X at once). */
export const USER_CSV_MAX_BYTES = 50 * 1024 * 1024;
/** More distinct labels than this almost always means the wrong label column. */
export const USER_CSV_MAX_CLASSES = 100;
export const USER_ID_PREFIX = 'user:';
/**
 * Largest |feature value| accepted. Squared differences of such values (≤ 4e200) summed over any
 * number of rows or features that fits in memory stay far below float64's 1.8e308, so the
 * scaler's variance and every kernel's distance or Gram sum stay finite; a file with 1e300 would
 * import and then fail in every cell.
 */
export const USER_CSV_MAX_ABS = 1e100;
/** The labels tags the presets use (PROTOCOL.md §5.1). */
export const USER_LABELS_TAGS = [5, 10] as const;

export type UserCsvProblem =
  | 'too-large'
  | 'empty'
  | 'header-only'
  | 'no-features'
  | 'empty-column-name'
  | 'duplicate-column'
  | 'no-label-column'
  | 'ragged'
  | 'non-numeric'
  | 'out-of-range'
  | 'empty-label'
  | 'one-class'
  | 'too-many-classes'
  | 'too-few-rows'
  | 'not-a-label'
  | 'bad-name'
  /** The id holds a dataset with other content; saving needs the user's confirmation to replace it. */
  | 'exists'
  /** Not the file's fault: the browser's storage is full ('quota') or something unexpected broke. */
  | 'storage'
  | 'unexpected';

/** A CSV the benchmark cannot use, with where (1-based file row, column name) when that helps. */
export class UserCsvError extends DatasetError {
  readonly problem: UserCsvProblem;
  readonly row?: number;
  readonly column?: string;
  readonly existing?: ExistingUserDataset;

  constructor(
    problem: UserCsvProblem,
    message: string,
    where: { row?: number; column?: string; existing?: ExistingUserDataset } = {},
  ) {
    super({ kind: 'parse', retryable: false, message });
    this.name = 'UserCsvError';
    this.problem = problem;
    this.row = where.row;
    this.column = where.column;
    this.existing = where.existing;
  }

  /** Plain record for the worker boundary (comlink keeps only an Error's message). */
  toInfo(): UserCsvErrorInfo {
    const info: UserCsvErrorInfo = {
      problem: this.problem,
      message: this.message,
      row: this.row,
      column: this.column,
    };
    if (this.existing) info.existing = { ...this.existing };
    return info;
  }
}

/** The stored dataset a save would replace (problem 'exists'), and the new content's hash. */
export interface ExistingUserDataset {
  id: string;
  name: string;
  sha256: string;
  N: number;
  d: number;
  createdAt: number;
  newSha256: string;
}

export interface UserCsvErrorInfo {
  problem: UserCsvProblem;
  message: string;
  row?: number;
  column?: string;
  existing?: ExistingUserDataset;
}

export function isUserDatasetId(id: string): boolean {
  return id.startsWith(USER_ID_PREFIX);
}

/**
 * The id of a user dataset: `user:` + a slug of its name (lower case, a-z 0-9 and -), which fits
 * the result schema's id alphabet. Throws 'bad-name' when nothing usable is left.
 */
export function userDatasetId(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  if (slug === '') {
    throw new UserCsvError(
      'bad-name',
      `The name ${JSON.stringify(name)} has no letters or digits; give the dataset a name such as "my-data".`,
    );
  }
  return USER_ID_PREFIX + slug;
}

/** Refuses a file by its size alone, before reading it. */
export function checkUserCsvSize(bytes: number, fileName = 'The file'): void {
  if (bytes > USER_CSV_MAX_BYTES) {
    throw new UserCsvError(
      'too-large',
      `${fileName} is ${formatBytes(bytes)}; the limit is ${formatBytes(USER_CSV_MAX_BYTES)}. ` +
        'Use a sample of the rows, or drop columns you do not need.',
    );
  }
}

interface Table {
  header: string[];
  /** Data rows with their 1-based row number in the file (the header is row 1). */
  rows: { line: number; cells: string[] }[];
}

function quote(s: string): string {
  return JSON.stringify(s.length > 40 ? `${s.slice(0, 40)}…` : s);
}

/** Parses the text and checks the header; blank lines are skipped (their numbers still count). */
function readTable(text: string, maxRows = Infinity): Table {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (body.trim() === '') throw new UserCsvError('empty', 'The file is empty.');
  const all = csvParseRows(body);
  const numbered = all
    .map((cells, i) => ({ line: i + 1, cells }))
    .filter((r) => !(r.cells.length === 1 && r.cells[0].trim() === ''));
  const header = numbered[0].cells.map((c) => c.trim());
  const rows = numbered.slice(1, maxRows === Infinity ? undefined : maxRows + 1);
  const seen = new Map<string, number>();
  header.forEach((name, j) => {
    if (name === '') {
      throw new UserCsvError(
        'empty-column-name',
        `Column ${j + 1} has no name in the header (row ${numbered[0].line}). ` +
          'Name every column (a pandas index column? save with index=False).',
        { row: numbered[0].line },
      );
    }
    const first = seen.get(name);
    if (first !== undefined) {
      throw new UserCsvError(
        'duplicate-column',
        `Columns ${first + 1} and ${j + 1} are both named ${quote(name)}; column names must be unique.`,
        { column: name },
      );
    }
    seen.set(name, j);
  });
  if (header.length < 2) {
    throw new UserCsvError(
      'no-features',
      `The header has ${header.length} column (${quote(header[0])}); expected a label column and at least one feature column, separated by commas.`,
    );
  }
  if (numbered.length < 2) throw new UserCsvError('header-only', 'The file has a header but no data rows.');
  return { header, rows };
}

export interface CsvPreview {
  header: string[];
  /** The first data rows as text (ragged rows as they are). */
  rows: string[][];
  /** Each row's 1-based row number in the file (as error messages count them). */
  lines: number[];
  /** The last column: the usual place of the label. */
  defaultLabelColumn: string;
}

/** Header and first rows, for choosing the label column. Header problems throw UserCsvError. */
export function previewCsv(text: string, maxRows = 8): CsvPreview {
  const { header, rows } = readTable(text, maxRows);
  return {
    header,
    rows: rows.map((r) => r.cells),
    lines: rows.map((r) => r.line),
    defaultLabelColumn: header[header.length - 1],
  };
}

export interface UserCsvOptions {
  /** Name shown in the UI; the id is userDatasetId(name). */
  name: string;
  /** Label column name; default the last column. */
  labelColumn?: string;
  /** Largest labels tag the dataset must support (5 or 10); default 10. */
  labels?: number;
}

export interface ParsedUserCsv {
  dataset: Omit<Dataset, 'sha256'>;
  labelColumn: string;
  classCounts: number[];
  /** Largest labels tag checked (the data supports it and every smaller one). */
  labels: number;
  /** Things the user should know that did not stop the import (label forms unified, …). */
  warnings: string[];
}

/** Rows a class needs for a labels tag (see checkClassSizes). */
export function minRowsPerClass(labels: number): number {
  return 2 * labels + 2;
}

/**
 * Parses and checks a whole CSV: every feature cell a finite number, one label per row, 2 to
 * USER_CSV_MAX_CLASSES classes and minRowsPerClass(labels) rows in each. Labels are encoded as
 * sorted distinct raw labels -> 0..k-1 (labels.ts, as for the built-in datasets).
 */
export function parseUserCsv(text: string, opts: UserCsvOptions): ParsedUserCsv {
  const id = userDatasetId(opts.name);
  const labels = opts.labels ?? 10;
  const { header, rows } = readTable(text);
  const labelColumn = opts.labelColumn ?? header[header.length - 1];
  const lIdx = header.indexOf(labelColumn);
  if (lIdx < 0) {
    throw new UserCsvError(
      'no-label-column',
      `There is no column ${quote(labelColumn)}; the columns are ${header.slice(0, 20).map(quote).join(', ')}${header.length > 20 ? ', …' : ''}.`,
      { column: labelColumn },
    );
  }
  const fIdx = header.map((_, j) => j).filter((j) => j !== lIdx);
  const N = rows.length;
  const d = fIdx.length;
  const X = new Float64Array(N * d);
  const raw = new Array<string>(N);
  for (let r = 0; r < N; r++) {
    const { line, cells } = rows[r];
    if (cells.length !== header.length) {
      throw new UserCsvError(
        'ragged',
        `Row ${line} has ${cells.length} cells; the header has ${header.length} columns. ` +
          'Every row needs one value per column (check for a missing or extra comma).',
        { row: line },
      );
    }
    for (let j = 0; j < d; j++) X[r * d + j] = featureValue(cells[fIdx[j]], line, header[fIdx[j]]);
    const label = cells[lIdx].trim();
    if (label === '') {
      throw new UserCsvError(
        'empty-label',
        `Row ${line} has no value in the label column ${quote(labelColumn)}.`,
        { row: line, column: labelColumn },
      );
    }
    raw[r] = label;
  }
  const warnings = unifyLabelForms(raw, labelColumn);
  const { y, labels: classNames } = encodeLabels(raw);
  const k = classNames.length;
  if (k > USER_CSV_MAX_CLASSES) {
    throw new UserCsvError(
      'too-many-classes',
      `The label column ${quote(labelColumn)} has ${k} distinct values; at most ${USER_CSV_MAX_CLASSES} classes are supported. ` +
        'Is it really the label column?',
      { column: labelColumn },
    );
  }
  if (k < 2) {
    throw new UserCsvError(
      'one-class',
      `The label column ${quote(labelColumn)} holds one class only (${quote(classNames[0])}); a classifier needs at least two.`,
      { column: labelColumn },
    );
  }
  const counts = classCounts(y, k);
  checkClassSizes(labelColumn, classNames, counts, labels);
  return {
    dataset: { id, N, d, k, X, y, featureNames: fIdx.map((j) => header[j]), classNames },
    labelColumn,
    classCounts: counts,
    labels,
    warnings,
  };
}

/** One feature cell as a number: decimal only, finite, |x| ≤ USER_CSV_MAX_ABS; else a UserCsvError naming row and column. */
function featureValue(cell: string, line: number, column: string): number {
  const text = cell.trim();
  const where = `Row ${line}, column ${quote(column)}`;
  const rule = 'Feature columns take decimal numbers only (like 12, -0.5 or 3e-4), no missing values';
  if (text === '') {
    throw new UserCsvError(
      'non-numeric',
      `${where} is empty. ${rule}; if this is the label, choose it as the label column.`,
      { row: line, column },
    );
  }
  if (!DECIMAL_NUMBER.test(text)) {
    const kind = /^[+-]?0[xX]/.test(text)
      ? ', a hexadecimal literal'
      : /^[+-]?0[bB]/.test(text)
        ? ', a binary literal'
        : /^[+-]?0[oO]/.test(text)
          ? ', an octal literal'
          : /^[+-]?(inf(inity)?|nan)$/i.test(text)
            ? ', not a finite number'
            : ', not a number';
    throw new UserCsvError(
      'non-numeric',
      `${where} is ${quote(cell)}${kind}. ${rule}; if this is the label, choose it as the label column.`,
      { row: line, column },
    );
  }
  const v = Number(text);
  if (!(Math.abs(v) <= USER_CSV_MAX_ABS)) {
    throw new UserCsvError(
      'out-of-range',
      `${where} is ${quote(cell)}, outside the supported range |x| ≤ ${USER_CSV_MAX_ABS}: ` +
        'squares and sums of such values overflow the float64 arithmetic of the scaler and the models. Feature columns take decimal numbers ' +
        `within ±${USER_CSV_MAX_ABS}; rescale the column (for example to other units or its logarithm).`,
      { row: line, column },
    );
  }
  return v;
}

/**
 * One label type per column: when every label is a decimal number, labels are compared as numbers,
 * so "1" and "1.0" are one class (written as the form seen first), and a warning says so. When the
 * column also holds text, labels compare as text and a warning says which numbers stay apart.
 * Rewrites `raw` in place; returns the warnings.
 */
function unifyLabelForms(raw: string[], labelColumn: string): string[] {
  const formsByValue = new Map<number, string[]>();
  let text: string | null = null;
  for (const label of raw) {
    if (!isDecimalNumber(label)) {
      text ??= label;
      continue;
    }
    const forms = formsByValue.get(Number(label));
    if (!forms) formsByValue.set(Number(label), [label]);
    else if (!forms.includes(label)) forms.push(label);
  }
  const clashes = [...formsByValue.values()].filter((forms) => forms.length > 1);
  if (clashes.length === 0) return [];
  const listed =
    clashes
      .slice(0, 3)
      .map((forms) => forms.slice(0, 4).map(quote).join(' and '))
      .join('; ') + (clashes.length > 3 ? `; and ${clashes.length - 3} more` : '');
  if (text !== null) {
    return [
      `The label column ${quote(labelColumn)} holds text (such as ${quote(text)}) as well as numbers, so its labels are compared as text: ` +
        `${listed} are different classes although they are the same number. Write each class one way if they are the same class.`,
    ];
  }
  const canonical = new Map<string, string>();
  for (const forms of clashes) for (const f of forms) canonical.set(f, forms[0]);
  for (let i = 0; i < raw.length; i++) raw[i] = canonical.get(raw[i]) ?? raw[i];
  return [
    `Labels ${listed} in the column ${quote(labelColumn)} differ only in form; they were read as one class each ` +
      `(${clashes
        .slice(0, 3)
        .map((forms) => quote(forms[0]))
        .join(', ')}). Write each class one way to silence this warning.`,
  ];
}

/**
 * Each class needs 2·labels+2 rows. The feature and label settings put about half of a class on
 * the source side (rsb: a stratified 50/50 split), and that half must hold the class's share of
 * the labeled rows (about `labels`) plus at least one test row.
 */
function checkClassSizes(labelColumn: string, classNames: string[], counts: number[], labels: number): void {
  const need = minRowsPerClass(labels);
  const small = counts.map((n, c) => ({ n, c })).filter((e) => e.n < need);
  if (small.length === 0) return;
  // Most "classes" on a single row: the column is a measurement, not a class. More rows or a
  // smaller labels value would not help; picking the right column would.
  const singletons = counts.filter((n) => n === 1).length;
  if (counts.length > 2 && singletons >= counts.length / 2) {
    throw new UserCsvError(
      'not-a-label',
      `The column ${quote(labelColumn)} does not look like a label column: ${singletons} of its ${counts.length} distinct values occur on one row only. ` +
        'Choose the column that holds the class of each row; if the file has none, add one (a classifier needs a label for every row).',
      { column: labelColumn },
    );
  }
  const list = small
    .slice(0, 5)
    .map((e) => `${quote(classNames[e.c])} has ${e.n}`)
    .join(', ');
  throw new UserCsvError(
    'too-few-rows',
    `Too few rows per class for labels = ${labels}: ${list}${small.length > 5 ? `, and ${small.length - 5} more classes` : ''}; ` +
      `each class needs at least ${need} (2·labels + 2: half of a class is the source side, which must hold about ${labels} labeled rows and at least one test row). ` +
      `Add rows, merge small classes${labels > 5 ? ', or choose labels = 5' : ''}.`,
    { column: labelColumn },
  );
}

/** parseUserCsv plus the canonical SHA-256 (PROTOCOL.md §4). */
export async function buildUserDataset(
  text: string,
  opts: UserCsvOptions,
): Promise<ParsedUserCsv & { dataset: Dataset }> {
  const parsed = parseUserCsv(text, opts);
  const sha256 = await canonicalSha256(parsed.dataset);
  return { ...parsed, dataset: { ...parsed.dataset, sha256 } };
}
