/**
 * Shared by the image augmentation tests: the formula images of
 * scripts/fixtures/make_image_aug_fixtures.py (`pattern`, the same integer arithmetic), fixture
 * loading and byte comparison.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { RgbImage } from '../../../src/lib/augment/image/index.ts';

export type PatternKind = 'ramp' | 'noise' | 'smooth';

/** The fixture script's `pattern(kind, w, h, salt)`. */
export function pattern(kind: PatternKind, width: number, height: number, salt = 0): RgbImage {
  const rgb = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++)
      for (let c = 0; c < 3; c++) {
        let v: number;
        if (kind === 'ramp') v = x * 5 + y * 3 + c * 85 + ((x * 31 + y * 17 + salt) % 23) * 7 + salt * 11;
        else if (kind === 'noise') {
          const i = (y * width + x) * 3 + c + salt * 7919;
          v = Math.floor(((i * 1103515245 + 12345) % 2147483648) / 65536);
        } else v = Math.floor((x * x + 3 * y * y) / 64) + c * 40 + salt * 13;
        rgb[(y * width + x) * 3 + c] = v % 256;
      }
  return { rgb, width, height };
}

export function loadFixture<T>(name: string): T {
  return JSON.parse(readFileSync(new URL(`../../fixtures/augment/${name}`, import.meta.url), 'utf8')) as T;
}

export const fromBase64 = (s: string) => new Uint8Array(Buffer.from(s, 'base64'));
export const sha256Hex = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** A fixture value is either the whole output (base64) or the SHA-256 (64 hex digits) of its bytes. */
export function matchesGolden(bytes: Uint8Array, golden: string): boolean {
  if (/^[0-9a-f]{64}$/.test(golden)) return sha256Hex(bytes) === golden;
  const want = fromBase64(golden);
  return want.length === bytes.length && want.every((v, i) => v === bytes[i]);
}

/** Bytes that differ, and the largest difference (for the ±1 question). */
export function byteDiff(a: Uint8Array, b: Uint8Array): { mismatches: number; maxAbs: number } {
  if (a.length !== b.length) return { mismatches: Math.max(a.length, b.length), maxAbs: 255 };
  let mismatches = 0;
  let maxAbs = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i] - b[i]);
    if (d > 0) mismatches++;
    if (d > maxAbs) maxAbs = d;
  }
  return { mismatches, maxAbs };
}
