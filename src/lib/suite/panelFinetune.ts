/**
 * One image or text cell in the `finetune` tier (PROTOCOL-IMAGE-TEXT.md §2, §6, §7): the whole
 * network trains — ResNet with BatchNorm in training mode and the LAMDA head, or
 * RobertaForSequenceClassification with dropout 0.1 — on fresh augmentations of L and U
 * (finetuneViews.ts), with §7.2's loop (SGD momentum 0.9, lr 5e-4 cosine over 7/16 of a period,
 * weight decay 5e-4 on the decay group, EMA 0.999) and §7.6's values (μ = 1, λ_u = 1, ICT w = 1/64).
 * The test rows are scored in eval mode with the EMA shadow and the live BatchNorm statistics, and
 * the cell is written as panelCell.ts writes the bank tiers' (`rsb-cell/3`, tier `finetune`,
 * `feature_bank` null, the input normalised by the labeled pixels' statistics).
 *
 * Distribution panels run pair by pair (the pair and imdb-amazon's Amazon pool in the record, as
 * the bank tiers write them); the photo panels read their decoded files (photoRowsOf) through
 * §6.1's resize and the crop a row's unlabeled views share (finetuneViews.ts photoRenderer).
 *
 * The caller (the CLI; a page with the memory for it) supplies the panel's rows and the network
 * built from the backbone's safetensors; this module is pure apart from tfjs. Budget: §10 puts the
 * full tier at ≈ 14 EFLOP (hundreds of GPU-hours): run it on a GPU server, sharded.
 */
import {
  labeledPixelStats,
  PHOTO_CROP,
  PHOTO_RESIZE,
  type PixelStats,
  type RgbImage,
} from '../augment/image/index.ts';
import { decodeImageRgb } from '../data/modal/imageDecode.ts';
import type { LoadedHubSplit } from '../data/modal/loadHub.ts';
import { PANEL_DATASETS, panelRuleOf, type PanelDataset } from '../data/modal/panels.ts';
import { createMethod } from '../models/deep/methods/index.ts';
import type { DeepNetwork } from '../models/deep/network.ts';
import { DeepTrainer, type DeepCheckpoint, type TrainerConfig } from '../models/deep/trainer.ts';
import { streamSeed } from '../models/fitContext.ts';
import { panelSplit, type PanelLabels, type PoolFile } from '../protocol/panelSplit.ts';
import { capPanelSplit, labelsOfFile, type PanelCaps } from '../protocol/panelSubsample.ts';
import { MT19937 } from '../protocol/rng.ts';
import { T_GRID, type Quirks, type Setting } from '../types.ts';
import {
  cifarRenderer,
  finetuneViews,
  photoRenderer,
  textRenderer,
  type PhotoGeometry,
  type RowRenderer,
  type TextRowOptions,
} from './finetuneViews.ts';
import { cellDataset, cellHyper, cellSplitOutcome } from './panelCell.ts';
import type { PanelMethod } from './panelPlan.ts';
import {
  panelMethodParams,
  planCellSpec,
  runPlanCells,
  type PanelPlan,
  type PlanCellsLoop,
} from './panelPlan.ts';
import { makeModalCell, type ImageCellResult, type ModalCellResult } from './schemaV3.ts';

/** §7.2: labeled batch B and iterations S of the finetune tier. */
export const FINETUNE_LOOP: Readonly<Record<PanelDataset['id'], { B: number; S: number }>> = {
  cifar10: { B: 64, S: 10_000 },
  cifar100: { B: 64, S: 10_000 },
  'image-clef': { B: 32, S: 2_000 },
  visda: { B: 32, S: 2_000 },
  ag_news: { B: 16, S: 5_000 },
  'imdb-amazon': { B: 8, S: 5_000 },
};
const EMA_DECAY = 0.999;
const BASE_LR = 5e-4;
const WEIGHT_DECAY = 5e-4;
/** transformers' RoBERTa: hidden and attention dropout 0.1 in training (§7.1). */
const TEXT_DROPOUT = 0.1;

/**
 * Why the finetune tier cannot run a panel here, or null. Every panel runs where its rows can be
 * given as the tier needs them: the photo panels (Image-CLEF, VisDA) need their decoded files
 * (`photoRows`: the CLI gives them, photoRowsOf) for §6.1's resize and shared crop; a caller that
 * does not build them (the page, so far) is told so before it starts.
 */
export function finetuneRefusal(
  dataset: PanelDataset['id'],
  { photoRows = false }: { photoRows?: boolean } = {},
): string | null {
  const panel = PANEL_DATASETS[dataset];
  if (!panel) return `${dataset} is not an image or text panel.`;
  if (panel.source === 'local' && !photoRows)
    return (
      `${panel.title}: finetune of the photo panels runs in the CLI (rac-bench run --tier finetune ` +
      '--pair … --data-dir …); the page does not build their decoded rows for the shared crop of §6.1 yet.'
    );
  return null;
}

