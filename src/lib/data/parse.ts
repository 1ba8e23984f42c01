/**
 * Parsers from source bytes to a raw table: X (float64, row-major, file's row order), the raw
 * label strings and the feature names. Parquet via hyparquet (one row group at a time, so a big
 * file never holds all its decoded columns at once); CSV via d3-dsv.
 */
import { csvParseRows } from 'd3-dsv';
import { parquetMetadata, parquetRead, parquetSchema, type FileMetaData } from 'hyparquet';
import { DatasetError } from './errors.ts';

export type SourceFormat = 'csv' | 'parquet';

export interface RawTable {
  N: number;
  d: number;
  X: Float64Array;
  rawLabels: string[];
  featureNames: string[];
}

export function parseError(datasetId: string, message: string): DatasetError {
  return new DatasetError({
    kind: 'parse',
    retryable: false,
    datasetId,
    message: `Dataset '${datasetId}': ${message}`,
  });
}

/**
 * A parquet file's buffer, metadata and column names; a file hyparquet cannot read is a parse
 * error that names it (`what`: 'the file', or a path).
 */
export function openParquet(
  datasetId: string,
  bytes: Uint8Array,
  what = 'the file',
): { buffer: ArrayBuffer; metadata: FileMetaData; names: string[] } {
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  let metadata: FileMetaData;
  try {
    metadata = parquetMetadata(buffer);
  } catch (e) {
    throw parseError(
      datasetId,
      `${what} is not a readable parquet file (${e instanceof Error ? e.message : String(e)}).`,
    );
  }
  // The footer's row count sizes every buffer a reader allocates: it must be a count, and the row
  // groups must add up to it, before anything trusts it (a lying footer is a RangeError or GBs).
  const rows = Number(metadata.num_rows);
  if (!Number.isSafeInteger(rows) || rows < 0)
    throw parseError(datasetId, `${what} has a damaged footer (row count ${String(metadata.num_rows)}).`);
  const inGroups = metadata.row_groups.reduce((sum, g) => sum + Number(g.num_rows), 0);
  if (inGroups !== rows)
    throw parseError(
      datasetId,
      `${what} has a damaged footer: it claims ${rows} rows but its row groups hold ${inGroups}.`,
    );
  return { buffer, metadata, names: parquetSchema(metadata).children.map((c) => c.element.name) };
}

/** The registry's shape, where the caller knows it: a file is compared with it before it is read. */
export interface ExpectedShape {
  N: number;
  d: number;
}

/** One cell to a number: numbers, bigints, booleans and numeric text (OpenML's nominal {0,1}). */
function toNumber(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string' && v.trim() !== '') return Number(v);
  return NaN;
}

function splitColumns(
  datasetId: string,
  names: string[],
  labelColumn: string,
): { features: string[]; label: string } {
  // pandas may store a non-default index as a column; it is not a feature.
  const cols = names.filter((n) => !n.startsWith('__index_level_'));
  if (!cols.includes(labelColumn)) {
    throw parseError(
      datasetId,
      `the file has no label column '${labelColumn}'; columns are ${JSON.stringify(cols.slice(0, 20))}${cols.length > 20 ? '...' : ''}.`,
    );
  }
  return { features: cols.filter((n) => n !== labelColumn), label: labelColumn };
}

export async function parseParquet(
  datasetId: string,
  bytes: Uint8Array,
  labelColumn: string,
  expected?: ExpectedShape,
): Promise<RawTable> {
  const { buffer: file, metadata, names } = openParquet(datasetId, bytes);
  const { features, label } = splitColumns(datasetId, names, labelColumn);
  const N = Number(metadata.num_rows);
  const d = features.length;
  // Before any allocation: a footer that claims another shape than the registry's is refused here
  // (its rows x features would size the buffer), with the words verify.ts uses after a read.
  if (expected && (N !== expected.N || d !== expected.d))
    throw new DatasetError({
      kind: 'shape',
      retryable: false,
      datasetId,
      message: `Dataset '${datasetId}': the file has ${N} rows x ${d} features; expected ${expected.N} x ${expected.d}. It is not the registered copy.`,
    });
  let X: Float64Array;
  try {
    X = new Float64Array(N * d);
  } catch {
    throw parseError(datasetId, `the file claims ${N} rows x ${d} features, more than this device can hold.`);
  }
  const rawLabels = new Array<string>(N);
  const col = new Map(features.map((f, j) => [f, j]));
  let bad: string | null = null;
  let rowStart = 0;
  for (const group of metadata.row_groups) {
    const rowEnd = rowStart + Number(group.num_rows);
    try {
      await parquetRead({
        file,
        metadata,
        rowStart,
        rowEnd,
        columns: [...features, label],
        onChunk: ({ columnName, columnData, rowStart: r0, rowEnd: r1 }) => {
          // Chunks may reach outside the requested range; keep only this group's rows.
          const from = Math.max(r0, rowStart);
          const to = Math.min(r1, rowEnd);
          if (columnName === label) {
            for (let r = from; r < to; r++) {
              const v = columnData[r - r0];
              if (v === null || v === undefined) bad ??= `row ${r + 1} has no label`;
              rawLabels[r] = String(v);
            }
            return;
          }
          const j = col.get(columnName);
          if (j === undefined) return;
          for (let r = from; r < to; r++) {
            const v = toNumber(columnData[r - r0]);
            if (!Number.isFinite(v))
              bad ??= `row ${r + 1}, column '${columnName}' is not a number: ${JSON.stringify(String(columnData[r - r0]))}`;
            X[r * d + j] = v;
          }
        },
      });
    } catch (e) {
      throw parseError(
        datasetId,
        `reading parquet rows ${rowStart}..${rowEnd - 1} failed (${e instanceof Error ? e.message : String(e)}).`,
      );
    }
    rowStart = rowEnd;
  }
  if (bad) throw parseError(datasetId, `${bad}.`);
  return { N, d, X, rawLabels, featureNames: features };
}

export function parseCsv(datasetId: string, text: string, labelColumn: string): RawTable {
  const rows = csvParseRows(text).filter((r) => !(r.length === 1 && r[0] === ''));
  if (rows.length < 2) throw parseError(datasetId, 'the CSV file has no data rows.');
  const header = rows[0];
  const { features } = splitColumns(datasetId, header, labelColumn);
  const fIdx = features.map((f) => header.indexOf(f));
  const lIdx = header.indexOf(labelColumn);
  const N = rows.length - 1;
  const d = features.length;
  const X = new Float64Array(N * d);
  const rawLabels = new Array<string>(N);
  for (let r = 0; r < N; r++) {
    const cells = rows[r + 1];
    if (cells.length !== header.length) {
      throw parseError(datasetId, `CSV row ${r + 2} has ${cells.length} cells; expected ${header.length}.`);
    }
    for (let j = 0; j < d; j++) {
      const v = toNumber(cells[fIdx[j]]);
      if (!Number.isFinite(v))
        throw parseError(
          datasetId,
          `CSV row ${r + 2}, column '${features[j]}' is not a number: ${JSON.stringify(cells[fIdx[j]])}.`,
        );
      X[r * d + j] = v;
    }
    rawLabels[r] = cells[lIdx].trim();
  }
  return { N, d, X, rawLabels, featureNames: features };
}

export async function parseBytes(
  datasetId: string,
  bytes: Uint8Array,
  format: SourceFormat,
  labelColumn: string,
  expected?: ExpectedShape,
): Promise<RawTable> {
  if (format === 'parquet') return parseParquet(datasetId, bytes, labelColumn, expected);
  return parseCsv(datasetId, new TextDecoder().decode(bytes), labelColumn);
}
