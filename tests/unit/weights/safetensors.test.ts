import { describe, expect, it } from 'vitest';
import {
  MAX_HEADER_BYTES,
  parseSafetensors,
  parseSafetensorsHeader,
  SafetensorsError,
  type SafetensorsDtype,
} from '../../../src/lib/weights/safetensors.ts';
import { bfloat16ToFloat32, float16ToFloat32 } from '../../../src/lib/weights/halfFloat.ts';
import { f32Bits, rawSafetensors, writeSafetensors } from './helpers.ts';

const f32bitsOf = (x: number) => new Uint32Array(new Float32Array([x]).buffer)[0];

describe('parseSafetensors: round trips', () => {
  it('reads back every dtype with its shape, size and values', () => {
    const file = parseSafetensors(
      writeSafetensors(
        {
          f32: { dtype: 'F32', shape: [2, 3], data: [1, -2.5, 3.25, 0, 1e-7, -1e30] },
          f64: { dtype: 'F64', shape: [2], data: [0.5, -1.25] },
          f16: { dtype: 'F16', shape: [3], data: [0x3c00, 0xc000, 0x3800] },
          bf16: { dtype: 'BF16', shape: [1, 2], data: [0x3f80, 0x4040] },
          i64: { dtype: 'I64', shape: [1, 4], data: [0, 1, 2, 514] },
          i32: { dtype: 'I32', shape: [2], data: [-7, 2147483647] },
          u8: { dtype: 'U8', shape: [3], data: [0, 128, 255] },
          bool: { dtype: 'BOOL', shape: [2], data: [1, 0] },
          scalar: { dtype: 'F32', shape: [], data: [42] },
          empty: { dtype: 'F32', shape: [0, 5], data: [] },
        },
        { format: 'pt' },
      ),
    );
    expect(file.metadata).toEqual({ format: 'pt' });
    expect(file.names).toEqual(['f32', 'f64', 'f16', 'bf16', 'i64', 'i32', 'u8', 'bool', 'scalar', 'empty']);
    expect(file.has('f32')).toBe(true);
    expect(file.has('nope')).toBe(false);
    expect(file.info('f32')).toMatchObject({ dtype: 'F32', shape: [2, 3], size: 6, byteLength: 24 });
    expect(Array.from(file.float32('f32'))).toEqual(
      Array.from(Float32Array.of(1, -2.5, 3.25, 0, 1e-7, -1e30)),
    );
    expect(Array.from(file.float32('f64'))).toEqual([0.5, -1.25]);
    expect(Array.from(file.float32('f16'))).toEqual([1, -2, 0.5]);
    expect(Array.from(file.float32('bf16'))).toEqual([1, 3]);
    expect(file.raw('i64')).toEqual(BigInt64Array.of(0n, 1n, 2n, 514n));
    expect(file.raw('i32')).toEqual(Int32Array.of(-7, 2147483647));
    expect(file.raw('u8')).toEqual(Uint8Array.of(0, 128, 255));
    expect(file.raw('bool')).toEqual(Uint8Array.of(1, 0));
    expect(file.info('scalar')).toMatchObject({ shape: [], size: 1 });
    expect(Array.from(file.float32('scalar'))).toEqual([42]);
    expect(file.float32('empty').length).toBe(0);
  });

  it('lists names in file order (by data offset), whatever the JSON key order', () => {
    const data = new Uint8Array(8);
    const header = JSON.stringify({
      b: { dtype: 'F32', shape: [1], data_offsets: [4, 8] },
      a: { dtype: 'F32', shape: [1], data_offsets: [0, 4] },
    });
    expect(parseSafetensors(rawSafetensors(header, data)).names).toEqual(['a', 'b']);
  });

  it('accepts an ArrayBuffer and a Uint8Array that is a window on a larger buffer', () => {
    const bytes = writeSafetensors({ w: { dtype: 'F32', shape: [2], data: [1, 2] } });
    expect(Array.from(parseSafetensors(bytes.slice().buffer).float32('w'))).toEqual([1, 2]);
    const big = new Uint8Array(bytes.length + 16);
    big.set(bytes, 8); // 8-aligned window: still zero-copy
    const window = big.subarray(8, 8 + bytes.length);
    const w = parseSafetensors(window).float32('w');
    expect(Array.from(w)).toEqual([1, 2]);
    expect(w.buffer).toBe(big.buffer);
  });
});

