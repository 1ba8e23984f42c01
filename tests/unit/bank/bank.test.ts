/**
 * The feature bank (PROTOCOL-IMAGE-TEXT.md §7.4) against a numpy/hashlib reference
 * (scripts/fixtures/make_bank_fixtures.py):
 * 1. SplitMix64 and the per-view seeds, and the first draws of each view's MT19937;
 * 2. float32 → float16 rounding as numpy's astype (ties to even, subnormals, overflow to inf);
 * 3. a tiny bank built in shuffled pieces (a resumed extraction) is byte for byte the reference
 *    file: header, block order, float16 blocks, hash;
 * 4. reading refuses what it must: another content or backbone, a cut-off, edited or foreign file;
 * 5. the IndexedDB store keeps a checked bank by hash, finds it by key, and deletes it.
 */
import 'fake-indexeddb/auto';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  bankBlocks,
  bankHeader,
  BankBuilder,
  readBankFile,
  rowIdsSha256,
  type BankKey,
} from '../../../src/lib/bank/bankFile.ts';
import { BankStore } from '../../../src/lib/bank/bankStore.ts';
import { float32ToFloat16, toHalf } from '../../../src/lib/bank/float16.ts';
import { splitMix64, viewRng, viewSeed, type ViewKind } from '../../../src/lib/bank/viewSeed.ts';
import { float16ToFloat32 } from '../../../src/lib/weights/halfFloat.ts';

const GOLD = JSON.parse(readFileSync(new URL('../../fixtures/bank/bank.json', import.meta.url), 'utf8')) as {
  splitmix64: [string, string][];
  viewSeeds: [number, number, ViewKind, number, number, number[]][];
  half: [string, number][];
  bank: {
    key: BankKey;
    header: string;
    blocks: [string, string, number][];
    sha256: string;
    fileSha256: string;
    fileBytes: number;
  };
};

const value = (b: number, r: number, j: number) => Math.fround((((b * 31 + r * 7 + j * 3) % 17) - 8) / 3.7);

function build(key: BankKey, order: 'forward' | 'scrambled' = 'forward'): BankBuilder {
  const builder = new BankBuilder(key);
  const pieces: [number, number, number][] = []; // block, first row, rows
  builder.blocks.forEach((_, b) => {
    pieces.push([b, 0, 1], [b, 1, key.rows - 1]);
  });
  if (order === 'scrambled') pieces.reverse();
  for (const [b, first, n] of pieces) {
    const v = new Float32Array(n * key.dim);
    for (let r = 0; r < n; r++) for (let j = 0; j < key.dim; j++) v[r * key.dim + j] = value(b, first + r, j);
    const { variant, view, k } = builder.blocks[b];
    builder.put(variant, view, k, first, v);
  }
  return builder;
}

describe('view seeds', () => {
  it('SplitMix64 equals the reference (seed 0: 0xe220a8397b1dcdaf)', () => {
    for (const [x, z] of GOLD.splitmix64) expect(splitMix64(BigInt(x)).toString()).toBe(z);
    expect(splitMix64(0n)).toBe(0xe220a8397b1dcdafn);
  });

  it('each (bankSeed, row, kind, k) seeds its own MT19937, as the reference draws it', () => {
    for (const [s, row, kind, k, seed, draws] of GOLD.viewSeeds) {
      expect(viewSeed(s, row, kind, k)).toBe(seed);
      const rng = viewRng(s, row, kind, k);
      expect(draws.map(() => rng.nextU32())).toEqual(draws);
    }
    expect(() => viewSeed(0, 2 ** 32, 'weak', 0)).toThrow(/not a uint32/);
    expect(() => viewSeed(0, 0, 'weak', 16)).toThrow(/not in 0\.\.15/);
  });
});

describe('float16', () => {
  it('rounds as numpy does (nearest, ties to even, subnormals, overflow to inf)', () => {
    const num = (text: string) => ({ inf: Infinity, '-inf': -Infinity })[text] ?? Number(text); // Python's repr
    for (const [text, bits] of GOLD.half) expect(toHalf(num(text)), text).toBe(bits);
    // Every half value survives the round trip (NaN excepted).
    const all = Uint16Array.from({ length: 65536 }, (_, i) => i);
    const back = float32ToFloat16(float16ToFloat32(all));
    for (let h = 0; h < 65536; h++) if (!((h & 0x7c00) === 0x7c00 && h & 0x3ff)) expect(back[h]).toBe(h);
    expect(Number.isNaN(float16ToFloat32(Uint16Array.of(toHalf(NaN)))[0])).toBe(true);
  });
});

