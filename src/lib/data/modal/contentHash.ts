/**
 * Content hashes of image and text datasets (PROTOCOL-IMAGE-TEXT.md §4.4): what a result records
 * so that results over different contents are never pooled. Streamed through an incremental
 * SHA-256 (@noble/hashes): CIFAR's decoded pixels are 154 MB, more than a page should hold twice
 * to hand WebCrypto one buffer.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';

const utf8 = new TextEncoder();

function int32le(v: number): Uint8Array {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setInt32(0, v, true);
  return b;
}

function uint32le(v: number): Uint8Array {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, v, true);
  return b;
}

/** `rsb-txt/1`: per row the label (int32 LE), the UTF-8 length (uint32 LE) and the UTF-8 bytes as stored. */
export function textContentHash(
  id: string,
  split: string,
  labels: ArrayLike<number>,
  texts: readonly string[],
): string {
  if (labels.length !== texts.length)
    throw new Error(`textContentHash: ${labels.length} labels for ${texts.length} texts`);
  const h = sha256.create();
  h.update(utf8.encode(`rsb-txt/1|${id}|${split}|${texts.length}\n`));
  for (let i = 0; i < texts.length; i++) {
    const bytes = utf8.encode(texts[i]);
    h.update(int32le(labels[i]));
    h.update(uint32le(bytes.length));
    h.update(bytes);
  }
  return bytesToHex(h.digest());
}

/**
 * `rsb-img/1`: per row the label (int32 LE) and the decoded image, RGB HWC, `size`×`size`×3 bytes.
 * `pixels(i)` decodes row i (rows are decoded one at a time, never all held at once).
 */
export function imageContentHash(
  id: string,
  split: string,
  labels: ArrayLike<number>,
  size: number,
  pixels: (row: number) => Uint8Array,
): string {
  const N = labels.length;
  const h = sha256.create();
  h.update(utf8.encode(`rsb-img/1|${id}|${split}|${N}|${size}|${size}|3\n`));
  for (let i = 0; i < N; i++) {
    const rgb = pixels(i);
    if (rgb.length !== size * size * 3)
      throw new Error(`imageContentHash: row ${i} has ${rgb.length} bytes, expected ${size}×${size}×3`);
    h.update(int32le(labels[i]));
    h.update(rgb);
  }
  return bytesToHex(h.digest());
}

export interface FileRow {
  label: number;
  /** Path relative to the picked folder or zip root, '/'-separated. */
  path: string;
  bytes: Uint8Array;
}

/** `rsb-files/1` (local image datasets): per row the label, the path + '\n' and the SHA-256 of the file bytes. */
export function filesContentHash(id: string, domain: string, rows: readonly FileRow[]): string {
  const h = sha256.create();
  h.update(utf8.encode(`rsb-files/1|${id}|${domain}|${rows.length}\n`));
  for (const r of rows) {
    h.update(int32le(r.label));
    h.update(utf8.encode(`${r.path}\n`));
    h.update(sha256(r.bytes));
  }
  return bytesToHex(h.digest());
}
