/**
 * One split of a Hub dataset, from its parquet files to canonical rows (PROTOCOL-IMAGE-TEXT.md
 * §4.1, §4.3): the files are read through whatever fetches bytes (the page's download-and-cache,
 * the CLI's --data-dir), joined in manifest order, checked against the manifest's shape, and put in
 * canonical order (cifar10 train: the pinned block order, or file order marked `unverified`).
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { canonicalBlockOrder, type RowOrderStatus } from './blockOrder.ts';
import { checkSplitShape, concatRows, readHubParquet, type HubRows } from './hubParquet.ts';
import type { HubDatasetSpec } from './hubSources.ts';

export interface LoadedHubSplit {
  dataset: string;
  split: string;
  rows: HubRows;
  rowOrder: RowOrderStatus | 'canonical';
  /** What was read, as the record's `dataset.files` lists it. */
  files: { repo: string; path: string; bytes: number; sha256: string }[];
}

export async function loadHubSplit(
  spec: HubDatasetSpec,
  split: string,
  /** A file's bytes, with their SHA-256 where the reader has taken it already (a hashed download). */
  readFile: (path: string) => Promise<Uint8Array | { bytes: Uint8Array; sha256: string }>,
  pinnedBlockOrder: readonly number[] | null = null,
): Promise<LoadedHubSplit> {
  const want = spec.splits[split];
  if (!want)
    throw new Error(`${spec.title} has no split '${split}' (it has ${Object.keys(spec.splits).join(', ')}).`);
  const parts: HubRows[] = [];
  const files: LoadedHubSplit['files'] = [];
  for (const path of want.files) {
    const read = await readFile(path);
    const bytes = read instanceof Uint8Array ? read : read.bytes;
    const hash = read instanceof Uint8Array ? bytesToHex(sha256(bytes)) : read.sha256;
    files.push({ repo: spec.repo, path, bytes: bytes.length, sha256: hash });
    // What the split has left for this file: a footer claiming more is refused before it is read.
    const left = want.rows - parts.reduce((sum, p) => sum + p.labels.length, 0);
    parts.push(await readHubParquet(spec, bytes, path, left));
  }
  let rows = concatRows(parts);
  checkSplitShape(spec, split, rows);
  let rowOrder: LoadedHubSplit['rowOrder'] = 'canonical';
  if (spec.blocks && spec.blocks.split === split) {
    const order = canonicalBlockOrder(rows.labels.length, spec.blocks.rows, pinnedBlockOrder);
    rowOrder = order.status;
    if (order.status === 'pinned') {
      rows = {
        labels: Int32Array.from(order.rows, (r) => rows.labels[r]),
        images: rows.images && Array.from(order.rows, (r) => rows.images![r]),
        texts: rows.texts && Array.from(order.rows, (r) => rows.texts![r]),
      };
      rowOrder = 'canonical';
    }
  }
  return { dataset: spec.id, split, rows, rowOrder, files };
}