export interface FinetuneCellSpec {
  dataset: PanelDataset['id'];
  /** distribution panels: the source → target pair ('i->p'); null for the others. */
  pair?: string | null;
  /** imdb-amazon: the Amazon pool U_out is drawn from (§5.5). */
  amazonPool?: 'train' | 'test';
  setting: Setting;
  labels: number;
  tIndex: number;
  seed: number;
  method: PanelMethod;
  quirks: Quirks;
  caps?: PanelCaps;
  /** Overrides of §7.2's loop (tests, smoke runs); recorded in `protocol.overrides`. */
  steps?: number;
  batch?: number;
  lr?: number;
}

interface FinetuneFilesBase {
  labels: PanelLabels;
  /** The record's sections that only the caller knows. */
  dataset: ImageCellResult['dataset'];
  /** `frozen: false`: everything trains. */
  backbone: ModalCellResult['backbone'];
  /** The trainable network with `classes` outputs, from the backbone's weights (a new one per cell). */
  network(classes: number): DeepNetwork;
}

export interface ImageFinetuneFiles extends FinetuneFilesBase {
  modality: 'image';
  /** Side of the network input images: CIFAR's stored 32, the photos' crop (224). */
  imageSize: number;
  /** The decoder named in the record (e.g. 'fast-png'). */
  decoder: string;
  /** A stored row's uint8 RGB pixels, imageSize² × 3 (CIFAR; unused with `photo`). */
  rgb(file: PoolFile, row: number): Uint8Array;
  /**
   * Image-CLEF, VisDA (§6.1): a row's decoded file at its own size, and the resize/crop geometry
   * (crop = imageSize). The rows are normalised by the labeled files' pixels at that size (§6.2).
   */
  photo?: { image(file: PoolFile, row: number): RgbImage; geometry: PhotoGeometry };
}

export interface TextFinetuneFiles extends FinetuneFilesBase {
  modality: 'text';
  text(file: PoolFile, row: number): string;
  render: TextRowOptions;
  /** The record's text input section (tokenizer hash, length, WordNet version, augmentation). */
  input: Extract<ModalCellResult['input'], { tokenizer_sha256: string }>;
}

export type FinetuneFiles = ImageFinetuneFiles | TextFinetuneFiles;

export interface FinetuneCellContext {
  env: ModalCellResult['env'];
  createdAt: string;
  tick?: () => Promise<void>;
  /** A monotonic clock (ms) for the record's timing; none: 0. */
  now?: () => number;
  /** Checkpoints every this many steps to `onCheckpoint` (0 or absent: none). */
  checkpointEvery?: number;
  onCheckpoint?: (c: DeepCheckpoint) => void | Promise<void>;
  /** A checkpoint of this cell's fit to continue from. */
  resumeFrom?: DeepCheckpoint | null;
}

