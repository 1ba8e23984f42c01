/**
 * Run presets: plain, JSON-able RunPlanSpec objects (no hidden defaults elsewhere).
 *   classroom            iris + wine, every setting, labels 5 and 10, seeds 0–2, the fast algorithms;
 *                        small enough to finish in well under a minute in a browser tab.
 *   tabular-statistical  the full `rsb` statistical grid of the paper (PROTOCOL.md §9) with the paper's
 *                        provenance options (§3.5: iris's t0 stream `shared`, the model-stream offsets);
 *                        the CLI calls it `paper` too (`rac-bench run --preset paper`).
 *   classroom-deep       the deep family in a browser tab: iris + wine, distribution, 5 labels,
 *                        seed 0, every t; the FT-Transformer baseline and three methods on the
 *                        tiny network with a short, faster-learning loop (model options below).
 *   tabular-deep         the full `rsb` deep grid of §9: iris, wine, letter, covertype; 8 algorithms;
 *                        5 seeds; 5 160 fits × 1 000 steps (a GPU's or a cluster's work: --shard).
 *   custom               whatever the planner selects.
 */
import { DATASET_IDS } from '../data/registry.ts';
import { checkModelOptions, findAlgorithm, orderAlgorithms, presetAlgorithms } from '../models/catalogue.ts';
import { subsampleProblems } from './subsamplePlan.ts';
import { SETTINGS, T_GRID, type ProtocolMode } from '../types.ts';
import {
  defaultPlanOptions,
  MAX_PLAN_CELLS,
  planCellCount,
  planFitCount,
  planTooLargeMessage,
  type RunPlanSpec,
} from './plan.ts';

export const PRESET_IDS = [
  'classroom',
  'tabular-statistical',
  'classroom-deep',
  'tabular-deep',
  'custom',
] as const;
export type PresetId = (typeof PRESET_IDS)[number];

/** Other names a preset answers to (the CLI's `--preset paper`). */
export const PRESET_ALIASES: Readonly<Record<string, PresetId>> = Object.freeze({
  paper: 'tabular-statistical',
});

/** A preset id or alias → the preset id; a clear message for anything else. */
export function resolvePresetId(name: string): PresetId {
  if ((PRESET_IDS as readonly string[]).includes(name)) return name as PresetId;
  const alias = PRESET_ALIASES[name];
  if (alias) return alias;
  const known = [...PRESET_IDS, ...Object.keys(PRESET_ALIASES).map((a) => `${a} (= ${PRESET_ALIASES[a]})`)];
  throw new Error(`Unknown preset "${name}". Known presets: ${known.join(', ')}.`);
}

/**
 * The published grid's per-dataset t0 stream (PROTOCOL.md §3.5): iris's distribution · t = 0
 * subsets came from one shared stream, every other dataset's from a fresh one per class.
 */
export const PAPER_T0_STREAMS: Readonly<Record<string, 'per-class' | 'shared'>> = Object.freeze({
  iris: 'shared',
});

export const PRESET_TITLES: Record<PresetId, string> = {
  classroom: 'Classroom (iris + wine, fast algorithms, 3 seeds)',
  'tabular-statistical': 'Tabular statistical (the paper grid: iris, wine, letter; 7 algorithms; 5 seeds)',
  'classroom-deep': 'Classroom deep (iris + wine, tiny FT-Transformer, 4 algorithms, 1 seed)',
  'tabular-deep': 'Tabular deep (the paper grid: 4 datasets; 8 algorithms; 5 seeds; a GPU or --shard)',
  custom: 'Custom',
};

const ALL_T = [0, 1, 2, 3, 4, 5];
/** Membership and order come from the catalogue (each entry's `presets`). */
export const CLASSROOM_ALGORITHMS = presetAlgorithms('classroom');
export const STATISTICAL_ALGORITHMS = presetAlgorithms('tabular-statistical');
export const CLASSROOM_DEEP_ALGORITHMS = presetAlgorithms('classroom-deep');
export const DEEP_ALGORITHMS = presetAlgorithms('tabular-deep');

/**
 * The classroom's deep loop: the tiny network, 16 labeled rows a step, and a faster learning rate
 * and EMA so that the steps move the shadow that predicts (at §7.2's lr 1e-4 and decay 0.999 the
 * shadow would still be 90 % the initial weights). 120 steps, not 60: Pseudo-Label's mask rate
 * (rows past its 0.95 confidence threshold) only leaves 0 after about 75 steps at this rate, so at
 * 60 its unlabeled term never acted and its curves were flat (issue 21, item 14). Measured to fit
 * in a browser tab on a 2-core CPU (docs/ARCHITECTURE.md "Deep family"). Recorded in every result's
 * options.
 */
