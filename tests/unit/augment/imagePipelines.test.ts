/**
 * The view pipelines of §6.1 with RandAugment (§6.3) and Cutout (§6.4), against a Python port
 * that runs LAMDA's ops on Pillow 9.4 with the same view generators
 * (scripts/fixtures/make_image_aug_fixtures.py):
 * 1. the Python port's generator is ours: first draws and randint of three seeds;
 * 2. Cutout's rectangle (CutoutAbs's arithmetic, numpy's uniform(w)) and Pillow's inclusive fill,
 *    at fixed uniforms including 0 and 1 − 2⁻³², on square, non-square and 1×1 images;
 * 3. CIFAR weak and strong views (96 + 24) and photo clean/weak/strong views of four input sizes
 *    (64) are byte-exact, and each strong view drew the same RandAugment ops, magnitudes, coins
 *    and signs (the fixture applies every op, signed ops with both signs);
 * 4. strongCifarView from cifarViews.ts (the bank's import) is cifarStrong; views are
 *    reproducible and a 224×224 strong view takes a few ms;
 * 5. labeled-pixel statistics = numpy's get_mena_std; ImageNet normalisation; grey rows G = B = R;
 * 6. bad input is refused with a message.
 */
import { describe, expect, it } from 'vitest';
import {
  cutout,
  cutoutRect,
  fillRect,
  greyFromRed,
  imageView,
  labeledPixelStats,
  normalise,
  type ImageViewKind,
  type RgbImage,
} from '../../../src/lib/augment/image/index.ts';
import { viewRng, viewSeed } from '../../../src/lib/bank/viewSeed.ts';
import { strongCifarView, weakCifarView } from '../../../src/lib/models/backbone/cifarViews.ts';
import { MT19937 } from '../../../src/lib/protocol/rng.ts';
import {
  fromBase64,
  loadFixture,
  matchesGolden,
  pattern,
  sha256Hex,
  type PatternKind,
} from './imageFixtures.ts';

type Trace = [op: string, magnitude: number, applied: boolean, negative: boolean | null][];
const GOLD = loadFixture<{
  pillow: string;
  photoInputs: [PatternKind, number, number][];
  rng: { seed: number; u32: number[]; randint: [number, number][] }[];
  cutout: { width: number; height: number; u32: [number, number, number]; rect: number[]; sha256: string }[];
  cifar: {
    view: 'weak' | 'strong';
    row: number;
    k: number;
    sha256: string;
    trace: Trace;
    rgb: string | null;
  }[];
  photo: { input: number; view: ImageViewKind; row: number; sha256: string; trace: Trace }[];
  stats: { images: { width: number; height: number; rgb: string }[]; mean: number[]; std: number[] };
}>('image-pipelines.json');

const traceOf = (
  steps: { op: string; magnitude: number; applied: boolean; negative: boolean | null }[],
): Trace => steps.map((s) => [s.op, s.magnitude, s.applied, s.negative]);

describe('the Python port draws what rng.ts draws', () => {
  it('next_u32 and randint', () => {
    for (const { seed, u32, randint } of GOLD.rng) {
      const rng = new MT19937(seed);
      expect(u32.map(() => rng.nextU32())).toEqual(u32);
      expect(randint.map(([n]) => [n, rng.randint(n)])).toEqual(randint);
    }
    expect(GOLD.rng[0].seed).toBe(viewSeed(0, 0, 'weak', 0));
  });
});

