/**
 * JPEG decoding against Pillow (tests/fixtures/jpeg/pil-decoded.json, from
 * scripts/fixtures/make_jpeg_fixtures.py: Pillow 9.4 on libjpeg-turbo). jpeg-js's IDCT is not
 * libjpeg's, so pixels may differ by a few levels; the chroma upsampling and colour conversion are
 * libjpeg's (jpegLibjpeg.ts), without which 4:2:0 files differ by tens of levels at colour edges.
 * Measured: max 3 levels, mean ≈ 0.15 on every colour case; greyscale and CMYK max 1.
 */
import { readFileSync } from 'node:fs';
import { encode as encodePng } from 'fast-png';
import { decode as decodeJpegJs } from 'jpeg-js';
import { describe, expect, it } from 'vitest';
import { decodeImageRgb, imageFormat } from '../../../../src/lib/data/modal/imageDecode.ts';

interface Case {
  name: string;
  mode: string;
  width: number;
  height: number;
  jpeg: string;
  rgb: string;
}
const fixture = JSON.parse(
  readFileSync(new URL('../../../fixtures/jpeg/pil-decoded.json', import.meta.url), 'utf8'),
) as { cases: Case[] };
const b64 = (s: string) => new Uint8Array(Buffer.from(s, 'base64'));

function diff(a: Uint8Array, b: Uint8Array): { max: number; mean: number } {
  let max = 0;
  let sum = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i] - b[i]);
    max = Math.max(max, d);
    sum += d;
  }
  return { max, mean: sum / a.length };
}

describe('decodeImageRgb on JPEG files, against Pillow', () => {
  for (const c of fixture.cases)
    it(`${c.name} (${c.mode}): same size, within 3 levels of Pillow, mean under 0.25`, () => {
      const img = decodeImageRgb(b64(c.jpeg));
      expect([img.width, img.height]).toEqual([c.width, c.height]);
      expect(img.rgb.length).toBe(c.width * c.height * 3);
      const d = diff(img.rgb, b64(c.rgb));
      expect(d.max).toBeLessThanOrEqual(c.mode === 'RGB' ? 3 : 1);
      expect(d.mean).toBeLessThan(0.25);
    });

  it("beats plain jpeg-js on 4:2:0 (libjpeg's fancy upsampling matters at colour edges)", () => {
    const c = fixture.cases.find((x) => x.name === '420')!;
    const plain = decodeJpegJs(b64(c.jpeg), { useTArray: true, formatAsRGBA: false });
    expect(diff(plain.data, b64(c.rgb)).max).toBeGreaterThan(20);
  });
});

describe('decodeImageRgb: formats and refusals', () => {
  it('tells JPEG and PNG by their signatures, not their names', () => {
    expect(imageFormat(b64(fixture.cases[0].jpeg))).toBe('jpeg');
    const png = encodePng({
      width: 2,
      height: 1,
      data: Uint8Array.from([1, 2, 3, 4, 5, 6]),
      channels: 3,
      depth: 8,
    });
    expect(imageFormat(png)).toBe('png');
    expect(decodeImageRgb(png)).toEqual({ width: 2, height: 1, rgb: Uint8Array.from([1, 2, 3, 4, 5, 6]) });
    expect(imageFormat(new TextEncoder().encode('GIF89a...'))).toBeNull();
  });

  it('names what is wrong with a file that is not an image, or a broken JPEG', () => {
    expect(() => decodeImageRgb(new TextEncoder().encode('hello'))).toThrow(/not a JPEG or PNG image/);
    const cut = b64(fixture.cases[0].jpeg).slice(0, 40);
    expect(() => decodeImageRgb(cut)).toThrow(/not a readable JPEG image/);
  });
});
