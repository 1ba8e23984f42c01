/**
 * RandAugment's 14 ops (§6.3) against LAMDA's op functions run on Pillow 9.4
 * (scripts/fixtures/make_image_aug_fixtures.py): each op at each M = 1…9 and each sign, on square,
 * non-square, 1-pixel, flat-channel and Equalize-overflow images and a 224×224 one; every output is
 * byte-exact (whole bytes for small images, SHA-256 otherwise). Also:
 * - rotate at the transpose angles (0, 90, 180, 270, 360) and off them, square and not;
 * - the op values of the spec's table (bits, degrees, thresholds, pixels);
 * - why blend runs in float32 and the affine ops in Pillow's 16.16 fixed point: the double
 *   versions differ from Pillow on these very images;
 * - bad arguments are refused with a message.
 */
import { describe, expect, it } from 'vitest';
import {
  applyOp,
  blend,
  brightness,
  opValue,
  RAND_AUGMENT_OPS,
  rotate,
  shearX,
  type RandAugmentOp,
  type RgbImage,
} from '../../../src/lib/augment/image/index.ts';
import {
  fromBase64,
  loadFixture,
  matchesGolden,
  pattern,
  sha256Hex,
  type PatternKind,
} from './imageFixtures.ts';

interface ImageSpec {
  width: number;
  height: number;
  sha256: string;
  pattern?: PatternKind;
  salt?: number;
  rgb?: string;
}
type OpCase = [image: string, op: RandAugmentOp, magnitude: number, negative: boolean, golden: string];
const GOLD = loadFixture<{
  pillow: string;
  images: Record<string, ImageSpec>;
  ops: OpCase[];
  rotations: [image: string, degrees: number, golden: string][];
}>('image-ops.json');

const images: Record<string, RgbImage> = Object.fromEntries(
  Object.entries(GOLD.images).map(([name, s]) => [
    name,
    s.rgb !== undefined
      ? { rgb: fromBase64(s.rgb), width: s.width, height: s.height }
      : pattern(s.pattern!, s.width, s.height, s.salt),
  ]),
);

describe('the fixture images', () => {
  it('are the ones Pillow saw', () => {
    expect(GOLD.pillow).toBe('9.4.0');
    for (const [name, s] of Object.entries(GOLD.images))
      expect([name, sha256Hex(images[name].rgb)]).toEqual([name, s.sha256]);
  });
});

describe('each RandAugment op = Pillow, at every magnitude and sign', () => {
  for (const op of RAND_AUGMENT_OPS) {
    it(op, () => {
      const cases = GOLD.ops.filter((c) => c[1] === op);
      expect(cases.length).toBeGreaterThanOrEqual(Object.keys(images).length);
      const failures = cases
        .filter(
          ([name, , m, negative, golden]) =>
            !matchesGolden(applyOp(images[name], op, m, negative).rgb, golden),
        )
        .map(([name, , m, negative]) => `${name} M=${m}${negative ? ' −' : ''}`);
      expect(failures).toEqual([]);
    });
  }

  it('leave their input untouched', () => {
    for (const op of RAND_AUGMENT_OPS) {
      const img = images.noise13x7;
      const before = img.rgb.slice();
      applyOp(img, op, 5, false);
      expect(img.rgb).toEqual(before);
    }
  });
});

describe('rotate = Image.rotate', () => {
  it('at 0, ±90, 180, 270, 360, 45 and 1 degrees, square and not', () => {
    const failures = GOLD.rotations
      .filter(([name, deg, golden]) => !matchesGolden(rotate(images[name], deg).rgb, golden))
      .map(([name, deg]) => `${name} ${deg}°`);
    expect(failures).toEqual([]);
  });
});

describe('op values (§6.3 table)', () => {
  const at = (op: RandAugmentOp, f: (v: number) => number) =>
    Array.from({ length: 9 }, (_, i) => f(opValue(op, i + 1)!));
  it('match the spec', () => {
    expect(at('Posterize', Math.trunc)).toEqual([4, 4, 5, 5, 6, 6, 6, 7, 7]);
    expect(at('Rotate', Math.trunc)).toEqual([3, 6, 9, 12, 15, 18, 21, 24, 27]);
    expect(at('Solarize', (v) => 256 - Math.trunc(v))).toEqual([231, 205, 180, 154, 128, 103, 77, 52, 26]);
    expect(at('TranslateX', (v) => Math.trunc(v * 224))).toEqual([6, 13, 20, 26, 33, 40, 47, 53, 60]);
    expect(at('TranslateX', (v) => Math.trunc(-v * 32) + 0)).toEqual([0, -1, -2, -3, -4, -5, -6, -7, -8]);
    // Python's values of LAMDA's 0.05 + float(0.95 - 0.05) * M / 10 and 0.0 + float(0.3 - 0.0) * M / 10.
    expect(at('Brightness', (v) => v)).toEqual([
      0.14, 0.22999999999999998, 0.31999999999999995, 0.41, 0.5, 0.59, 0.6799999999999999, 0.77, 0.86,
    ]);
    expect(at('ShearX', (v) => v)).toEqual([
      0.03, 0.06, 0.09, 0.12, 0.15, 0.18, 0.21000000000000002, 0.24, 0.26999999999999996,
    ]);
    expect(opValue('Equalize', 3)).toBeNull();
  });
});

