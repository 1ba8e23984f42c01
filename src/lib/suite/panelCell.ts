/**
 * One image or text cell in the `features` / `classroom` tiers (PROTOCOL-IMAGE-TEXT.md §5, §7):
 * split the panel (protocol/panelSplit.ts), train a head on the feature bank's views of L and U
 * with one method (models/deep/trainer.ts over bankViews), score the clean views of E with the
 * EMA shadow, and write the `rsb-cell/3` record. The bank, the labels and the record's dataset,
 * backbone and input sections come from the caller (the page's worker or the CLI), which knows
 * where the files and weights came from; this function is pure apart from tfjs.
 */
import type { BankView } from '../bank/bankFile.ts';
import { PANEL_DATASETS, panelRuleOf, type PanelDataset } from '../data/modal/panels.ts';
import { bankViews } from '../models/deep/bankViews.ts';
import { mlpHead, robertaHead } from '../models/deep/head.ts';
import { createMethod } from '../models/deep/methods/index.ts';
import { panelMethodParams, type PanelMethod } from './panelPlan.ts';
import { DeepTrainer, type TrainerConfig } from '../models/deep/trainer.ts';
import { streamSeed } from '../models/fitContext.ts';
import { indicesSha256 } from '../protocol/indicesHash.ts';
import { panelSplit, type PanelLabels, type PanelSplit, type PoolFile } from '../protocol/panelSplit.ts';
import { capPanelSplit, labelsOfFile, type PanelCaps } from '../protocol/panelSubsample.ts';
import { MT19937 } from '../protocol/rng.ts';
import { T_GRID, type Quirks, type Setting } from '../types.ts';
import { makeModalCell, type ImageCellResult, type ModalCellResult } from './schemaV3.ts';

export { PANEL_METHODS, type PanelMethod } from './panelPlan.ts';

export interface PanelCellSpec {
  dataset: PanelDataset['id'];
  /** distribution panels: 'source->target'. */
  pair: string | null;
  /** imdb-amazon: the Amazon pool its target rows come from (§5.2), recorded in protocol.options. */
  amazonPool?: 'train' | 'test';
  setting: Setting;
  /** The labeled total (§1). */
  labels: number;
  tIndex: number;
  seed: number;
  method: PanelMethod;
  tier: 'features' | 'classroom';
  quirks: Quirks;
  /** §10 caps on E and U (classroom: CLASSROOM_CAPS); recorded in `subsample`. */
  caps?: PanelCaps;
  /** Overrides of the tier's loop (tests, smoke runs); recorded in `protocol.overrides`. */
  steps?: number;
  batch?: number;
  lr?: number;
}

/** Float32 rows of one bank view: `file`'s rows `ids`, variant, view and per-row index `k`. */
export interface PanelBank {
  Kw: number;
  Ks: number;
  dim: number;
  seed: number;
  sha256: string;
  /** The variant of a file's in-distribution rows ('colour' or 'text'). */
  plain: string;
  rows(file: PoolFile, variant: string, view: BankView, k: Int32Array, ids: Int32Array): Float32Array;
}

export interface PanelCellInputs {
  labels: PanelLabels;
  bank: PanelBank;
  /** The record's sections that only the caller knows. */
  dataset: ImageCellResult['dataset'];
  backbone: ModalCellResult['backbone'];
  input: ModalCellResult['input'];
  env: ModalCellResult['env'];
  createdAt: string;
}

export interface PanelCellContext {
  tick?: () => Promise<void>;
  /** A monotonic clock (ms) for the record's timing; none: 0. */
  now?: () => number;
}

/** §7.2: labeled batch B and iterations S per dataset (classroom: S/10), and the EMA decay. */
function loopOf(spec: PanelCellSpec): { B: number; S: number; ema: number } {
  const byDataset: Record<PanelDataset['id'], [number, number]> = {
    cifar10: [64, 10_000],
    cifar100: [64, 10_000],
    'image-clef': [32, 2_000],
    visda: [32, 2_000],
    ag_news: [16, 5_000],
    'imdb-amazon': [8, 5_000],
  };
  const [B, S] = byDataset[spec.dataset];
  const classroom = spec.tier === 'classroom';
  return { B, S: classroom ? S / 10 : S, ema: classroom ? 0.999 ** 10 : 0.999 };
}

