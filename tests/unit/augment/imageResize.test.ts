/**
 * Resize (§6.1) against Pillow 9.4's `Image.resize(size, BILINEAR)`, which torchvision's Resize
 * calls on PIL images (scripts/fixtures/make_image_aug_fixtures.py). The claim tested is exact
 * equality, not the ±1 the spec allows: every case's output hashes to Pillow's, and the sampled
 * rows compare byte for byte (0 mismatches), downscales by up to 4.7×, upscales, one axis
 * unchanged, the same size (a copy), 1×1 in and out, and extreme aspect ratios.
 */
import { describe, expect, it } from 'vitest';
import { resizeBilinear } from '../../../src/lib/augment/image/index.ts';
import { byteDiff, fromBase64, loadFixture, pattern, sha256Hex, type PatternKind } from './imageFixtures.ts';

interface ResizeCase {
  kind: PatternKind;
  width: number;
  height: number;
  outWidth: number;
  outHeight: number;
  sha256: string;
  rows: Record<string, string>;
}
const GOLD = loadFixture<{ pillow: string; cases: ResizeCase[] }>('image-resize.json');

describe('resizeBilinear = Pillow BILINEAR resize', () => {
  it('was checked against Pillow 9.4', () => expect(GOLD.pillow).toBe('9.4.0'));

  for (const c of GOLD.cases) {
    it(`${c.kind} ${c.width}×${c.height} → ${c.outWidth}×${c.outHeight}: exact`, () => {
      const out = resizeBilinear(pattern(c.kind, c.width, c.height), c.outWidth, c.outHeight);
      expect([out.width, out.height]).toEqual([c.outWidth, c.outHeight]);
      const rowBytes = c.outWidth * 3;
      for (const [r, b64] of Object.entries(c.rows)) {
        const y = Number(r);
        const got = out.rgb.subarray(y * rowBytes, (y + 1) * rowBytes);
        expect({ row: y, ...byteDiff(got, fromBase64(b64)) }).toEqual({ row: y, mismatches: 0, maxAbs: 0 });
      }
      expect(sha256Hex(out.rgb)).toBe(c.sha256);
    });
  }

  it('returns a copy at the same size and never touches its input', () => {
    const img = pattern('noise', 9, 4, 3);
    const before = img.rgb.slice();
    const same = resizeBilinear(img, 9, 4);
    expect(same.rgb).toEqual(img.rgb);
    expect(same.rgb).not.toBe(img.rgb);
    resizeBilinear(img, 5, 11);
    expect(img.rgb).toEqual(before);
  });

  it('refuses bad sizes with a message that names them', () => {
    const img = pattern('ramp', 4, 4);
    expect(() => resizeBilinear(img, 0, 4)).toThrow(/output size must be integers >= 1; got 0×4/);
    expect(() => resizeBilinear(img, 2.5, 4)).toThrow(/got 2.5×4/);
    expect(() => resizeBilinear({ rgb: new Uint8Array(47), width: 4, height: 4 }, 2, 2)).toThrow(
      /rgb has 47 bytes; expected width × height × 3 = 48/,
    );
  });
});
