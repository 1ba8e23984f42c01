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
 */
import * as tf from '@tensorflow/tfjs';
import { dropTokens, textView, type PadWord, type SynonymTable } from '../augment/text/index.ts';
import { greyFromRed, normalise, strongCifarView, weakCifarView } from '../augment/image/index.ts';
import type { View } from '../models/deep/methods/types.ts';
import type { ViewDraw, ViewSource } from '../models/deep/views.ts';
import { tokenRows } from '../models/backbone/roberta.ts';
import type { PoolFile } from '../protocol/panelSplit.ts';
import { MT19937 } from '../protocol/rng.ts';
import type { TextTokenizer } from '../weights/tokenizer.ts';

/** How a row of a pool becomes a network input: its clean view, or a view drawn from `rng`. */
export type RowRenderer = (
  file: PoolFile,
  row: number,
  variant: string,
  view: View | 'clean',
  rng: MT19937 | null,
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
}

/** The trainer's view source over fresh augmentations (module comment). */
export function finetuneViews(src: FinetuneRows): ViewSource {
  const batch = (set: 'L' | 'U', idx: Int32Array, view: View, seeds: ViewDraw): tf.Tensor2D => {
    const out = new Float32Array(idx.length * src.dim);
    for (let r = 0; r < idx.length; r++) {
      const { file, row, variant } = src.locate(set, idx[r]);
      // Seeds travel as int32 bit patterns (ViewDraw); >>> 0 gives the uint32 back.
      const x = src.render(file, row, variant, view, new MT19937(seeds[r] >>> 0));
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
      return [seeds(bL, rng), ...views.map(() => seeds(bU, rng))];
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
