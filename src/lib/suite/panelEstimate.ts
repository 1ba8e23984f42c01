/**
 * The honest pre-start estimate of an image/text plan (PROTOCOL-IMAGE-TEXT.md §10), shared by the
 * Run page and `rac-bench estimate`: work in FLOPs from the backbone's layer shapes
 * (models/backbone/backboneFlops.ts), then seconds at this device's throughput.
 *   features, classroom  one-time extraction (bank rows × views × the backbone's forward) plus head
 *                        training (cells × S steps × rows per step × the head's forward and backward);
 *                        classroom's banks hold only the capped rows of its cells.
 *   finetune             cells × S × rows per step × 3 × the backbone's forward, plus predicting E:
 *                        GPU-hours at a GPU server's sustained rate, and the CLI with --shard.
 * Rows per step are the FixMatch type's 3B times the method's share (§10: Supervised 1/3,
 * PseudoLabel 2/3, PiModel 1, ICT and MeanTeacher 7/9). Training ≈ 3 × forward; 2 FLOPs per MAC.
 *
 * Throughput: the cost model's calibration (costModel.ts: one JS micro-benchmark, saved by the
 * page, the same repeats in the CLI) scales §10's 16 GFLOP/s for one-thread WASM on the reference
 * machine; WebGPU is §10's assumed 1 TFLOP/s; `rac-bench estimate --gflops N` takes a measured
 * figure instead. Each estimate says which basis it used. Pure: no clock, no I/O.
 */
import { PANEL_DATASETS, type PanelDataset } from '../data/modal/panels.ts';
import { BACKBONE_FEATURE_DIM, backboneMacs, headMacs } from '../models/backbone/backboneFlops.ts';
import { BACKBONES } from '../models/backbone/registry.ts';
import { CLASSROOM_CAPS, type PanelCaps } from '../protocol/panelSubsample.ts';
import type { Setting } from '../types.ts';
import { REFERENCE_BENCH_MS } from './costModel.ts';
import type { PanelMethod } from './panelPlan.ts';
import type { PanelPresetPlan } from './panelPresets.ts';
import { formatDuration } from './planEstimate.ts';

/** §10: one-thread WASM on the reference machine (the calibration's REFERENCE_BENCH_MS). */
export const CPU_REFERENCE_GFLOPS = 16;
/** §10: browser WebGPU, assumed (the page cannot measure it before a run). */
export const WEBGPU_ASSUMED_GFLOPS = 1_000;
/** §10: a GPU server's sustained fp32 rate, the unit of the finetune GPU-hours. */
export const GPU_SERVER_GFLOPS = 100_000;
/**
 * Fixed cost of one head-training step on the reference machine (tfjs op dispatch, the batch's
 * gathers): a model constant, scaled by the calibration like the FLOP rate.
 */
export const STEP_OVERHEAD_MS_REFERENCE = 2;
/** Past this on the device, the page calls a plan impractical and offers the alternatives. */
export const IMPRACTICAL_SECONDS = 12 * 3600;
/** Past this, the page warns that the run is long (the tab must stay open; it resumes). */
export const LONG_SECONDS = 3600;

export interface DeviceSpeed {
  /** Sustained FLOP rate assumed for tensor work, GFLOP/s. */
  gflops: number;
  kind: 'cpu' | 'gpu';
  /** Milliseconds of fixed cost per head-training step. */
  stepOverheadMs: number;
  /** Where `gflops` came from, in words (said next to the estimate). */
  basis: string;
}

/**
 * The throughput of this device: `measuredGflops` when given; else WebGPU's assumed rate; else the
 * calibration's micro-benchmark time scaled to §10's one-thread WASM rate.
 */
export function deviceSpeed(
  calibration: { benchMs: number },
  backend: string,
  measuredGflops?: number,
): DeviceSpeed {
  const scale = REFERENCE_BENCH_MS / Math.max(calibration.benchMs, 0.05);
  const stepOverheadMs = STEP_OVERHEAD_MS_REFERENCE / scale;
  if (measuredGflops !== undefined) {
    if (!(Number.isFinite(measuredGflops) && measuredGflops > 0))
      throw new RangeError(
        `A measured throughput must be a positive number of GFLOP/s; got ${measuredGflops}.`,
      );
    return {
      gflops: measuredGflops,
      kind: backend === 'webgpu' || measuredGflops > 200 ? 'gpu' : 'cpu',
      stepOverheadMs,
      basis: `${fmtRate(measuredGflops)} as given (measured)`,
    };
  }
  if (backend === 'webgpu')
    return {
      gflops: WEBGPU_ASSUMED_GFLOPS,
      kind: 'gpu',
      stepOverheadMs,
      basis: `WebGPU, assumed ${fmtRate(WEBGPU_ASSUMED_GFLOPS)} (not measured; the ETA corrects it as the run goes)`,
    };
  const gflops = CPU_REFERENCE_GFLOPS * scale;
  return {
    gflops,
    kind: 'cpu',
    stepOverheadMs,
    basis: `CPU (WebAssembly), ${fmtRate(gflops)} from this device's calibration (micro-benchmark ${calibration.benchMs.toFixed(2)} ms)`,
  };
}