describe('parseSafetensors: copies', () => {
  it('an aligned F32 tensor is a view on the file buffer (zero copy)', () => {
    const bytes = writeSafetensors({
      a: { dtype: 'F32', shape: [3], data: [1, 2, 3] },
      b: { dtype: 'F32', shape: [2], data: [4, 5] },
    });
    const file = parseSafetensors(bytes);
    const b = file.float32('b');
    expect(b.buffer).toBe(bytes.buffer);
    expect(b.byteOffset).toBe(file.dataStart + 12);
    b[0] = 9; // a view: the write lands in the file's bytes
    expect(file.float32('b')[0]).toBe(9);
  });

  it('a misaligned F32 tensor is copied, with the right values', () => {
    // Header of 1 mod 4 bytes (no padding): the data region starts misaligned.
    const bytes = writeSafetensors({ w: { dtype: 'F32', shape: [2], data: [1.5, -3] } }, undefined, {
      headerAlign: 1,
    });
    const file = parseSafetensors(bytes);
    expect((8 + file.headerLength) % 4).not.toBe(0);
    const w = file.float32('w');
    expect(w.buffer).not.toBe(bytes.buffer);
    expect(Array.from(w)).toEqual([1.5, -3]);
    const ids = writeSafetensors({ p: { dtype: 'I64', shape: [2], data: [3, 4] } }, undefined, {
      headerAlign: 1,
    });
    expect(parseSafetensors(ids).raw('p')).toEqual(BigInt64Array.of(3n, 4n));
  });

  it('F16 and BF16 are converted into a new array', () => {
    const bytes = writeSafetensors({ h: { dtype: 'F16', shape: [2], data: [0x3c00, 0x3c00] } });
    expect(parseSafetensors(bytes).float32('h').buffer).not.toBe(bytes.buffer);
  });
});

describe('half precision', () => {
  it('F16 known bit patterns convert exactly', () => {
    const bits = Uint16Array.of(
      0x3c00,
      0xc000,
      0x7c00,
      0xfc00,
      0x0001,
      0x03ff,
      0x0400,
      0x7bff,
      0x8000,
      0x0000,
      0x8001,
    );
    const f = float16ToFloat32(bits);
    expect(Array.from(f)).toEqual([
      1,
      -2,
      Infinity,
      -Infinity,
      2 ** -24,
      1023 * 2 ** -24,
      2 ** -14,
      65504,
      -0,
      0,
      -(2 ** -24),
    ]);
    expect(Object.is(f[8], -0)).toBe(true);
    const nan = float16ToFloat32(Uint16Array.of(0x7e00, 0x7c01, 0xfe00));
    expect(f32Bits(nan)).toEqual([0x7fc00000, 0x7f802000, 0xffc00000]); // NaN, payload and sign kept
  });

  it('all 65 536 F16 patterns agree with the textbook formula', () => {
    const bits = Uint16Array.from({ length: 65536 }, (_, i) => i);
    const f = float16ToFloat32(bits);
    for (let h = 0; h < 65536; h++) {
      const sign = h & 0x8000 ? -1 : 1;
      const exp = (h >> 10) & 0x1f;
      const mant = h & 0x3ff;
      const want =
        exp === 0
          ? sign * (mant / 1024) * 2 ** -14
          : exp === 31
            ? mant === 0
              ? sign * Infinity
              : NaN
            : sign * (1 + mant / 1024) * 2 ** (exp - 15);
      if (!Object.is(f[h], want)) throw new Error(`0x${h.toString(16)}: got ${f[h]}, want ${want}`);
    }
  });

  it('BF16 is the top half of a float32', () => {
    const f = bfloat16ToFloat32(Uint16Array.of(0x3f80, 0xc000, 0x7f80, 0xff80, 0x7fc0, 0x0001, 0x8000));
    expect(Array.from(f.subarray(0, 4))).toEqual([1, -2, Infinity, -Infinity]);
    expect(Number.isNaN(f[4])).toBe(true);
    expect(f[5]).toBe(2 ** -133); // the smallest bf16 subnormal
    expect(Object.is(f[6], -0)).toBe(true);
    expect(f32Bits(f)[4]).toBe(f32bitsOf(NaN));
  });
});