/** Runs one finetune cell and returns its record. */
export async function runFinetuneCell(
  spec: FinetuneCellSpec,
  files: FinetuneFiles,
  ctx: FinetuneCellContext,
): Promise<ModalCellResult> {
  const refusal = finetuneRefusal(spec.dataset, { photoRows: true });
  if (refusal) throw new Error(refusal);
  const panel = PANEL_DATASETS[spec.dataset];
  if (panel.modality !== files.modality)
    throw new Error(`${panel.title} is a ${panel.modality} panel; the files given are ${files.modality}.`);
  if (!panel.pairs !== (spec.pair == null))
    throw new Error(
      panel.pairs
        ? `${panel.title} runs a source → target pair (${panel.pairs.join(', ')}); the cell names none.`
        : `${panel.title} has no source → target pairs; the cell names "${spec.pair}".`,
    );
  const t = T_GRID[spec.tIndex];
  const drawn = panelSplit(panelRuleOf(spec.dataset, spec.setting), files.labels, spec.labels, t, spec.seed);
  const { split, records: capRecords } = spec.caps
    ? capPanelSplit(drawn, files.labels, spec.caps, spec.seed)
    : { split: drawn, records: [] };
  const loop = FINETUNE_LOOP[spec.dataset];
  const steps = spec.steps ?? loop.S;
  const batch = spec.batch ?? loop.B;
  const lr = spec.lr ?? BASE_LR;
  const overrides: Record<string, number> = {};
  if (spec.steps !== undefined && spec.steps !== loop.S) overrides.iterations = spec.steps;
  if (spec.batch !== undefined && spec.batch !== loop.B) overrides.B = spec.batch;
  if (spec.lr !== undefined && spec.lr !== BASE_LR) overrides.lr = spec.lr;

  const plain = files.modality === 'image' ? 'colour' : 'text';
  const outVariant = split.outVariant === 'none' ? plain : split.outVariant;
  const nIn = split.unlabeledIn.length;
  let stats: PixelStats | null = null;
  let render: RowRenderer;
  const photo = files.modality === 'image' ? (files.photo ?? null) : null;
  if (panel.source === 'local' && !photo)
    throw new Error(
      `${panel.title}: finetune reads its decoded files through §6.1's resize and shared crop; ` +
        'the files given have no `photo` rows (photoRowsOf).',
    );
  if (photo && photo.geometry.crop !== (files as ImageFinetuneFiles).imageSize)
    throw new Error(
      `finetune: the photo crop is ${photo.geometry.crop} px but the network takes ${(files as ImageFinetuneFiles).imageSize} px images.`,
    );
  if (files.modality === 'image') {
    // §6.2: per-channel mean and population std over every pixel of the labeled images, stored size.
    const size = files.imageSize;
    stats = labeledPixelStats(
      split.labeled.map((r) =>
        photo
          ? photo.image(split.labeledFrom, r)
          : { rgb: files.rgb(split.labeledFrom, r), width: size, height: size },
      ),
    );
    if (stats.std.some((s) => !(s > 0)))
      throw new Error(
        `The ${split.labeled.length} labeled images have a constant channel (std ${stats.std.map((s) => s.toFixed(4)).join(', ')}): ` +
          'finetune normalises by their statistics (§6.2) and cannot divide by 0.',
      );
    render = photo
      ? photoRenderer(photo.image, stats, photo.geometry)
      : cifarRenderer(cachedRgb(files.rgb), size, stats);
  } else render = textRenderer(files.text, files.render);

  const network = files.network(split.numClasses);
  const views = finetuneViews({
    nL: split.labeled.length,
    nU: nIn + split.unlabeledOut.length,
    dim: network.inputDim,
    locate: (set, i) =>
      set === 'L'
        ? { file: split.labeledFrom, row: split.labeled[i], variant: plain }
        : i < nIn
          ? { file: split.inFrom, row: split.unlabeledIn[i], variant: plain }
          : { file: split.outFrom, row: split.unlabeledOut[i - nIn], variant: outVariant },
    render,
    // §6.1: a photo's unlabeled views share the step's crop (finetuneViews.ts).
    sharedCrop: photo !== null,
  });
  const method = createMethod(
    spec.method === 'supervised' ? 'ftt' : spec.method,
    'rsb',
    panelMethodParams(spec.method, spec.dataset, spec.setting),
  );
  const dropout = files.modality === 'text' ? TEXT_DROPOUT : 0;
  const cfg: TrainerConfig = {
    network,
    steps,
    batchL: batch,
    optimizer: 'sgd',
    lr,
    cosineFraction: 7 / 16,
    weightDecay: WEIGHT_DECAY,
    emaDecay: EMA_DECAY,
    noiseWeak: 0,
    noiseStrong: 0,
    dropoutAttention: dropout,
    dropoutFfn: dropout,
    initSeed: 0,
    quirks: spec.quirks,
    progressEvery: Math.max(1, steps),
    checkpointEvery: ctx.checkpointEvery ?? 0,
    recompute: 'auto',
  };
  const yl = Int32Array.from(split.labeled, (r) => files.labels.train[r]);
  const stream = (name: string) => new MT19937(streamSeed(spec.seed, `panel/${name}`));
  const now = ctx.now ?? (() => 0);
  const fitAndScore = async (): Promise<{ fitMs: number; predictMs: number; correct: number }> => {
    const trainer = new DeepTrainer(
      cfg,
      method,
      { yl, k: split.numClasses, views },
      {
        labeled: stream('labeled'),
        unlabeled: stream('unlabeled'),
        noise: stream('views'),
        method: stream('method'),
        dropoutSeed: stream('dropout').nextU32(),
      },
    );
    try {
      if (ctx.resumeFrom) trainer.restore(ctx.resumeFrom);
      const t0 = now();
      await trainer.run({ tick: ctx.tick, onCheckpoint: ctx.onCheckpoint });
      const fitMs = now() - t0;
      const p0 = now();
      const dim = network.inputDim;
      const logits = await trainer.predictRows(
        split.test.length,
        (r0, r1) => {
          const out = new Float32Array((r1 - r0) * dim);
          for (let r = r0; r < r1; r++)
            out.set(render(split.testFrom, split.test[r], plain, 'clean', null), (r - r0) * dim);
          return out;
        },
        files.modality === 'image' ? 256 : 32,
      );
      const predictMs = now() - p0;
      const C = split.numClasses;
      const yTest = labelsOfFile(files.labels, split.testFrom);
      let correct = 0;
      for (let i = 0; i < split.test.length; i++) {
        let best = 0;
        for (let c = 1; c < C; c++) if (logits[i * C + c] > logits[i * C + best]) best = c;
        if (best === yTest[split.test[i]]) correct++;
      }
      return { fitMs, predictMs, correct };
    } finally {
      trainer.dispose();
    }
  };
  let scored: Awaited<ReturnType<typeof fitAndScore>>;
  try {
    scored = await fitAndScore();
  } finally {
    network.dispose?.();
  }
  const { fitMs, predictMs, correct } = scored;

  const hyper = cellHyper(
    {
      B: batch,
      mu: method.mu,
      S: steps,
      lambdaU: method.lambdaU,
      emaDecay: EMA_DECAY,
      lr,
      wd: WEIGHT_DECAY,
      warmup: method.warmup,
      ...(files.modality === 'text' ? { dropout } : {}),
    },
    method.hyper,
  );
  const input: ModalCellResult['input'] =
    files.modality === 'image'
      ? {
          image_size: files.imageSize as 32 | 224,
          normalization: 'labeled-stats',
          mean: [...stats!.mean],
          std: [...stats!.std],
          decoder: files.decoder,
        }
      : files.input;
  return makeModalCell({
    modality: panel.modality,
    protocol: {
      spec: 'image-text',
      mode: 'rsb',
      version: '0.1.0',
      tier: 'finetune',
      quirks: spec.quirks,
      preset: null,
      options: {
        ...(spec.amazonPool ? { amazonPool: spec.amazonPool } : {}),
        iterations: steps,
        emaDecay: EMA_DECAY,
      },
      overrides,
    },
    dataset: cellDataset(files.dataset, spec),
    setting: spec.setting,
    labels: spec.labels,
    t,
    t_index: spec.tIndex,
    seed: spec.seed,
    algorithm: { name: spec.method, family: 'deep', hyper, init_seed: 0 },
    backbone: files.backbone,
    input,
    feature_bank: null,
    ...(await cellSplitOutcome(split, drawn, yl, correct)),
    timing: { fit_ms: fitMs, predict_ms: predictMs, steps },
    env: ctx.env,
    subsample: capRecords.length ? capRecords : null,
    created_at: ctx.createdAt,
  } as Omit<ImageCellResult, 'schema'>);
}