describe('Cutout', () => {
  it("CutoutAbs's rectangle and Pillow's inclusive fill at fixed uniforms", () => {
    for (const c of GOLD.cutout) {
      const [u1, u2, u3] = c.u32.map((n) => n / 2 ** 32);
      const rect = cutoutRect(c.width, c.height, u1, u2, u3);
      expect([c.width, c.height, c.u32, [rect.x0, rect.y0, rect.x1, rect.y1]]).toEqual([
        c.width,
        c.height,
        c.u32,
        c.rect,
      ]);
      const img = pattern('noise', c.width, c.height, c.width + c.height);
      expect(matchesGolden(fillRect(img, rect).rgb, c.sha256)).toBe(true);
    }
  });

  it('draws u1, u2, u3 in that order; the fill includes both corners, clipped to the image', () => {
    const img = pattern('smooth', 32, 32);
    const seq = [0, 0, 2 ** 32 - 1];
    const rng = { nextU32: () => seq.shift()!, randint: () => 0 };
    const out = cutout(img, rng);
    expect(seq).toEqual([]);
    // cx = cy = 32, s = 16·(1 − 2⁻³²): x0 = y0 = 24, x1 = y1 = 32 (clipped to 31): an 8×8 square.
    for (let y = 0; y < 32; y++)
      for (let x = 0; x < 32; x++) {
        const inside = x >= 24 && y >= 24;
        const p = (y * 32 + x) * 3;
        expect(Array.from(out.rgb.subarray(p, p + 3))).toEqual(
          inside ? [127, 127, 127] : Array.from(img.rgb.subarray(p, p + 3)),
        );
      }
  });
});

describe('CIFAR views = the Python port on Pillow', () => {
  const source = (row: number) => pattern(row % 2 ? 'noise' : 'smooth', 32, 32, row);
  it('weak and strong views, with their RandAugment draws', () => {
    const failures: string[] = [];
    for (const c of GOLD.cifar) {
      const src = source(c.row);
      const trace: Parameters<typeof imageView>[6] = [];
      const out = imageView('cifar', c.view, src.rgb, 32, 32, viewRng(0, c.row, c.view, c.k), trace);
      if (c.view === 'strong') expect([c.row, c.k, traceOf(trace)]).toEqual([c.row, c.k, c.trace]);
      if (!matchesGolden(out.rgb, c.rgb ?? c.sha256)) failures.push(`${c.view} row ${c.row} k ${c.k}`);
    }
    expect(failures).toEqual([]);
    expect(GOLD.cifar.filter((c) => c.rgb !== null).length).toBeGreaterThan(0);
  });

  it("cifarViews.ts's weakCifarView and strongCifarView are these views (the bank's imports)", () => {
    for (const c of GOLD.cifar
      .slice(0, 8)
      .concat(GOLD.cifar.filter((c) => c.view === 'strong').slice(0, 8))) {
      const view = c.view === 'weak' ? weakCifarView : strongCifarView;
      expect(matchesGolden(view(source(c.row).rgb, 32, viewRng(0, c.row, c.view, c.k)), c.sha256)).toBe(true);
    }
  });

  it('clean is the stored image, copied', () => {
    const src = source(3);
    const out = imageView('cifar', 'clean', src.rgb, 32, 32, new MT19937(0));
    expect(out.rgb).toEqual(src.rgb);
    expect(out.rgb).not.toBe(src.rgb);
  });
});

describe('photo views (image-clef, visda) = the Python port on Pillow', () => {
  it('clean, weak and strong of four input sizes, with their RandAugment draws', () => {
    const inputs = GOLD.photoInputs.map(([kind, w, h], i) => pattern(kind, w, h, i));
    const failures: string[] = [];
    for (const c of GOLD.photo) {
      const src = inputs[c.input];
      const trace: Parameters<typeof imageView>[6] = [];
      const rng = viewRng(0, c.row, c.view === 'clean' ? 'weak' : c.view, 0);
      const out = imageView('photo', c.view, src.rgb, src.width, src.height, rng, trace);
      expect([out.width, out.height]).toEqual([224, 224]);
      expect([c.row, traceOf(trace)]).toEqual([c.row, c.trace]);
      if (!matchesGolden(out.rgb, c.sha256)) failures.push(`${c.view} input ${c.input} row ${c.row}`);
    }
    expect(failures).toEqual([]);
  });

  it('the clean view draws nothing; a strong view of 224×224 takes a few ms', () => {
    const src = pattern('smooth', 300, 200);
    const rng = new MT19937(1);
    imageView('photo', 'clean', src.rgb, 300, 200, rng);
    expect(rng.nextU32()).toBe(new MT19937(1).nextU32());
    const img224 = pattern('noise', 224, 224);
    const t0 = performance.now();
    const runs = 40;
    for (let i = 0; i < runs; i++)
      imageView('cifar', 'strong', img224.rgb, 224, 224, viewRng(0, i, 'strong', 0));
    const ms = (performance.now() - t0) / runs;
    expect(ms).toBeLessThan(25); // generous for a shared 2-core machine; a few ms when idle
  });
});

