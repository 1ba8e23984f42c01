/**
 * Issue 21, items 10 and 11: the ETA never freezes and fits that fail at once do not make it
 * small. Before, the ETA only moved when a fit ended: a FixMatch fit of minutes on a software GPU
 * showed "4 s" the whole time, and letter's instant failures counted their full cost as work
 * done in no time, so the ETA read "0 s" while the real fits were still to come.
 */
import { describe, expect, it } from 'vitest';
import { expandPlan, type RunPlanSpec } from '../../../src/lib/suite/plan.ts';
import { customPlan } from '../../../src/lib/suite/presets.ts';
import { Scheduler } from '../../../src/lib/suite/scheduler.ts';

/** iris, one setting, labels 5, lp only, seeds 0–1, all t: 12 fits of equal cost. */
function plan(): RunPlanSpec {
  return customPlan({
    datasets: ['iris'],
    settings: ['label'],
    labels: [5],
    algorithms: ['lp'],
    seeds: [0, 1],
  });
}
const cells = () => expandPlan(plan(), () => false);
/** Every fit costs 1000 units; the calibration says 1 ms per unit: 1 s per fit. */
const calibrated = () => new Scheduler(cells(), [], { cost: () => 1000, msPerUnit: 1, lanes: 1 });

describe('the ETA of a run', () => {
  it('moves while one long fit runs, with the part of it done', () => {
    const s = calibrated();
    const fit = s.next(0, 0)!;
    s.progress(fit.key, 0.25);
    // A quarter of one fit (250 units) in 10 s: 11 750 units left at 25 units/s = 470 s.
    const a = s.snapshot(10_000).etaSeconds!;
    expect(a).toBeCloseTo(470, 6);
    s.progress(fit.key, 0.5);
    const b = s.snapshot(20_000).etaSeconds!;
    expect(b).toBeCloseTo((11_500 * 20) / 500, 6);
    expect(b).not.toBeCloseTo(a, 3);
  });

  it('grows while a fit makes no progress, instead of staying at the calibrated guess', () => {
    const s = calibrated();
    const fit = s.next(0, 0)!;
    // Nothing reported yet: the calibration's 12 s, less the time spent.
    expect(s.snapshot(0).etaSeconds).toBeCloseTo(12, 6);
    expect(s.snapshot(4000).etaSeconds).toBeCloseTo(8, 6);
    // Past the guess with nothing reported: not known (shown as "–"), never a frozen "4 s".
    expect(s.snapshot(60_000).etaSeconds).toBeNull();
    // Its first step: the rate is measured, and it is slow.
    s.progress(fit.key, 0.01);
    const slow = s.snapshot(120_000).etaSeconds!;
    expect(slow).toBeGreaterThan(10 * 3600);
    // Stalled there: the ETA keeps growing with the time spent.
    expect(s.snapshot(240_000).etaSeconds!).toBeGreaterThan(slow);
  });

  it('a retry after a crash starts its fit over', () => {
    const s = calibrated();
    const fit = s.next(0, 0)!;
    s.progress(fit.key, 0.9);
    expect(s.crashed(fit.key)).toBe('retry');
    expect(s.inFlight()[0].fraction).toBe(0);
    // A late post of a finished fit is ignored; reports never go back.
    s.progress(fit.key, 0.4);
    s.progress(fit.key, 0.2);
    expect(s.inFlight()[0].fraction).toBe(0.4);
    s.complete(fit.key);
    s.progress(fit.key, 0.7);
    expect(s.inFlight()).toEqual([]);
  });

  it('fits that fail at once do not count as work done', () => {
    const s = calibrated();
    // Six fits fail within 60 ms (a dataset too big for memory, say).
    for (let i = 0; i < 6; i++) {
      const f = s.next(0, i * 10)!;
      s.complete(f.key, true);
    }
    const snap = s.snapshot(60);
    // Their cost left the plan; no work was measured, so the calibration still speaks: 6 fits, 6 s.
    expect(snap.costTotal).toBe(6000);
    expect(snap.costDone).toBe(0);
    expect(snap.etaSeconds).toBeCloseTo(6 - 0.06, 6);
    // One real fit of 30 s: the rate is that fit's, not the failures'.
    const f = s.next(0, 60)!;
    s.complete(f.key);
    expect(s.snapshot(30_060).etaSeconds!).toBeCloseTo((5000 * 30_060) / 1000 / 1000, 6);
    expect(s.snapshot(30_060).etaSeconds!).toBeGreaterThan(100);
  });
});