const fmtRate = (gflops: number): string =>
  gflops >= 1000
    ? `${(gflops / 1000).toFixed(gflops >= 10_000 ? 0 : 1)} TFLOP/s`
    : `${gflops.toFixed(gflops < 10 ? 1 : 0)} GFLOP/s`;

/** Share of the FixMatch type's 3B trained rows a method's step works on (§10). */
export const METHOD_STEP_SHARE: Readonly<Record<PanelMethod, number>> = {
  supervised: 1 / 3,
  pseudolabel: 2 / 3,
  pimodel: 1,
  ict: 7 / 9,
  meanteacher: 7 / 9,
  uda: 1,
  fixmatch: 1,
  flexmatch: 1,
  softmatch: 1,
};

type BankViews = 'train' | 'test' | 'source';

/**
 * What the estimate needs of a panel (§4.1, §4.2, §5.1, §5.5, §7.2): file rows, |E| and |U| per
 * setting or pair, batch and S. Text lengths are §10's unpadded means [U] (capped at the tier's
 * max_length); the features tier pads dynamically, finetune to 256.
 */
interface PanelFacts {
  batch: number;
  steps: number;
  imageSize?: number;
  tokens?: number;
  /**
   * The full bank's row groups and their views: `train` rows K_w + K_s (weak and strong), `test`
   * rows the clean view alone, `source` rows both (E and H come from the same file, §5.2).
   */
  bank: (setting: Setting[], pairs: string[]) => { rows: number; views: BankViews; tokens?: number }[];
  /** |E| and |U| (U_in + U_out; the largest over t) of one cell. */
  cell: (setting: Setting, pair: string | null) => { e: number; u: number };
}

const CIFAR_FACTS: PanelFacts = {
  batch: 64,
  steps: 10_000,
  imageSize: 32,
  // colour for every setting, grey too under `feature` (§7.4); the test file's clean views.
  bank: (settings) => [
    { rows: 50_000 * (settings.includes('feature') ? 2 : 1), views: 'train' },
    { rows: 10_000, views: 'test' },
  ],
  cell: (s) => ({ e: s === 'feature' ? 10_000 : 5_000, u: 25_000 }),
};

const VISDA_SIZES: Readonly<Record<string, number>> = { train: 152_397, validation: 55_388 };
const VISDA_CELLS: Readonly<Record<string, { e: number; u: number }>> = {
  'train->validation': { e: 76_149, u: 55_388 },
  'validation->train': { e: 27_644, u: 27_644 },
};

const FACTS: Readonly<Record<PanelDataset['id'], PanelFacts>> = {
  cifar10: CIFAR_FACTS,
  cifar100: CIFAR_FACTS,
  'image-clef': {
    batch: 32,
    steps: 2_000,
    imageSize: 224,
    // 600 images per domain [U]; E comes from the source domain, so every row has a clean view.
    bank: (_s, pairs) => [{ rows: 600 * domainsOf(pairs).length, views: 'source' }],
    cell: () => ({ e: 250, u: 250 }),
  },
  visda: {
    batch: 32,
    steps: 2_000,
    imageSize: 224,
    bank: (_s, pairs) => [
      { rows: domainsOf(pairs).reduce((n, d) => n + (VISDA_SIZES[d] ?? 0), 0), views: 'source' },
    ],
    cell: (_s, pair) => VISDA_CELLS[pair ?? ''] ?? { e: 76_149, u: 55_388 },
  },
  ag_news: {
    batch: 16,
    steps: 5_000,
    tokens: 45,
    // `text` for every setting, `drop` too under `feature` (§7.4); the test file clean.
    bank: (settings) => [
      { rows: 120_000 * (settings.includes('feature') ? 2 : 1), views: 'train' },
      { rows: 7_600, views: 'test' },
    ],
    cell: (s) => (s === 'feature' ? { e: 7_600, u: 37_500 } : { e: 3_800, u: 60_000 }),
  },
  'imdb-amazon': {
    batch: 8,
    steps: 5_000,
    // imdb train (E and H from it: clean views too), ≈ 220 tokens; amazon rows in some U_out of
    // seeds 0–2 (≤ 3 × 12 450), ≈ 100 tokens.
    bank: () => [
      { rows: 25_000, views: 'source', tokens: 220 },
      { rows: 3 * 12_450, views: 'train', tokens: 100 },
    ],
    cell: () => ({ e: 12_450, u: 12_450 }),
  },
};

