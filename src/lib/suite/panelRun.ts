/**
 * An image/text run from files to records, shared by the CLI (`rac-bench bank`, `rac-bench run`)
 * and the page's panel worker (PROTOCOL-IMAGE-TEXT.md §4–§7, §11):
 *   1. each panel's files are loaded (the caller's reader: IndexedDB in the page, --data-dir in the
 *      CLI) and hashed per §4.4;
 *   2. each file's feature bank is found by its key or extracted (bank/extract.ts), the caller
 *      keeping a resumable state between batches;
 *   3. the plan's cells run one head each (panelCell.ts) and come back one by one, so the caller can
 *      store each before the next starts.
 * The caller supplies what differs between Node and a browser (reading files, storing banks, the
 * backbone and its weights, the environment); everything else is here, once.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { BankBuilder, type Bank, type BankKey, type BankView } from '../bank/bankFile.ts';
import { extractBank, type ExtractProgress } from '../bank/extract.ts';
import { viewRng } from '../bank/viewSeed.ts';
import { imageContentHash } from '../data/modal/contentHash.ts';
import { HUB_DATASETS } from '../data/modal/hubSources.ts';
import type { LoadedHubSplit } from '../data/modal/loadHub.ts';
import { PANEL_DATASETS, panelLabels, type PanelDataset } from '../data/modal/panels.ts';
import { decodePngRgb } from '../data/modal/png.ts';
import type { Backbone } from '../models/backbone/backbone.ts';
import { normalise, strongCifarView, weakCifarView } from '../models/backbone/cifarViews.ts';
import type { PanelLabels, PoolFile } from '../protocol/panelSplit.ts';
import type { Setting } from '../types.ts';
import { runPanelCell, type PanelBank, type PanelCellInputs } from './panelCell.ts';
import {
  bankRefusal,
  datasetSettings,
  panelCellKey,
  panelCells,
  planCaps,
  type PanelCellRef,
  type PanelPlan,
} from './panelPlan.ts';
import type { ModalCellResult } from './schemaV3.ts';

/** The augmentation version a bank's key records (§7.4). */
export const BANK_AUG = 'rsb-aug/1';

// ---------------------------------------------------------------------------------------------
// Image files

/** One row's pixels (uint8 RGB, size × size), checked against the dataset's image size. */
export function imageRowRgb(loaded: LoadedHubSplit, row: number, size: number): Uint8Array {
  const img = decodePngRgb(loaded.rows.images![row]);
  if (img.width !== size || img.height !== size)
    throw new Error(
      `${loaded.dataset} ${loaded.split} row ${row}: a ${img.width}×${img.height} image, expected ${size}×${size}.`,
    );
  return img.rgb;
}

/** The §4.4 content hash of a loaded image split (each PNG decoded once, row by row). */
export function imageSplitHash(loaded: LoadedHubSplit, size: number): string {
  return imageContentHash(loaded.dataset, loaded.split, loaded.rows.labels, size, (i) =>
    imageRowRgb(loaded, i, size),
  );
}

/** §6.1: grey rows copy R into G and B. */
export const greyRgb = (rgb: Uint8Array): Uint8Array => Uint8Array.from(rgb, (_, i) => rgb[i - (i % 3)]);

/** A panel's content hash: SHA-256 over its files' content hashes, `split=hash` lines in load order. */
export function panelContentHash(hashes: ReadonlyMap<string, string>): string {
  return bytesToHex(
    sha256(new TextEncoder().encode([...hashes].map(([split, h]) => `${split}=${h}\n`).join(''))),
  );
}

/** Decoded rows a renderer keeps: more than a bank batch (64 by default; the CLI allows more). */
const DECODED_ROWS_KEPT = 1024;

/**
 * The bank input of one view of one row (§6.1, §7.4): the row (grey if its variant is), its
 * clean, weak or strong CIFAR view drawn from the view's own generator, ImageNet-normalised.
 */
