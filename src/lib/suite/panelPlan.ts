/**
 * The plan of an image/text run without the machinery (no tfjs): which cells it has, in what
 * order, their keys for resuming, and what a feature bank must hold for its methods. The Run page
 * reads this to size and check a plan; suite/panelRun.ts runs it.
 */
import { PANEL_DATASETS, type PanelDataset } from '../data/modal/panels.ts';
import { DEEP_METHOD_IDS, DEEP_METHODS, type DeepMethodId } from '../models/deep/methods/registry.ts';
import { CLASSROOM_CAPS, type PanelCaps } from '../protocol/panelSubsample.ts';
import { T_GRID, type Quirks, type Setting } from '../types.ts';

/** The image/text methods: Supervised (the baseline) and the eight SSL methods (§7.6). */
export type PanelMethod = 'supervised' | Exclude<DeepMethodId, 'ftt'>;
export const PANEL_METHODS: readonly PanelMethod[] = [
  'supervised',
  ...DEEP_METHOD_IDS.filter((id): id is Exclude<DeepMethodId, 'ftt'> => id !== 'ftt'),
];

/** The views a method draws per unlabeled row (Supervised: none). */
export const panelMethodViews = (m: PanelMethod): readonly ('weak' | 'strong')[] =>
  m === 'supervised' ? [] : DEEP_METHODS[m].views;

export interface PanelPlan {
  datasets: PanelDataset['id'][];
  /** Settings to run; each dataset runs those it has. */
  settings: Setting[];
  /** Labeled totals; absent: each panel's published total. */
  labels?: number[];
  /**
   * distribution panels: the source → target pairs to run ('i->p'); absent: each panel's published
   * pairs. A pair no dataset of the plan has is refused (planPairs).
   */
  pairs?: string[];
  /** imdb-amazon's target pool (§5.2); absent: `test` in classroom, `train` otherwise. */
  amazonPool?: 'train' | 'test';
  algorithms: PanelMethod[];
  seeds: number[];
  tIndices: number[];
  /** finetune plans run through panelFinetune.ts (fresh augmentations, no banks). */
  tier: 'features' | 'classroom' | 'finetune';
  quirks: Quirks;
  /** §10 caps on E and U; absent: the tier's (classroom: CLASSROOM_CAPS; features: none). */
  caps?: PanelCaps;
  /** Overrides of the tier's loop (recorded in each cell's `protocol.overrides`). */
  steps?: number;
  batch?: number;
  lr?: number;
}

/** The caps a plan's cells use: its own, or its tier's defaults (§10). */
export function planCaps(plan: Pick<PanelPlan, 'caps' | 'tier'>): PanelCaps | undefined {
  return plan.caps ?? (plan.tier === 'classroom' ? { ...CLASSROOM_CAPS } : undefined);
}

/** The Amazon pool a plan's imdb-amazon cells draw from (§5.2: classroom defaults to `test`). */
export const planAmazonPool = (plan: Pick<PanelPlan, 'amazonPool' | 'tier'>): 'train' | 'test' =>
  plan.amazonPool ?? (plan.tier === 'classroom' ? 'test' : 'train');

export interface PanelCellRef {
  dataset: PanelDataset['id'];
  /** distribution panels: 'source->target'; null for the others. */
  pair: string | null;
  setting: Setting;
  labels: number;
  method: PanelMethod;
  seed: number;
  tIndex: number;
}

/** The settings of `plan` that a dataset has (in the plan's order). */
export function datasetSettings(dataset: PanelDataset['id'], plan: Pick<PanelPlan, 'settings'>): Setting[] {
  return plan.settings.filter((s) => PANEL_DATASETS[dataset].labels[s] !== undefined);
}

/**
 * The pairs of `dataset` a plan runs, in the panel's published order: [null] for a panel without
 * pairs; the plan's `pairs` that the panel has (all of them when the plan names none).
 */
