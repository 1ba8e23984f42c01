/**
 * Bank extraction end to end in the core: a tiny conv backbone loaded from a safetensors file the
 * test writes (torchvision names, OIHW), CIFAR's clean and weak views (§6.1) drawn per (row, view, k)
 * from the view generators (§7.4), colour and grey variants, through extractBank into a bank file.
 * 1. the clean features equal a plain-JS convolution of the same weights (float16 tolerance);
 * 2. the weak view is flip → reflect-pad 4 → crop, checked against an explicit padded array, and
 *    each view's draws come from its own generator (the same view renders the same, anywhere);
 * 3. an extraction aborted after three batches and resumed from its saved state gives the same
 *    file, byte for byte, as an uninterrupted one; progress only grows and has an ETA;
 * 4. a backbone of another width, or weights of the wrong shape, are refused.
 */
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import { BankBuilder, readBankFile, type BankKey, type BankView } from '../../../src/lib/bank/bankFile.ts';
import { extractBank, type ExtractProgress } from '../../../src/lib/bank/extract.ts';
import { viewRng } from '../../../src/lib/bank/viewSeed.ts';
import { tinyConvNet } from '../../../src/lib/models/backbone/backbone.ts';
import { normalise, weakCifarView } from '../../../src/lib/models/backbone/cifarViews.ts';
import { AbortError } from '../../../src/lib/models/estimator.ts';
import { MT19937 } from '../../../src/lib/protocol/rng.ts';
import { parseSafetensors } from '../../../src/lib/weights/safetensors.ts';
import { writeSafetensors } from '../weights/helpers.ts';

const S = 32;
const N = 20;
const images = Array.from({ length: N }, (_, i) =>
  Uint8Array.from({ length: S * S * 3 }, (_, p) => (i * 53 + p * 7 + ((p / 96) | 0) * 11) % 256),
);
/** §6.1: grey rows copy R into G and B on the stored image. */
const grey = (rgb: Uint8Array) => Uint8Array.from(rgb, (_, i) => rgb[i - (i % 3)]);

const rng = new MT19937(77);
const w1 = Array.from({ length: 4 * 3 * 3 * 3 }, () => 0.3 * rng.normal());
const b1 = Array.from({ length: 4 }, () => 0.1 * rng.normal());
const w2 = Array.from({ length: 8 * 4 * 3 * 3 }, () => 0.3 * rng.normal());
const b2 = Array.from({ length: 8 }, () => 0.1 * rng.normal());
const weightsFile = writeSafetensors({
  'conv1.weight': { dtype: 'F32', shape: [4, 3, 3, 3], data: w1 },
  'conv1.bias': { dtype: 'F32', shape: [4], data: b1 },
  'conv2.weight': { dtype: 'F32', shape: [8, 4, 3, 3], data: w2 },
  'conv2.bias': { dtype: 'F32', shape: [8], data: b2 },
});

const key: BankKey = {
  dataset: 'cifar10/train',
  contentSha256: 'c'.repeat(64),
  weightsSha256: 'a'.repeat(64),
  tokenizerSha256: null,
  feature: 'tiny-conv-gap-8',
  variants: ['colour', 'grey'],
  Kw: 2,
  Ks: 0,
  seed: 0,
  aug: 'rsb-aug/1',
  dtype: 'float16',
  dim: 8,
  rows: N,
};

function render(variant: string, view: BankView, k: number, row: number): Float32Array {
  const img = variant === 'grey' ? grey(images[row]) : images[row];
  if (view === 'clean') return normalise(img);
  if (view === 'weak') return normalise(weakCifarView(img, S, viewRng(key.seed, row, 'weak', k)));
  throw new Error('strong views arrive with the image suite');
}

/** conv 'same' (TensorFlow's padding: the extra row/column at the bottom/right), OIHW weights, NHWC input. */
function convRef(x: Float64Array, H: number, C: number, w: number[], b: number[], O: number, stride: number) {
  const Ho = Math.ceil(H / stride);
  const padTotal = Math.max((Ho - 1) * stride + 3 - H, 0);
  const pad = Math.floor(padTotal / 2);
  const out = new Float64Array(Ho * Ho * O);
  for (let y = 0; y < Ho; y++)
    for (let x0 = 0; x0 < Ho; x0++)
      for (let o = 0; o < O; o++) {
        let s = b[o];
        for (let i = 0; i < C; i++)
          for (let ky = 0; ky < 3; ky++)
            for (let kx = 0; kx < 3; kx++) {
              const iy = y * stride + ky - pad;
              const ix = x0 * stride + kx - pad;
              if (iy < 0 || iy >= H || ix < 0 || ix >= H) continue;
              s += w[((o * C + i) * 3 + ky) * 3 + kx] * x[(iy * H + ix) * C + i];
            }
        out[(y * Ho + x0) * O + o] = Math.max(0, s);
      }
  return out;
}

function featuresRef(input: Float32Array): number[] {
  const h1 = convRef(Float64Array.from(input), S, 3, w1, b1, 4, 1);
  const h2 = convRef(h1, S, 4, w2, b2, 8, 2);
  const n = (S / 2) * (S / 2);
  return Array.from({ length: 8 }, (_, o) => {
    let s = 0;
    for (let p = 0; p < n; p++) s += h2[p * 8 + o];
    return s / n;
  });
}

beforeAll(async () => {
  await tf.setBackend('wasm');
});