/** The domains a dataset's pairs read ("i->p", "p->c" → i, p, c). */
function domainsOf(pairs: string[]): string[] {
  return [...new Set(pairs.flatMap((p) => p.split('->')))];
}

export interface PanelEstimateRow {
  dataset: PanelDataset['id'];
  title: string;
  /** Cells (heads, or whole networks in finetune) and their steps each. */
  cells: number;
  steps: number;
  /** Bank views to extract (features, classroom); 0 in finetune. */
  views: number;
  extractionFlops: number;
  extractionSeconds: number;
  trainingFlops: number;
  trainingSeconds: number;
}

export interface PanelPlanEstimate {
  tier: PanelPresetPlan['tier'];
  modality: 'image' | 'text';
  backbone: string;
  rows: PanelEstimateRow[];
  cells: number;
  views: number;
  extractionFlops: number;
  extractionSeconds: number;
  trainingFlops: number;
  trainingSeconds: number;
  totalFlops: number;
  /** On this device (one process). */
  totalSeconds: number;
  /** finetune: at GPU_SERVER_GFLOPS sustained. */
  gpuHours: number | null;
  device: DeviceSpeed;
  /** ok; long (over an hour); impractical here (over IMPRACTICAL_SECONDS); cli (finetune). */
  verdict: 'ok' | 'long' | 'impractical' | 'cli';
  /** Plain sentences for the page and the CLI, the headline first. */
  lines: string[];
}

/** What the estimate reads of a plan (a preset's plan, or the page's form). */
export type EstimablePlan = Pick<
  PanelPresetPlan,
  'datasets' | 'settings' | 'algorithms' | 'seeds' | 'tIndices' | 'tier' | 'caps' | 'steps' | 'batch'
> & { pairs?: readonly string[] };

/** The backbone a tier uses for a modality when the plan names none (§2, §4.5). */
export function tierBackbone(modality: 'image' | 'text', tier: EstimablePlan['tier']): string {
  if (modality === 'image') return tier === 'classroom' ? 'mnv3-small' : 'resnet50';
  return tier === 'classroom' ? 'minilm-l6' : 'roberta-base';
}

const GIGA = 1e9;

/**
 * The estimate of `plan` on `device`, with `backbone` (registry id; default: the tier's) and bank
 * views K_w, K_s (default: the tier's). Throws on a plan of mixed modalities or an unknown backbone
 * shape (a user's own tiny network has no registry shape: nothing to estimate from).
 */