export function imageViewRenderer(
  loaded: LoadedHubSplit,
  size: number,
  bankSeed: number,
): (variant: string, view: BankView, k: number, row: number) => Float32Array {
  // extractBank renders a batch of rows once per block: keep the batch's decoded rows (PNG
  // inflation is most of a render) instead of decoding each row once per view.
  const decoded = new Map<number, Uint8Array>();
  const rgbOf = (row: number) => {
    let rgb = decoded.get(row);
    if (!rgb) {
      rgb = imageRowRgb(loaded, row, size);
      if (decoded.size >= DECODED_ROWS_KEPT) decoded.delete(decoded.keys().next().value!);
      decoded.set(row, rgb);
    }
    return rgb;
  };
  return (variant, view, k, row) => {
    const rgb = rgbOf(row);
    const img = variant === 'grey' ? greyRgb(rgb) : rgb;
    if (view === 'clean') return normalise(img);
    const rng = viewRng(bankSeed, row, view, k);
    return normalise(view === 'weak' ? weakCifarView(img, size, rng) : strongCifarView(img, size, rng));
  };
}

// ---------------------------------------------------------------------------------------------
// Banks

/** The row variants a panel's bank of `file` must hold: CIFAR's feature panel also needs grey train rows. */
export function bankVariants(setting: Setting, file: 'train' | 'test'): string[] {
  return file === 'train' && setting === 'feature' ? ['colour', 'grey'] : ['colour'];
}

export interface ImageBankRequest {
  loaded: LoadedHubSplit;
  /** §4.4 hash of the split (imageSplitHash). */
  contentSha256: string;
  backbone: Backbone;
  weightsSha256: string;
  variants: readonly string[];
  Kw: number;
  Ks: number;
  seed: number;
}

/** The key a bank of this split, backbone and views has (§7.4). */
export function imageBankKey(r: ImageBankRequest): BankKey {
  return {
    dataset: `${r.loaded.dataset}/${r.loaded.split}`,
    contentSha256: r.contentSha256,
    weightsSha256: r.weightsSha256,
    tokenizerSha256: null,
    feature: r.backbone.feature,
    variants: [...r.variants],
    Kw: r.Kw,
    Ks: r.Ks,
    seed: r.seed,
    aug: BANK_AUG,
    dtype: 'float16',
    dim: r.backbone.dim,
    rows: r.loaded.rows.labels.length,
  };
}

export interface ExtractHooks {
  /** A builder to continue (a resumed extraction of the same key), or null to start afresh. */
  resumeFrom?: BankBuilder | null;
  batch?: number;
  tick?: () => Promise<void>;
  /** After each batch: the builder so far (the page keeps it every few seconds, for a closed tab). */
  checkpoint?: (builder: BankBuilder) => Promise<void>;
  now?: () => number;
  onProgress?: (p: ExtractProgress) => void;
}

/** Extracts the bank of one image split; returns the builder (complete: `toFile()` gives the file). */
export async function extractImageBank(r: ImageBankRequest, hooks: ExtractHooks = {}): Promise<BankBuilder> {
  const key = imageBankKey(r);
  const size = HUB_DATASETS[r.loaded.dataset]?.imageSize ?? 32;
  const resumed = hooks.resumeFrom ?? null;
  if (resumed && JSON.stringify(resumed.key) !== JSON.stringify(key))
    throw new Error('extractImageBank: the extraction to resume belongs to another bank key.');
  const builder = resumed ?? new BankBuilder(key);
  return extractBank({
    builder,
    backbone: r.backbone,
    render: imageViewRenderer(r.loaded, size, r.seed),
    batch: hooks.batch,
    tick: async () => {
      await hooks.tick?.();
      await hooks.checkpoint?.(builder);
    },
    now: hooks.now,
    onProgress: hooks.onProgress,
  });
}

/**
 * The cells' view of a panel's two banks (train and test files), colour rows as the plain variant;
 * the views (K_w, K_s, seed) are the train bank's, where L and U come from.
 */
export function panelBankOf(train: Bank, test: Bank): PanelBank {
  if (train.key.weightsSha256 !== test.key.weightsSha256 || train.key.feature !== test.key.feature)
    throw new Error(
      'The train and test banks come from different backbones or weights: make both with the same.',
    );
  // Test rows are only ever read clean: the test bank's weak and strong views (if any) are unused.
  return {
    Kw: train.key.Kw,
    Ks: train.key.Ks,
    dim: train.key.dim,
    seed: train.key.seed,
    sha256: train.sha256,
    plain: 'colour',
    rows: (file: PoolFile, variant, view, k, rowIds) =>
      (file === 'test' ? test : train).rows(variant, view, view === 'clean' ? 0 : k, rowIds),
  };
}

// ---------------------------------------------------------------------------------------------
// Plans (the cells themselves: panelPlan.ts)

