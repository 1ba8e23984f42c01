/**
 * The reference-layout file written by scripts/fixtures/make_weight_fixtures.py (numpy, no TypeScript
 * involved): bytes, hash, header, every value as float32 bits, and numpy's own transposes.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../src/lib/weights/hash.ts';
import { parseSafetensors } from '../../../src/lib/weights/safetensors.ts';
import { oihwToDepthwise, oihwToHwio, transpose2d } from '../../../src/lib/weights/weightMap.ts';
import { f32Bits } from './helpers.ts';

const DIR = new URL('../../fixtures/weights/', import.meta.url);

interface Expected {
  sha256: string;
  bytes: number;
  header_length: number;
  metadata: Record<string, string>;
  names_in_file_order: string[];
  tensors: Record<string, { dtype: string; shape: number[]; f32_bits?: number[]; values?: number[] }>;
  layouts: Record<string, { shape: number[]; f32_bits: number[] }>;
}

const bytes = new Uint8Array(readFileSync(new URL('tiny.safetensors', DIR)));
const expected = JSON.parse(readFileSync(new URL('tiny.expected.json', DIR), 'utf8')) as Expected;

describe('tiny.safetensors (numpy reference fixture)', () => {
  const file = parseSafetensors(bytes);

  it('has the recorded size and SHA-256 (WebCrypto agrees with hashlib)', async () => {
    expect(bytes.length).toBe(expected.bytes);
    expect(await sha256Hex(bytes)).toBe(expected.sha256);
  });

  it('parses the header: length, metadata, names in file order, dtypes and shapes', () => {
    expect(file.headerLength).toBe(expected.header_length);
    expect(file.metadata).toEqual(expected.metadata);
    expect(file.names).toEqual(expected.names_in_file_order);
    for (const [name, t] of Object.entries(expected.tensors)) {
      expect(file.info(name)).toMatchObject({ dtype: t.dtype, shape: t.shape });
    }
  });

  it('reads every float tensor bit for bit (F32 views, F16 with inf/NaN/subnormals, BF16)', () => {
    for (const [name, t] of Object.entries(expected.tensors)) {
      if (!t.f32_bits) continue;
      const data = file.float32(name);
      expect(f32Bits(data), name).toEqual(t.f32_bits);
      if (t.dtype === 'F32') expect(data.buffer, name).toBe(bytes.buffer);
    }
  });

  it('reads the int64 position_ids buffer with raw()', () => {
    expect(Array.from(file.raw('position_ids') as BigInt64Array, Number)).toEqual(
      expected.tensors.position_ids.values,
    );
  });

  it('the layout changes equal numpy transposes', () => {
    const conv = oihwToHwio(file.float32('conv.weight'), file.info('conv.weight').shape);
    expect(conv.shape).toEqual(expected.layouts.conv_hwio.shape);
    expect(f32Bits(conv.data)).toEqual(expected.layouts.conv_hwio.f32_bits);
    const dw = oihwToDepthwise(file.float32('dw.weight'), file.info('dw.weight').shape, 2);
    expect(dw.shape).toEqual(expected.layouts.dw_depthwise_m2.shape);
    expect(f32Bits(dw.data)).toEqual(expected.layouts.dw_depthwise_m2.f32_bits);
    const fc = transpose2d(file.float32('fc.weight'), file.info('fc.weight').shape);
    expect(fc.shape).toEqual(expected.layouts.fc_transposed.shape);
    expect(f32Bits(fc.data)).toEqual(expected.layouts.fc_transposed.f32_bits);
  });
});