describe('Pillow arithmetic that doubles would get wrong', () => {
  it('blend rounds its factor to float32 and computes in float32: doubles lose a level at M = 3, 6 and 7', () => {
    // Every (a, b) pair: a = row, b = column, in all three channels.
    const a = new Uint8Array(256 * 256 * 3);
    const b = new Uint8Array(256 * 256 * 3);
    for (let i = 0; i < a.length; i++) [a[i], b[i]] = [Math.floor(i / 768), Math.floor(i / 3) % 256];
    const [imgA, imgB] = [a, b].map((rgb): RgbImage => ({ rgb, width: 256, height: 256 }));
    const differing = (v: number, formula: (a: number, b: number) => number) => {
      const out = blend(imgA, imgB, v).rgb;
      return out.filter((o, i) => i % 3 === 0 && o !== formula(a[i], b[i])).length;
    };
    const f32 = Math.fround;
    for (let m = 1; m <= 9; m++) {
      const v = opValue('Contrast', m)!;
      expect(differing(v, (x, y) => Math.trunc(f32(x + f32(f32(v) * (y - x)))))).toBe(0);
    }
    // a + v·(b − a) in doubles: 101 pairs differ at v = 0.32, 17 at 0.59, 101 at 0.68 (§6.3's three),
    // none at the other M. Rounding v to float32 but adding in doubles is worse (every M but 0.5).
    const all = (formula: (v: number) => (x: number, y: number) => number) =>
      Array.from({ length: 9 }, (_, i) =>
        differing(opValue('Contrast', i + 1)!, formula(opValue('Contrast', i + 1)!)),
      );
    expect(all((v) => (x, y) => Math.trunc(x + v * (y - x)))).toEqual([0, 0, 101, 0, 0, 17, 101, 0, 0]);
    expect(all((v) => (x, y) => Math.trunc(x + f32(v) * (y - x)))).toEqual([
      530, 212, 1185, 212, 0, 195, 1185, 212, 530,
    ]);
    // Float32 steps without rounding v first: 17 pairs at 0.59.
    const v6 = opValue('Contrast', 6)!;
    expect(differing(v6, (x, y) => Math.trunc(f32(x + f32(v6 * (y - x)))))).toBe(17);
    expect(brightness(imgB, v6).rgb).toEqual(blend({ ...imgB, rgb: new Uint8Array(b.length) }, imgB, v6).rgb);
  });

  it("ShearX M=4 needs Pillow's 16.16 fixed point: the double formula floors differently at exact integers", () => {
    const img = images.noise32;
    const v = opValue('ShearX', 4)!;
    const pillow = shearX(img, v);
    // The spec's formula: output (x, y) takes column floor(x + 0.5 + v·(y + 0.5)), row y.
    const doubles = new Uint8Array(img.rgb.length);
    for (let y = 0; y < 32; y++)
      for (let x = 0; x < 32; x++) {
        const sx = Math.floor(x + 0.5 + v * (y + 0.5));
        if (sx >= 0 && sx < 32)
          for (let c = 0; c < 3; c++) doubles[(y * 32 + x) * 3 + c] = img.rgb[(y * 32 + sx) * 3 + c];
      }
    const golden = GOLD.ops.find((c) => c[0] === 'noise32' && c[1] === 'ShearX' && c[2] === 4 && !c[3])![4];
    expect(matchesGolden(pillow.rgb, golden)).toBe(true);
    expect(matchesGolden(doubles, golden)).toBe(false);
    // Row 12: 0.12 · 12.5 + 0.5 = 2 exactly, but Pillow's fixed-point sum is just below 2.
    const rowDiffers = (y: number) =>
      doubles.subarray(y * 96, y * 96 + 96).some((b, i) => b !== pillow.rgb[y * 96 + i]);
    expect(Array.from({ length: 32 }, (_, y) => y).filter(rowDiffers)).toEqual([12]);
  });
});

describe('argument checks', () => {
  it('refuse bad magnitudes, signs, ops and images', () => {
    const img = images.ramp8;
    expect(() => applyOp(img, 'Brightness', 0)).toThrow(/magnitude must be an integer in \[1, 9\]; got 0/);
    expect(() => applyOp(img, 'Brightness', 10)).toThrow(/got 10/);
    expect(() => applyOp(img, 'Solarize', 3, true)).toThrow(/Solarize.*no sign/);
    expect(() => applyOp(img, 'Blur' as RandAugmentOp, 3)).toThrow(/unknown op Blur/);
    expect(() => applyOp({ rgb: new Uint8Array(5), width: 1, height: 2 }, 'Identity', 1)).toThrow(
      /rgb has 5 bytes; expected width × height × 3 = 6/,
    );
    expect(() => applyOp({ rgb: new Uint8Array(0), width: 0, height: 0 }, 'Identity', 1)).toThrow(
      /width and height must be integers >= 1; got width 0, height 0/,
    );
    expect(() => blend(img, images.noise13x7, 0.5)).toThrow(/images differ in size: 8×8 and 13×7/);
  });
});
