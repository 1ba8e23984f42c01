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
import { BankBuilder, rowIdsSha256, type Bank, type BankKey, type BankView } from '../bank/bankFile.ts';
import { extractBank, type ExtractProgress } from '../bank/extract.ts';
import { viewRng } from '../bank/viewSeed.ts';
import { imageContentHash, textContentHash } from '../data/modal/contentHash.ts';
import { dropTokens, textView, type PadWord, type SynonymTable } from '../augment/text/index.ts';
import { HUB_DATASETS } from '../data/modal/hubSources.ts';
import type { LoadedHubSplit } from '../data/modal/loadHub.ts';
import { PANEL_DATASETS, panelFiles, panelRuleOf, type PanelDataset } from '../data/modal/panels.ts';
import { decodeImageRgb } from '../data/modal/imageDecode.ts';
import { localDomain, type LocalDataset } from '../data/modal/localImages.ts';
import { imageView } from '../augment/image/index.ts';
import { PHOTO_RESIZE } from '../augment/image/pipelines.ts';
import { resizeBilinear } from '../augment/image/resize.ts';
import { decodePngRgb } from '../data/modal/png.ts';
import type { Backbone } from '../models/backbone/backbone.ts';
import { normalise, strongCifarView, weakCifarView } from '../models/backbone/cifarViews.ts';
import { tokenRows } from '../models/backbone/roberta.ts';
import type { TextTokenizer } from '../weights/tokenizer.ts';
import { panelSplit, type PanelLabels, type PoolFile } from '../protocol/panelSplit.ts';
import { capPanelSplit } from '../protocol/panelSubsample.ts';
import { T_GRID, type Setting } from '../types.ts';
import { runPanelCell, type PanelBank, type PanelCellInputs, type PanelCellSpec } from './panelCell.ts';
import { runFinetunePlan, type RunFinetunePlanOptions } from './panelFinetune.ts';
import {
  bankRefusal,
  datasetSettings,
  panelCells,
  planCaps,
  planCellSpec,
  runPlanCells,
  type PanelPlan,
  type PlanCellsLoop,
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

/** Photos kept resized (256×256, ≈ 192 KB each): more than an extraction batch of the CLI (256). */
const RESIZED_PHOTOS_KEPT = 512;

/**
 * The bank input of one view of one photo (Image-CLEF, VisDA; §6.1): the file decoded (a file that
 * does not decode fails with its path, §4.2), then its clean (Resize 256×256 → CenterCrop 224), weak
 * (Resize → RandomCrop 224 → flip) or strong (weak → RandAugment → Cutout) view from the view's own
 * generator, ImageNet-normalised. Every view starts from the same 256×256 resize, so each row is
 * decoded and resized once per batch and the views are drawn from it (a 256→256 resize is the
 * identity in Pillow's filter, so the pipeline's own resize leaves it as it is).
 */
export function photoViewRenderer(
  loaded: LoadedLocalSplit,
  bankSeed: number,
): (variant: string, view: BankView, k: number, row: number) => Float32Array {
  const resized = new Map<number, Uint8Array>();
  const resizedOf = (row: number) => {
    let rgb = resized.get(row);
    if (!rgb) {
      let img;
      try {
        img = decodeImageRgb(loaded.rows.images![row]);
      } catch (e) {
        throw new Error(`${loaded.local.paths[row]}: ${e instanceof Error ? e.message : String(e)}.`, {
          cause: e,
        });
      }
      rgb = resizeBilinear(img, PHOTO_RESIZE, PHOTO_RESIZE).rgb;
      if (resized.size >= RESIZED_PHOTOS_KEPT) resized.delete(resized.keys().next().value!);
      resized.set(row, rgb);
    }
    return rgb;
  };
  // The clean view draws nothing; imageView still takes a generator.
  const noDraws = viewRng(bankSeed, 0, 'weak', 0);
  return (_variant, view, k, row) => {
    const rgb = resizedOf(row);
    const rng = view === 'clean' ? noDraws : viewRng(bankSeed, row, view, k);
    return normalise(imageView('photo', view, rgb, PHOTO_RESIZE, PHOTO_RESIZE, rng).rgb);
  };
}

// ---------------------------------------------------------------------------------------------
// Text files

/** The §4.4 content hash of a loaded text split (`rsb-txt/1`). */
export function textSplitHash(loaded: LoadedHubSplit): string {
  return textContentHash(loaded.dataset, loaded.split, loaded.rows.labels, loaded.rows.texts!);
}

export interface TextRenderOptions {
  tokenizer: TextTokenizer;
  synonyms: SynonymTable;
  /** Tokens per row, special tokens included (§6.5: 256; classroom 128). */
  maxLength: number;
  /** The word a dropped token becomes (§6.7): `<pad>` for RoBERTa, `[PAD]` for MiniLM. */
  padWord: PadWord;
}

/**
 * The bank input of one view of one text (§6.5–6.7): the stored text (its `drop` variant: the last
 * n − ⌊n/2⌋ words become the pad word), its weak (1 word) or strong (5 words) synonym view drawn
 * from the view's own generator, tokenized to maxLength; ids and mask as the encoders take them.
 */
export function textViewRenderer(
  loaded: LoadedHubSplit,
  o: TextRenderOptions,
  bankSeed: number,
): (variant: string, view: BankView, k: number, row: number) => Float32Array {
  const texts = loaded.rows.texts;
  if (!texts) throw new Error(`${loaded.dataset} ${loaded.split} holds no texts.`);
  return (variant, view, k, row) => {
    let text = texts[row];
    if (variant === 'drop') text = dropTokens(text, o.padWord);
    if (view !== 'clean') text = textView(view, text, viewRng(bankSeed, row, view, k), o.synonyms, o.padWord);
    const enc = o.tokenizer.encode(text, { maxLength: o.maxLength, padding: 'max_length', truncation: true });
    return tokenRows(enc.ids, enc.attentionMask, 1, o.maxLength);
  };
}

// ---------------------------------------------------------------------------------------------
// Banks

/**
 * The row variants a panel's bank of `file` must hold: the plain rows, and for the feature panel's
 * train file also its OOD variant (CIFAR's grey images, AG News's dropped words).
 */
export function bankVariants(modality: 'image' | 'text', setting: Setting, file: 'train' | 'test'): string[] {
  const [plain, ood] = modality === 'image' ? ['colour', 'grey'] : ['text', 'drop'];
  return file === 'train' && setting === 'feature' ? [plain, ood] : [plain];
}

export interface ImageBankRequest {
  loaded: LoadedHubSplit;
  /** §4.4 hash of the split (imageSplitHash, textSplitHash). */
  contentSha256: string;
  backbone: Backbone;
  weightsSha256: string;
  /** Text banks: the tokenizer.json's hash (the key names it, §7.4). */
  tokenizerSha256?: string | null;
  /** A bank of some rows (a capped plan's, panelRowsNeeded): their ids, ascending; absent = every row. */
  rowIds?: Uint32Array | null;
  variants: readonly string[];
  Kw: number;
  Ks: number;
  seed: number;
}

/** A bank request of either modality (the text fields ride along). */
export type BankRequest = ImageBankRequest;

/** The key a bank of this split, backbone and views has (§7.4). */
export function imageBankKey(r: BankRequest): BankKey {
  return {
    dataset: `${r.loaded.dataset}/${r.loaded.split}`,
    contentSha256: r.contentSha256,
    weightsSha256: r.weightsSha256,
    tokenizerSha256: r.tokenizerSha256 ?? null,
    feature: r.backbone.feature,
    variants: [...r.variants],
    Kw: r.Kw,
    Ks: r.Ks,
    seed: r.seed,
    aug: BANK_AUG,
    dtype: 'float16',
    dim: r.backbone.dim,
    rows: r.rowIds ? r.rowIds.length : r.loaded.rows.labels.length,
    ...(r.rowIds ? { rowIdsSha256: rowIdsSha256(r.rowIds) } : {}),
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
  if (isLocal(r.loaded)) return extractPanelBank(r, photoViewRenderer(r.loaded, r.seed), hooks);
  const size = HUB_DATASETS[r.loaded.dataset]?.imageSize ?? 32;
  return extractPanelBank(r, imageViewRenderer(r.loaded, size, r.seed), hooks);
}

/** Extracts the bank of one text split (tokenizer and synonym table in `text`). */
export async function extractTextBank(
  r: BankRequest,
  text: TextRenderOptions,
  hooks: ExtractHooks = {},
): Promise<BankBuilder> {
  if (!r.tokenizerSha256) throw new Error('extractTextBank: a text bank is keyed by its tokenizer hash.');
  return extractPanelBank(r, textViewRenderer(r.loaded, text, r.seed), hooks);
}

async function extractPanelBank(
  r: BankRequest,
  render: (variant: string, view: BankView, k: number, row: number) => Float32Array,
  hooks: ExtractHooks,
): Promise<BankBuilder> {
  const key = imageBankKey(r);
  const resumed = hooks.resumeFrom ?? null;
  if (resumed && JSON.stringify(resumed.key) !== JSON.stringify(key))
    throw new Error('extractImageBank: the extraction to resume belongs to another bank key.');
  const builder = resumed ?? new BankBuilder(key, r.rowIds ?? null);
  return extractBank({
    builder,
    backbone: r.backbone,
    render,
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
 * The cells' view of a panel's two banks (train and test files), `plain` the in-distribution variant;
 * the views (K_w, K_s, seed) are the train bank's, where L and U come from.
 */
export function panelBankOf(
  train: Bank,
  test: Bank,
  plain: 'colour' | 'text' = 'colour',
  /** Which pool file the second bank serves: the official test split, or a pair's target domain. */
  second: 'test' | 'target' = 'test',
): PanelBank {
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
    plain,
    rows: (file: PoolFile, variant, view, k, rowIds) =>
      (file === second ? test : train).rows(variant, view, view === 'clean' ? 0 : k, rowIds),
  };
}

/**
 * The rows a capped plan's cells read from each file of a panel (§10: classroom): L, the capped U_in
 * and U_out and the capped E of every cell, so that its banks hold those rows only (a CIFAR-10
 * classroom panel reads about 10 000 of its 60 000 rows per seed). Null when the plan has no caps:
 * its banks hold every row, shared by every run.
 */
export function panelRowsNeeded(
  plan: PanelPlan,
  dataset: PanelDataset['id'],
  labels: PanelLabels,
  /** distribution panels: the pair whose cells these labels are of. */
  pair: string | null = null,
): Map<PoolFile, Uint32Array> | null {
  const caps = planCaps(plan);
  if (!caps) return null;
  const rows = new Map<PoolFile, Set<number>>();
  const add = (file: PoolFile, ids: readonly number[]) => {
    let set = rows.get(file);
    if (!set) rows.set(file, (set = new Set()));
    for (const id of ids) set.add(id);
  };
  for (const c of panelCells({ ...plan, datasets: [dataset] })) {
    if (c.pair !== pair) continue;
    const drawn = panelSplit(panelRuleOf(dataset, c.setting), labels, c.labels, T_GRID[c.tIndex], c.seed);
    const { split } = capPanelSplit(drawn, labels, caps, c.seed);
    add(split.labeledFrom, split.labeled);
    add(split.inFrom, split.unlabeledIn);
    add(split.outFrom, split.unlabeledOut);
    add(split.testFrom, split.test);
  }
  return new Map(
    [...rows].map(([file, set]) => [file, Uint32Array.from([...set].sort((a, b) => a - b))] as const),
  );
}

export interface PanelBankSpec {
  file: 'train' | 'test';
  variants: string[];
  Kw: number;
  Ks: number;
  /** A capped plan's rows of the file; null = every row. */
  rowIds: Uint32Array | null;
}

/**
 * The banks a plan needs of one panel (train and test files): the train bank holds the variants of
 * every setting run (plain, and the OOD variant for `feature`) with the plan's views; the test bank
 * only clean plain rows (E is scored on clean views). A capped plan's banks hold its rows only.
 */
export function panelBankSpecs(
  plan: PanelPlan,
  dataset: PanelDataset['id'],
  labels: PanelLabels,
  views: { Kw: number; Ks: number },
): PanelBankSpec[] {
  const { modality } = PANEL_DATASETS[dataset];
  const settings = datasetSettings(dataset, plan);
  const needed = panelRowsNeeded(plan, dataset, labels);
  return (['train', 'test'] as const).map((file) => ({
    file,
    variants: [...new Set(settings.flatMap((s) => bankVariants(modality, s, file)))],
    Kw: file === 'test' ? 0 : views.Kw,
    Ks: file === 'test' ? 0 : views.Ks,
    rowIds: needed ? (needed.get(file) ?? new Uint32Array(0)) : null,
  }));
}

/** The bank of one domain of a distribution dataset (a Hub split or a local domain folder). */
export interface DomainBankSpec {
  /** `${dataset}/${split}`: 'image-clef/i', 'imdb/train', 'amazon_polarity/test'. */
  domain: string;
  variants: string[];
  Kw: number;
  Ks: number;
  /** A capped plan's rows of the domain over all its pairs; null = every row. */
  rowIds: Uint32Array | null;
}

/** One pair of a distribution panel as loaded: its labels and which domain each role reads. */
export interface LoadedPair {
  pair: string;
  labels: PanelLabels;
  /** `${dataset}/${split}` of the source (L, E, U_in) and target (U_out) domains. */
  source: string;
  target: string;
}

/**
 * The banks a plan needs of a distribution panel: one per domain, shared by every pair that reads
 * it (i→p and p→i use the same banks of i and p). Every domain gets the plan's views: a source gives
 * L and U_in, a target U_out (E is read clean from the source). A capped plan's bank of a domain
 * holds the rows its cells read in any pair.
 */
export function pairBankSpecs(
  plan: PanelPlan,
  dataset: PanelDataset['id'],
  pairs: readonly LoadedPair[],
  views: { Kw: number; Ks: number },
): DomainBankSpec[] {
  const plain = PANEL_DATASETS[dataset].modality === 'image' ? 'colour' : 'text';
  const rows = new Map<string, Set<number> | null>();
  for (const p of pairs) {
    const needed = panelRowsNeeded(plan, dataset, p.labels, p.pair);
    for (const [role, domain] of [
      ['source', p.source],
      ['target', p.target],
    ] as const) {
      if (!needed) {
        rows.set(domain, null);
        continue;
      }
      const set = rows.get(domain) ?? new Set<number>();
      for (const r of needed.get(role) ?? []) set.add(r);
      rows.set(domain, set);
    }
  }
  return [...rows].map(([domain, set]) => ({
    domain,
    variants: [plain],
    Kw: views.Kw,
    Ks: views.Ks,
    rowIds: set ? Uint32Array.from([...set].sort((a, b) => a - b)) : null,
  }));
}

/**
 * §5.5's sizes of a distribution pair on standard data (|E| and n_u = |U_in| + |U_out|), asserted
 * before any cell runs: a source or target of another size than the benchmark's says so here, in
 * words, instead of as odd curves. Nonstandard local data (§4.2) is exempt: it runs, flagged.
 */
export function checkPairSizes(dataset: PanelDataset['id'], pair: string, labels: PanelLabels): void {
  const expected: Record<string, { E: number; nu: number }> = {
    'imdb->amazon': { E: 12_450, nu: 12_450 },
    'train->validation': { E: 76_149, nu: 55_388 },
    'validation->train': { E: 27_644, nu: 27_644 },
  };
  const want = expected[pair] ?? (dataset === 'image-clef' ? { E: 250, nu: 250 } : null);
  if (!want) return;
  const nS = labels.train.length;
  const nT = labels.target?.length ?? 0;
  const E = Math.ceil((nS - PANEL_DATASETS[dataset].labels.distribution!) / 2);
  const nu = Math.min(nT, nS - PANEL_DATASETS[dataset].labels.distribution! - E);
  if (E !== want.E || nu !== want.nu)
    throw new Error(
      `${PANEL_DATASETS[dataset].title} ${pair}: a source of ${nS} rows and a target of ${nT} give |E| = ${E} and ` +
        `|U| = ${nu}; §5.5 expects |E| = ${want.E} and |U| = ${want.nu}. The files are not the benchmark's.`,
    );
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
  /** How rows became backbone inputs (image size and normalisation; tokenizer and length). */
  input: PanelCellInputs['input'];
}

/**
 * `files`: the panel's files, labels and banks (loading and extracting them as needed); called once
 * per dataset, or once per pair of a distribution dataset (the caller shares domains and banks).
 */
export interface RunPanelPlanOptions extends PlanCellsLoop<PanelFiles, ModalCellResult> {
  env: PanelCellInputs['env'];
  tick?: () => Promise<void>;
  now?: () => number;
  /** ISO time for each record's created_at (the caller's clock). */
  clock: () => string;
  /** A finetune plan's rows and network (panelFinetune.ts); it reads no banks. */
  finetuneFiles?: RunFinetunePlanOptions['files'];
}

/** Runs the plan's cells not yet done, dataset by dataset (pair by pair); returns how many ran. */
export async function runPanelPlan(plan: PanelPlan, o: RunPanelPlanOptions): Promise<number> {
  if (plan.tier === 'finetune') {
    if (!o.finetuneFiles) throw new Error('A finetune plan trains on the panel rows: give finetuneFiles.');
    return runFinetunePlan(plan, { ...o, files: o.finetuneFiles });
  }
  return runPlanCells(plan, o, (ref, files) => {
    const bank = files.bankFor(ref.setting);
    const refusal = bankRefusal([ref.method], bank.Kw, bank.Ks);
    if (refusal) throw new Error(refusal);
    return runPanelCell(
      // finetune plans never get here: they went to panelFinetune.ts above.
      { ...planCellSpec(plan, ref), tier: plan.tier as PanelCellSpec['tier'] },
      {
        labels: files.labels,
        bank,
        dataset: files.dataset,
        backbone: files.backbone,
        input: files.input,
        env: o.env,
        createdAt: o.clock(),
      },
      { tick: o.tick, now: o.now },
    );
  });
}

/**
 * A local domain (Image-CLEF, VisDA) as a panel file: its rows' file bytes in canonical order, the
 * §4.4 `rsb-files/1` hash, and what the record says of the folder (§4.2: other counts are flagged).
 */
export interface LoadedLocalSplit extends LoadedHubSplit {
  local: { name: string; contentSha256: string; nonstandard: boolean; paths: string[] };
}

export function localSplit(ds: LocalDataset, domain: string): LoadedLocalSplit {
  const d = localDomain(ds, domain);
  return {
    dataset: ds.id,
    split: domain,
    rows: { labels: Int32Array.from(d.rows, (r) => r.label), images: d.rows.map((r) => r.bytes) },
    rowOrder: 'canonical',
    files: [],
    local: {
      name: ds.root || ds.id,
      contentSha256: d.sha256,
      nonstandard: d.nonstandard,
      paths: d.rows.map((r) => (ds.root ? `${ds.root}/${r.path}` : r.path)),
    },
  };
}

const isLocal = (l: LoadedHubSplit): l is LoadedLocalSplit => 'local' in l;

/** The §4.4 hash of a loaded panel file: a local domain's file hash, or its decoded content's. */
export function panelFileHash(l: LoadedHubSplit, modality: 'image' | 'text'): string {
  if (isLocal(l)) return l.local.contentSha256;
  return modality === 'text' ? textSplitHash(l) : imageSplitHash(l, HUB_DATASETS[l.dataset]?.imageSize ?? 32);
}

/** `${dataset}/${split}`: how banks and pairs name a panel file. */
export const panelFileName = (l: { dataset: string; split: string }): string => `${l.dataset}/${l.split}`;

/**
 * Loads a panel's files through `load` (Hub splits, or local domains for Image-CLEF and VisDA),
 * hashes them (§4.4), and says what its records will list. Files are keyed by their role:
 * `train` and `test`, or for a pair `train` (its source) and `target`. A pair's sizes are checked
 * against §5.5 (standard data only).
 */
export async function loadPanel(
  dataset: PanelDataset['id'],
  load: (file: { dataset: string; split: string }) => Promise<LoadedHubSplit>,
  opts: { pair?: string | null; amazonPool?: 'train' | 'test' } = {},
): Promise<{
  labels: PanelLabels;
  splits: Map<string, LoadedHubSplit>;
  hashes: Map<string, string>;
  dataset: PanelCellInputs['dataset'];
}> {
  const panel = PANEL_DATASETS[dataset];
  const pair = panel.pairs ? (opts.pair ?? panel.pairs[0]) : null;
  const files = panelFiles(dataset, pair, opts.amazonPool);
  const splits = new Map<string, LoadedHubSplit>();
  for (const [role, f] of [
    ['train', files.train],
    ['test', files.test],
    ['target', files.target],
  ] as const)
    if (f) splits.set(role, await load(f));
  const labels: PanelLabels = {
    train: splits.get('train')!.rows.labels,
    test: splits.get('test')?.rows.labels,
    target: splits.get('target')?.rows.labels,
    k: panel.k,
  };
  const hashes = new Map([...splits].map(([role, l]) => [role, panelFileHash(l, panel.modality)]));
  const loaded = [...splits.values()];
  const local = loaded.filter(isLocal);
  const nonstandard = local.some((l) => l.local.nonstandard);
  if (pair && !nonstandard) checkPairSizes(dataset, pair, labels);
  // A pair's content names each domain (the same split name can be two datasets' files).
  const hashLines = new Map(
    [...splits].map(([role, l]) => [pair ? panelFileName(l) : l.split, hashes.get(role)!] as const),
  );
  return {
    labels,
    splits,
    hashes,
    dataset: {
      id: dataset,
      ...(local.length
        ? {
            local: {
              name: local[0].local.name,
              n_files: local.reduce((a, l) => a + l.rows.labels.length, 0),
            },
          }
        : { files: loaded.flatMap((l) => l.files) }),
      content_sha256: panelContentHash(hashLines),
      N: loaded.reduce((a, l) => a + l.rows.labels.length, 0),
      k: panel.k,
      row_order: loaded.some((l) => l.rowOrder === 'unverified') ? 'unverified' : 'canonical',
      nonstandard,
    } as PanelCellInputs['dataset'],
  };
}
