/**
 * Feature bank extraction (PROTOCOL-IMAGE-TEXT.md §7.4): every (variant, view, k) block, every
 * row, through a frozen backbone in batches, into a BankBuilder. Rows go in batches, and each batch
 * through every block before the next batch, so a renderer that decodes a stored row once per
 * batch (imageViewRenderer) decodes it once for all its views. It skips what a resumed builder
 * holds, reports progress and an ETA after every batch, and yields between batches so an abort
 * lands within one batch; the page runs it in a worker, the CLI on a GPU server.
 */
import * as tf from '@tensorflow/tfjs';
import type { Backbone } from '../models/backbone/backbone.ts';
import { installWasmBatchMatMul } from '../models/deep/batchMatMul.ts';
import type { BankBuilder, BankView } from './bankFile.ts';

export interface ExtractProgress {
  /** Rows done over all blocks (resumed rows included), and the total. */
  done: number;
  total: number;
  /** Seconds left at this run's pace; null before the first batch. */
  etaSeconds: number | null;
}

export interface ExtractOptions {
  builder: BankBuilder;
  backbone: Backbone;
  /** The normalised input of one row's view (backbone.inputShape elements). */
  render(variant: string, view: BankView, k: number, row: number): Float32Array;
  /** Rows per backbone call. */
  batch?: number;
  /** Between batches: yields, and throws when aborted (FitContext.tick). */
  tick?: () => Promise<void>;
  onProgress?(p: ExtractProgress): void;
  /** A monotonic clock in ms, for the ETA (none: no ETA). */
  now?: () => number;
}

export async function extractBank(o: ExtractOptions): Promise<BankBuilder> {
  const { builder, backbone } = o;
  const { rows, dim } = builder.key;
  if (backbone.dim !== dim)
    throw new Error(`extractBank: the backbone gives ${backbone.dim} features; the bank holds ${dim}.`);
  // tfjs-wasm's batched products (the encoders' attention) run a scalar loop; the SIMD kernel
  // measured 1.27× (RoBERTa) and 1.36× (MiniLM) faster per extracted batch (npm run bench:modal).
  if (tf.getBackend() === 'wasm') installWasmBatchMatMul();
  const batch = o.batch ?? 64;
  const inputSize = backbone.inputShape.reduce((a, b) => a * b, 1);
  const total = builder.blocks.length * rows;
  const startedWith = total - builder.remaining;
  const t0 = o.now?.();
  const ids = builder.rowIds;
  for (let r0 = 0; r0 < rows; r0 += batch) {
    const r1 = Math.min(rows, r0 + batch);
    for (let b = 0; b < builder.blocks.length; b++) {
      if (builder.hasRows(b, r0, r1)) continue;
      const block = builder.blocks[b];
      const input = new Float32Array((r1 - r0) * inputSize);
      for (let r = r0; r < r1; r++) {
        // A bank of some rows stores row i of its ids at i; views are drawn for the file's row id.
        const x = o.render(block.variant, block.view, block.k, ids ? ids[r] : r);
        if (x.length !== inputSize)
          throw new Error(
            `extractBank: row ${r} rendered ${x.length} values; the backbone takes ${inputSize}.`,
          );
        input.set(x, (r - r0) * inputSize);
      }
      const features = tf.tidy(() => backbone.forward(tf.tensor(input, [r1 - r0, ...backbone.inputShape])));
      const values = (await features.data()) as Float32Array;
      features.dispose();
      builder.put(block.variant, block.view, block.k, r0, values);
      const done = total - builder.remaining;
      let etaSeconds: number | null = null;
      if (o.now && t0 !== undefined && done > startedWith) {
        const perRow = (o.now() - t0) / (done - startedWith);
        etaSeconds = (perRow * builder.remaining) / 1000;
      }
      o.onProgress?.({ done, total, etaSeconds });
      await o.tick?.();
    }
  }
  return builder;
}