export function estimatePanelPlan(
  plan: EstimablePlan,
  device: DeviceSpeed,
  opts: { backbone?: string; Kw?: number; Ks?: number } = {},
): PanelPlanEstimate {
  const modalities = [...new Set(plan.datasets.map((d) => PANEL_DATASETS[d].modality))];
  if (modalities.length !== 1)
    throw new Error(
      `An estimate covers one modality; this plan has ${modalities.length ? modalities.join(' and ') : 'no dataset'}.`,
    );
  const modality = modalities[0] as 'image' | 'text';
  const tier = plan.tier;
  const backbone = opts.backbone ?? tierBackbone(modality, tier);
  const entry = BACKBONES[backbone];
  if (entry && entry.modality !== modality)
    throw new Error(`${entry.title} reads ${entry.modality}s; this plan's panels are ${modality}.`);
  const Kw = opts.Kw ?? 2;
  const Ks = opts.Ks ?? (tier === 'classroom' ? 1 : 2);
  const maxTokens = tier === 'finetune' ? 256 : (entry?.maxLength ?? (tier === 'classroom' ? 128 : 256));
  const caps: PanelCaps | undefined = plan.caps ?? (tier === 'classroom' ? { ...CLASSROOM_CAPS } : undefined);
  const rate = device.gflops * GIGA;
  const rows: PanelEstimateRow[] = [];

  for (const dataset of plan.datasets) {
    const ds = PANEL_DATASETS[dataset];
    const facts = FACTS[dataset];
    const settings = plan.settings.filter((s) => ds.labels[s] !== undefined);
    if (!settings.length) continue;
    const pairs = ds.pairs
      ? plan.pairs?.length
        ? ds.pairs.filter((p) => plan.pairs!.includes(p))
        : [...ds.pairs]
      : [];
    // Finetune pads every text to 256 tokens (§7.3); the banks pad dynamically (§7.4).
    const forward = (tokens?: number): number => {
      const t = tier === 'finetune' ? maxTokens : Math.min(tokens ?? facts.tokens ?? maxTokens, maxTokens);
      const macs = backboneMacs(backbone, { size: facts.imageSize, tokens: t });
      if (macs === null)
        throw new Error(
          `${entry?.title ?? backbone} has no registry shape (its layers come from your file), so its cost cannot be estimated before a run.`,
        );
      return 2 * macs;
    };
    const steps = plan.steps ?? (tier === 'classroom' ? facts.steps / 10 : facts.steps);
    const batch = plan.batch ?? facts.batch;
    // One unit per setting, and per pair under `distribution`.
    const units = settings.flatMap((s): { s: Setting; p: string | null }[] =>
      s === 'distribution' ? (pairs.length ? pairs : [null]).map((p) => ({ s, p })) : [{ s, p: null }],
    );
    const perCellRuns = plan.seeds.length * plan.tIndices.length;
    const cells = units.length * plan.algorithms.length * perCellRuns;
    const shareSum = plan.algorithms.reduce((a, m) => a + (METHOD_STEP_SHARE[m] ?? 1), 0);

    let views = 0;
    let extractionFlops = 0;
    let trainingFlops = 0;
    if (tier === 'finetune') {
      for (const { s, p } of units) {
        const { e } = facts.cell(s, p);
        const f = forward();
        // Trained rows: 3B × share per step, each ≈ 3 forwards; then E predicted once per cell.
        trainingFlops +=
          perCellRuns * (steps * 3 * batch * shareSum * 3 * f + plan.algorithms.length * e * f);
      }
    } else {
      const head =
        2 * headMacs(modality, BACKBONE_FEATURE_DIM[backbone] ?? 1024, labelsWidth(dataset, settings));
      const perRow: Record<BankViews, number> = { train: Kw + Ks, test: 1, source: 1 + Kw + Ks };
      const full = facts.bank(settings, pairs).map((b) => ({
        views: b.rows * perRow[b.views],
        flops: b.rows * perRow[b.views] * forward(b.tokens),
      }));
      const fullViews = full.reduce((a, b) => a + b.views, 0);
      const fullFlops = full.reduce((a, b) => a + b.flops, 0);
      if (caps) {
        // Banks of only the cells' rows (§7.5): at most (L + U) × (K_w + K_s) + E clean per
        // (panel, seed, t), never more than the whole bank.
        let capped = 0;
        for (const { s, p } of units) {
          const { e, u } = facts.cell(s, p);
          const l = ds.labels[s]!;
          const uc = Math.min(u, caps.unlabeled?.max ?? Infinity);
          const ec = Math.min(e, caps.test?.max ?? Infinity);
          capped += perCellRuns * ((l + uc) * (Kw + Ks) + ec);
        }
        views = Math.min(capped, fullViews);
        extractionFlops = (fullFlops / Math.max(fullViews, 1)) * views;
      } else {
        views = fullViews;
        extractionFlops = fullFlops;
      }
      for (const { s, p } of units) {
        const e = Math.min(facts.cell(s, p).e, caps?.test?.max ?? Infinity);
        trainingFlops +=
          perCellRuns * (steps * 3 * batch * shareSum * 3 * head + plan.algorithms.length * e * head);
      }
    }
    const trainingSeconds =
      trainingFlops / rate + (tier === 'finetune' ? 0 : (cells * steps * device.stepOverheadMs) / 1000);
    rows.push({
      dataset,
      title: ds.title,
      cells,
      steps,
      views,
      extractionFlops,
      extractionSeconds: extractionFlops / rate,
      trainingFlops,
      trainingSeconds,
    });
  }

  const sum = (k: keyof PanelEstimateRow) => rows.reduce((a, r) => a + (r[k] as number), 0);
  const extractionSeconds = sum('extractionSeconds');
  const trainingSeconds = sum('trainingSeconds');
  const totalFlops = sum('extractionFlops') + sum('trainingFlops');
  const totalSeconds = extractionSeconds + trainingSeconds;
  const gpuHours = tier === 'finetune' ? totalFlops / (GPU_SERVER_GFLOPS * GIGA) / 3600 : null;
  const verdict: PanelPlanEstimate['verdict'] =
    tier === 'finetune'
      ? 'cli'
      : totalSeconds > IMPRACTICAL_SECONDS
        ? 'impractical'
        : totalSeconds > LONG_SECONDS
          ? 'long'
          : 'ok';
  const est: PanelPlanEstimate = {
    tier,
    modality,
    backbone,
    rows,
    cells: sum('cells'),
    views: sum('views'),
    extractionFlops: sum('extractionFlops'),
    extractionSeconds,
    trainingFlops: sum('trainingFlops'),
    trainingSeconds,
    totalFlops,
    totalSeconds,
    gpuHours,
    device,
    verdict,
    lines: [],
  };
  est.lines = describeEstimate(est, plan);
  return est;
}

