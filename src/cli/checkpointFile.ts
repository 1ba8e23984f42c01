/**
 * The CLI's CheckpointStore (suite/cellCheckpoint.ts): `<out>.checkpoint` beside the journal, the
 * latest checkpoint of the deep fit in flight (the CLI runs one fit at a time, so one file).
 * Written atomically (temp file, fsync, rename: files.ts), so a kill mid-save leaves the previous
 * checkpoint or the new one; deleted once the cell is journaled.
 *
 * Layout: one JSON header line, then the raw bytes of every typed array (weights, shadow,
 * optimiser slots, method state) back to back. The header holds the record with each array
 * replaced by a reference into those bytes, their SHA-256 and length, so a damaged file is
 * refused (and the fit starts from step 0) instead of resumed from. Non-finite numbers (a loss
 * state that went NaN) keep their value; JSON alone would make them null.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, unlinkSync } from 'node:fs';
import type { CellCheckpoint, CheckpointStore } from '../lib/suite/cellCheckpoint.ts';
import { writeFileAtomic } from './files.ts';

export const CHECKPOINT_FILE_FORMAT = 'rac-bench-checkpoint-file/1';

export const checkpointPath = (out: string) => `${out}.checkpoint`;

const TYPED = {
  Float32Array,
  Float64Array,
  Int32Array,
  Uint32Array,
  Int16Array,
  Uint16Array,
  Int8Array,
  Uint8Array,
} as const;
type TypedName = keyof typeof TYPED;

interface Header {
  format: typeof CHECKPOINT_FILE_FORMAT;
  key: string;
  bytes: number;
  sha256: string;
  record: unknown;
}

/** The file's bytes for a checkpoint. */
export function encodeCheckpoint(c: CellCheckpoint): Uint8Array {
  const chunks: Uint8Array[] = [];
  let offset = 0;
  const record = JSON.parse(
    JSON.stringify(c, function (this: unknown, k: string) {
      // The replacer sees the original value through `this[k]` (typed arrays have no toJSON).
      const v = (this as Record<string, unknown>)[k];
      if (ArrayBuffer.isView(v) && !(v instanceof DataView)) {
        const name = v.constructor.name as TypedName;
        if (!(name in TYPED)) throw new TypeError(`A checkpoint cannot hold a ${name}.`);
        const bytes = new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
        chunks.push(bytes);
        const ref = { $array: name, offset, byteLength: v.byteLength };
        offset += v.byteLength;
        return ref;
      }
      if (typeof v === 'number' && (!Number.isFinite(v) || Object.is(v, -0)))
        return { $number: Object.is(v, -0) ? '-0' : String(v) };
      return v;
    }),
  ) as unknown;
  const blob = new Uint8Array(offset);
  let at = 0;
  for (const ch of chunks) {
    blob.set(ch, at);
    at += ch.byteLength;
  }
  const header: Header = {
    format: CHECKPOINT_FILE_FORMAT,
    key: c.key,
    bytes: blob.byteLength,
    sha256: createHash('sha256').update(blob).digest('hex'),
    record,
  };
  const head = Buffer.from(`${JSON.stringify(header)}\n`, 'utf8');
  const out = new Uint8Array(head.byteLength + blob.byteLength);
  out.set(head, 0);
  out.set(blob, head.byteLength);
  return out;
}

/** The checkpoint in a file's bytes; throws with what is wrong when they are damaged. */
export function decodeCheckpoint(file: Uint8Array): CellCheckpoint {
  const nl = file.indexOf(0x0a);
  if (nl < 0) throw new Error('no header line');
  let header: Header;
  try {
    header = JSON.parse(Buffer.from(file.subarray(0, nl)).toString('utf8')) as Header;
  } catch {
    throw new Error('the header is not JSON');
  }
  if (header?.format !== CHECKPOINT_FILE_FORMAT) throw new Error(`not a ${CHECKPOINT_FILE_FORMAT} file`);
  const blob = file.subarray(nl + 1);
  if (blob.byteLength !== header.bytes)
    throw new Error(`it holds ${blob.byteLength} of ${header.bytes} bytes of arrays`);
  if (createHash('sha256').update(blob).digest('hex') !== header.sha256)
    throw new Error('its arrays do not match their SHA-256');
  const revive = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(revive);
    if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if (typeof o.$array === 'string') {
        const Ctor = TYPED[o.$array as TypedName];
        const off = o.offset as number,
          len = o.byteLength as number;
        if (!Ctor || !(off >= 0 && len >= 0 && off + len <= blob.byteLength))
          throw new Error(`a bad array reference (${JSON.stringify(o)})`);
        // A copy: aligned for the typed array, and not tied to the file's buffer.
        const bytes = blob.slice(off, off + len);
        return new Ctor(bytes.buffer, 0, len / Ctor.BYTES_PER_ELEMENT);
      }
      if (typeof o.$number === 'string' && Object.keys(o).length === 1) return Number(o.$number);
      return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, revive(x)]));
    }
    return v;
  };
  return revive(header.record) as CellCheckpoint;
}

/** The key of the checkpoint in a file's header, without reading its arrays (null: unreadable). */
function fileKey(path: string): string | null {
  try {
    const buf = readFileSync(path);
    const nl = buf.indexOf(0x0a);
    return (JSON.parse(buf.subarray(0, nl < 0 ? buf.length : nl).toString('utf8')) as Header).key ?? null;
  } catch {
    return null;
  }
}

/** `<out>.checkpoint` as a CheckpointStore. */
export class CheckpointFile implements CheckpointStore {
  readonly path: string;

  constructor(out: string) {
    this.path = checkpointPath(out);
  }

  async load(_key: string): Promise<CellCheckpoint | null> {
    if (!existsSync(this.path)) return null;
    // Whatever cell it is for: runCell compares it with the fit and says why it is not used.
    try {
      return decodeCheckpoint(readFileSync(this.path));
    } catch (e) {
      throw new Error(`${this.path} is damaged: ${(e as Error).message}`, { cause: e });
    }
  }

  async save(c: CellCheckpoint): Promise<void> {
    writeFileAtomic(this.path, encodeCheckpoint(c));
  }

  /** Deletes the file when it holds one of `keys` (or cannot be read: it is of no use then). */
  async remove(keys: readonly string[]): Promise<void> {
    if (!existsSync(this.path)) return;
    const key = fileKey(this.path);
    if (key !== null && !keys.includes(key)) return;
    try {
      unlinkSync(this.path);
    } catch {
      /* already gone */
    }
  }

  /** The run's file is written: nothing is left to resume. */
  clear(): void {
    try {
      unlinkSync(this.path);
    } catch {
      /* none */
    }
  }
}
