/**
 * A plan is the grid datasets × settings × labels × algorithms × t × seeds under one protocol.
 * Cells are pure: the same coordinates give the same split everywhere, which is what makes runs
 * resumable (skip finished keys), parallel (any worker takes any cell) and shardable.
 */
import type { SubsampleSpec } from '../protocol/subsample.ts';
import type { ProtocolMode, Quirks, Setting } from '../types.ts';
import { T_GRID } from '../types.ts';

export interface PlanOptions {
  takeZero: 'one-per-class' | 'empty';
  t0Stream: 'per-class' | 'shared';
  scaler: 'split' | 'labeled';
  ssgmmSupport: 'zero' | 'ignore';
  /** §3.5: the model stream starts where the original's did (`paper`) or at the seed (`none`, also when absent: 1.0.0). */
  modelStreamOffset?: 'none' | 'paper';
  /** §3.5: a per-dataset t0Stream over `t0Stream` (the `paper` preset: iris 'shared'). */
  t0StreamByDataset?: Record<string, 'per-class' | 'shared'>;
}

export interface RunPlanSpec {
  preset: string;
  datasets: string[];
  settings: Setting[];
  labels: number[];
  algorithms: string[];
  seeds: number[];
  tIndices: number[];
  mode: ProtocolMode;
  quirks: Quirks;
  options: PlanOptions;
  /**
   * Model options that differ from the catalogue's defaults: algorithm id → option → value
   * (`--option lp.gamma=5`, URL `opt=lp.gamma=5`). Absent or empty = every default.
   */
  modelOptions?: Record<string, Record<string, string | number | boolean>>;
  /**
   * PROTOCOL.md §9 subsampling: a cap per pool (`test`, `unlabeled`, `graph`) as `{ max, seed }`
   * (suite/subsamplePlan.ts; CLI `--subsample`, URL `sub=`). Absent = none; never in `paper`.
   */
  subsample?: SubsampleSpec;
}

export interface CellSpec {
  key: string;
  dataset: string;
  setting: Setting;
  labels: number;
  algorithm: string;
  tIndex: number;
  seed: number;
  /** Baselines fit once at t = 0; their other t cells copy that result (flattened_from_t0). */
  derivedFromKey: string | null;
}

export function defaultPlanOptions(mode: ProtocolMode): PlanOptions {
  return {
    takeZero: 'one-per-class',
    t0Stream: 'per-class',
    scaler: mode === 'rsb' ? 'split' : 'labeled',
    // PROTOCOL.md 1.1.0 §7.1, §3.5: the published environment (scipy 1.5, numpy's global stream).
    ssgmmSupport: mode === 'rsb' ? 'ignore' : 'zero',
    modelStreamOffset: mode === 'rsb' ? 'paper' : 'none',
  };
}

/** The t0 stream of one dataset's cells (a per-dataset entry wins over the plan-wide value). */
export function t0StreamFor(
  options: Pick<PlanOptions, 't0Stream' | 't0StreamByDataset'>,
  dataset: string,
): PlanOptions['t0Stream'] {
  return options.t0StreamByDataset?.[dataset] ?? options.t0Stream;
}

export function cellKey(
  c: Pick<CellSpec, 'dataset' | 'setting' | 'labels' | 'algorithm' | 'tIndex' | 'seed'>,
): string {
  return `${c.dataset}|${c.setting}|${c.labels}|${c.algorithm}|${c.tIndex}|${c.seed}`;
}

/**
 * Every cell of the plan, in a stable order: dataset, setting, labels, algorithm, seed, t.
 * `isBaseline(name)` marks supervised baselines (fit at t = 0 only).
 */
export function expandPlan(plan: RunPlanSpec, isBaseline: (algorithm: string) => boolean): CellSpec[] {
  // Refused before a single cell is made: an over-long link or flag cannot exhaust memory.
  if (planCellCount(plan) > MAX_PLAN_CELLS * 20)
    throw new PlanSizeError(planTooLargeMessage(planCellCount(plan)));
  const cells: CellSpec[] = [];
  for (const dataset of plan.datasets)
    for (const setting of plan.settings)
      for (const labels of plan.labels)
        for (const algorithm of plan.algorithms)
          for (const seed of plan.seeds)
            for (const tIndex of plan.tIndices) {
              const coords = { dataset, setting, labels, algorithm, tIndex, seed };
              const derivedFromKey =
                isBaseline(algorithm) && tIndex !== 0 ? cellKey({ ...coords, tIndex: 0 }) : null;
              cells.push({ key: cellKey(coords), ...coords, derivedFromKey });
            }
  return cells;
}

