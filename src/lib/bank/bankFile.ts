/**
 * The feature bank (PROTOCOL-IMAGE-TEXT.md §7.4): a frozen backbone's output for every row of a
 * source file, for each (variant, kind, k) view, stored as float16 blocks. One bank serves every run
 * on that dataset and backbone, so it is keyed by what determines its content and hashed; a bank
 * made elsewhere (the CLI on a GPU server) is a portable file the page accepts only after checking
 * its header against what it needs and its hash against its bytes.
 *
 * File: magic `RSBBANK1`, header length (uint32 LE), the header line, for a bank of some rows
 * only their ids (rows × uint32 LE, ascending), the blocks in key order (each rows × dim float16
 * LE, rows in canonical order), then the SHA-256 (32 bytes) of header, ids and blocks, which is the
 * bank's hash. A bank of some rows (a classroom plan's, §7.5, §10) has `row_ids=` in its header: the
 * SHA-256 of those ids; its rows are the same values a bank of every row holds for them (each view
 * is drawn from its row's own generator).
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { float16ToFloat32 } from '../weights/halfFloat.ts';
import { float32ToFloat16 } from './float16.ts';

export type BankView = 'clean' | 'weak' | 'strong';

export interface BankKey {
  /** Dataset and file, e.g. 'cifar10/train'. */
  dataset: string;
  contentSha256: string;
  weightsSha256: string;
  /** Text backbones only. */
  tokenizerSha256: string | null;
  /** The backbone's feature (§11), e.g. 'r50-gap-2048'. */
  feature: string;
  /** Row variants, e.g. ['colour', 'grey'] or ['text', 'drop']. */
  variants: readonly string[];
  Kw: number;
  Ks: number;
  seed: number;
  /** Augmentation version, 'rsb-aug/1'. */
  aug: string;
  dtype: 'float16';
  dim: number;
  /** Rows held: every row of the file, or the subset whose ids hash to rowIdsSha256. */
  rows: number;
  /** A bank of some rows: SHA-256 of their ids (uint32 LE, ascending); absent = every row. */
  rowIdsSha256?: string;
}

/** The SHA-256 of a bank's row ids (uint32 LE), its key's rowIdsSha256. */
export function rowIdsSha256(ids: Uint32Array): string {
  return bytesToHex(sha256(uint32Bytes(ids)));
}

function uint32Bytes(ids: Uint32Array): Uint8Array {
  return new Uint8Array(ids.buffer, ids.byteOffset, ids.byteLength);
}

/** Checks a subset's ids: ascending, unique, as many as the key's rows, with the key's hash. */
function checkRowIds(key: BankKey, ids: Uint32Array | null): void {
  if (!key.rowIdsSha256) {
    if (ids) throw new Error('bank: row ids were given for a bank of every row.');
    return;
  }
  if (!ids || ids.length !== key.rows)
    throw new Error(`bank: a bank of some rows needs its ${key.rows} row ids.`);
  for (let i = 1; i < ids.length; i++)
    if (ids[i] <= ids[i - 1]) throw new Error('bank: row ids must be ascending and unique.');
  if (rowIdsSha256(ids) !== key.rowIdsSha256)
    throw new Error("bank: the row ids do not hash to the key's row_ids.");
}

export interface BankBuilderState {
  key: BankKey;
  /** float16 bits of each block, rows × dim. */
  data: Uint16Array[];
  /** 1 for each row already extracted, per block. */
  done: Uint8Array[];
  /** A bank of some rows: their ids. */
  rowIds?: Uint32Array;
}

export interface BankBlock {
  variant: string;
  view: BankView;
  k: number;
}

const MAGIC = 'RSBBANK1';
const utf8 = new TextEncoder();

