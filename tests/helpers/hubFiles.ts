/**
 * Test files in the Hugging Face Hub's layouts (PROTOCOL-IMAGE-TEXT.md §4.1), shared by the unit
 * and browser tests: an image parquet with the Image feature's struct column (`{bytes, path}`) and
 * an int64 label, a text parquet with a string column and an int64 label.
 */
import { encode } from 'fast-png';
import { parquetWriteBuffer } from 'hyparquet-writer';

/** `img` = struct {bytes: binary PNG, path: string} per row, `label` int64. */
export function imageParquet(
  labels: ArrayLike<number>,
  pngs: (i: number) => Uint8Array,
  labelColumn = 'label',
): Uint8Array {
  const ys = Array.from(labels);
  return new Uint8Array(
    parquetWriteBuffer({
      columnData: [
        { name: 'img', data: ys.map((_, i) => ({ bytes: pngs(i), path: `${i}.png` })) },
        { name: labelColumn, data: BigInt64Array.from(ys, (v) => BigInt(v)) },
      ],
      schema: [
        { name: 'root', num_children: 2 },
        { name: 'img', repetition_type: 'OPTIONAL', num_children: 2 },
        { name: 'bytes', type: 'BYTE_ARRAY', repetition_type: 'OPTIONAL' },
        { name: 'path', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' },
        { name: labelColumn, type: 'INT64', repetition_type: 'OPTIONAL' },
      ],
    }),
  );
}

/** `column` (default 'text') = string per row, `label` int64. */
export function textParquet(
  labels: ArrayLike<number>,
  texts: (i: number) => string,
  column = 'text',
): Uint8Array {
  const ys = Array.from(labels);
  return new Uint8Array(
    parquetWriteBuffer({
      columnData: [
        { name: column, data: ys.map((_, i) => texts(i)), type: 'STRING' },
        { name: 'label', data: BigInt64Array.from(ys, (v) => BigInt(v)), type: 'INT64' },
      ],
    }),
  );
}

/** Byte i (RGB interleaved) of class c's rippled 32 × 32 image (rippledClassPngs). */
export function rippledPixel(c: number, i: number): number {
  const colour = [(c * 53) % 256, (c * 97) % 256, (c * 151) % 256];
  const p = Math.floor(i / 3);
  return Math.min(255, colour[i % 3] + ((p * 7 + (i % 3) * 13) % 32));
}

/**
 * 32 × 32 PNGs, one per class: class c's colour with a per-pixel ripple, so that BatchNorm sees
 * spatial variance (finetune tests: the CLI's and the page's).
 */
export function rippledClassPngs(classes: number): Uint8Array[] {
  return Array.from({ length: classes }, (_, c) =>
    encode({
      width: 32,
      height: 32,
      data: Uint8Array.from({ length: 32 * 32 * 3 }, (_, i) => rippledPixel(c, i)),
      channels: 3,
      depth: 8,
    }),
  );
}
