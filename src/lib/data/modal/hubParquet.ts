/**
 * A Hub dataset's parquet file (PROTOCOL-IMAGE-TEXT.md §4.1) → labels and content, in the file's
 * row order. Images stay encoded (PNG bytes, decoded one row at a time when a view or a hash needs
 * them: CIFAR's 50 000 decoded rows would be 154 MB per copy); texts are strings as stored. Every
 * label is checked against the dataset's classes and a file that is not what its manifest says
 * fails with the reason, never as a half-read dataset.
 */
import { parquetReadObjects } from 'hyparquet';
import { openParquet, parseError } from '../parse.ts';
import { DatasetError } from '../errors.ts';
import type { HubDatasetSpec } from './hubSources.ts';

export interface HubRows {
  labels: Int32Array;
  /** PNG bytes per row (image datasets). */
  images?: Uint8Array[];
  /** Texts per row (text datasets). */
  texts?: string[];
}

/** The PNG bytes of one image cell: the Hub's Image feature is a struct {bytes, path}. */
function imageBytes(v: unknown): Uint8Array | null {
  if (v instanceof Uint8Array) return v;
  if (v && typeof v === 'object' && (v as { bytes?: unknown }).bytes instanceof Uint8Array)
    return (v as { bytes: Uint8Array }).bytes;
  return null;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** A text cell: a string, or binary holding UTF-8 (a writer that did not annotate the column). */
function textOf(id: string, file: string, row: number, column: string, v: unknown): string {
  if (typeof v === 'string') return v;
  if (v instanceof Uint8Array) {
    try {
      return strictUtf8.decode(v);
    } catch {
      throw parseError(id, `${file} row ${row}: '${column}' is not valid UTF-8 text.`);
    }
  }
  throw parseError(id, `${file} row ${row}: '${column}' is not text.`);
}

/**
 * `maxRows`: the most rows this file may hold (what its split has left; by default the largest
 * split of the dataset), compared with the footer before any row is read, so a footer that lies
 * is a shape error, not an out-of-memory crash.
 */
export async function readHubParquet(
  spec: HubDatasetSpec,
  bytes: Uint8Array,
  file = 'file',
  maxRows: number = Math.max(...Object.values(spec.splits).map((s) => s.rows)),
): Promise<HubRows> {
  const { buffer, metadata, names } = openParquet(spec.id, bytes, file);
  const claimed = Number(metadata.num_rows);
  if (claimed > maxRows)
    throw new DatasetError({
      kind: 'shape',
      retryable: false,
      datasetId: spec.id,
      message: `Dataset '${spec.id}': ${file} claims ${claimed} rows, but at most ${maxRows} fit its split; it is not the file of the manifest.`,
    });
  for (const column of [spec.contentColumn, spec.labelColumn])
    if (!names.includes(column))
      throw parseError(
        spec.id,
        `${file} has no column '${column}'; its columns are ${JSON.stringify(names)}.`,
      );
  const rows = (await parquetReadObjects({
    file: buffer,
    metadata,
    columns: [spec.contentColumn, spec.labelColumn],
    // Unannotated binary stays bytes (the Image struct's PNG); strings annotated as UTF-8 stay text.
    utf8: false,
  })) as Record<string, unknown>[];
  const N = rows.length;
  const labels = new Int32Array(N);
  const images: Uint8Array[] | undefined = spec.modality === 'image' ? new Array<Uint8Array>(N) : undefined;
  const texts: string[] | undefined = spec.modality === 'text' ? new Array<string>(N) : undefined;
  for (let i = 0; i < N; i++) {
    const row = rows[i];
    const raw = row[spec.labelColumn];
    const y = typeof raw === 'bigint' ? Number(raw) : raw;
    if (typeof y !== 'number' || !Number.isInteger(y) || y < 0 || y >= spec.k)
      throw parseError(
        spec.id,
        `${file} row ${i}: label ${String(raw)} is not a class id in 0..${spec.k - 1}.`,
      );
    labels[i] = y;
    const content = row[spec.contentColumn];
    if (images) {
      const png = imageBytes(content);
      if (!png) throw parseError(spec.id, `${file} row ${i}: '${spec.contentColumn}' holds no image bytes.`);
      images[i] = png;
    } else if (texts) {
      texts[i] = textOf(spec.id, file, i, spec.contentColumn, content);
    }
  }
  return { labels, images, texts };
}

/** Joins the files of one split (amazon's four train shards) in manifest order. */
export function concatRows(parts: readonly HubRows[]): HubRows {
  const N = parts.reduce((s, p) => s + p.labels.length, 0);
  const labels = new Int32Array(N);
  let at = 0;
  for (const p of parts) {
    labels.set(p.labels, at);
    at += p.labels.length;
  }
  const images = parts.every((p) => p.images) ? parts.flatMap((p) => p.images!) : undefined;
  const texts = parts.every((p) => p.texts) ? parts.flatMap((p) => p.texts!) : undefined;
  return { labels, images, texts };
}

/**
 * Checks a split against its manifest entry (§4.1: rows and rows per class), so a truncated or
 * substituted file fails here with what differs instead of producing other split sizes.
 */
export function checkSplitShape(spec: HubDatasetSpec, split: string, rows: HubRows): void {
  const want = spec.splits[split];
  if (!want)
    throw parseError(spec.id, `no split '${split}' (it has ${Object.keys(spec.splits).join(', ')}).`);
  if (rows.labels.length !== want.rows)
    throw new DatasetError({
      kind: 'shape',
      retryable: false,
      datasetId: spec.id,
      message: `Dataset '${spec.id}' ${split}: ${rows.labels.length} rows, expected ${want.rows}.`,
    });
  const counts = new Array<number>(spec.k).fill(0);
  for (const y of rows.labels) counts[y]++;
  const off = counts.findIndex((c) => c !== want.perClass);
  if (off >= 0)
    throw new DatasetError({
      kind: 'shape',
      retryable: false,
      datasetId: spec.id,
      message: `Dataset '${spec.id}' ${split}: class ${off} (${spec.classNames[off]}) has ${counts[off]} rows, expected ${want.perClass}.`,
    });
}