/** The header line the hash starts with: every field of the key, in this order. */
export function bankHeader(key: BankKey): string {
  const hex = /^[0-9a-f]{64}$/;
  for (const [name, v] of [
    ['content', key.contentSha256],
    ['weights', key.weightsSha256],
  ] as const)
    if (!hex.test(v)) throw new Error(`bank key: ${name} hash "${v}" is not 64 lower-case hex digits.`);
  if (key.rowIdsSha256 !== undefined && !hex.test(key.rowIdsSha256))
    throw new Error(`bank key: row ids hash "${key.rowIdsSha256}" is not 64 lower-case hex digits.`);
  if (key.tokenizerSha256 !== null && !hex.test(key.tokenizerSha256))
    throw new Error(`bank key: tokenizer hash "${key.tokenizerSha256}" is not 64 lower-case hex digits.`);
  for (const [name, v] of Object.entries({
    Kw: key.Kw,
    Ks: key.Ks,
    seed: key.seed,
    dim: key.dim,
    rows: key.rows,
  }))
    if (!Number.isInteger(v) || v < 0) throw new Error(`bank key: ${name} ${v} is not a whole number.`);
  const text = [key.dataset, key.feature, key.aug, ...key.variants];
  if (text.some((s) => /[|\n=,]/.test(s) || s === ''))
    throw new Error('bank key: names may not be empty or hold "|", "=", "," or a line break.');
  return (
    `rsb-bank/1|dataset=${key.dataset}|content=${key.contentSha256}|weights=${key.weightsSha256}` +
    `|tokenizer=${key.tokenizerSha256 ?? '-'}|feature=${key.feature}|variants=${key.variants.join(',')}` +
    `|K_w=${key.Kw}|K_s=${key.Ks}|seed=${key.seed}|aug=${key.aug}|dtype=${key.dtype}|dim=${key.dim}|rows=${key.rows}` +
    `${key.rowIdsSha256 ? `|row_ids=${key.rowIdsSha256}` : ''}\n`
  );
}

function parseHeader(line: string): BankKey {
  const parts = line.replace(/\n$/, '').split('|');
  if (parts[0] !== 'rsb-bank/1')
    throw new Error(`not a feature bank: its header starts "${parts[0].slice(0, 20)}".`);
  const f = new Map(
    parts.slice(1).map((p) => {
      const i = p.indexOf('=');
      return [p.slice(0, i), p.slice(i + 1)] as const;
    }),
  );
  const get = (name: string) => {
    const v = f.get(name);
    if (v === undefined) throw new Error(`feature bank header has no ${name}.`);
    return v;
  };
  const int = (name: string) => {
    const v = Number(get(name));
    if (!Number.isInteger(v) || v < 0) throw new Error(`feature bank header: ${name} is not a whole number.`);
    return v;
  };
  if (get('dtype') !== 'float16')
    throw new Error(`feature bank dtype ${get('dtype')}: only float16 is read.`);
  const key: BankKey = {
    dataset: get('dataset'),
    contentSha256: get('content'),
    weightsSha256: get('weights'),
    tokenizerSha256: get('tokenizer') === '-' ? null : get('tokenizer'),
    feature: get('feature'),
    variants: get('variants').split(','),
    Kw: int('K_w'),
    Ks: int('K_s'),
    seed: int('seed'),
    aug: get('aug'),
    dtype: 'float16',
    dim: int('dim'),
    rows: int('rows'),
    ...(f.has('row_ids') ? { rowIdsSha256: get('row_ids') } : {}),
  };
  if (bankHeader(key) !== line) throw new Error('feature bank header is not in canonical form.');
  return key;
}

/** The blocks of a bank, in file and hash order: per variant, clean, weak 0…K_w−1, strong 0…K_s−1. */
export function bankBlocks(key: Pick<BankKey, 'variants' | 'Kw' | 'Ks'>): BankBlock[] {
  const out: BankBlock[] = [];
  for (const variant of key.variants) {
    out.push({ variant, view: 'clean', k: 0 });
    for (let k = 0; k < key.Kw; k++) out.push({ variant, view: 'weak', k });
    for (let k = 0; k < key.Ks; k++) out.push({ variant, view: 'strong', k });
  }
  return out;
}

function blockIndex(key: BankKey, variant: string, view: BankView, k: number): number {
  const i = bankBlocks(key).findIndex((b) => b.variant === variant && b.view === view && b.k === k);
  if (i < 0) throw new Error(`the bank has no block ${variant}/${view}/${k}.`);
  return i;
}

/**
 * A bank under construction: extraction fills rows of blocks in any order (a resumed extraction
 * continues where it stopped), and the file is written once every row of every block is in.
 */
export class BankBuilder {
  readonly key: BankKey;
  readonly blocks: BankBlock[];
  /** A bank of some rows: the file's row id of each stored row; null = row i is row i. */
  readonly rowIds: Uint32Array | null;
  readonly #data: Uint16Array[];
  readonly #done: Uint8Array[];
  #remaining: number;

  constructor(key: BankKey, rowIds: Uint32Array | null = null) {
    bankHeader(key); // validates
    checkRowIds(key, rowIds);
    this.key = key;
    this.rowIds = rowIds;
    this.blocks = bankBlocks(key);
    this.#data = this.blocks.map(() => new Uint16Array(key.rows * key.dim));
    this.#done = this.blocks.map(() => new Uint8Array(key.rows));
    this.#remaining = this.blocks.length * key.rows;
  }