/**
 * The `photo` rows of a loaded Image-CLEF or VisDA panel (loadPanel's splits, keyed by pool file):
 * each row's file decoded on demand (a file that does not decode fails with its path, §4.2), and
 * §6.1's geometry (Resize 256, crop 224).
 */
export function photoRowsOf(
  splits: ReadonlyMap<string, LoadedHubSplit>,
): NonNullable<ImageFinetuneFiles['photo']> {
  return {
    image(file, row) {
      // loadPanel keys a pair's source domain by its role `train` (the pool file `source`).
      const loaded = splits.get(file === 'source' ? 'train' : file);
      const bytes = loaded?.rows.images?.[row];
      if (!loaded || !bytes) throw new Error(`finetune: no image ${row} in the ${file} file.`);
      try {
        return decodeImageRgb(bytes);
      } catch (e) {
        const path =
          'local' in loaded ? (loaded as { local: { paths: string[] } }).local.paths[row] : `row ${row}`;
        throw new Error(`${path}: ${e instanceof Error ? e.message : String(e)}.`, { cause: e });
      }
    },
    geometry: { resize: PHOTO_RESIZE, crop: PHOTO_CROP },
  };
}

/** Rows decoded once and kept (a CIFAR train file is 150 MB as RGB; PNG inflation is the cost). */
function cachedRgb(
  rgb: (file: PoolFile, row: number) => Uint8Array,
): (file: PoolFile, row: number) => Uint8Array {
  const cache = new Map<string, Uint8Array>();
  return (file, row) => {
    const key = `${file}:${row}`;
    let v = cache.get(key);
    if (!v) cache.set(key, (v = rgb(file, row)));
    return v;
  };
}

export interface RunFinetunePlanOptions extends PlanCellsLoop<FinetuneFiles, ModalCellResult> {
  env: ModalCellResult['env'];
  tick?: () => Promise<void>;
  now?: () => number;
  clock: () => string;
}

/** Runs a finetune plan's cells not yet done, dataset by dataset; returns how many ran. */
export async function runFinetunePlan(plan: PanelPlan, o: RunFinetunePlanOptions): Promise<number> {
  if (plan.tier !== 'finetune') throw new Error(`runFinetunePlan: the plan's tier is ${plan.tier}.`);
  for (const d of plan.datasets) {
    // The photo rows are checked per cell (runFinetuneCell), where the files are known.
    const refusal = finetuneRefusal(d, { photoRows: true });
    if (refusal) throw new Error(refusal);
  }
  return runPlanCells(plan, o, (ref, files) =>
    runFinetuneCell(planCellSpec(plan, ref), files, {
      env: o.env,
      createdAt: o.clock(),
      tick: o.tick,
      now: o.now,
    }),
  );
}