export const CLASSROOM_DEEP_OPTIONS: Readonly<Record<string, string | number | boolean>> = Object.freeze({
  size: 'tiny',
  steps: 120,
  batchL: 16,
  lr: 1e-3,
  emaDecay: 0.98,
});

function rsbPlan(
  preset: string,
  parts: Pick<RunPlanSpec, 'datasets' | 'settings' | 'labels' | 'algorithms' | 'seeds' | 'tIndices'>,
): RunPlanSpec {
  return modePlan(preset, parts, 'rsb');
}

/** A plan under a protocol mode with that mode's defaults: quirks `rsb` / `fixed`, its options (PROTOCOL.md §2). */
function modePlan(
  preset: string,
  parts: Pick<RunPlanSpec, 'datasets' | 'settings' | 'labels' | 'algorithms' | 'seeds' | 'tIndices'>,
  mode: ProtocolMode,
): RunPlanSpec {
  return {
    preset,
    ...parts,
    mode,
    quirks: mode === 'rsb' ? 'rsb' : 'fixed',
    options: defaultPlanOptions(mode),
  };
}

export function classroomPlan(): RunPlanSpec {
  return rsbPlan('classroom', {
    datasets: ['iris', 'wine'],
    settings: [...SETTINGS],
    labels: [5, 10],
    algorithms: presetAlgorithms('classroom'),
    seeds: [0, 1, 2],
    tIndices: [...ALL_T],
  });
}

/** The paper's statistical grid with its provenance options (the same in the browser and the CLI). */
export function tabularStatisticalPlan(): RunPlanSpec {
  const plan = rsbPlan('tabular-statistical', {
    datasets: ['iris', 'wine', 'letter'],
    settings: [...SETTINGS],
    labels: [5, 10],
    algorithms: presetAlgorithms('tabular-statistical'),
    seeds: [0, 1, 2, 3, 4],
    tIndices: [...ALL_T],
  });
  return {
    ...plan,
    options: { ...plan.options, modelStreamOffset: 'paper', t0StreamByDataset: { ...PAPER_T0_STREAMS } },
  };
}

export function classroomDeepPlan(): RunPlanSpec {
  const algorithms = presetAlgorithms('classroom-deep');
  return {
    ...rsbPlan('classroom-deep', {
      datasets: ['iris', 'wine'],
      settings: ['distribution'],
      labels: [5],
      algorithms,
      seeds: [0],
      tIndices: [...ALL_T],
    }),
    modelOptions: Object.fromEntries(algorithms.map((a) => [a, { ...CLASSROOM_DEEP_OPTIONS }])),
  };
}

/** The paper's deep grid (§9) with the same split provenance as the statistical one. */
export function tabularDeepPlan(): RunPlanSpec {
  const plan = rsbPlan('tabular-deep', {
    datasets: ['iris', 'wine', 'letter', 'covertype'],
    settings: [...SETTINGS],
    labels: [5, 10],
    algorithms: presetAlgorithms('tabular-deep'),
    seeds: [0, 1, 2, 3, 4],
    tIndices: [...ALL_T],
  });
  return {
    ...plan,
    options: { ...plan.options, modelStreamOffset: 'paper', t0StreamByDataset: { ...PAPER_T0_STREAMS } },
  };
}

/** The planner's checkboxes. Empty lists are allowed here and rejected by `validatePlan`. */
export type CustomSelection = Pick<
  RunPlanSpec,
  'datasets' | 'settings' | 'labels' | 'algorithms' | 'seeds' | 'tIndices'
>;

/**
 * A custom plan; the lists are put in canonical order so equal selections give equal plans.
 * Nothing is dropped: algorithms follow the catalogue, datasets the data registry, then user
 * datasets and unknown ids (validatePlan names the unknown ones).
 */
