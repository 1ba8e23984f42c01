/**
 * The arithmetic of a plan's time estimate, per algorithm × dataset, for `rac-bench estimate`:
 * each fit's expected seconds (from the cost model and the device calibration, computed by the
 * caller) summed per algorithm and dataset, and the wall time of the plan when it is cut into
 * shards the way `rac-bench run --shard i/n` cuts it (round-robin over fit units, one lane per
 * shard), so the wall time is the slowest shard's sum. Pure: no clock, no I/O.
 */
import { shardCells, type CellSpec } from './plan.ts';

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
