/**
 * The live training feed (worker → page): typed progress becomes timed training events, the
 * worker's batch between two posts is bounded, and the page keeps one bounded log per lane that a
 * lane's next fit replaces, that a finished fit keeps (marked finished), and that a stopped or
 * restarted lane drops; a late post of a finished fit never revives it nor replaces the next fit.
 */
import { describe, expect, it } from 'vitest';
import {
  LiveTraining,
  TrainingBatch,
  trainingEventOf,
  type TimedTrainingEvent,
} from '../../../src/lib/charts/trainingFeed.ts';

const ev = (step: number, total = 100, ms = step * 10): TimedTrainingEvent => ({
  step,
  total,
  losses: { supervised: 1 / (step + 1), unsupervised: 0.1 },
  scalars: { 'mask rate': step / total },
  ms,
});

describe('trainingEventOf', () => {
  it('takes a deep step report and leaves plain progress out', () => {
    expect(
      trainingEventOf(
        { fraction: 0.5, step: 50, total: 100, losses: { supervised: 0.4 }, scalars: { 'mask rate': 0.7 } },
        123,
      ),
    ).toEqual({ step: 50, total: 100, losses: { supervised: 0.4 }, scalars: { 'mask rate': 0.7 }, ms: 123 });
    expect(
      trainingEventOf({ fraction: 0.5, step: 3, total: 9, losses: { supervised: 1 } }, 1),
    ).not.toHaveProperty('scalars');
    // A statistical fit's fraction (or its iterations without losses) is not a training event.
    expect(trainingEventOf({ fraction: 0.3, message: 'iteration 3' }, 1)).toBeNull();
    expect(trainingEventOf({ fraction: 0.3, step: 3, total: 10 }, 1)).toBeNull();
  });

  it('copies the loss maps (a later mutation by the fit does not change a sent event)', () => {
    const losses = { supervised: 1 };
    const e = trainingEventOf({ fraction: 0, step: 1, total: 2, losses }, 0)!;
    losses.supervised = 9;
    expect(e.losses.supervised).toBe(1);
  });
});

describe('TrainingBatch', () => {
  it('hands over what gathered since the last take, oldest first, then nothing', () => {
    const b = new TrainingBatch(8);
    expect(b.take()).toBeUndefined();
    b.push(ev(25));
    b.push(ev(50));
    expect(b.take()!.map((e) => e.step)).toEqual([25, 50]);
    expect(b.take()).toBeUndefined();
    expect(b.size).toBe(0);
  });

  it('stays bounded when posts lag behind a fast fit, keeping the newest event', () => {
    const b = new TrainingBatch(8);
    for (let s = 1; s <= 1000; s++) b.push(ev(s, 1000));
    const got = b.take()!;
    expect(got.length).toBeLessThanOrEqual(8);
    expect(got.length).toBeGreaterThanOrEqual(4);
    expect(got[got.length - 1].step).toBe(1000);
    const steps = got.map((e) => e.step);
    expect([...steps].sort((x, y) => x - y)).toEqual(steps);
  });

  it('refuses a capacity that cannot hold two events', () => {
    expect(() => new TrainingBatch(1)).toThrow(/capacity must be an integer >= 2/);
  });
});

describe('LiveTraining', () => {
  it('keeps one log per lane, most recent fit first, and flags changes once', () => {
    const live = new LiveTraining(16);
    expect(live.takeChanged()).toBe(false);
    live.lane(0, 'busy', 'A');
    live.add(0, 'A', [ev(25), ev(50)]);
    live.lane(1, 'busy', 'B');
    live.add(1, 'B', [ev(25)]);
    expect(live.takeChanged()).toBe(true);
    expect(live.takeChanged()).toBe(false);
    expect(live.fits.map((f) => [f.lane, f.cell, f.log.step, f.running])).toEqual([
      [1, 'B', 25, true],
      [0, 'A', 50, true],
    ]);
    live.add(0, 'A', []);
    expect(live.takeChanged()).toBe(false);
  });

  it('memory is bounded by lanes × capacity whatever the number of steps and cells', () => {
    const live = new LiveTraining(16);
    for (let cell = 0; cell < 20; cell++) {
      live.lane(cell % 2, 'busy', `c${cell}`);
      for (let s = 1; s <= 10_000; s += 25) live.add(cell % 2, `c${cell}`, [ev(s, 10_000, s)]);
    }
    expect(live.fits).toHaveLength(2);
    for (const f of live.fits) expect(f.log.points.length).toBeLessThanOrEqual(17);
    expect(live.fits.map((f) => f.cell)).toEqual(['c19', 'c18']);
  });

  it("marks a fit finished when its lane moves on, and the lane's next deep fit replaces it", () => {
    const live = new LiveTraining();
    live.lane(0, 'busy', 'A');
    live.add(0, 'A', [ev(100, 100)]);
    live.lane(0, 'busy', 'A'); // more progress of the same fit
    expect(live.fits[0].running).toBe(true);
    live.lane(0, 'idle', null);
    expect(live.fits[0]).toMatchObject({ cell: 'A', running: false });
    live.lane(0, 'busy', 'S'); // a statistical cell: the last deep fit stays, finished
    expect(live.fits[0]).toMatchObject({ cell: 'A', running: false });
    live.lane(0, 'busy', 'D');
    live.add(0, 'D', [ev(10)]);
    expect(live.fits).toHaveLength(1);
    expect(live.fits[0]).toMatchObject({ cell: 'D', running: true });
    expect(live.fits[0].log.step).toBe(10);
  });

  it('a late post of a finished fit adds its last points but neither revives it nor replaces the next fit', () => {
    const live = new LiveTraining();
    live.lane(0, 'busy', 'A');
    live.add(0, 'A', [ev(75)]);
    live.lane(0, 'idle', null);
    live.add(0, 'A', [ev(100)]); // the final post arrives after the result
    expect(live.fits[0]).toMatchObject({ cell: 'A', running: false });
    expect(live.fits[0].log.step).toBe(100);
    live.lane(0, 'busy', 'B');
    live.add(0, 'B', [ev(25)]);
    live.add(0, 'A', [ev(100)]); // even later
    expect(live.fits.map((f) => f.cell)).toEqual(['B']);
    expect(live.fits[0].running).toBe(true);
  });

  it('a stopped or restarted lane drops its log; a retry of the same cell starts a new one', () => {
    const live = new LiveTraining();
    live.lane(0, 'busy', 'A');
    live.add(0, 'A', [ev(50)]);
    live.lane(1, 'busy', 'B');
    live.add(1, 'B', [ev(50)]);
    live.lane(0, 'restarting', null);
    expect(live.fits.map((f) => f.cell)).toEqual(['B']);
    live.add(0, 'A', [ev(60)]); // the crashed worker's last post: dropped
    expect(live.fits.map((f) => f.cell)).toEqual(['B']);
    live.lane(0, 'busy', 'A');
    live.add(0, 'A', [ev(25)]);
    expect(live.fits.find((f) => f.lane === 0)).toMatchObject({ cell: 'A', running: true });
    expect(live.fits.find((f) => f.lane === 0)!.log.step).toBe(25);
    live.lane(1, 'stopped', null);
    live.lane(0, 'stopped', null);
    expect(live.fits).toEqual([]);
    live.add(2, 'C', [ev(1)]); // a lane never seen busy
    expect(live.fits).toEqual([]);
    live.lane(2, 'busy', 'C');
    live.add(2, 'C', [ev(1)]);
    expect(live.fits).toHaveLength(1);
    live.clear();
    expect(live.fits).toEqual([]);
  });
});
