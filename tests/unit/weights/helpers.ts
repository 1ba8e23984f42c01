/** Test helpers that write real `.safetensors` files and tiny `tokenizer.json` files in memory. */
import type { SafetensorsDtype } from '../../../src/lib/weights/safetensors.ts';

export interface TensorSpec {
  dtype: SafetensorsDtype;
  shape: number[];
  /** Element values; for F16 and BF16 the 16-bit patterns; for I64/U64 numbers or bigints. */
  data: ArrayLike<number> | readonly bigint[];
}

export interface WriteOptions {
  /** Pad the header with spaces to this multiple, as the reference writer does (8). 1 = no padding. */
  headerAlign?: number;
}

/** Bytes of one tensor's elements, little-endian. */
export function tensorBytes(t: TensorSpec): Uint8Array {
  const n = t.data.length;
  const num = (i: number) => Number(t.data[i]);
  const big = (i: number) => BigInt(t.data[i]);
  let arr: ArrayBufferView;
  switch (t.dtype) {
    case 'F32':
      arr = Float32Array.from({ length: n }, (_, i) => num(i));
      break;
    case 'F64':
      arr = Float64Array.from({ length: n }, (_, i) => num(i));
      break;
    case 'F16':
    case 'BF16':
    case 'U16':
      arr = Uint16Array.from({ length: n }, (_, i) => num(i));
      break;
    case 'I16':
      arr = Int16Array.from({ length: n }, (_, i) => num(i));
      break;
    case 'I32':
      arr = Int32Array.from({ length: n }, (_, i) => num(i));
      break;
    case 'U32':
      arr = Uint32Array.from({ length: n }, (_, i) => num(i));
      break;
    case 'I64':
      arr = BigInt64Array.from({ length: n }, (_, i) => big(i));
      break;
    case 'U64':
      arr = BigUint64Array.from({ length: n }, (_, i) => big(i));
      break;
    case 'I8':
      arr = Int8Array.from({ length: n }, (_, i) => num(i));
      break;
    default:
      arr = Uint8Array.from({ length: n }, (_, i) => num(i));
  }
  return new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength);
}

/** A file from a header text and a data region, with the header length field set to the text's length (or `headerLength`). */
export function rawSafetensors(
  header: string,
  data: Uint8Array = new Uint8Array(0),
  headerLength?: number,
): Uint8Array {
  const text = new TextEncoder().encode(header);
  const out = new Uint8Array(8 + text.length + data.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(headerLength ?? text.length), true);
  out.set(text, 8);
  out.set(data, 8 + text.length);
  return out;
}

/**
 * Writes the real format: u64 header length, JSON header (`__metadata__` first, tensors in the
 * given order, back to back), padded with spaces to `headerAlign` (default 8), then the data.
 */
export function writeSafetensors(
  tensors: Record<string, TensorSpec>,
  metadata?: Record<string, string>,
  opts: WriteOptions = {},
): Uint8Array {
  const header: Record<string, unknown> = {};
  if (metadata) header.__metadata__ = metadata;
  const parts: Uint8Array[] = [];
  let offset = 0;
  for (const [name, t] of Object.entries(tensors)) {
    const bytes = tensorBytes(t);
    header[name] = { dtype: t.dtype, shape: t.shape, data_offsets: [offset, offset + bytes.length] };
    parts.push(bytes);
    offset += bytes.length;
  }
  let text = JSON.stringify(header);
  const align = opts.headerAlign ?? 8;
  const len = new TextEncoder().encode(text).length;
  text += ' '.repeat((align - (len % align)) % align);
  const data = new Uint8Array(offset);
  let at = 0;
  for (const p of parts) {
    data.set(p, at);
    at += p.length;
  }
  return rawSafetensors(text, data);
}

/** float32 bit patterns of an array (compares NaN payloads and -0 exactly). */
export function f32Bits(a: Float32Array): number[] {
  return Array.from(new Uint32Array(a.buffer, a.byteOffset, a.length));
}

/**
 * GPT-2's byte-to-unicode table (printable bytes map to themselves, the others to U+0100 and up):
 * a space is 'Ġ' (U+0120). Written out here so the test does not take it from the library under test.
 */
export function bytesToUnicode(): Map<number, string> {
  const bs: number[] = [];
  for (let b = 33; b <= 126; b++) bs.push(b);
  for (let b = 161; b <= 172; b++) bs.push(b);
  for (let b = 174; b <= 255; b++) bs.push(b);
  const cs = bs.slice();
  let n = 0;
  for (let b = 0; b < 256; b++) {
    if (!bs.includes(b)) {
      bs.push(b);
      cs.push(256 + n);
      n++;
    }
  }
  return new Map(bs.map((b, i) => [b, String.fromCodePoint(cs[i])]));
}