export interface PanelFiles {
  /** The panel's label arrays (train/test, or source/target). */
  labels: PanelLabels;
  /** What the records' `dataset` section says about the files. */
  dataset: PanelCellInputs['dataset'];
  /** The bank the panel's cells read, for a setting. */
  bankFor(setting: Setting): PanelBank;
  /** The backbone that made the banks, as the records say it. */
  backbone: PanelCellInputs['backbone'];
}

export interface RunPanelPlanOptions {
  /** The panel's files, labels and banks (loading and extracting them as needed). */
  files(dataset: PanelDataset['id'], settings: Setting[]): Promise<PanelFiles>;
  input: PanelCellInputs['input'];
  env: PanelCellInputs['env'];
  /** Keys (panelCellKey) of cells already done: skipped. */
  done?: ReadonlySet<string>;
  /** Each cell's record, as soon as it is made (the caller stores it before the next starts). */
  onCell(cell: ModalCellResult, ref: PanelCellRef): Promise<void> | void;
  /** Before each cell: which cell, and how many are done of the plan. */
  onCellStart?(ref: PanelCellRef, done: number, total: number): void;
  tick?: () => Promise<void>;
  now?: () => number;
  /** ISO time for each record's created_at (the caller's clock). */
  clock: () => string;
}

/** Runs the plan's cells not yet done, dataset by dataset; returns how many ran. */
export async function runPanelPlan(plan: PanelPlan, o: RunPanelPlanOptions): Promise<number> {
  const all = panelCells(plan);
  const done = o.done ?? new Set<string>();
  let finished = all.filter((c) => done.has(panelCellKey(c))).length;
  let ran = 0;
  for (const dataset of plan.datasets) {
    const cells = all.filter((c) => c.dataset === dataset && !done.has(panelCellKey(c)));
    if (!cells.length) continue;
    const files = await o.files(dataset, datasetSettings(dataset, plan));
    for (const ref of cells) {
      o.onCellStart?.(ref, finished, all.length);
      const bank = files.bankFor(ref.setting);
      const refusal = bankRefusal([ref.method], bank.Kw, bank.Ks);
      if (refusal) throw new Error(refusal);
      const cell = await runPanelCell(
        {
          dataset,
          pair: null,
          setting: ref.setting,
          labels: ref.labels,
          tIndex: ref.tIndex,
          seed: ref.seed,
          method: ref.method,
          tier: plan.tier,
          quirks: plan.quirks,
          caps: planCaps(plan),
          steps: plan.steps,
          batch: plan.batch,
          lr: plan.lr,
        },
        {
          labels: files.labels,
          bank,
          dataset: files.dataset,
          backbone: files.backbone,
          input: o.input,
          env: o.env,
          createdAt: o.clock(),
        },
        { tick: o.tick, now: o.now },
      );
      await o.onCell(cell, ref);
      finished++;
      ran++;
    }
  }
  return ran;
}

/** Loads a panel's Hub files through `load`, hashes them, and says what its records will list. */
export async function loadImagePanel(
  dataset: PanelDataset['id'],
  load: (file: { dataset: string; split: string }) => Promise<LoadedHubSplit>,
): Promise<{
  labels: PanelLabels;
  splits: Map<string, LoadedHubSplit>;
  hashes: Map<string, string>;
  dataset: PanelCellInputs['dataset'];
}> {
  const panel = PANEL_DATASETS[dataset];
  const splits = new Map<string, LoadedHubSplit>();
  const labels = await panelLabels(
    dataset,
    async (f) => {
      const split = await load(f);
      splits.set(f.split, split);
      return split.rows.labels;
    },
    null,
  );
  const size = HUB_DATASETS[dataset]?.imageSize ?? 32;
  const hashes = new Map([...splits].map(([split, l]) => [split, imageSplitHash(l, size)]));
  return {
    labels,
    splits,
    hashes,
    dataset: {
      id: dataset,
      files: [...splits.values()].flatMap((l) => l.files),
      content_sha256: panelContentHash(hashes),
      N: [...splits.values()].reduce((a, l) => a + l.rows.labels.length, 0),
      k: panel.k,
      row_order: [...splits.values()].some((l) => l.rowOrder === 'unverified') ? 'unverified' : 'canonical',
      nonstandard: false,
    } as PanelCellInputs['dataset'],
  };
}