export async function runPanelCell(
  spec: PanelCellSpec,
  inputs: PanelCellInputs,
  ctx: PanelCellContext = {},
): Promise<ModalCellResult> {
  const panel = PANEL_DATASETS[spec.dataset];
  const t = T_GRID[spec.tIndex];
  const drawn = panelSplit(panelRuleOf(spec.dataset, spec.setting), inputs.labels, spec.labels, t, spec.seed);
  // §10: caps after the split; the record's split section stays the split's, `subsample` says what was kept.
  const { split, records: capRecords } = spec.caps
    ? capPanelSplit(drawn, inputs.labels, spec.caps, spec.seed)
    : { split: drawn, records: [] };
  const { bank } = inputs;
  const loop = loopOf(spec);
  const steps = spec.steps ?? loop.S;
  const batch = spec.batch ?? loop.B;
  const lr = spec.lr ?? 5e-4;
  const overrides: Record<string, number> = {};
  if (spec.steps !== undefined && spec.steps !== loop.S) overrides.iterations = spec.steps;
  if (spec.batch !== undefined && spec.batch !== loop.B) overrides.B = spec.batch;
  if (spec.lr !== undefined && spec.lr !== 5e-4) overrides.lr = spec.lr;

  // U = U_in ++ U_out; each part reads its own file and variant of the bank.
  const nIn = split.unlabeledIn.length;
  const outVariant = split.outVariant === 'none' ? bank.plain : split.outVariant;
  const yl = Int32Array.from(split.labeled, (r) => inputs.labels.train[r]);
  const views = bankViews({
    nL: split.labeled.length,
    nU: nIn + split.unlabeledOut.length,
    dim: bank.dim,
    Kw: bank.Kw,
    Ks: bank.Ks,
    rows(set, ids, view, k) {
      if (set === 'L')
        return bank.rows(
          split.labeledFrom,
          bank.plain,
          view,
          k,
          Int32Array.from(ids, (i) => split.labeled[i]),
        );
      // Rows of U come from two files: gather each part, then put them back in batch order.
      const out = new Float32Array(ids.length * bank.dim);
      for (const part of ['in', 'out'] as const) {
        const at: number[] = [];
        for (let i = 0; i < ids.length; i++) if (part === 'in' ? ids[i] < nIn : ids[i] >= nIn) at.push(i);
        if (!at.length) continue;
        const rows = Int32Array.from(at, (i) =>
          part === 'in' ? split.unlabeledIn[ids[i]] : split.unlabeledOut[ids[i] - nIn],
        );
        const got = bank.rows(
          part === 'in' ? split.inFrom : split.outFrom,
          part === 'in' ? bank.plain : outVariant,
          view,
          Int32Array.from(at, (i) => k[i]),
          rows,
        );
        at.forEach((i, j) => out.set(got.subarray(j * bank.dim, (j + 1) * bank.dim), i * bank.dim));
      }
      return out;
    },
  });

  const network =
    panel.modality === 'image'
      ? mlpHead(bank.dim, split.numClasses)
      : robertaHead(bank.dim, split.numClasses);
  const method = createMethod(
    spec.method === 'supervised' ? 'ftt' : spec.method,
    'rsb',
    panelMethodParams(spec.method, spec.dataset, spec.setting),
  );
  const cfg: TrainerConfig = {
    network,
    steps,
    batchL: batch,
    optimizer: 'sgd',
    lr,
    cosineFraction: 7 / 16,
    weightDecay: 5e-4,
    emaDecay: loop.ema,
    noiseWeak: 0,
    noiseStrong: 0,
    dropoutAttention: 0,
    dropoutFfn: panel.modality === 'text' ? 0.1 : 0,
    initSeed: 0,
    quirks: spec.quirks,
    progressEvery: Math.max(1, steps),
    checkpointEvery: 0,
    recompute: false,
  };
  const stream = (name: string) => new MT19937(streamSeed(spec.seed, `panel/${name}`));
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
  const now = ctx.now ?? (() => 0);
  const scored = async (): Promise<{ fitMs: number; predictMs: number; correct: number }> => {
    const t0 = now();
    await trainer.run({ tick: ctx.tick });
    const fitMs = now() - t0;
    const p0 = now();
    const test = {
      rows: split.test.length,
      cols: bank.dim,
      data: bank.rows(
        split.testFrom,
        bank.plain,
        'clean',
        new Int32Array(split.test.length),
        Int32Array.from(split.test),
      ),
    };
    const logits = await trainer.predictLogits(test);
    const predictMs = now() - p0;
    const C = split.numClasses;
    const yTest = labelsOfFile(inputs.labels, split.testFrom);
    let correct = 0;
    for (let i = 0; i < split.test.length; i++) {
      let best = 0;
      for (let c = 1; c < C; c++) if (logits[i * C + c] > logits[i * C + best]) best = c;
      if (best === yTest[split.test[i]]) correct++;
    }
    return { fitMs, predictMs, correct };
  };
  let result: Awaited<ReturnType<typeof scored>>;
  try {
    result = await scored();
  } finally {
    trainer.dispose();
  }
  const { fitMs, predictMs, correct } = result;

  const hyper = cellHyper(
    {
      B: batch,
      mu: method.mu,
      S: steps,
      lambdaU: method.lambdaU,
      emaDecay: loop.ema,
      lr,
      wd: 5e-4,
      warmup: method.warmup,
    },
    method.hyper,
  );
  return makeModalCell({
    modality: panel.modality,
    protocol: {
      spec: 'image-text',
      mode: 'rsb',
      version: '0.1.0',
      tier: spec.tier,
      quirks: spec.quirks,
      preset: null,
      options: {
        ...(spec.amazonPool ? { amazonPool: spec.amazonPool } : {}),
        iterations: steps,
        emaDecay: loop.ema,
        bank: { K_w: bank.Kw, K_s: bank.Ks, seed: bank.seed, dtype: 'float16' },
      },
      overrides,
    },
    dataset: cellDataset(inputs.dataset, spec),
    setting: spec.setting,
    labels: spec.labels,
    t,
    t_index: spec.tIndex,
    seed: spec.seed,
    algorithm: { name: spec.method, family: 'deep', hyper, init_seed: 0 },
    backbone: inputs.backbone,
    input: inputs.input,
    feature_bank: {
      K_w: bank.Kw,
      K_s: bank.Ks,
      dtype: 'float16',
      seed: bank.seed,
      prng: 'mt19937 seeded by splitmix64 (bankSeed, row, kind, k)',
      sha256: bank.sha256,
    },
    ...(await cellSplitOutcome(split, drawn, yl, correct)),
    timing: { fit_ms: fitMs, predict_ms: predictMs, steps },
    env: inputs.env,
    subsample: capRecords.length ? capRecords : null,
    created_at: inputs.createdAt,
  } as Omit<ImageCellResult, 'schema'>);
}

