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
  algorithms: PanelMethod[];
  seeds: number[];
  tIndices: number[];
  tier: 'features' | 'classroom';
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

export interface PanelCellRef {
  dataset: PanelDataset['id'];
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

/** Every cell of a plan, in run order (dataset, setting, method, labels, seed, t). */
export function panelCells(plan: PanelPlan): PanelCellRef[] {
  const out: PanelCellRef[] = [];
  for (const dataset of plan.datasets)
    for (const setting of datasetSettings(dataset, plan))
      for (const method of plan.algorithms)
        for (const labels of plan.labels ?? [PANEL_DATASETS[dataset].labels[setting]!])
          for (const seed of plan.seeds)
            for (const tIndex of plan.tIndices) out.push({ dataset, setting, labels, method, seed, tIndex });
  return out;
}

/** A stable key of a cell (for resuming: cells already stored are skipped). */
export const panelCellKey = (c: PanelCellRef): string =>
  [c.dataset, c.setting, c.labels, c.method, c.seed, c.tIndex].join('|');

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

/** "cifar10 feature fixmatch labels 200 t=0.4 seed 1" */
export const describePanelCell = (c: PanelCellRef): string =>
  `${c.dataset} ${c.setting} ${c.method} labels ${c.labels} t=${T_GRID[c.tIndex]} seed ${c.seed}`;