describe('normalisation (§6.2) and grey rows (§5.3)', () => {
  it("labeledPixelStats = numpy's get_mena_std (mean and population std of x/255)", () => {
    const imgs: RgbImage[] = GOLD.stats.images.map((s) => ({
      rgb: fromBase64(s.rgb),
      width: s.width,
      height: s.height,
    }));
    const { mean, std } = labeledPixelStats(imgs);
    // Exact level counts here, numpy's pairwise sums there: equal to a few ulps.
    mean.forEach((m, c) => expect(Math.abs(m - GOLD.stats.mean[c])).toBeLessThan(1e-14));
    std.forEach((s, c) => expect(Math.abs(s - GOLD.stats.std[c])).toBeLessThan(1e-14));
  });

  it('normalise: (x/255 − mean)/std per channel, float32', () => {
    const out = normalise(Uint8Array.from([0, 255, 128, 10, 20, 30]));
    expect(Array.from(out)).toEqual(
      [0, 255, 128, 10, 20, 30].map((x, i) =>
        Math.fround((x / 255 - [0.485, 0.456, 0.406][i % 3]) / [0.229, 0.224, 0.225][i % 3]),
      ),
    );
    const stats = normalise(Uint8Array.from([51, 51, 51]), [0.2, 0.1, 0], [0.5, 0.5, 1]);
    expect(Array.from(stats)).toEqual([0, 0.2, 0.2].map(Math.fround));
  });

  it('grey copies R into G and B (not a luminance)', () => {
    const img = pattern('noise', 5, 3);
    const grey = greyFromRed(img);
    for (let p = 0; p < 15; p++)
      expect([grey.rgb[p * 3], grey.rgb[p * 3 + 1], grey.rgb[p * 3 + 2]]).toEqual(
        Array(3).fill(img.rgb[p * 3]),
      );
  });
});

describe('imageView refuses bad input', () => {
  const rng = () => new MT19937(0);
  it('with a message that says what and where', () => {
    expect(() => imageView('cifar', 'weak', new Uint8Array(10), 2, 2, rng())).toThrow(
      /imageView\(cifar, weak\): rgb has 10 bytes; expected width × height × 3 = 12/,
    );
    expect(() => imageView('cifar', 'strong', new Uint8Array(24), 4, 2, rng())).toThrow(
      /square image; got 4×2/,
    );
    expect(() => imageView('photo', 'clean', new Uint8Array(0), 0, 5, rng())).toThrow(
      /got width 0, height 5/,
    );
    expect(() => imageView('mnist' as 'cifar', 'clean', new Uint8Array(3), 1, 1, rng())).toThrow(
      /unknown dataset mnist/,
    );
    expect(() => weakCifarView(new Uint8Array(30), 32, rng())).toThrow(/30 bytes is not 32×32×3/);
    expect(() => strongCifarView(new Uint8Array(30), 32, rng())).toThrow(/strongCifarView: 30 bytes/);
  });

  it('1-pixel images go through every view', () => {
    for (const view of ['clean', 'weak', 'strong'] as const) {
      expect(imageView('cifar', view, Uint8Array.from([1, 2, 3]), 1, 1, rng()).rgb.length).toBe(3);
      expect(imageView('photo', view, Uint8Array.from([1, 2, 3]), 1, 1, rng()).rgb.length).toBe(
        224 * 224 * 3,
      );
    }
    expect(sha256Hex(imageView('photo', 'clean', Uint8Array.from([9, 8, 7]), 1, 1, rng()).rgb)).toBe(
      sha256Hex(new Uint8Array(224 * 224 * 3).map((_, i) => [9, 8, 7][i % 3])),
    );
  });
});