describe('bank file', () => {
  const key = GOLD.bank.key;

  it('header, block order, blocks and hash equal the reference, whatever order rows arrive in', () => {
    expect(bankHeader(key)).toBe(GOLD.bank.header);
    expect(bankBlocks(key).map((b) => [b.variant, b.view, b.k])).toEqual(GOLD.bank.blocks);
    for (const order of ['forward', 'scrambled'] as const) {
      const { bytes, sha256 } = build(key, order).toFile();
      expect(sha256).toBe(GOLD.bank.sha256);
      expect(bytes.length).toBe(GOLD.bank.fileBytes);
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(GOLD.bank.fileSha256);
    }
  });

  it('tracks missing rows for a resumed extraction and refuses to write an incomplete bank', () => {
    const b = new BankBuilder(key);
    expect(b.remaining).toBe(8 * 4);
    b.put('colour', 'clean', 0, 0, new Float32Array(2 * 3));
    expect(b.remaining).toBe(30);
    expect(b.firstMissing()[0]).toEqual({ block: { variant: 'colour', view: 'clean', k: 0 }, row: 2 });
    expect(() => b.toFile()).toThrow(/30 rows are missing/);
    expect(() => b.put('colour', 'clean', 0, 3, new Float32Array(2 * 3))).toThrow(/not whole rows/);
    expect(() => b.put('sepia', 'clean', 0, 0, new Float32Array(3))).toThrow(/no block sepia\/clean\/0/);
  });

  it('reads rows back as float32 (the float16 values) in the order asked', () => {
    const bank = readBankFile(build(key).toFile().bytes, { contentSha256: key.contentSha256 });
    expect(bank.sha256).toBe(GOLD.bank.sha256);
    const b = bankBlocks(key).findIndex((x) => x.variant === 'grey' && x.view === 'weak' && x.k === 1);
    const rows = bank.rows('grey', 'weak', 1, [3, 0]);
    const want = float16ToFloat32(
      float32ToFloat16([0, 1, 2].map((j) => value(b, 3, j)).concat([0, 1, 2].map((j) => value(b, 0, j)))),
    );
    expect(rows).toEqual(want);
    expect(() => bank.rows('grey', 'weak', 1, [4])).toThrow(/row 4 is not in 0\.\.3/);
    // One view index per row: each row from its own block.
    const mixed = bank.rows('grey', 'weak', [1, 0], [3, 0]);
    expect(Array.from(mixed.subarray(0, 3))).toEqual(Array.from(bank.rows('grey', 'weak', 1, [3])));
    expect(Array.from(mixed.subarray(3))).toEqual(Array.from(bank.rows('grey', 'weak', 0, [0])));
  });

  it('refuses a bank of other content, a cut-off or edited file, and anything else', () => {
    const { bytes } = build(key).toFile();
    const other = 'f'.repeat(64);
    expect(() => readBankFile(bytes, { contentSha256: other })).toThrow(
      /made for contentSha256 "[0-9a-f]{64}", and this run needs "f{64}"/,
    );
    expect(() => readBankFile(bytes, { variants: ['colour'] })).toThrow(
      /made for variants \["colour","grey"\]/,
    );
    expect(() => readBankFile(bytes.subarray(0, bytes.length - 1))).toThrow(
      /header says \d+ \(cut off or padded\)/,
    );
    const edited = bytes.slice();
    edited[edited.length - 40] ^= 1;
    expect(() => readBankFile(edited)).toThrow(/does not match its hash/);
    expect(() => readBankFile(new TextEncoder().encode('x'.repeat(100)))).toThrow(
      /not a RAC Bench feature bank/,
    );
    expect(() => new BankBuilder({ ...key, contentSha256: 'abc' })).toThrow(/content hash "abc" is not 64/);
    expect(() => new BankBuilder({ ...key, variants: ['a|b'] })).toThrow(/may not be empty or hold/);
  });

  it('a bank of some rows stores their ids, keys them by hash, and returns the same rows by file row id', () => {
    // The full reference bank holds rows 0–3; a subset of rows 1 and 3 holds the same values for them.
    const full = readBankFile(build(key).toFile().bytes);
    const ids = Uint32Array.from([1, 3]);
    const subKey: BankKey = { ...key, rows: 2, rowIdsSha256: rowIdsSha256(ids) };
    expect(bankHeader(subKey)).toBe(
      `${GOLD.bank.header.slice(0, -1).replace(/rows=\d+$/, 'rows=2')}|row_ids=${rowIdsSha256(ids)}\n`,
    );
    const b = new BankBuilder(subKey, ids);
    for (const block of bankBlocks(key))
      b.put(block.variant, block.view, block.k, 0, full.rows(block.variant, block.view, block.k, ids));
    const { bytes } = b.toFile();
    const sub = readBankFile(bytes, { rowIdsSha256: subKey.rowIdsSha256 });
    expect(Array.from(sub.rowIds!)).toEqual([1, 3]);
    expect(sub.rows('grey', 'weak', 1, [3, 1])).toEqual(full.rows('grey', 'weak', 1, [3, 1]));
    expect(() => sub.rows('grey', 'weak', 1, [0])).toThrow(/row 0 is not in this bank/);
    // Resumable like any bank; a full bank's key does not read a subset's file.
    expect(BankBuilder.fromState(structuredClone(b.saveState())).rowIds).toEqual(ids);
    expect(() => readBankFile(bytes, { rowIdsSha256: undefined })).toThrow(/made for rowIdsSha256/);
    expect(() => new BankBuilder(subKey, Uint32Array.from([3, 1]))).toThrow(/ascending and unique/);
    expect(() => new BankBuilder(subKey, Uint32Array.from([1, 2]))).toThrow(/do not hash to the key/);
    expect(() => new BankBuilder(key, ids)).toThrow(/row ids were given for a bank of every row/);
  });
});

describe('bank store (IndexedDB)', () => {
  it('keeps a checked bank by its hash, finds it by key, lists and deletes it; refuses a damaged file', async () => {
    const store = new BankStore({ dbName: `banks-${process.pid}` });
    const { bytes, sha256 } = build(GOLD.bank.key).toFile();
    const meta = await store.put(bytes);
    expect(meta).toMatchObject({ sha256, bytes: bytes.length });
    expect(await store.find({ contentSha256: GOLD.bank.key.contentSha256, Kw: 2 })).toEqual(meta);
    expect(await store.find({ feature: 'other' })).toBeNull();
    expect(await store.get(sha256)).toEqual(bytes);
    const bad = bytes.slice();
    bad[bad.length - 40] ^= 1;
    await expect(store.put(bad)).rejects.toThrow(/does not match its hash/);
    expect(await store.list()).toHaveLength(1);
    await store.delete(sha256);
    expect(await store.list()).toEqual([]);
    await store.close();
  });
});
