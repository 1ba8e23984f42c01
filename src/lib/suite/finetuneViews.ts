/**
 * Fresh augmentations for the `finetune` tier (PROTOCOL-IMAGE-TEXT.md §2, §6, §7.2): per step,
 * each labeled row gets a new weak view and each unlabeled row a new view per method view, made on
 * the host with the real augmentations (augment/image, augment/text) and uploaded as one tensor
 * per batch part — normalised NHWC float32 pixels, or token ids and attention masks as the encoder
 * takes them (roberta.ts tokenRows). It implements the trainer's ViewSource (models/deep/views.ts).
 *
 * Randomness: `draw` takes one uint32 seed per (row, view) from the trainer's view stream, which
 * the trainer checkpoints, and each view is drawn from its own MT19937 seeded with it; so a resumed
 * fit draws exactly the views an uninterrupted one does, and a view never depends on how many
 * numbers another view's augmentation consumed.
 *
 * Photos (Image-CLEF, VisDA; §6.1): the original's Resize + RandomCrop is the unlabeled dataset's
 * pre-transform, run once per access, so every view of an unlabeled row in a step shares one crop,
 * while its flip, RandAugment and Cutout are each view's own. With `sharedCrop`, `draw` takes one
 * crop seed per unlabeled row (after the labeled seeds) and hands each unlabeled view the pairs
 * (crop seed, view seed); the renderer crops from the first and draws the rest from the second. A
 * labeled row's weak view draws crop and flip from its one generator, as a bank's weak view does.
 */
import * as tf from '@tensorflow/tfjs';
import { dropTokens, textView, type PadWord, type SynonymTable } from '../augment/text/index.ts';
import {
  centerCrop,
  crop,
  cutout,
  greyFromRed,
  normalise,
  randAugment,
  randomFlip,
  resizeBilinear,
  strongCifarView,
  weakCifarView,
  type RgbImage,
} from '../augment/image/index.ts';
import type { View } from '../models/deep/methods/types.ts';
import type { ViewDraw, ViewSource } from '../models/deep/views.ts';
import { tokenRows } from '../models/backbone/roberta.ts';
import type { PoolFile } from '../protocol/panelSplit.ts';
import { MT19937 } from '../protocol/rng.ts';
import type { TextTokenizer } from '../weights/tokenizer.ts';

/**
 * How a row of a pool becomes a network input: its clean view, or a view drawn from `rng`;
 * `cropRng`, where given, is the generator of the crop the row's views share (photos, module
 * comment) and the view draws its crop from it instead of from `rng`.
 */
export type RowRenderer = (
  file: PoolFile,
  row: number,
  variant: string,
  view: View | 'clean',
  rng: MT19937 | null,
  cropRng?: MT19937 | null,
) => Float32Array;

/** Where the rows of L and U come from (split ids into files and variants: the cell knows). */
export interface FinetuneRows {
  nL: number;
  nU: number;
  /** Input width of the network: size·size·3, or 2·maxLength for text. */
  dim: number;
  /** File, row and variant of row `i` of L or U. */
  locate(set: 'L' | 'U', i: number): { file: PoolFile; row: number; variant: string };
  render: RowRenderer;
  /** The unlabeled views of a row share one crop drawn per step (photos, §6.1). */
  sharedCrop?: boolean;
}

/** The trainer's view source over fresh augmentations (module comment). */
export function finetuneViews(src: FinetuneRows): ViewSource {
  const paired = src.sharedCrop === true;
  const batch = (set: 'L' | 'U', idx: Int32Array, view: View, seeds: ViewDraw): tf.Tensor2D => {
    const out = new Float32Array(idx.length * src.dim);
    // Unlabeled photo views carry (crop seed, view seed) per row; the rest one view seed.
    const pairs = paired && set === 'U';
    if (seeds.length !== idx.length * (pairs ? 2 : 1))
      throw new RangeError(
        `finetune views: ${seeds.length} seeds for ${idx.length} rows of ${set}; expected ${idx.length * (pairs ? 2 : 1)}.`,
      );
    for (let r = 0; r < idx.length; r++) {
      const { file, row, variant } = src.locate(set, idx[r]);
      // Seeds travel as int32 bit patterns (ViewDraw); >>> 0 gives the uint32 back.
      const x = pairs
        ? src.render(
            file,
            row,
            variant,
            view,
            new MT19937(seeds[2 * r + 1] >>> 0),
            new MT19937(seeds[2 * r] >>> 0),
          )
        : src.render(file, row, variant, view, new MT19937(seeds[r] >>> 0));
      if (x.length !== src.dim)
        throw new RangeError(
          `finetune views: a rendered row has ${x.length} values; the network takes ${src.dim}.`,
        );
      out.set(x, r * src.dim);
    }
    return tf.tensor2d(out, [idx.length, src.dim]);
  };
  const seeds = (n: number, rng: MT19937) => Int32Array.from({ length: n }, () => rng.nextU32() | 0);
  return {
    nL: src.nL,
    nU: src.nU,
    dim: src.dim,
    draw(bL, bU, _labeledView, views, rng) {
      // Labeled rows always get the weak augmentation (§6.1 table; §6.5 for text), Supervised too.
      const labeled = seeds(bL, rng);
      if (!paired) return [labeled, ...views.map(() => seeds(bU, rng))];
      // One crop per unlabeled row, shared by all its views; then each view's own seeds.
      const crops = seeds(bU, rng);
      return [
        labeled,
        ...views.map(() => {
          const own = seeds(bU, rng);
          const out = new Int32Array(2 * bU);
          for (let r = 0; r < bU; r++) {
            out[2 * r] = crops[r];
            out[2 * r + 1] = own[r];
          }
          return out;
        }),
      ];
    },
    drawsLabeled: () => true,
    labeled: (idx, draw) => batch('L', idx, 'weak', draw!),
    unlabeled: (idx, view, draw) => batch('U', idx, view, draw),
  };
}

