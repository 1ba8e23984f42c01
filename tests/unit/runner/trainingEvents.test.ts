/**
 * Training events through the run executor (the browser pool's lanes and the CLI's share it):
 * a lane's training events reach `onTraining` with the lane and the cell, after the lane's busy
 * view of that cell; the executor keeps none of them; a progress post that lands after the fit's
 * result (progress has its own channel) still brings its events but no longer marks the lane busy.
 */
import { describe, expect, it } from 'vitest';
import type { TimedTrainingEvent } from '../../../src/lib/charts/trainingFeed.ts';
import { LiveTraining } from '../../../src/lib/charts/trainingFeed.ts';
import {
  RunExecutor,
  type ExecutedCell,
  type LaneProgress,
  type LaneView,
  type Lane,
} from '../../../src/lib/suite/executor.ts';
import { expandPlan, type CellSpec } from '../../../src/lib/suite/plan.ts';
import { customPlan } from '../../../src/lib/suite/presets.ts';
import type { CellResult } from '../../../src/lib/suite/schema.ts';
import { fixtureCell } from './fakeCell.ts';

const ev = (step: number): TimedTrainingEvent => ({
  step,
  total: 100,
  losses: { supervised: 1 / step },
  scalars: { 'mask rate': step / 100 },
  ms: step,
});

/** A lane whose fits post four batches of training events, the last one after the result. */
class TrainingLane implements Lane {
  readonly restartable = false;
  readonly resource = 'cpu' as const;
  readonly backend = 'wasm';
  late: (() => void)[] = [];
  constructor(readonly index: number) {}
  async run(cell: CellSpec, onProgress: LaneProgress): Promise<CellResult> {
    onProgress(0, 'loading');
    for (const s of [25, 50, 75]) {
      await Promise.resolve();
      onProgress(s / 100, `step ${s}`, [ev(s)]);
    }
    this.late.push(() => onProgress(1, 'step 100', [ev(100)]));
    return fixtureCell(cell);
  }
  async restart(): Promise<void> {}
  cancel(): void {}
  async close(): Promise<void> {}
}

function cells(): CellSpec[] {
  // 'lp' stands in for a deep fit: the executor forwards whatever a lane reports.
  const plan = {
    ...customPlan({ datasets: ['iris'], settings: ['label'], labels: [5], algorithms: ['lp'], seeds: [0] }),
    t: [0, 0.4],
  };
  return expandPlan(plan, () => false).slice(0, 2);
}

describe('training events through the executor', () => {
  it('reach onTraining per lane and cell, after its busy view; a late post adds points only', async () => {
    const lanes = [new TrainingLane(0)];
    const stored: ExecutedCell[] = [];
    const log: string[] = [];
    const live = new LiveTraining();
    const views: LaneView[] = [];
    const ex = new RunExecutor({
      cells: cells(),
      stored: [],
      lanes,
      compute: () => 'deep',
      clock: { now: () => 0, after: () => () => {} },
      put: async (b) => {
        stored.push(...b);
      },
    });
    const outcome = await ex.run({
      onLane: (v) => {
        views.push(v);
        log.push(`${v.phase}:${v.cell ?? '-'}`);
        live.lane(v.index, v.phase, v.cell);
      },
      onTraining: (lane, cell, events) => {
        log.push(`train:${cell}:${events.map((e) => e.step).join(',')}`);
        live.add(lane, cell, events);
        // After the cell's first busy view, never before.
        expect(views.some((v) => v.phase === 'busy' && v.cell === cell)).toBe(true);
      },
    });
    expect(outcome.status).toBe('done');
    const [a, b] = cells().map((c) => c.key);
    expect(log.filter((l) => l.startsWith('train:'))).toEqual([
      `train:${a}:25`,
      `train:${a}:50`,
      `train:${a}:75`,
      `train:${b}:25`,
      `train:${b}:50`,
      `train:${b}:75`,
    ]);
    // The late final posts: events still forwarded, the lanes' views stay as they were.
    const before = views.length;
    for (const f of lanes[0].late) f();
    expect(views.length).toBe(before);
    expect(log.slice(-2)).toEqual([`train:${a}:100`, `train:${b}:100`]);
    // The page's log: the lane stopped at the end of the run, so nothing is left of it.
    expect(live.fits).toEqual([]);
    expect(stored).toHaveLength(2);
  });
});