/** The cells that need a fit (derived baseline cells ride on their t = 0 cell). */
export function fitCells(cells: readonly CellSpec[]): CellSpec[] {
  const keys = new Set(cells.map((c) => c.key));
  const twins = new Set<string>(); // linear time: a set, not a scan of `out` per cell
  const out: CellSpec[] = [];
  for (const c of cells) {
    if (c.derivedFromKey === null) out.push(c);
    // A baseline whose plan lacks t = 0 still needs that fit: run it under its own key's t = 0 twin.
    else if (!keys.has(c.derivedFromKey) && !twins.has(c.derivedFromKey)) {
      twins.add(c.derivedFromKey);
      out.push({ ...c, key: c.derivedFromKey, tIndex: 0, derivedFromKey: null });
    }
  }
  return out;
}

/**
 * Shard i of n (1-based i, as in "--shard 2/4"): fit units dealt round-robin, so any job runner
 * (a CI matrix, Slurm array jobs) can split a plan and `merge` joins the shards.
 */
export function shardCells(cells: readonly CellSpec[], index: number, count: number): CellSpec[] {
  if (!Number.isInteger(count) || count < 1)
    throw new RangeError(`Shard count must be an integer >= 1; got ${count}.`);
  if (!Number.isInteger(index) || index < 1 || index > count) {
    throw new RangeError(`Shard index must be an integer in [1, ${count}]; got ${index}.`);
  }
  const units = new Map<string, number>();
  let u = 0;
  for (const c of cells) {
    const unit = c.derivedFromKey ?? c.key;
    if (!units.has(unit)) units.set(unit, u++);
  }
  return cells.filter((c) => units.get(c.derivedFromKey ?? c.key)! % count === index - 1);
}

/**
 * The most cells one run may hold (URL, planner, CLI): the schema's cap on a run file, and far
 * above the paper grid (3 780). Bigger studies are split into runs and merged.
 */
export const MAX_PLAN_CELLS = 100_000;

type PlanLists = Pick<RunPlanSpec, 'datasets' | 'settings' | 'labels' | 'algorithms' | 'seeds' | 'tIndices'>;

/** Cells of a plan, by arithmetic (never expands the grid). */
export function planCellCount(plan: PlanLists): number {
  return (
    plan.datasets.length *
    plan.settings.length *
    plan.labels.length *
    plan.algorithms.length *
    plan.seeds.length *
    plan.tIndices.length
  );
}

/** Fits of a plan, by arithmetic: a baseline fits once per (dataset, setting, labels, seed) whatever its t. */
export function planFitCount(plan: PlanLists, isBaseline: (algorithm: string) => boolean): number {
  const baselines = plan.algorithms.filter(isBaseline).length;
  const perSeed =
    (plan.algorithms.length - baselines) * plan.tIndices.length + (plan.tIndices.length ? baselines : 0);
  return plan.datasets.length * plan.settings.length * plan.labels.length * plan.seeds.length * perSeed;
}

export class PlanSizeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PlanSizeError';
  }
}

/** Why a plan of `cells` cells is refused, and how to run it anyway (shards, merged). */
export function planTooLargeMessage(cells: number, max = MAX_PLAN_CELLS): string {
  return (
    `This plan has ${cells.toLocaleString('en-US')} cells, more than the ${max.toLocaleString('en-US')} one run may hold. ` +
    'Split it into smaller runs (fewer seeds or datasets each, e.g. seeds 0-49 then 50-99, or rac-bench run --shard i/n) ' +
    'and join the result files with "rac-bench merge".'
  );
}

/** Throws a PlanSizeError when the plan (or each of `shards` shards) is over the cap. */
export function assertPlanSize(plan: PlanLists, shards = 1): void {
  const cells = planCellCount(plan);
  // A shard of a bigger plan is fine, up to a ceiling that keeps the grid itself in memory.
  if (Math.ceil(cells / shards) > MAX_PLAN_CELLS || cells > MAX_PLAN_CELLS * 20) {
    throw new PlanSizeError(planTooLargeMessage(shards > 1 ? Math.ceil(cells / shards) : cells));
  }
}

export function tValue(tIndex: number): number {
  const t = T_GRID[tIndex];
  if (t === undefined) throw new RangeError(`t index must be 0..5; got ${tIndex}.`);
  return t;
}
