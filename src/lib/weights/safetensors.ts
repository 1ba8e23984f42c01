/**
 * Reader for Hugging Face `.safetensors` files (PROTOCOL-IMAGE-TEXT.md §4.5): the backbones of the image
 * and text tiers ship their weights this way, and the format can be read without running any code
 * from the file.
 *
 * Layout: an 8-byte little-endian u64 N, then N bytes of UTF-8 JSON
 * `{ "__metadata__"?: {string: string}, name: { dtype, shape, data_offsets: [begin, end] } }`, then
 * the data region; offsets are relative to the start of the data region. Validation is as strict as
 * the reference implementation (huggingface/safetensors): the tensors must tile the data region
 * exactly, without gaps, overlaps or trailing bytes, so a truncated or tampered file fails here with
 * a message that names the tensor, not later as a wrong activation.
 *
 * Nothing is copied that need not be: an F32 tensor is a Float32Array view on the file's own buffer
 * when its byte offset is 4-aligned (the reference writer pads the header to 8 bytes, so in real
 * files it always is), and a copy otherwise.
 */
import { float16ToFloat32, bfloat16ToFloat32 } from './halfFloat.ts';

/** Bytes per element of every dtype this reader knows (the format's fixed-size dtypes). */
export const DTYPE_BYTES = {
  BOOL: 1,
  U8: 1,
  I8: 1,
  F8_E4M3: 1,
  F8_E5M2: 1,
  I16: 2,
  U16: 2,
  F16: 2,
  BF16: 2,
  I32: 4,
  U32: 4,
  F32: 4,
  I64: 8,
  U64: 8,
  F64: 8,
} as const;

export type SafetensorsDtype = keyof typeof DTYPE_BYTES;

/** Dtypes that float32() converts; the rest are read with raw(). */
export const FLOAT_DTYPES: readonly SafetensorsDtype[] = ['F32', 'F16', 'BF16', 'F64'];

/** The reference implementation's cap: a larger header is refused before it is decoded. */
export const MAX_HEADER_BYTES = 100_000_000;

export class SafetensorsError extends Error {
  /** The tensor the problem is about, where there is one. */
  readonly tensor?: string;

  constructor(message: string, tensor?: string) {
    super(message);
    this.name = 'SafetensorsError';
    this.tensor = tensor;
  }
}

export interface TensorInfo {
  readonly name: string;
  readonly dtype: SafetensorsDtype;
  readonly shape: readonly number[];
  /** Number of elements (1 for a scalar, shape []). */
  readonly size: number;
  /** Bytes in the file: size × bytes per element. */
  readonly byteLength: number;
  /** [begin, end) relative to the start of the data region. */
  readonly dataOffsets: readonly [number, number];
}

export interface SafetensorsHeader {
  /** N, the JSON header's length in bytes. */
  readonly headerLength: number;
  /** Where the data region starts in the file: 8 + N. */
  readonly dataStart: number;
  readonly metadata: Readonly<Record<string, string>>;
  /** In file order (by data offset, then name). */
  readonly tensors: readonly TensorInfo[];
}

/** The typed view raw() gives for each dtype (F16/BF16 as their bit patterns). */
export type RawTensor =
  | Uint8Array
  | Int8Array
  | Int16Array
  | Uint16Array
  | Int32Array
  | Uint32Array
  | Float32Array
  | Float64Array
  | BigInt64Array
  | BigUint64Array;

export interface SafetensorsFile extends SafetensorsHeader {
  /** The whole file, as given. */
  readonly bytes: Uint8Array;
  /** Tensor names in file order. */
  readonly names: readonly string[];
  has(name: string): boolean;
  /** Throws a SafetensorsError naming the tensor (and what the file has) when it is absent. */
  info(name: string): TensorInfo;
  /**
   * The tensor as float32 values. F32 is a view on the file's buffer where aligned (writes go into
   * the file's bytes), a copy otherwise; F16, BF16 and F64 are converted into a new array.
   */
  float32(name: string): Float32Array;
  /** The tensor's elements as stored, in the typed array of its dtype (a view where aligned). */
  raw(name: string): RawTensor;
}

const HOST_IS_LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * Parses and validates the header. Only the first 8 + N bytes are read, so a caller that fetched
 * just the head of a file (an HTTP Range request) can check shapes before downloading the rest:
 * it passes the whole file's length as `fileLength`.
 */