export function customPlan(
  sel: Omit<CustomSelection, 'tIndices'> & { tIndices?: number[] },
  mode: ProtocolMode = 'rsb',
): RunPlanSpec {
  const order = <T>(xs: readonly T[], canon: readonly T[]) => canon.filter((x) => xs.includes(x));
  return modePlan(
    'custom',
    {
      // Built-in datasets in canonical order, then the user's own (user:<slug>) by id.
      datasets: [
        ...order(sel.datasets, DATASET_IDS),
        ...[...new Set(sel.datasets)].filter((d) => !(DATASET_IDS as readonly string[]).includes(d)).sort(),
      ],
      settings: order(sel.settings, SETTINGS),
      labels: [...new Set(sel.labels)].sort((a, b) => a - b),
      algorithms: orderAlgorithms(sel.algorithms),
      seeds: [...new Set(sel.seeds)].sort((a, b) => a - b),
      tIndices: [...new Set(sel.tIndices ?? ALL_T)].sort((a, b) => a - b),
    },
    mode,
  );
}

export function presetPlan(id: PresetId, custom?: CustomSelection): RunPlanSpec {
  switch (id) {
    case 'classroom':
      return classroomPlan();
    case 'tabular-statistical':
      return tabularStatisticalPlan();
    case 'classroom-deep':
      return classroomDeepPlan();
    case 'tabular-deep':
      return tabularDeepPlan();
    case 'custom':
      if (!custom) throw new Error("presetPlan: the 'custom' preset needs a selection; got none.");
      return customPlan(custom);
  }
}

/** The selection a preset stands for (to pre-fill the planner's checkboxes). */
export function selectionOf(plan: RunPlanSpec): CustomSelection {
  const { datasets, settings, labels, algorithms, seeds, tIndices } = plan;
  return {
    datasets: [...datasets],
    settings: [...settings],
    labels: [...labels],
    algorithms: [...algorithms],
    seeds: [...seeds],
    tIndices: [...tIndices],
  };
}

/** Plain-language problems with a plan (empty lists); an empty array means it can run. */
export function validatePlan(plan: RunPlanSpec): string[] {
  const problems: string[] = [];
  const lists: [keyof RunPlanSpec, string][] = [
    ['datasets', 'dataset'],
    ['settings', 'setting'],
    ['labels', 'labels tag'],
    ['algorithms', 'algorithm'],
    ['seeds', 'seed'],
    ['tIndices', 't value'],
  ];
  for (const [field, what] of lists) {
    if ((plan[field] as unknown[]).length === 0) problems.push(`Choose at least one ${what}.`);
  }
  for (const id of plan.algorithms) if (!findAlgorithm(id)) problems.push(`Unknown algorithm "${id}".`);
  for (const id of plan.datasets) {
    if (!(DATASET_IDS as readonly string[]).includes(id) && !id.startsWith('user:'))
      problems.push(`Unknown dataset "${id}".`);
  }
  const cells = planCellCount(plan);
  if (cells > MAX_PLAN_CELLS) problems.push(planTooLargeMessage(cells));
  // Model options and §9 caps: a bad value is said here, so the run cannot start with it.
  for (const [id, given] of Object.entries(plan.modelOptions ?? {})) {
    const spec = findAlgorithm(id);
    if (!spec) continue;
    try {
      checkModelOptions(spec, given);
    } catch (e) {
      problems.push(`Model option of ${spec.label}: ${(e as Error).message}`);
    }
  }
  problems.push(...subsampleProblems(plan.subsample, plan.seeds));
  return problems;
}

/** Cells (records the run writes) and fits (work the workers do), by arithmetic (no grid expansion). */
export function planSize(
  plan: RunPlanSpec,
  isBaseline: (id: string) => boolean,
): { cells: number; fits: number } {
  return { cells: planCellCount(plan), fits: planFitCount(plan, isBaseline) };
}

/**
 * What a plan with part of the t grid gives up, said before Start (issue 21, item 15), or null
 * for the whole grid (every preset) or none: the six metrics are integrals and correlations over
 * every t, so Results can show such a plan's points but not its metrics.
 */
export function partialGridNote(plan: Pick<RunPlanSpec, 'tIndices'>): string | null {
  const n = plan.tIndices.length;
  if (n === 0 || n >= T_GRID.length) return null;
  const ts = [...plan.tIndices].sort((a, b) => a - b).map((i) => T_GRID[i]);
  return (
    `This plan runs t = ${ts.join(', ')} only. The six metrics (AUC, EA, WA, EVM, VS, RCC) need every t ` +
    `of the grid (${T_GRID.join(', ')}): Results will show these points and their accuracies, and "—" for the metrics.`
  );
}
