/**
 * CIFAR-10's train blocks (PROTOCOL-IMAGE-TEXT.md §4.3): the original concatenates data_batch_1 …
 * data_batch_5, the Hub's builder writes the five 10 000-row batches in tar-member order, which need
 * not be 1…5. Canonical order = the Hub file's blocks taken in the order the manifest pins; until a
 * pin exists (established once against the original tarball), rows keep the file's order and every
 * result says `row_order: 'unverified'`.
 */

export type RowOrderStatus = 'pinned' | 'unverified';

export interface BlockOrder {
  /** Row ids of the file, in canonical order. */
  rows: Int32Array;
  status: RowOrderStatus;
}

/**
 * `fileBlockOfBatch[b]` = the block of the file (0-based) that holds data_batch_{b+1}; null when not
 * pinned. Throws on anything that is not a permutation of the blocks.
 */
export function canonicalBlockOrder(
  N: number,
  blockRows: number,
  fileBlockOfBatch: readonly number[] | null,
): BlockOrder {
  const count = N / blockRows;
  if (!Number.isInteger(count) || count < 1)
    throw new Error(`canonicalBlockOrder: ${N} rows are not whole blocks of ${blockRows}`);
  const rows = new Int32Array(N);
  if (fileBlockOfBatch === null) {
    for (let i = 0; i < N; i++) rows[i] = i;
    return { rows, status: 'unverified' };
  }
  const seen = new Set(fileBlockOfBatch);
  if (
    fileBlockOfBatch.length !== count ||
    seen.size !== count ||
    fileBlockOfBatch.some((b) => !Number.isInteger(b) || b < 0 || b >= count)
  )
    throw new Error(
      `canonicalBlockOrder: the pinned order ${JSON.stringify(fileBlockOfBatch)} is not a permutation of ${count} blocks`,
    );
  let at = 0;
  for (const block of fileBlockOfBatch)
    for (let r = 0; r < blockRows; r++) rows[at++] = block * blockRows + r;
  return { rows, status: 'pinned' };
}
