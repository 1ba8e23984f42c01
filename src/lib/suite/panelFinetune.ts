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
 * The caller (the CLI; a page with the memory for it) supplies the panel's rows and the network
 * built from the backbone's safetensors; this module is pure apart from tfjs. Budget: §10 puts the
 * full tier at ≈ 14 EFLOP (hundreds of GPU-hours): run it on a GPU server, sharded.
 */
import { labeledPixelStats, type PixelStats } from '../augment/image/index.ts';
import { PANEL_DATASETS, panelRuleOf, type PanelDataset } from '../data/modal/panels.ts';
import { createMethod } from '../models/deep/methods/index.ts';
import type { DeepNetwork } from '../models/deep/network.ts';
import { DeepTrainer, type DeepCheckpoint, type TrainerConfig } from '../models/deep/trainer.ts';
import { streamSeed } from '../models/fitContext.ts';
import { indicesSha256 } from '../protocol/indicesHash.ts';
import { panelSplit, type PanelLabels, type PoolFile } from '../protocol/panelSplit.ts';
import { capPanelSplit, labelsOfFile, type PanelCaps } from '../protocol/panelSubsample.ts';
import { MT19937 } from '../protocol/rng.ts';
import { T_GRID, type Quirks, type Setting } from '../types.ts';
import {
  cifarRenderer,
  finetuneViews,
  textRenderer,
  type RowRenderer,
  type TextRowOptions,
} from './finetuneViews.ts';
import type { PanelMethod } from './panelPlan.ts';
import {
  datasetSettings,
  panelCellKey,
  panelCells,
  panelMethodParams,
  planCaps,
  type PanelCellRef,
  type PanelPlan,
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

/** Datasets the finetune tier runs here; the photo panels need the shared-crop views of §6.1. */
export function finetuneRefusal(dataset: PanelDataset['id']): string | null {
  const panel = PANEL_DATASETS[dataset];
  if (panel.pairs)
    return (
      `${panel.title}: finetune runs cifar10, cifar100 and ag_news so far; its source → target pairs ` +
      '(weak and strong views sharing one crop for the photos, §6.1) are not built in this tier yet.'
    );
  return null;
}

export interface FinetuneCellSpec {
  dataset: PanelDataset['id'];
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
  /** Side of the stored (CIFAR: 32) and network input images. */
  imageSize: number;
  /** The decoder named in the record (e.g. 'fast-png'). */
  decoder: string;
  /** A stored row's uint8 RGB pixels, imageSize² × 3. */
  rgb(file: PoolFile, row: number): Uint8Array;
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
  const refusal = finetuneRefusal(spec.dataset);
  if (refusal) throw new Error(refusal);
  const panel = PANEL_DATASETS[spec.dataset];
  if (panel.modality !== files.modality)
    throw new Error(`${panel.title} is a ${panel.modality} panel; the files given are ${files.modality}.`);
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
  if (files.modality === 'image') {
    // §6.2: per-channel mean and population std over every pixel of the labeled images, stored size.
    const size = files.imageSize;
    stats = labeledPixelStats(
      split.labeled.map((r) => ({ rgb: files.rgb(split.labeledFrom, r), width: size, height: size })),
    );
    if (stats.std.some((s) => !(s > 0)))
      throw new Error(
        `The ${split.labeled.length} labeled images have a constant channel (std ${stats.std.map((s) => s.toFixed(4)).join(', ')}): ` +
          'finetune normalises by their statistics (§6.2) and cannot divide by 0.',
      );
    render = cifarRenderer(cachedRgb(files.rgb), size, stats);
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

  const perClass = new Array<number>(split.numClasses).fill(0);
  for (const y of yl) perClass[y]++;
  const unlabeled = [...drawn.unlabeledIn, ...drawn.unlabeledOut];
  const hyper: Record<string, number | string | boolean | null> = {
    B: batch,
    mu: method.mu,
    S: steps,
    lambdaU: method.lambdaU,
    emaDecay: EMA_DECAY,
    lr,
    wd: WEIGHT_DECAY,
    warmup: method.warmup,
    ...(files.modality === 'text' ? { dropout } : {}),
  };
  for (const [key, value] of Object.entries(method.hyper))
    if (
      !(key in hyper) &&
      (typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean')
    )
      hyper[key] = value;
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
      options: { iterations: steps, emaDecay: EMA_DECAY },
      overrides,
    },
    dataset: files.dataset,
    setting: spec.setting,
    labels: spec.labels,
    t,
    t_index: spec.tIndex,
    seed: spec.seed,
    algorithm: { name: spec.method, family: 'deep', hyper, init_seed: 0 },
    backbone: files.backbone,
    input,
    feature_bank: null,
    split: {
      n_labeled: split.labeled.length,
      labeled_per_class: perClass,
      n_test: drawn.test.length,
      n_unlabeled: unlabeled.length,
      n_unlabeled_ood: drawn.unlabeledOut.length,
      n_unlabeled_in: drawn.unlabeledIn.length,
      n_unlabeled_out: drawn.unlabeledOut.length,
      take_all: split.takeAll,
      indices_sha256: await indicesSha256({ labeled: drawn.labeled, test: drawn.test, unlabeled }),
    },
    outcome: {
      status: 'ok',
      accuracy: split.test.length ? correct / split.test.length : null,
      n_correct: correct,
      n_test: split.test.length,
      n_nan_rows: 0,
      flattened_from_t0: false,
    },
    timing: { fit_ms: fitMs, predict_ms: predictMs, steps },
    env: ctx.env,
    subsample: capRecords.length ? capRecords : null,
    created_at: ctx.createdAt,
  } as Omit<ImageCellResult, 'schema'>);
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

export interface RunFinetunePlanOptions {
  /** The panel's rows and network (called once per dataset). */
  files(dataset: PanelDataset['id'], settings: Setting[]): Promise<FinetuneFiles>;
  env: ModalCellResult['env'];
  done?: ReadonlySet<string>;
  onCell(cell: ModalCellResult, ref: PanelCellRef): Promise<void> | void;
  onCellStart?(ref: PanelCellRef, done: number, total: number): void;
  tick?: () => Promise<void>;
  now?: () => number;
  clock: () => string;
}

/** Runs a finetune plan's cells not yet done, dataset by dataset; returns how many ran. */
export async function runFinetunePlan(plan: PanelPlan, o: RunFinetunePlanOptions): Promise<number> {
  if (plan.tier !== 'finetune') throw new Error(`runFinetunePlan: the plan's tier is ${plan.tier}.`);
  for (const d of plan.datasets) {
    const refusal = finetuneRefusal(d);
    if (refusal) throw new Error(refusal);
  }
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
      const cell = await runFinetuneCell(
        {
          dataset,
          setting: ref.setting,
          labels: ref.labels,
          tIndex: ref.tIndex,
          seed: ref.seed,
          method: ref.method,
          quirks: plan.quirks,
          caps: planCaps(plan),
          steps: plan.steps,
          batch: plan.batch,
          lr: plan.lr,
        },
        files,
        { env: o.env, createdAt: o.clock(), tick: o.tick, now: o.now },
      );
      await o.onCell(cell, ref);
      finished++;
      ran++;
    }
  }
  return ran;
}