export function datasetPairs(dataset: PanelDataset['id'], plan: Pick<PanelPlan, 'pairs'>): (string | null)[] {
  const published = PANEL_DATASETS[dataset].pairs;
  if (!published) return [null];
  return plan.pairs ? published.filter((p) => plan.pairs!.includes(p)) : [...published];
}

/**
 * Why a plan's pairs cannot be run, or null: each named pair must belong to one of its
 * distribution datasets, and each such dataset must keep at least one pair.
 */
export function planPairsRefusal(plan: Pick<PanelPlan, 'pairs' | 'datasets'>): string | null {
  if (!plan.pairs) return null;
  const withPairs = plan.datasets.filter((d) => PANEL_DATASETS[d].pairs);
  for (const pair of plan.pairs)
    if (!withPairs.some((d) => PANEL_DATASETS[d].pairs!.includes(pair))) {
      const known = withPairs.map(
        (d) => `${PANEL_DATASETS[d].title}: ${PANEL_DATASETS[d].pairs!.join(', ')}`,
      );
      return `The pair "${pair}" is not one of ${known.length ? known.join('; ') : 'the plan (it has no source → target panel)'}.`;
    }
  for (const d of withPairs)
    if (datasetPairs(d, plan).length === 0)
      return `${PANEL_DATASETS[d].title}: none of the pairs asked for is one of its (${PANEL_DATASETS[d].pairs!.join(', ')}).`;
  return null;
}

/** Every cell of a plan, in run order (dataset, pair, setting, method, labels, seed, t). */
export function panelCells(plan: PanelPlan): PanelCellRef[] {
  const out: PanelCellRef[] = [];
  for (const dataset of plan.datasets)
    for (const pair of datasetPairs(dataset, plan))
      for (const setting of datasetSettings(dataset, plan))
        for (const method of plan.algorithms)
          for (const labels of plan.labels ?? [PANEL_DATASETS[dataset].labels[setting]!])
            for (const seed of plan.seeds)
              for (const tIndex of plan.tIndices)
                out.push({ dataset, pair, setting, labels, method, seed, tIndex });
  return out;
}

/**
 * A cell's spec from its plan: what every tier's cell runner takes (panelCell.ts's runPanelCell
 * adds the tier; panelFinetune.ts's runFinetuneCell takes it as it is).
 */
export function planCellSpec(plan: PanelPlan, ref: PanelCellRef) {
  return {
    dataset: ref.dataset,
    pair: ref.pair,
    ...(ref.dataset === 'imdb-amazon' ? { amazonPool: planAmazonPool(plan) } : {}),
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
  };
}

export interface PlanCellsLoop<Files, Cell> {
  /** The rows (and banks or network) of one dataset, or of one pair of a distribution panel. */
  files(dataset: PanelDataset['id'], settings: Setting[], pair: string | null): Promise<Files>;
  /** Keys (panelCellKey) of cells already done: skipped. */
  done?: ReadonlySet<string>;
  /** Each cell's record, as soon as it is made (the caller stores it before the next starts). */
  onCell(cell: Cell, ref: PanelCellRef): Promise<void> | void;
  /** Before each cell: which cell, and how many are done of the plan. */
  onCellStart?(ref: PanelCellRef, done: number, total: number): void;
}

/**
 * Runs `runCell` on the plan's cells not yet done, dataset by dataset and pair by pair, loading
 * each group's files once (none for a group with nothing left); returns how many ran. Every tier's
 * plan runner (panelRun.ts, panelFinetune.ts) is this loop around its own cell.
 */
export async function runPlanCells<Files, Cell>(
  plan: PanelPlan,
  o: PlanCellsLoop<Files, Cell>,
  runCell: (ref: PanelCellRef, files: Files) => Promise<Cell>,
): Promise<number> {
  const refusal = planPairsRefusal(plan);
  if (refusal) throw new Error(refusal);
  const all = panelCells(plan);
  const done = o.done ?? new Set<string>();
  let finished = all.filter((c) => done.has(panelCellKey(c))).length;
  let ran = 0;
  for (const dataset of plan.datasets)
    for (const pair of datasetPairs(dataset, plan)) {
      const cells = all.filter((c) => c.dataset === dataset && c.pair === pair && !done.has(panelCellKey(c)));
      if (!cells.length) continue;
      const files = await o.files(dataset, datasetSettings(dataset, plan), pair);
      for (const ref of cells) {
        o.onCellStart?.(ref, finished, all.length);
        await o.onCell(await runCell(ref, files), ref);
        finished++;
        ran++;
      }
    }
  return ran;
}

