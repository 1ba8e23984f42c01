/**
 * The finetune tier's photo views (PROTOCOL-IMAGE-TEXT.md §6.1, suite/finetuneViews.ts): Resize
 * 256 → RandomCrop 224 → flip (weak), → RandAugment → Cutout (strong), with the crop shared by
 * every view of an unlabeled row in a step (the original's pre-transform) and drawn afresh per
 * step. Oracles: the crop window cut by hand from the resized image at the offsets the crop seed
 * draws (top, then left), the flip coin of the view's own generator, the bank's photo pipeline
 * (augment/image imageView) for a labeled row, and RandAugment + Cutout applied to the shared
 * crop for a strong view. Also: the draws are a pure function of the stream (a resumed fit draws
 * the same), and views without a shared crop (CIFAR, text) keep one seed per row.
 */
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  crop,
  cutout,
  flipHorizontal,
  imageView,
  randAugment,
  resizeBilinear,
  type RgbImage,
} from '../../../src/lib/augment/image/index.ts';
import { MT19937 } from '../../../src/lib/protocol/rng.ts';
import type { PoolFile } from '../../../src/lib/protocol/panelSplit.ts';
import { finetuneViews, photoRenderer, type FinetuneRows } from '../../../src/lib/suite/finetuneViews.ts';
import { finetuneRefusal } from '../../../src/lib/suite/panelFinetune.ts';

/** Photos of their own sizes (as a folder's files are), with texture so crops and flips differ. */
const photo = (seed: number, width: number, height: number): RgbImage => {
  const rng = new MT19937(seed);
  return { rgb: Uint8Array.from({ length: width * height * 3 }, () => rng.randint(256)), width, height };
};
const PHOTOS = [photo(1, 40, 30), photo(2, 33, 51), photo(3, 64, 48), photo(4, 29, 29)];
const SIDE = 224;
const RESIZE = 256;

/** Mean 0, std 1: a view's values are its bytes / 255, so the bytes can be read back. */
const rows = (sharedCrop: boolean): FinetuneRows & { calls: number } => {
  const src = {
    calls: 0,
    nL: 2,
    nU: 2,
    dim: SIDE * SIDE * 3,
    sharedCrop,
    locate: (set: 'L' | 'U', i: number) => ({
      file: (set === 'L' ? 'train' : 'target') as PoolFile,
      row: set === 'L' ? i : 2 + i,
      variant: 'colour',
    }),
    render: photoRenderer(
      (_file, row) => {
        src.calls++;
        return PHOTOS[row];
      },
      { mean: [0, 0, 0], std: [1, 1, 1] },
      { resize: RESIZE, crop: SIDE },
    ),
  };
  return src;
};

const bytesOf = async (t: tf.Tensor2D, r: number): Promise<Uint8Array> => {
  const all = (await t.data()) as Float32Array;
  const n = SIDE * SIDE * 3;
  return Uint8Array.from(all.subarray(r * n, (r + 1) * n), (v) => Math.round(v * 255));
};

/** The hand-made crop: offsets top, then left, uniform in 0…32 from the crop seed's generator. */
const sharedCrop = (row: number, cropSeed: number): RgbImage => {
  const rng = new MT19937(cropSeed >>> 0);
  const top = rng.randint(RESIZE - SIDE + 1);
  const left = rng.randint(RESIZE - SIDE + 1);
  return crop(resizeBilinear(PHOTOS[row], RESIZE, RESIZE), top, left, SIDE, SIDE);
};

beforeAll(async () => {
  await tf.setBackend('cpu');
});