export function parseSafetensorsHeader(bytes: Uint8Array, fileLength = bytes.length): SafetensorsHeader {
  if (fileLength < 8) {
    throw new SafetensorsError(
      `safetensors: the file is ${fileLength} bytes, shorter than the 8-byte header length field.`,
    );
  }
  if (bytes.length < 8) {
    throw new SafetensorsError(`safetensors: the header length field needs 8 bytes; got ${bytes.length}.`);
  }
  const n64 = new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true);
  if (n64 > BigInt(MAX_HEADER_BYTES)) {
    throw new SafetensorsError(
      `safetensors: the header length is ${n64} bytes, over the ${MAX_HEADER_BYTES}-byte cap; ` +
        'this is not a safetensors file (or it is corrupt).',
    );
  }
  const headerLength = Number(n64);
  const dataStart = 8 + headerLength;
  if (dataStart > fileLength) {
    throw new SafetensorsError(
      `safetensors: the header length is ${headerLength} bytes, beyond the end of the ${fileLength}-byte file ` +
        '(a truncated download, or not a safetensors file).',
    );
  }
  if (dataStart > bytes.length) {
    throw new SafetensorsError(
      `safetensors: the header needs the first ${dataStart} bytes; got ${bytes.length}.`,
    );
  }
  let json: unknown;
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(8, dataStart));
    json = JSON.parse(text);
  } catch (e) {
    throw new SafetensorsError(
      `safetensors: the ${headerLength}-byte header is not UTF-8 JSON (${e instanceof Error ? e.message : String(e)}).`,
    );
  }
  if (!isPlainObject(json)) {
    throw new SafetensorsError(
      `safetensors: the header must be a JSON object; got ${json === null ? 'null' : Array.isArray(json) ? 'an array' : typeof json}.`,
    );
  }
  const dataLength = fileLength - dataStart;
  let metadata: Record<string, string> = {};
  const tensors: TensorInfo[] = [];
  for (const [name, entry] of Object.entries(json)) {
    if (name === '__metadata__') metadata = readMetadata(entry);
    else tensors.push(readEntry(name, entry, dataLength));
  }
  tensors.sort(
    (a, b) =>
      a.dataOffsets[0] - b.dataOffsets[0] ||
      a.dataOffsets[1] - b.dataOffsets[1] ||
      (a.name < b.name ? -1 : 1),
  );
  checkTiling(tensors, dataLength);
  return { headerLength, dataStart, metadata, tensors };
}

/** Parses a whole file held in memory. Throws SafetensorsError on any malformation. */
export function parseSafetensors(data: ArrayBuffer | Uint8Array): SafetensorsFile {
  if (!HOST_IS_LITTLE_ENDIAN) {
    throw new SafetensorsError('safetensors: typed views need a little-endian host; this one is big-endian.');
  }
  const bytes = data instanceof Uint8Array ? data : new Uint8Array(data);
  const header = parseSafetensorsHeader(bytes);
  const byName = new Map(header.tensors.map((t) => [t.name, t]));
  const names = header.tensors.map((t) => t.name);

  const info = (name: string): TensorInfo => {
    const t = byName.get(name);
    if (t) return t;
    const some = names.slice(0, 8).join(', ');
    throw new SafetensorsError(
      `safetensors: no tensor '${name}' in the file; it has ${names.length}` +
        `${names.length ? ` (${some}${names.length > 8 ? ', …' : ''})` : ''}.`,
      name,
    );
  };
  /** Absolute offset of the tensor's first byte within bytes.buffer. */
  const at = (t: TensorInfo) => bytes.byteOffset + header.dataStart + t.dataOffsets[0];
  const slice = (t: TensorInfo) => {
    const start = header.dataStart + t.dataOffsets[0];
    return bytes.subarray(start, start + t.byteLength);
  };
  const raw = (name: string): RawTensor => {
    const t = info(name);
    const Ctor = VIEW_OF[t.dtype];
    const offset = at(t);
    // A typed view must start at a multiple of its element size; else the bytes are copied.
    const buffer = offset % Ctor.BYTES_PER_ELEMENT === 0 ? bytes.buffer : slice(t).slice().buffer;
    return new Ctor(buffer, buffer === bytes.buffer ? offset : 0, t.size);
  };
  const float32 = (name: string): Float32Array => {
    const t = info(name);
    switch (t.dtype) {
      case 'F32':
        return raw(name) as Float32Array;
      case 'F16':
        return float16ToFloat32(raw(name) as Uint16Array);
      case 'BF16':
        return bfloat16ToFloat32(raw(name) as Uint16Array);
      case 'F64':
        return Float32Array.from(raw(name) as Float64Array);
      default:
        throw new SafetensorsError(
          `safetensors: tensor '${name}' has dtype ${t.dtype}; float32() reads ${FLOAT_DTYPES.join(', ')}. ` +
            'Read it with raw(), or skip it.',
          name,
        );
    }
  };
  return {
    ...header,
    bytes,
    names,
    has: (name) => byName.has(name),
    info,
    float32,
    raw,
  };
}