/**
 * The pair of a stored record, as its cell's ref has it: `dataset.pair` where the record has one;
 * imdb-amazon records name none (one pair), so its only pair; null for the other panels.
 */
export function recordPair(c: {
  dataset: { id: string; pair?: { source: string; target: string } };
}): string | null {
  if (c.dataset.pair) return `${c.dataset.pair.source}->${c.dataset.pair.target}`;
  const panel = PANEL_DATASETS[c.dataset.id as PanelDataset['id']];
  return panel?.pairs?.length === 1 ? panel.pairs[0] : null;
}

/**
 * A stable key of a cell (for resuming: cells already stored are skipped). The pair is in it only
 * when there is one, so the keys of the other panels stay those stored before pairs existed.
 */
export const panelCellKey = (c: PanelCellRef): string =>
  [c.dataset, ...(c.pair === null ? [] : [c.pair]), c.setting, c.labels, c.method, c.seed, c.tIndex].join(
    '|',
  );

/**
 * Why these methods cannot run on banks with these views, or null: strong-view methods need
 * K_s ≥ 1, and PiModel and MeanTeacher two distinct weak views (K_w ≥ 2, §7.4).
 */
export function bankRefusal(methods: readonly PanelMethod[], Kw: number, Ks: number): string | null {
  const needStrong = methods.filter((m) => panelMethodViews(m).includes('strong'));
  if (needStrong.length && Ks < 1)
    return (
      `${needStrong.join(', ')} need${needStrong.length === 1 ? 's' : ''} strong views, and the banks have none (K_s = 0). ` +
      'Make the banks with K_s ≥ 1, or run Supervised, PseudoLabel, PiModel, MeanTeacher and ICT.'
    );
  const twoWeak = methods.filter((m) => panelMethodViews(m).filter((v) => v === 'weak').length > 1);
  if (twoWeak.length && Kw < 2)
    return `${twoWeak.join(', ')} need${twoWeak.length === 1 ? 's' : ''} two distinct weak views: make the banks with K_w ≥ 2.`;
  return null;
}

/** "cifar10 feature fixmatch labels 200 t=0.4 seed 1"; "image-clef i->p distribution …" for a pair. */
export const describePanelCell = (c: PanelCellRef): string =>
  `${c.dataset}${c.pair === null ? '' : ` ${c.pair}`} ${c.setting} ${c.method} labels ${c.labels} t=${T_GRID[c.tIndex]} seed ${c.seed}`;

/**
 * SoftMatch's distribution alignment per panel (PROTOCOL-IMAGE-TEXT.md §7.6, LAMDA's `use_DA` in
 * each script): on for cifar10 (feature, label), cifar100 · label, image-clef and visda; off for
 * cifar100 · feature, imdb-amazon and ag_news (label: its entry is commented out; feature: resolved).
 */
export function softMatchAlignment(dataset: PanelDataset['id'], setting: Setting): boolean {
  switch (dataset) {
    case 'cifar10':
    case 'image-clef':
    case 'visda':
      return true;
    case 'cifar100':
      return setting === 'label';
    case 'ag_news':
    case 'imdb-amazon':
      return false;
  }
}

/** The loss overrides a panel cell gives its method: μ = 1, λ_u = 1 (§7.6), SoftMatch's alignment. */
export function panelMethodParams(
  method: PanelMethod,
  dataset: PanelDataset['id'],
  setting: Setting,
): Record<string, number> {
  if (method === 'supervised') return {};
  const base = { mu: 1, lambdaU: 1 };
  return method === 'softmatch' ? { ...base, distAlign: softMatchAlignment(dataset, setting) ? 1 : 0 } : base;
}
