/**
 * The arithmetic of a plan's time estimate, per algorithm × dataset, for `rac-bench estimate`:
 * each fit's expected seconds (from the cost model and the device calibration, computed by the
 * caller) summed per algorithm and dataset, and the wall time of the plan when it is cut into
 * shards the way `rac-bench run --shard i/n` cuts it (round-robin over fit units, one lane per
 * shard), so the wall time is the slowest shard's sum. The page's pre-start estimate and the CLI's
 * `rac-bench estimate` share `fitSeconds` (one cost model, the registry's shapes, one calibration
 * procedure), so both give the same numbers for the same plan and calibration. Pure: no clock, no I/O.
 */
import { findAlgorithm, isBaselineAlgorithm } from '../models/catalogue.ts';
import { cappedShape, cellShape, datasetShape, fitCost, fitMemoryBytes } from './costModel.ts';
import { planOptionsOf } from './modelOptions.ts';
import { shardCells, type CellSpec, type RunPlanSpec } from './plan.ts';

/** One fit of the plan with its expected seconds on this device. */
export interface TimedFit {
  cell: CellSpec;
  seconds: number;
}

export interface EstimateRow {
  algorithm: string;
  dataset: string;
  fits: number;
  /** Sum of the expected seconds of these fits. */
  seconds: number;
  /** The slowest of them. */
  longestSeconds: number;
}

export interface PlanTimeEstimate {
  /** Per algorithm × dataset, in the plan's order of first appearance. */
  rows: EstimateRow[];
  fits: number;
  /** Sum over every fit (one lane). */
  cpuSeconds: number;
  shards: number;
  /** Expected seconds of each shard (round-robin as `--shard i/n`), 1-based order. */
  shardSeconds: number[];
  /** The slowest shard: the wall time when the shards run in parallel. */
  wallSeconds: number;
}

/**
 * Tabulates timed fits. `fits` must be the plan's fit cells in plan order (fitCells of
 * expandPlan), so that the shards are the ones `rac-bench run --shard i/n` would run.
 */
export function tabulateEstimate(fits: readonly TimedFit[], shards = 1): PlanTimeEstimate {
  if (!Number.isInteger(shards) || shards < 1)
    throw new RangeError(`shards must be an integer >= 1; got ${shards}.`);
  const rows = new Map<string, EstimateRow>();
  const byKey = new Map<string, number>();
  let cpu = 0;
  for (const { cell, seconds } of fits) {
    if (!(seconds >= 0) || !Number.isFinite(seconds))
      throw new RangeError(`Expected seconds of ${cell.key} must be finite and >= 0; got ${seconds}.`);
    const id = `${cell.algorithm}\u0000${cell.dataset}`;
    let row = rows.get(id);
    if (!row) {
      row = { algorithm: cell.algorithm, dataset: cell.dataset, fits: 0, seconds: 0, longestSeconds: 0 };
      rows.set(id, row);
    }
    row.fits++;
    row.seconds += seconds;
    row.longestSeconds = Math.max(row.longestSeconds, seconds);
    cpu += seconds;
    byKey.set(cell.key, (byKey.get(cell.key) ?? 0) + seconds);
  }
  const cells = fits.map((f) => f.cell);
  const shardSeconds: number[] = [];
  for (let i = 1; i <= shards; i++) {
    let s = 0;
    for (const c of shardCells(cells, i, shards)) s += byKey.get(c.key) ?? 0;
    shardSeconds.push(s);
  }
  return {
    rows: [...rows.values()],
    fits: fits.length,
    cpuSeconds: cpu,
    shards,
    shardSeconds,
    wallSeconds: Math.max(0, ...shardSeconds),
  };
}

/** "3.2 h", "41 min", "12 s": hours from one hour up, minutes from one minute up. */
export function formatDuration(seconds: number): string {
  if (seconds >= 3600) return `${(seconds / 3600).toFixed(1)} h`;
  if (seconds >= 60) return `${(seconds / 60).toFixed(0)} min`;
  return `${seconds.toFixed(seconds < 10 ? 1 : 0)} s`;
}

