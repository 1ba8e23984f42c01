import { describe, expect, it } from 'vitest';
import { cellKey, expandPlan, type CellSpec, type RunPlanSpec } from '../../../src/lib/suite/plan.ts';
import { customPlan } from '../../../src/lib/suite/presets.ts';
import {
  Scheduler,
  defaultWorkerCount,
  etaSeconds,
  formatDuration,
  throughputPerMinute,
} from '../../../src/lib/suite/scheduler.ts';

const isBaseline = (a: string) => a === 'xgb';

/** iris, one setting, labels 5, xgb + lp, seeds 0–1, all t: 24 cells, 2 + 12 = 14 fits. */
function smallPlan(): RunPlanSpec {
  return customPlan({
    datasets: ['iris'],
    settings: ['label'],
    labels: [5],
    algorithms: ['xgb', 'lp'],
    seeds: [0, 1],
  });
}

/** Runs every fit to completion on one worker; returns the keys in the order handed out. */
function drain(s: Scheduler, t0 = 0, stepMs = 1000): string[] {
  const order: string[] = [];
  let now = t0;
  for (let c = s.next(0, now); c; c = s.next(0, now)) {
    order.push(c.key);
    now += stepMs;
    s.complete(c.key);
  }
  return order;
}

describe('Scheduler', () => {
  it('counts plan cells and fits, and a baseline fit completes its derived cells', () => {
    const cells = expandPlan(smallPlan(), isBaseline);
    const s = new Scheduler(cells);
    expect(s.total).toBe(24);
    expect(s.fitsTotal).toBe(14);
    const first = s.next(0, 0)!;
    expect(first.key).toBe('iris|label|5|xgb|0|0');
    expect(s.derivedPending(first.key).map((c) => c.tIndex)).toEqual([1, 2, 3, 4, 5]);
    s.complete(first.key);
    const snap = s.snapshot(0);
    expect([snap.done, snap.fitsDone, snap.inFlight]).toEqual([6, 1, 0]);
    expect(s.derivedPending(first.key)).toEqual([]);
  });

  it('skips finished keys on resume and hands out only the missing fits, each once', () => {
    const cells = expandPlan(smallPlan(), isBaseline);
    const firstRun = new Scheduler(cells);
    const all = drain(firstRun);
    expect(all.length).toBe(14);
    expect(new Set(all).size).toBe(14);
    // Pretend the tab closed after the first 5 fits were stored (with their derived cells).
    const stored = new Set<string>();
    for (const k of all.slice(0, 5)) {
      stored.add(k);
      for (const c of cells) if (c.derivedFromKey === k) stored.add(c.key);
    }
    const resumed = new Scheduler(cells, stored);
    expect(resumed.snapshot(0).done).toBe(stored.size);
    const rest = drain(resumed);
    expect(rest).toEqual(all.slice(5));
    expect(resumed.snapshot(99).done).toBe(24);
    expect(resumed.finished).toBe(true);
  });

  it('reports derived cells left without a record as orphans, not as fits to redo', () => {
    const cells = expandPlan(smallPlan(), isBaseline);
    const t0 = 'iris|label|5|xgb|0|1';
    const s = new Scheduler(cells, [t0, 'iris|label|5|xgb|3|1']);
    expect(s.orphans().map((c) => c.tIndex)).toEqual([1, 2, 4, 5]);
    expect(s.fitsTotal - s.pending).toBe(1);
    for (const o of s.orphans()) s.markDone(o.key);
    expect(s.snapshot(0).done).toBe(6);
  });

  it('a crashed fit is retried once on the same slot, then given up', () => {
    const cells = expandPlan(smallPlan(), isBaseline);
    const s = new Scheduler(cells);
    const c = s.next(1, 0)!;
    expect(s.attempt(c.key)).toBe(1);
    expect(s.crashed(c.key)).toBe('retry');
    expect(s.attempt(c.key)).toBe(2);
    expect(s.inFlight().map((f) => [f.cell.key, f.attempt])).toEqual([[c.key, 2]]);
    // The retry is not handed to another worker.
    expect(s.next(0, 0)!.key).not.toBe(c.key);
    expect(s.crashed(c.key)).toBe('give-up');
    s.complete(c.key, true);
    const snap = s.snapshot(0);
    expect(snap.failed).toBe(6); // the baseline fit and its 5 derived cells
    expect(snap.done).toBe(6);
  });

  it('maxAttempts 1 gives up at the first crash; released (cancelled) fits keep their tries', () => {
    const cells = expandPlan(smallPlan(), isBaseline);
    const s = new Scheduler(cells, [], { maxAttempts: 1 });
    const c = s.next(0, 0)!;
    expect(s.crashed(c.key)).toBe('give-up');
    const s2 = new Scheduler(cells);
    const d = s2.next(0, 0)!;
    s2.release(d.key);
    expect(s2.attempt(d.key)).toBe(0);
    expect(s2.next(0, 0)!.key).toBe(d.key);
    expect(() => new Scheduler(cells, [], { maxAttempts: 0 })).toThrow(
      /maxAttempts must be an integer >= 1; got 0/,
    );
  });

  it('a plan without t = 0 still fits the baseline once and stores only its plan cells', () => {
    const plan = { ...smallPlan(), algorithms: ['xgb'], seeds: [0], tIndices: [2, 4] };
    const cells = expandPlan(plan, isBaseline);
    const s = new Scheduler(cells);
    expect([s.total, s.fitsTotal]).toEqual([2, 1]);
    const fit = s.next(0, 0)!;
    expect(fit.tIndex).toBe(0);
    expect(s.isPlanKey(fit.key)).toBe(false);
    expect(s.derivedPending(fit.key).map((c: CellSpec) => c.tIndex)).toEqual([2, 4]);
    s.complete(fit.key);
    expect(s.snapshot(0).done).toBe(2);
  });

  it('throughput and ETA come from this session only (resumed cells do not inflate the rate)', () => {
    const cells = expandPlan(smallPlan(), isBaseline);
    const lp0 = cellKey({
      dataset: 'iris',
      setting: 'label',
      labels: 5,
      algorithm: 'lp',
      tIndex: 0,
      seed: 0,
    });
    const s = new Scheduler(cells, [lp0]);
    expect(s.snapshot(0).etaSeconds).toBeNull();
    const a = s.next(0, 10_000)!; // session starts at 10 s
    const b = s.next(1, 10_000)!;
    s.complete(a.key); // xgb seed 0: 6 cells
    s.complete(b.key); // xgb seed 1: 6 cells
    const snap = s.snapshot(40_000); // 30 s later
    expect(snap.done).toBe(13);
    expect(snap.fitsDone).toBe(3);
    expect(snap.cellsPerMinute).toBeCloseTo(24, 12); // 12 cells in 30 s
    expect(snap.etaSeconds).toBeCloseTo((11 * 30) / 2, 12); // 11 fits left at 2 fits / 30 s
    expect(snap.elapsedSeconds).toBe(30);
  });
});

describe('rate helpers', () => {
  it('throughput, ETA and durations', () => {
    expect(throughputPerMinute(0, 1000)).toBeNull();
    expect(throughputPerMinute(5, 0)).toBeNull();
    expect(throughputPerMinute(30, 90_000)).toBe(20);
    expect(etaSeconds(0, 10, 5000)).toBeNull();
    expect(etaSeconds(4, 0, 5000)).toBe(0);
    expect(etaSeconds(4, 6, 8000)).toBe(12);
    expect(formatDuration(null)).toBe('–');
    expect(formatDuration(42.4)).toBe('42 s');
    expect(formatDuration(185)).toBe('3 min 05 s');
    expect(formatDuration(3720)).toBe('1 h 02 min');
  });

  it('default worker count: one per core, between 1 and 4', () => {
    expect([undefined, 1, 2, 3, 16].map((n) => defaultWorkerCount(n))).toEqual([2, 1, 2, 3, 4]);
  });
});