type ViewCtor = {
  new (buffer: ArrayBufferLike, byteOffset: number, length: number): RawTensor;
  readonly BYTES_PER_ELEMENT: number;
};

const VIEW_OF: Record<SafetensorsDtype, ViewCtor> = {
  BOOL: Uint8Array,
  U8: Uint8Array,
  I8: Int8Array,
  F8_E4M3: Uint8Array,
  F8_E5M2: Uint8Array,
  I16: Int16Array,
  U16: Uint16Array,
  F16: Uint16Array,
  BF16: Uint16Array,
  I32: Int32Array,
  U32: Uint32Array,
  F32: Float32Array,
  I64: BigInt64Array,
  U64: BigUint64Array,
  F64: Float64Array,
};

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function readMetadata(entry: unknown): Record<string, string> {
  if (!isPlainObject(entry)) {
    throw new SafetensorsError('safetensors: __metadata__ must be an object of strings.');
  }
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(entry)) {
    if (typeof v !== 'string') {
      throw new SafetensorsError(
        `safetensors: __metadata__ values must be strings; '${k}' is ${JSON.stringify(v)}.`,
      );
    }
    out[k] = v;
  }
  return out;
}

function readEntry(name: string, entry: unknown, dataLength: number): TensorInfo {
  const fail = (problem: string) => new SafetensorsError(`safetensors: tensor '${name}': ${problem}`, name);
  if (!isPlainObject(entry)) throw fail('the entry must be an object with dtype, shape and data_offsets.');
  const { dtype, shape, data_offsets: offsets } = entry;
  if (typeof dtype !== 'string' || !Object.hasOwn(DTYPE_BYTES, dtype)) {
    throw fail(
      `unknown dtype ${JSON.stringify(dtype)}; expected one of ${Object.keys(DTYPE_BYTES).join(', ')}.`,
    );
  }
  if (!Array.isArray(shape) || !shape.every((d) => Number.isSafeInteger(d) && d >= 0)) {
    throw fail(`shape must be a list of non-negative integers; got ${JSON.stringify(shape)}.`);
  }
  if (
    !Array.isArray(offsets) ||
    offsets.length !== 2 ||
    !offsets.every((o) => Number.isSafeInteger(o) && o >= 0) ||
    offsets[0] > offsets[1]
  ) {
    throw fail(
      `data_offsets must be [begin, end] with integers 0 <= begin <= end; got ${JSON.stringify(offsets)}.`,
    );
  }
  const [begin, end] = offsets as [number, number];
  if (end > dataLength) {
    throw fail(
      `data_offsets [${begin}, ${end}] run past the data region, which has ${dataLength} bytes ` +
        '(a truncated file?).',
    );
  }
  const d = dtype as SafetensorsDtype;
  const size = (shape as number[]).reduce((p, s) => p * s, 1);
  const byteLength = size * DTYPE_BYTES[d];
  if (!Number.isSafeInteger(byteLength) || byteLength !== end - begin) {
    throw fail(
      `data_offsets [${begin}, ${end}] hold ${end - begin} bytes, but shape ${JSON.stringify(shape)} of ${d} ` +
        `needs ${size} × ${DTYPE_BYTES[d]} = ${byteLength}.`,
    );
  }
  return { name, dtype: d, shape: (shape as number[]).slice(), size, byteLength, dataOffsets: [begin, end] };
}

/** The tensors, sorted by offset, must cover [0, dataLength) exactly once. */
function checkTiling(tensors: readonly TensorInfo[], dataLength: number): void {
  let end = 0;
  let previous: TensorInfo | null = null;
  for (const t of tensors) {
    const [b, e] = t.dataOffsets;
    if (b < end && previous) {
      throw new SafetensorsError(
        `safetensors: tensor '${t.name}': data_offsets [${b}, ${e}] overlap tensor '${previous.name}' ` +
          `[${previous.dataOffsets[0]}, ${previous.dataOffsets[1]}].`,
        t.name,
      );
    }
    if (b > end) {
      throw new SafetensorsError(
        `safetensors: tensor '${t.name}': data_offsets start at ${b}, leaving bytes ${end}…${b - 1} ` +
          'of the data region unused (the format requires the tensors to tile it).',
        t.name,
      );
    }
    end = e;
    previous = t;
  }
  if (end !== dataLength) {
    throw new SafetensorsError(
      `safetensors: the tensors end at byte ${end} of the data region, but it has ${dataLength} bytes ` +
        `(${dataLength - end} trailing bytes: not what the header describes).`,
    );
  }
}