  /** Stores `values` (n × dim float32) as rows firstRow… of block (variant, view, k). */
  put(variant: string, view: BankView, k: number, firstRow: number, values: Float32Array): void {
    const b = blockIndex(this.key, variant, view, k);
    const { dim, rows } = this.key;
    const n = values.length / dim;
    if (!Number.isInteger(n) || firstRow < 0 || firstRow + n > rows)
      throw new Error(`bank put: ${values.length} values are not whole rows of ${dim} within ${rows} rows.`);
    float32ToFloat16(values, this.#data[b].subarray(firstRow * dim, (firstRow + n) * dim));
    const done = this.#done[b];
    for (let r = firstRow; r < firstRow + n; r++) {
      if (!done[r]) this.#remaining--;
      done[r] = 1;
    }
  }

  /** Rows still missing, over all blocks (0 when the bank is complete). */
  get remaining(): number {
    return this.#remaining;
  }

  /** The first missing row of each block (rows after it may be done too), for a resumed extraction. */
  firstMissing(): { block: BankBlock; row: number }[] {
    return this.blocks.flatMap((block, i) => {
      const row = this.#done[i].indexOf(0);
      return row < 0 ? [] : [{ block, row }];
    });
  }

  /** Whether rows r0…r1−1 of block `i` (in `blocks` order) are all in. */
  hasRows(i: number, r0: number, r1: number): boolean {
    const done = this.#done[i];
    for (let r = r0; r < r1; r++) if (!done[r]) return false;
    return true;
  }

  /** What a resumed extraction needs (stored by the page between sessions): key, blocks, done rows. */
  saveState(): BankBuilderState {
    return {
      key: this.key,
      data: this.#data.map((d) => d.slice()),
      done: this.#done.map((d) => d.slice()),
      ...(this.rowIds ? { rowIds: this.rowIds.slice() } : {}),
    };
  }

  /** A builder that continues from `saveState()`; refuses a state of another key or shape. */
  static fromState(state: BankBuilderState): BankBuilder {
    const b = new BankBuilder(state.key, state.rowIds ?? null);
    const cells = state.key.rows * state.key.dim;
    if (
      state.data.length !== b.blocks.length ||
      state.done.length !== b.blocks.length ||
      state.data.some((d) => d.length !== cells) ||
      state.done.some((d) => d.length !== state.key.rows)
    )
      throw new Error(
        'the saved bank extraction does not fit its own key (blocks or rows differ); start it again.',
      );
    for (let i = 0; i < b.blocks.length; i++) {
      b.#data[i].set(state.data[i]);
      b.#done[i].set(state.done[i]);
    }
    b.#remaining = state.done.reduce((s, d) => s + d.length - d.reduce((a, x) => a + (x ? 1 : 0), 0), 0);
    return b;
  }

  /** The bank file; throws while rows are missing. */
  toFile(): { bytes: Uint8Array; sha256: string } {
    if (this.#remaining > 0) throw new Error(`the bank is incomplete: ${this.#remaining} rows are missing.`);
    const header = utf8.encode(bankHeader(this.key));
    const blockBytes = this.key.rows * this.key.dim * 2;
    const idBytes = this.rowIds ? this.rowIds.length * 4 : 0;
    const body = 12 + header.length + idBytes + this.blocks.length * blockBytes;
    const bytes = new Uint8Array(body + 32);
    bytes.set(utf8.encode(MAGIC));
    new DataView(bytes.buffer).setUint32(8, header.length, true);
    bytes.set(header, 12);
    let at = 12 + header.length;
    if (this.rowIds) {
      bytes.set(uint32Bytes(this.rowIds), at);
      at += idBytes;
    }
    for (const d of this.#data) {
      bytes.set(littleEndian(d), at);
      at += blockBytes;
    }
    const digest = sha256(bytes.subarray(12, body));
    bytes.set(digest, body);
    return { bytes, sha256: bytesToHex(digest) };
  }
}

/** The bytes of a Uint16Array in little-endian order (a view on little-endian hosts, which all are here). */
function littleEndian(a: Uint16Array): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

/** A complete bank, read from its file. */
export class Bank {
  readonly key: BankKey;
  readonly sha256: string;
  /** A bank of some rows: their file row ids (ascending); null = every row. */
  readonly rowIds: Uint32Array | null;
  readonly #bytes: Uint8Array;
  readonly #offset: number;
  #index: Map<number, number> | null = null;

  constructor(
    key: BankKey,
    sha: string,
    bytes: Uint8Array,
    offset: number,
    rowIds: Uint32Array | null = null,
  ) {
    this.key = key;
    this.sha256 = sha;
    this.rowIds = rowIds;
    this.#bytes = bytes;
    this.#offset = offset;
  }

  /**
   * Float32 rows (ids.length × dim) of one view, in the order of `ids`; `k` is the view index of
   * every row, or one per row (a batch's rows each draw their own view).
   */
  rows(variant: string, view: BankView, k: number | ArrayLike<number>, ids: ArrayLike<number>): Float32Array {
    const { dim, rows } = this.key;
    const blockBytes = rows * dim * 2;
    const startOf = (kk: number) => this.#offset + blockIndex(this.key, variant, view, kk) * blockBytes;
    const fixed = typeof k === 'number' ? startOf(k) : null;
    const starts = new Map<number, number>();
    const bits = new Uint16Array(ids.length * dim);
    const src = new DataView(this.#bytes.buffer, this.#bytes.byteOffset);
    if (this.rowIds && !this.#index) this.#index = new Map(Array.from(this.rowIds, (id, i) => [id, i]));
    for (let i = 0; i < ids.length; i++) {
      const r = this.#index ? (this.#index.get(ids[i]) ?? -1) : ids[i];
      if (this.#index && r < 0)
        throw new RangeError(
          `bank rows: row ${ids[i]} is not in this bank (it holds the ${rows} rows of the plan it was made for).`,
        );
      if (!(r >= 0 && r < rows)) throw new RangeError(`bank rows: row ${r} is not in 0..${rows - 1}.`);
      let start = fixed;
      if (start === null) {
        const kk = (k as ArrayLike<number>)[i];
        start = starts.get(kk) ?? startOf(kk);
        starts.set(kk, start);
      }
      const at = start + r * dim * 2;
      for (let j = 0; j < dim; j++) bits[i * dim + j] = src.getUint16(at + 2 * j, true);
    }
    return float16ToFloat32(bits);
  }
}

/**
 * Reads a bank file: checks magic, header, size and hash, and that the header is the bank the
 * caller needs (`expect`: any key fields; a bank of other content, weights or views is refused
 * with the field that differs).
 */
export function readBankFile(bytes: Uint8Array, expect: Partial<BankKey> = {}): Bank {
  const fail = (why: string) => new Error(`This feature bank file cannot be used: ${why}`);
  if (bytes.length < 44 || new TextDecoder().decode(bytes.subarray(0, 8)) !== MAGIC)
    throw fail('it is not a RAC Bench feature bank (no RSBBANK1 mark).');
  const headerLength = new DataView(bytes.buffer, bytes.byteOffset).getUint32(8, true);
  if (12 + headerLength + 32 > bytes.length) throw fail('it is cut off inside its header.');
  let key: BankKey;
  try {
    key = parseHeader(
      new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(12, 12 + headerLength)),
    );
  } catch (e) {
    throw fail(e instanceof Error ? e.message : String(e));
  }
  const idBytes = key.rowIdsSha256 ? key.rows * 4 : 0;
  const body = 12 + headerLength + idBytes + bankBlocks(key).length * key.rows * key.dim * 2;
  if (bytes.length !== body + 32)
    throw fail(`it has ${bytes.length} bytes; its header says ${body + 32} (cut off or padded).`);
  for (const [field, want] of Object.entries(expect)) {
    const have = (key as unknown as Record<string, unknown>)[field];
    if (JSON.stringify(have) !== JSON.stringify(want))
      throw fail(
        `it was made for ${field} ${JSON.stringify(have)}, and this run needs ${JSON.stringify(want)}.`,
      );
  }
  const digest = sha256(bytes.subarray(12, body));
  const stored = bytes.subarray(body, body + 32);
  if (digest.some((b, i) => b !== stored[i]))
    throw fail('its content does not match its hash (corrupt or edited).');
  let rowIds: Uint32Array | null = null;
  if (idBytes) {
    rowIds = new Uint32Array(key.rows);
    const view = new DataView(bytes.buffer, bytes.byteOffset + 12 + headerLength, idBytes);
    for (let i = 0; i < key.rows; i++) rowIds[i] = view.getUint32(4 * i, true);
    try {
      checkRowIds(key, rowIds);
    } catch (e) {
      throw fail(e instanceof Error ? e.message : String(e));
    }
  }
  return new Bank(key, bytesToHex(digest), bytes, 12 + headerLength + idBytes, rowIds);
}