describe('finetune photo views (§6.1)', () => {
  it('gives every unlabeled view of a row the same crop, and each view its own flip and colour ops', async () => {
    const views = finetuneViews(rows(true));
    const draws = views.draw(2, 2, 'weak', ['weak', 'strong', 'weak'], new MT19937(11));
    expect(draws.map((d) => d.length)).toEqual([2, 4, 4, 4]);
    const idx = Int32Array.from([1, 0]);
    const [weak, strong, weak2] = [
      views.unlabeled(idx, 'weak', draws[1]),
      views.unlabeled(idx, 'strong', draws[2]),
      views.unlabeled(idx, 'weak', draws[3]),
    ];
    let flips = 0;
    for (let r = 0; r < 2; r++) {
      const row = 2 + idx[r];
      // The crop seed is the same in every view's pairs; the view seeds differ.
      const cropSeed = draws[1][2 * r];
      expect(draws[2][2 * r]).toBe(cropSeed);
      expect(draws[3][2 * r]).toBe(cropSeed);
      expect(new Set([draws[1][2 * r + 1], draws[2][2 * r + 1], draws[3][2 * r + 1]]).size).toBe(3);
      const window = sharedCrop(row, cropSeed);

      for (const [t, d] of [
        [weak, draws[1]],
        [weak2, draws[3]],
      ] as const) {
        const own = new MT19937(d[2 * r + 1] >>> 0);
        const flipped = own.nextU32() / 2 ** 32 < 0.5;
        flips += flipped ? 1 : 0;
        expect(await bytesOf(t, r)).toEqual((flipped ? flipHorizontal(window) : window).rgb);
      }

      // Strong: the same window, its own flip, then RandAugment and Cutout from the same generator.
      const own = new MT19937(draws[2][2 * r + 1] >>> 0);
      const geometric = own.nextU32() / 2 ** 32 < 0.5 ? flipHorizontal(window) : window;
      const expected = cutout(randAugment(geometric, own), own);
      const got = await bytesOf(strong, r);
      expect(got).toEqual(expected.rgb);
      // Cutout always paints its (inclusive, ≥ 1 px) square grey: the colour ops did act.
      expect(got).not.toEqual(geometric.rgb);
    }
    // Both coin outcomes occurred, so the flip is each view's own and not the row's.
    expect(flips).toBeGreaterThan(0);
    expect(flips).toBeLessThan(4);
    tf.dispose([weak, strong, weak2]);
  });

  it("draws a labeled row's weak view as the bank's photo pipeline does, from its one generator", async () => {
    const views = finetuneViews(rows(true));
    const draws = views.draw(2, 2, 'weak', ['weak', 'strong'], new MT19937(5));
    const idx = Int32Array.from([0, 1]);
    const xl = views.labeled(idx, draws[0]);
    for (let r = 0; r < 2; r++) {
      const resized = resizeBilinear(PHOTOS[r], RESIZE, RESIZE);
      const bank = imageView('photo', 'weak', resized.rgb, RESIZE, RESIZE, new MT19937(draws[0][r] >>> 0));
      expect(await bytesOf(xl, r)).toEqual(bank.rgb);
    }
    xl.dispose();
  });

  it('draws the same views from the same stream, other crops at the next step, and keeps resized photos', async () => {
    const src = rows(true);
    const views = finetuneViews(src);
    const once = async (seed: number) => {
      const d = views.draw(2, 2, 'weak', ['weak', 'strong'], new MT19937(seed));
      const t = views.unlabeled(Int32Array.from([0, 1]), 'strong', d[2]);
      const out = await t.data();
      t.dispose();
      return { d, out: Float32Array.from(out) };
    };
    const a = await once(3);
    const b = await once(3);
    expect(b.d).toEqual(a.d);
    expect(b.out).toEqual(a.out);
    // Each photo was decoded and resized once, then reused.
    expect(src.calls).toBe(2);
    // The stream moves on: a later step draws other seeds, and another crop.
    const stream = new MT19937(3);
    const step1 = views.draw(2, 2, 'weak', ['weak', 'strong'], stream);
    const step2 = views.draw(2, 2, 'weak', ['weak', 'strong'], stream);
    expect(step2[1]).not.toEqual(step1[1]);
    const c = await once(4);
    expect(c.out).not.toEqual(a.out);
  });

  it('keeps one seed per row without a shared crop, and refuses seeds that do not fit the batch', () => {
    const views = finetuneViews(rows(false));
    const draws = views.draw(3, 2, 'weak', ['weak', 'strong'], new MT19937(1));
    expect(draws.map((d) => d.length)).toEqual([3, 2, 2]);
    // The same stream gives the labeled seeds first either way (a CIFAR run's draws are unchanged).
    const paired = finetuneViews(rows(true)).draw(3, 2, 'weak', ['weak', 'strong'], new MT19937(1));
    expect(paired[0]).toEqual(draws[0]);
    expect(() => finetuneViews(rows(true)).unlabeled(Int32Array.from([0, 1]), 'weak', draws[1])).toThrow(
      /2 seeds for 2 rows of U; expected 4/,
    );
  });

  it('clean views are the centre crop (offset 16) of the resize', async () => {
    const render = rows(true).render;
    const x = render('test', 2, 'colour', 'clean', null);
    const want = crop(resizeBilinear(PHOTOS[2], RESIZE, RESIZE), 16, 16, SIDE, SIDE).rgb;
    expect(Uint8Array.from(x, (v) => Math.round(v * 255))).toEqual(want);
    expect(() => render('test', 2, 'colour', 'weak', null)).toThrow(/a weak view needs a generator/);
  });
});

describe('finetuneRefusal', () => {
  it('runs every panel where the photo rows are built, and tells a caller without them why not', () => {
    for (const id of ['cifar10', 'cifar100', 'ag_news', 'imdb-amazon'] as const) {
      expect(finetuneRefusal(id)).toBeNull();
      expect(finetuneRefusal(id, { photoRows: true })).toBeNull();
    }
    for (const id of ['image-clef', 'visda'] as const) {
      expect(finetuneRefusal(id, { photoRows: true })).toBeNull();
      expect(finetuneRefusal(id)).toMatch(
        /finetune of the photo panels runs in the CLI \(rac-bench run --tier finetune/,
      );
    }
  });
});