async function extract(builder: BankBuilder, tick?: () => Promise<void>, progress: ExtractProgress[] = []) {
  const backbone = tinyConvNet(parseSafetensors(weightsFile), S);
  let t = 0;
  try {
    return await extractBank({
      builder,
      backbone,
      render,
      batch: 6,
      tick,
      onProgress: (p) => progress.push(p),
      now: () => (t += 10),
    });
  } finally {
    backbone.dispose();
  }
}

describe('feature bank extraction', () => {
  it('clean features equal a plain convolution of the same weights', async () => {
    const before = tf.memory().numTensors;
    const progress: ExtractProgress[] = [];
    const bank = readBankFile((await extract(new BankBuilder(key), undefined, progress)).toFile().bytes);
    expect(tf.memory().numTensors).toBe(before);
    for (const row of [0, 7, 19]) {
      const got = Array.from(bank.rows('colour', 'clean', 0, [row]));
      const want = featuresRef(render('colour', 'clean', 0, row));
      got.forEach((g, j) =>
        expect(Math.abs(g - want[j]), `row ${row} feature ${j}`).toBeLessThan(
          2e-3 * Math.max(1, Math.abs(want[j])),
        ),
      );
      // The grey variant is another input, so other features.
      expect(Array.from(bank.rows('grey', 'clean', 0, [row]))).not.toEqual(got);
    }
    // Weak views differ from the clean one and from each other (their own crops and flips).
    const w0 = Array.from(bank.rows('colour', 'weak', 0, [3]));
    expect(w0).not.toEqual(Array.from(bank.rows('colour', 'clean', 0, [3])));
    expect(w0).not.toEqual(Array.from(bank.rows('colour', 'weak', 1, [3])));
    // Progress: 6 blocks × 20 rows in batches of 6, only growing, with an ETA.
    expect(progress.at(-1)).toMatchObject({ done: 120, total: 120, etaSeconds: 0 });
    for (let i = 1; i < progress.length; i++) expect(progress[i].done).toBeGreaterThan(progress[i - 1].done);
    expect(progress[0].etaSeconds).toBeGreaterThan(0);
  });

  it('the weak view is flip → reflect-pad 4 → crop, drawn from its own generator', () => {
    const img = images[5];
    const draws = viewRng(0, 5, 'weak', 1);
    const flip = draws.nextU32() / 2 ** 32 < 0.5;
    const top = draws.randint(9);
    const left = draws.randint(9);
    // Explicit arrays: the flipped image, then its 40×40 reflect padding, then the crop.
    const at = (a: Uint8Array, w: number, y: number, x: number, c: number) => a[(y * w + x) * 3 + c];
    const flipped = Uint8Array.from(img, (_, i) => {
      const p = (i / 3) | 0;
      const [y, x] = [(p / S) | 0, p % S];
      return at(img, S, y, flip ? S - 1 - x : x, i % 3);
    });
    const P = S + 8;
    const mirror = (i: number) => (i < 0 ? -i : i >= S ? 2 * S - 2 - i : i);
    const padded = Uint8Array.from({ length: P * P * 3 }, (_, i) => {
      const p = (i / 3) | 0;
      return at(flipped, S, mirror(((p / P) | 0) - 4), mirror((p % P) - 4), i % 3);
    });
    const want = Uint8Array.from({ length: S * S * 3 }, (_, i) => {
      const p = (i / 3) | 0;
      return at(padded, P, ((p / S) | 0) + top, (p % S) + left, i % 3);
    });
    expect(weakCifarView(img, S, viewRng(0, 5, 'weak', 1))).toEqual(want);
    expect(weakCifarView(img, S, viewRng(0, 5, 'weak', 1))).toEqual(
      weakCifarView(img, S, viewRng(0, 5, 'weak', 1)),
    );
  });

  it('an aborted extraction resumes from its saved state to the same file', async () => {
    const whole = (await extract(new BankBuilder(key))).toFile();
    const partial = new BankBuilder(key);
    let batches = 0;
    await expect(
      extract(partial, async () => {
        if (++batches === 3) throw new AbortError();
      }),
    ).rejects.toThrow(AbortError);
    expect(partial.remaining).toBe(120 - 18);
    const resumed = BankBuilder.fromState(structuredClone(partial.saveState()));
    expect(resumed.remaining).toBe(102);
    const progress: ExtractProgress[] = [];
    const file = (await extract(resumed, undefined, progress)).toFile();
    // Rows go batch by batch through every block: the 18 saved are rows 0–5 of the first three
    // blocks, and the resumed extraction starts with rows 0–5 of the fourth.
    expect(progress[0].done).toBe(24);
    expect(file.sha256).toBe(whole.sha256);
    expect(file.bytes).toEqual(whole.bytes);
    expect(() => BankBuilder.fromState({ ...partial.saveState(), done: [] })).toThrow(
      /does not fit its own key/,
    );
  });

  it('refuses a backbone of another width and weights of the wrong shape', async () => {
    await expect(extract(new BankBuilder({ ...key, dim: 16 }))).rejects.toThrow(
      /gives 8 features; the bank holds 16/,
    );
    const bad = writeSafetensors({
      'conv1.weight': { dtype: 'F32', shape: [4, 3, 5, 5], data: new Array(300).fill(0) },
      'conv1.bias': { dtype: 'F32', shape: [4], data: b1 },
      'conv2.weight': { dtype: 'F32', shape: [8, 4, 3, 3], data: w2 },
      'conv2.bias': { dtype: 'F32', shape: [8], data: b2 },
    });
    expect(() => tinyConvNet(parseSafetensors(bad), S)).toThrow(/conv1\.weight must be \[out, in, 3, 3\]/);
  });
});