/**
 * CIFAR rows at their stored size (§6.1): clean = as stored; weak = flip → reflect-pad 4 → crop;
 * strong = weak → RandAugment → Cutout; the `grey` variant copies R into G and B first; then the
 * run's labeled-pixel normalisation (§6.2). Decoded rows are cached (`rgbOf` may be slow: PNG).
 */
export function cifarRenderer(
  rgbOf: (file: PoolFile, row: number) => Uint8Array,
  size: number,
  stats: { mean: readonly number[]; std: readonly number[] },
): RowRenderer {
  return (file, row, variant, view, rng) => {
    const rgb = rgbOf(file, row);
    const img = variant === 'grey' ? greyFromRed({ rgb, width: size, height: size }).rgb : rgb;
    if (view !== 'clean' && !rng) throw new Error(`cifarRenderer: a ${view} view needs a generator.`);
    const out =
      view === 'clean'
        ? img
        : view === 'weak'
          ? weakCifarView(img, size, rng!)
          : strongCifarView(img, size, rng!);
    return normalise(out, stats.mean, stats.std);
  };
}

/** The photo geometry of §6.1: Resize to `resize`×`resize`, then a `crop`×`crop` window. */
export interface PhotoGeometry {
  resize: number;
  crop: number;
}

/** Photos kept resized (256×256 RGB ≈ 192 KB each): a few steps' batches; older ones are dropped. */
const RESIZED_PHOTOS_KEPT = 1024;

/**
 * Image-CLEF and VisDA rows (§6.1): the decoded file resized to 256×256 (kept for reuse); clean =
 * CenterCrop 224; weak = RandomCrop 224 → flip; strong = RandomCrop 224 → flip → RandAugment →
 * Cutout; then the run's labeled-pixel normalisation (§6.2). The crop (top, then left) comes from
 * `cropRng` when the row's views share it, else from the view's own generator, which then draws
 * the flip and the rest in pipeline order.
 */
export function photoRenderer(
  imageOf: (file: PoolFile, row: number) => RgbImage,
  stats: { mean: readonly number[]; std: readonly number[] },
  geometry: PhotoGeometry,
): RowRenderer {
  const { resize, crop: side } = geometry;
  if (!Number.isInteger(side) || !Number.isInteger(resize) || side < 1 || side > resize)
    throw new RangeError(`photoRenderer: a ${side} px crop of a ${resize} px resize is not a crop.`);
  const resized = new Map<string, RgbImage>();
  const resizedOf = (file: PoolFile, row: number) => {
    const key = `${file}:${row}`;
    let img = resized.get(key);
    if (!img) {
      img = resizeBilinear(imageOf(file, row), resize, resize);
      if (resized.size >= RESIZED_PHOTOS_KEPT) resized.delete(resized.keys().next().value!);
      resized.set(key, img);
    }
    return img;
  };
  return (file, row, _variant, view, rng, cropRng) => {
    const img = resizedOf(file, row);
    if (view === 'clean') return normalise(photoCrop(img, side, null).rgb, stats.mean, stats.std);
    if (!rng) throw new Error(`photoRenderer: a ${view} view needs a generator.`);
    const weak = randomFlip(photoCrop(img, side, cropRng ?? rng), rng);
    const out = view === 'weak' ? weak : cutout(randAugment(weak, rng), rng);
    return normalise(out.rgb, stats.mean, stats.std);
  };
}

/** RandomCrop `side` (top, then left, from `rng`), or with no generator the centre crop. */
function photoCrop(img: RgbImage, side: number, rng: MT19937 | null): RgbImage {
  if (!rng) return centerCrop(img, side);
  const top = rng.randint(img.height - side + 1);
  const left = rng.randint(img.width - side + 1);
  return crop(img, top, left, side, side);
}

export interface TextRowOptions {
  tokenizer: TextTokenizer;
  synonyms: SynonymTable;
  /** Tokens per row, special tokens included (§6.5: 256). */
  maxLength: number;
  padWord: PadWord;
}

/**
 * Text rows (§6.5–6.7): the `drop` variant first (the last words become the pad word), then the
 * weak (1 word) or strong (5 words) synonym view, tokenized with padding to maxLength.
 */
export function textRenderer(
  textOf: (file: PoolFile, row: number) => string,
  o: TextRowOptions,
): RowRenderer {
  return (file, row, variant, view, rng) => {
    let text = textOf(file, row);
    if (variant === 'drop') text = dropTokens(text, o.padWord);
    if (view !== 'clean') {
      if (!rng) throw new Error(`textRenderer: a ${view} view needs a generator.`);
      text = textView(view, text, rng, o.synonyms, o.padWord);
    }
    const enc = o.tokenizer.encode(text, { maxLength: o.maxLength, padding: 'max_length', truncation: true });
    return tokenRows(enc.ids, enc.attentionMask, 1, o.maxLength);
  };
}