/** The head's output width: C = k, or k/2 kept classes under `label` (§7.1); the widest counts. */
function labelsWidth(dataset: PanelDataset['id'], settings: Setting[]): number {
  const k = PANEL_DATASETS[dataset].k;
  return settings.some((s) => s !== 'label') ? k : k / 2;
}

/** "1.2 PFLOP", "340 TFLOP", "8.1 GFLOP". */
export function formatFlops(flops: number): string {
  const units: [number, string][] = [
    [1e18, 'EFLOP'],
    [1e15, 'PFLOP'],
    [1e12, 'TFLOP'],
    [1e9, 'GFLOP'],
    [1e6, 'MFLOP'],
  ];
  for (const [scale, name] of units)
    if (flops >= scale) return `${(flops / scale).toFixed(flops / scale < 10 ? 1 : 0)} ${name}`;
  return `${flops.toFixed(0)} FLOP`;
}

/** Days and years read better than thousands of hours. */
export function formatLongDuration(seconds: number): string {
  const days = seconds / 86_400;
  if (days >= 365) return `${(days / 365.25).toFixed(1)} years`;
  if (days >= 2) return `${Math.round(days)} days`;
  return formatDuration(seconds);
}

function describeEstimate(e: PanelPlanEstimate, plan: EstimablePlan): string[] {
  const bb = BACKBONES[e.backbone]?.title.replace(/ \(.*$/, '') ?? e.backbone;
  const lines: string[] = [];
  if (e.tier === 'finetune') {
    const ds = plan.datasets.join(',');
    lines.push(
      `finetune trains the whole ${bb} at every step: ${e.cells.toLocaleString('en')} cells, ${formatFlops(e.totalFlops)} in all, ` +
        `≈ ${Math.round(e.gpuHours ?? 0).toLocaleString('en')} GPU-hours at ${fmtRate(GPU_SERVER_GFLOPS)} sustained ` +
        `(≈ ${formatLongDuration(e.totalSeconds)} on this device at ${fmtRate(e.device.gflops)}).`,
    );
    lines.push(
      'This page does not run it. Run it with the CLI on GPU servers, cut into shards that run side by side: ' +
        `rac-bench run --dataset ${ds} --tier finetune --backend webgpu --shard 1/N … --shard N/N, then rac-bench merge.`,
    );
    return lines;
  }
  lines.push(
    `About ${formatLongDuration(e.totalSeconds)} on this device: ≈ ${formatLongDuration(e.extractionSeconds)} of one-time ` +
      `feature extraction (${e.views.toLocaleString('en')} ${bb} views, ${formatFlops(e.extractionFlops)}; ` +
      `later runs on the same data reuse the banks) + ≈ ${formatLongDuration(e.trainingSeconds)} of head training ` +
      `(${e.cells.toLocaleString('en')} cells).`,
  );
  if (e.verdict === 'impractical') {
    const cpuText = e.modality === 'text' && e.device.kind === 'cpu';
    lines.push(
      `${cpuText ? `${bb} feature extraction on a CPU is` : 'This plan is'} impractical here ` +
        `(≈ ${formatLongDuration(e.totalSeconds)}): use the classroom preset, run it with the CLI on a GPU ` +
        '(rac-bench bank, then rac-bench run), or import a feature bank made elsewhere.',
    );
  } else if (e.verdict === 'long') {
    lines.push(
      'A long run: each cell is saved as it finishes, and a stopped run resumes from the saved cells.',
    );
  }
  lines.push(
    `Throughput: ${e.device.basis}. A model, not a measurement: the ETA refines it as the run goes.`,
  );
  return lines;
}