/** What a fit's cost depends on. */
export interface FitGroupKey {
  dataset: string;
  labels: number;
  algorithm: string;
}

/**
 * Expected seconds of one fit of `plan` at `msPerUnit`: the cost model on the registry's shape of
 * the dataset, under the plan's model options and §9 caps. The one formula of the page and the CLI.
 */
export function fitSeconds(fit: FitGroupKey, plan: RunPlanSpec, msPerUnit: number): number {
  const shape = cappedShape(cellShape(datasetShape(fit.dataset), fit.labels), fit.algorithm, plan.subsample);
  const units = fitCost(
    fit.algorithm,
    shape,
    findAlgorithm(fit.algorithm)?.family,
    planOptionsOf(plan)(fit.algorithm),
  );
  return (units * msPerUnit) / 1000;
}

/**
 * The plan's fits grouped by dataset, labels and algorithm, with their count, by arithmetic (no
 * grid expansion, so the planner can recompute it at every click): settings × seeds × t values, a
 * baseline once per setting and seed (at t = 0).
 */
export function planFitGroups(
  plan: RunPlanSpec,
  isBaseline: (algorithm: string) => boolean = isBaselineAlgorithm,
): (FitGroupKey & { count: number })[] {
  const perT = plan.settings.length * plan.seeds.length;
  return plan.datasets.flatMap((dataset) =>
    plan.labels.flatMap((labels) =>
      plan.algorithms.map((algorithm) => ({
        dataset,
        labels,
        algorithm,
        count: perT * (isBaseline(algorithm) ? Math.min(1, plan.tIndices.length) : plan.tIndices.length),
      })),
    ),
  );
}

export interface PlanEstimateSummary {
  /** Per algorithm × dataset, as `rac-bench estimate` prints them. */
  rows: EstimateRow[];
  fits: number;
  /** Every fit one after the other (one process, one worker). */
  cpuSeconds: number;
  lanes: number;
  /** On `lanes` workers: the work shared out, never below the longest fit. */
  wallSeconds: number;
  longestFitSeconds: number;
  /** Peak memory of the largest fit, times the lanes that may run such fits at once. */
  peakBytes: number;
}

/**
 * The page's pre-start estimate of a plan on `lanes` workers: the same rows and seconds as
 * `rac-bench estimate` gives for the plan at the same calibration.
 */
export function estimatePlanTime(plan: RunPlanSpec, msPerUnit: number, lanes: number): PlanEstimateSummary {
  const rows = new Map<string, EstimateRow>();
  let cpu = 0;
  let fits = 0;
  let longest = 0;
  let peak = 0;
  for (const g of planFitGroups(plan)) {
    if (g.count === 0) continue;
    const seconds = fitSeconds(g, plan, msPerUnit);
    const id = `${g.algorithm}\u0000${g.dataset}`;
    let row = rows.get(id);
    if (!row) {
      row = { algorithm: g.algorithm, dataset: g.dataset, fits: 0, seconds: 0, longestSeconds: 0 };
      rows.set(id, row);
    }
    row.fits += g.count;
    row.seconds += seconds * g.count;
    row.longestSeconds = Math.max(row.longestSeconds, seconds);
    cpu += seconds * g.count;
    fits += g.count;
    longest = Math.max(longest, seconds);
    const shape = cappedShape(cellShape(datasetShape(g.dataset), g.labels), g.algorithm, plan.subsample);
    peak = Math.max(peak, fitMemoryBytes(g.algorithm, shape));
  }
  const n = Number.isFinite(lanes) && lanes >= 1 ? Math.floor(lanes) : 1;
  return {
    rows: [...rows.values()],
    fits,
    cpuSeconds: cpu,
    lanes: n,
    wallSeconds: Math.max(cpu / n, longest),
    longestFitSeconds: longest,
    peakBytes: peak * Math.min(n, fits || 1),
  };
}