describe('parseSafetensors: malformed files', () => {
  const bad = (bytes: Uint8Array, message: RegExp, tensor?: string) => {
    let caught: unknown;
    try {
      parseSafetensors(bytes);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(SafetensorsError);
    expect((caught as Error).message).toMatch(message);
    expect((caught as SafetensorsError).tensor).toBe(tensor);
  };
  const entry = (dtype: string, shape: unknown, offsets: unknown) =>
    JSON.stringify({ w: { dtype, shape, data_offsets: offsets } });

  it('a file shorter than the length field', () => {
    bad(new Uint8Array(5), /5 bytes, shorter than the 8-byte header length field/);
  });

  it('a header length beyond the file', () => {
    bad(
      rawSafetensors('{}', new Uint8Array(0), 1000),
      /header length is 1000 bytes, beyond the end of the 10-byte file/,
    );
  });

  it('a header length over the cap (and a u64 beyond 2^53)', () => {
    bad(rawSafetensors('{}', new Uint8Array(0), MAX_HEADER_BYTES + 1), /over the 100000000-byte cap/);
    const huge = new Uint8Array(16);
    new DataView(huge.buffer).setBigUint64(0, 0xffffffffffffffffn, true);
    bad(huge, /18446744073709551615 bytes, over the 100000000-byte cap/);
  });

  it('a header that is not JSON, not UTF-8, or not an object', () => {
    bad(rawSafetensors('{"w": '), /header is not UTF-8 JSON/);
    const notUtf8 = rawSafetensors('{"a":1}');
    notUtf8[10] = 0xff;
    bad(notUtf8, /header is not UTF-8 JSON/);
    bad(rawSafetensors('[1, 2]'), /must be a JSON object; got an array/);
    bad(rawSafetensors('null'), /must be a JSON object; got null/);
  });

  it('bad __metadata__', () => {
    bad(
      rawSafetensors('{"__metadata__": {"epochs": 3}}'),
      /__metadata__ values must be strings; 'epochs' is 3/,
    );
    bad(rawSafetensors('{"__metadata__": [1]}'), /__metadata__ must be an object of strings/);
  });

  it('an entry that is not an object', () => {
    bad(rawSafetensors('{"w": 3}'), /tensor 'w': the entry must be an object/, 'w');
  });

  it('an unknown dtype', () => {
    bad(
      rawSafetensors(entry('F12', [1], [0, 4]), new Uint8Array(4)),
      /tensor 'w': unknown dtype "F12"; expected one of BOOL/,
      'w',
    );
    bad(rawSafetensors(entry('float32', [1], [0, 4]), new Uint8Array(4)), /unknown dtype "float32"/, 'w');
  });

  it('a negative or non-integer shape', () => {
    bad(
      rawSafetensors(entry('F32', [2, -1], [0, 0])),
      /tensor 'w': shape must be a list of non-negative integers; got \[2,-1\]/,
      'w',
    );
    bad(
      rawSafetensors(entry('F32', [1.5], [0, 0])),
      /shape must be a list of non-negative integers; got \[1.5\]/,
      'w',
    );
    bad(rawSafetensors(entry('F32', 4, [0, 16]), new Uint8Array(16)), /shape must be a list/, 'w');
  });

  it('malformed data_offsets', () => {
    bad(
      rawSafetensors(entry('F32', [1], [4, 0]), new Uint8Array(4)),
      /data_offsets must be \[begin, end\] with integers 0 <= begin <= end; got \[4,0\]/,
      'w',
    );
    bad(
      rawSafetensors(entry('F32', [1], [0]), new Uint8Array(4)),
      /data_offsets must be \[begin, end\]/,
      'w',
    );
    bad(rawSafetensors(entry('F32', [1], [-4, 0]), new Uint8Array(4)), /data_offsets must be/, 'w');
  });

  it('data_offsets past the data region (a truncated file)', () => {
    bad(
      rawSafetensors(entry('F32', [4], [0, 16]), new Uint8Array(12)),
      /tensor 'w': data_offsets \[0, 16\] run past the data region, which has 12 bytes/,
      'w',
    );
  });

  it('data_offsets that do not match shape × dtype', () => {
    bad(
      rawSafetensors(entry('F32', [2, 2], [0, 12]), new Uint8Array(12)),
      /tensor 'w': data_offsets \[0, 12\] hold 12 bytes, but shape \[2,2\] of F32 needs 4 × 4 = 16/,
      'w',
    );
    bad(rawSafetensors(entry('F16', [3], [0, 4]), new Uint8Array(4)), /needs 3 × 2 = 6/, 'w');
  });

  it('overlapping tensors', () => {
    const header = JSON.stringify({
      a: { dtype: 'F32', shape: [2], data_offsets: [0, 8] },
      b: { dtype: 'F32', shape: [1], data_offsets: [4, 8] },
    });
    bad(
      rawSafetensors(header, new Uint8Array(8)),
      /tensor 'b': data_offsets \[4, 8\] overlap tensor 'a' \[0, 8\]/,
      'b',
    );
  });

  it('a gap between tensors, and trailing bytes', () => {
    const gap = JSON.stringify({
      a: { dtype: 'F32', shape: [1], data_offsets: [0, 4] },
      b: { dtype: 'F32', shape: [1], data_offsets: [8, 12] },
    });
    bad(
      rawSafetensors(gap, new Uint8Array(12)),
      /tensor 'b': data_offsets start at 8, leaving bytes 4…7 of the data region unused/,
      'b',
    );
    bad(
      rawSafetensors(entry('F32', [1], [0, 4]), new Uint8Array(6)),
      /tensors end at byte 4 of the data region, but it has 6 bytes \(2 trailing bytes/,
    );
  });

  it('asking for an absent tensor names it and what the file has', () => {
    const file = parseSafetensors(writeSafetensors({ a: { dtype: 'F32', shape: [1], data: [1] } }));
    expect(() => file.float32('b')).toThrow(/no tensor 'b' in the file; it has 1 \(a\)/);
  });

  it('float32() of an int64 buffer throws with advice; raw() reads it (RoBERTa position_ids)', () => {
    const file = parseSafetensors(
      writeSafetensors({
        'roberta.embeddings.position_ids': { dtype: 'I64', shape: [1, 3], data: [0, 1, 2] },
        'roberta.embeddings.word_embeddings.weight': { dtype: 'F32', shape: [1, 2], data: [1, 2] },
      }),
    );
    expect(() => file.float32('roberta.embeddings.position_ids')).toThrow(
      /tensor 'roberta.embeddings.position_ids' has dtype I64; float32\(\) reads F32, F16, BF16, F64. Read it with raw\(\), or skip it/,
    );
    expect(file.raw('roberta.embeddings.position_ids')).toEqual(BigInt64Array.of(0n, 1n, 2n));
  });
});

describe('parseSafetensorsHeader: the head of a file only', () => {
  it('checks shapes from the first 8 + N bytes, given the full length', () => {
    const bytes = writeSafetensors({
      'conv_head.weight': { dtype: 'F32', shape: [4, 3, 1, 1], data: new Array(12).fill(0) },
    });
    const N = Number(new DataView(bytes.buffer).getBigUint64(0, true));
    const head = bytes.subarray(0, 8 + N);
    const h = parseSafetensorsHeader(head, bytes.length);
    expect(h.tensors[0]).toMatchObject({
      name: 'conv_head.weight',
      shape: [4, 3, 1, 1],
      dataOffsets: [0, 48],
    });
    expect(h.dataStart).toBe(8 + N);
    expect(() => parseSafetensorsHeader(head)).toThrow(/run past the data region, which has 0 bytes/);
    expect(() => parseSafetensorsHeader(bytes.subarray(0, 20), bytes.length)).toThrow(
      new RegExp(`the header needs the first ${8 + N} bytes; got 20`),
    );
  });

  it('knows every fixed-size dtype of the format', () => {
    const dtypes: SafetensorsDtype[] = ['I8', 'U16', 'I16', 'U32', 'U64', 'F8_E4M3', 'F8_E5M2'];
    const tensors = Object.fromEntries(dtypes.map((d) => [d, { dtype: d, shape: [2], data: [1, 2] }]));
    const file = parseSafetensors(writeSafetensors(tensors));
    expect(file.raw('U64')).toEqual(BigUint64Array.of(1n, 2n));
    expect(file.raw('I8')).toEqual(Int8Array.of(1, 2));
    expect(file.raw('F8_E4M3')).toEqual(Uint8Array.of(1, 2));
  });
});