/** A cell's algorithm hyper (every tier): the loop's values, then the method's own scalars. */
export function cellHyper(
  loop: Record<string, number | string | boolean | null>,
  methodHyper: Readonly<Record<string, unknown>>,
): Record<string, number | string | boolean | null> {
  const hyper = { ...loop };
  for (const [key, value] of Object.entries(methodHyper))
    if (
      !(key in hyper) &&
      (typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean')
    )
      hyper[key] = value;
  return hyper;
}

/** A cell's dataset section: the panel's, with its pair (imdb-amazon has one pair and names none). */
export function cellDataset<D extends object>(
  dataset: D,
  spec: { dataset: PanelDataset['id']; pair?: string | null },
): D | (D & { pair: { source: string; target: string } }) {
  const [source, target] = spec.pair ? spec.pair.split('->') : [null, null];
  return source && target && spec.dataset !== 'imdb-amazon'
    ? { ...dataset, pair: { source, target } }
    : { ...dataset };
}

/**
 * A cell's split and outcome sections (every tier): the split's sizes and index hash as drawn
 * (`split`: after §10's caps, `drawn`: before, for the test size), and the score of `correct`.
 */
export async function cellSplitOutcome(
  split: PanelSplit,
  drawn: PanelSplit,
  yl: Int32Array,
  correct: number,
): Promise<{ split: ImageCellResult['split']; outcome: ImageCellResult['outcome'] }> {
  const perClass = new Array<number>(split.numClasses).fill(0);
  for (const y of yl) perClass[y]++;
  const unlabeled = [...drawn.unlabeledIn, ...drawn.unlabeledOut];
  return {
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
  };
}
