/**
 * The run executor's rules under Node with fake lanes (issue 7 item 5, issue 12 rows 7, 8,
 * issue 11 point 1): resume, longest-first and cost-weighted ETA, resource lanes and the
 * per-family fallback, validation on the way in, a dataset that cannot load fails once, the
 * watchdog recycles a silent lane.
 */
import { describe, expect, it, vi } from 'vitest';
import {
  fallbackBackend,
  RunExecutor,
  type Clock,
  type ExecutedCell,
  type Compute,
  type Lane,
  type LaneProgress,
} from '../../../src/lib/suite/executor.ts';
import { cellCost } from '../../../src/lib/suite/costModel.ts';
import { expandPlan, type CellSpec } from '../../../src/lib/suite/plan.ts';
import { customPlan } from '../../../src/lib/suite/presets.ts';
import type { CellResult } from '../../../src/lib/suite/schema.ts';
import { parseCellResult } from '../../../src/lib/suite/schema.ts';
import { fixtureCell } from './fakeCell.ts';
import type { TimedTrainingEvent } from '../../../src/lib/charts/trainingFeed.ts';

/** 'deepx' stands for a deep SSL method, 'deepbase' for a deep baseline (the FT-Transformer). */
const COMPUTE: Record<string, Compute> = { deepx: 'deep', deepbase: 'deep' };
const compute = (a: string) => COMPUTE[a] ?? 'statistical';
const isBaseline = (a: string) => a === 'xgb' || a === 'deepbase';

/** A clock whose timers fire only when the test advances it. */
function manualClock(): Clock & { advance(ms: number): void } {
  let t = 0;
  const timers = new Set<{ at: number; fn: () => void }>();
  return {
    now: () => t,
    after(ms, fn) {
      const timer = { at: t + ms, fn };
      timers.add(timer);
      return () => timers.delete(timer);
    },
    advance(ms) {
      t += ms;
      for (const timer of [...timers])
        if (timer.at <= t) {
          timers.delete(timer);
          timer.fn();
        }
    },
  };
}

type Behaviour = (cell: CellSpec, lane: FakeLane, onProgress: LaneProgress) => Promise<CellResult>;

class FakeLane implements Lane {
  readonly restartable = true;
  ran: string[] = [];
  restarts: (string | null)[] = [];
  constructor(
    readonly index: number,
    public backend: string | null,
    readonly behave: Behaviour,
    readonly resource: 'gpu' | 'cpu' = 'cpu',
  ) {}
  async run(cell: CellSpec, onProgress: LaneProgress = () => {}): Promise<CellResult> {
    this.ran.push(cell.key);
    return this.behave(cell, this, onProgress);
  }
  async restart(backend: string | null): Promise<void> {
    this.restarts.push(backend);
    this.backend = backend;
  }
  cancel(): void {}
  async close(): Promise<void> {}
}

const ok: Behaviour = async (cell) => fixtureCell(cell);

function plan(datasets = ['iris'], algorithms = ['xgb', 'lp']) {
  // Lists as given (customPlan keeps only the catalogue's algorithms; 'deepx' stands for a deep one).
  return expandPlan(
    {
      ...customPlan({
        datasets: ['iris'],
        settings: ['label'],
        labels: [5],
        algorithms: ['lp'],
        seeds: [0, 1],
      }),
      datasets,
      algorithms,
    },
    isBaseline,
  );
}

function executor(
  cells: CellSpec[],
  lanes: Lane[],
  extra: Partial<ConstructorParameters<typeof RunExecutor>[0]> = {},
) {
  const stored: ExecutedCell[] = [];
  const ex = new RunExecutor({
    cells,
    stored: [],
    lanes,
    compute,
    clock: manualClock(),
    validate: parseCellResult,
    put: async (batch) => {
      stored.push(...batch);
    },
    ...extra,
  });
  return { ex, stored };
}

describe('RunExecutor', () => {
  it('stores every plan cell once, a baseline fit with its derived cells', async () => {
    const cells = plan();
    const lane = new FakeLane(0, 'wasm', ok);
    const { ex, stored } = executor(cells, [lane]);
    const outcome = await ex.run();
    expect(outcome.status).toBe('done');
    expect(stored.map((c) => c.key).sort()).toEqual(cells.map((c) => c.key).sort());
    expect(lane.ran).toHaveLength(2 + 12); // 2 xgb fits + 12 lp fits
    expect(stored.filter((c) => c.result?.outcome.flattened_from_t0)).toHaveLength(10);
  });

  it('resumes: stored keys are skipped, an orphaned derived cell is filled without a fit', async () => {
    const cells = plan();
    const lane = new FakeLane(0, 'wasm', ok);
    const xgb0 = cells.find((c) => c.algorithm === 'xgb' && c.tIndex === 0 && c.seed === 0)!;
    const lp3 = cells.find((c) => c.algorithm === 'lp' && c.tIndex === 3 && c.seed === 1)!;
    const prior: ExecutedCell[] = [xgb0, lp3].map((c) => ({
      key: c.key,
      status: 'ok',
      result: fixtureCell(c),
      error: null,
      attempts: 1,
    }));
    const { ex, stored } = executor(cells, [lane], { stored: prior });
    await ex.run();
    expect(lane.ran).not.toContain(xgb0.key);
    expect(lane.ran).not.toContain(lp3.key);
    expect(lane.ran).toHaveLength(12);
    expect(stored.map((c) => c.key).sort()).toEqual(
      cells
        .map((c) => c.key)
        .filter((k) => k !== xgb0.key && k !== lp3.key)
        .sort(),
    );
  });

  it('hands out the longest fits first and weighs the ETA by cost', async () => {
    const cells = plan(['iris', 'wine'], ['lp', 'tsvm']);
    const lane = new FakeLane(0, 'wasm', ok);
    const cost = (c: CellSpec) => cellCost(c, compute);
    const { ex } = executor(cells, [lane], { cost, msPerUnit: 1e-6 });
    const before = ex.snapshot();
    expect(before.etaSeconds).toBeCloseTo((before.costTotal * 1e-6) / 1000, 9); // calibrated, before any fit
    await ex.run();
    const costs = lane.ran.map((k) => cost(cells.find((c) => c.key === k)!));
    expect(costs).toEqual([...costs].sort((a, b) => b - a));
    expect(lane.ran[0]).toMatch(/^wine\|label\|5\|tsvm\|/);
  });

  it('puts deep work on the GPU lane; statistical work falls back to WASM, deep work does not', async () => {
    const cells = plan(['iris'], ['lp', 'deepx']);
    const gpu = new FakeLane(0, 'webgpu', ok, 'gpu');
    const cpu = new FakeLane(1, 'wasm', ok);
    const { ex } = executor(cells, [gpu, cpu]);
    await ex.run();
    expect(cpu.ran.some((k) => k.includes('|deepx|'))).toBe(false);
    expect(gpu.ran.filter((k) => k.includes('|deepx|'))).toHaveLength(12);
    expect(fallbackBackend('statistical', 'webgpu')).toBe('wasm');
    expect(fallbackBackend('deep', 'webgpu')).toBe('webgpu');
  });

  it('a deep baseline is deep work too: GPU lane only, and never moved to WASM after a crash', async () => {
    // Its role (baseline: flat in t, derived cells) and its compute (deep) are separate facts.
    const cells = plan(['iris'], ['lp', 'deepbase']);
    const gpu = new FakeLane(0, 'webgpu', ok, 'gpu');
    const cpu = new FakeLane(1, 'wasm', ok);
    const { ex, stored } = executor(cells, [gpu, cpu]);
    await ex.run();
    expect(cpu.ran.some((k) => k.includes('|deepbase|'))).toBe(false);
    expect(gpu.ran.filter((k) => k.includes('|deepbase|'))).toHaveLength(2); // t = 0 per seed; the rest derived
    expect(stored.filter((c) => c.key.includes('|deepbase|'))).toHaveLength(12);
    let crashes = 0;
    const crashOnce: Behaviour = async (cell) => {
      if (cell.algorithm === 'deepbase' && crashes++ === 0)
        throw Object.assign(new Error('GPU hung'), { name: 'DeviceLostError' });
      return fixtureCell(cell);
    };
    const lone = new FakeLane(0, 'webgpu', crashOnce, 'gpu');
    const second = executor(plan(['iris'], ['deepbase']).slice(0, 1), [lone]);
    expect((await second.ex.run()).status).toBe('done');
    expect(lone.restarts).toEqual(['webgpu']);
  });

  it('a deep fit that crashes twice pauses the run with a message instead of moving to WASM', async () => {
    const cells = plan(['iris'], ['deepx']).slice(0, 1);
    const crash: Behaviour = async () => {
      throw Object.assign(new Error('GPU hung'), { name: 'DeviceLostError' });
    };
    const gpu = new FakeLane(0, 'webgpu', crash, 'gpu');
    const notices: string[] = [];
    const { ex, stored } = executor(cells, [gpu]);
    const outcome = await ex.run({ onNotice: (t) => notices.push(t) });
    expect(outcome.status).toBe('paused');
    expect(outcome.reason).toMatch(/does not move to another backend/);
    expect(gpu.restarts.every((b) => b === 'webgpu')).toBe(true);
    expect(stored).toHaveLength(0); // not recorded as failed
    expect(notices).toHaveLength(1);
  });

  it('a statistical fit that crashes is retried on WASM, then recorded as failed', async () => {
    const cells = plan(['iris'], ['lp']).slice(0, 1);
    const crash: Behaviour = async () => {
      throw Object.assign(new Error('worker died'), { name: 'WorkerCrash' });
    };
    const gpu = new FakeLane(0, 'webgpu', crash, 'gpu');
    const { ex, stored } = executor(cells, [gpu]);
    expect((await ex.run()).status).toBe('done');
    expect(gpu.restarts).toEqual(['wasm', 'wasm']);
    expect(stored[0].status).toBe('failed');
    expect(stored[0].error).toMatch(/Crashed twice/);
  });

  it('validates every record before it is stored, and recycles a lane whose fit leaked tensors', async () => {
    const cells = plan(['iris'], ['lp']).slice(0, 2);
    let n = 0;
    const behave: Behaviour = async (cell) => {
      n++;
      if (n === 1) return { ...fixtureCell(cell), seed: -1 } as CellResult; // invalid
      return {
        ...fixtureCell(cell),
        outcome: {
          ...fixtureCell(cell).outcome,
          status: 'failed',
          accuracy: null,
          n_correct: 0,
          reason: 'TensorLeakError: lp left 3 tensors (a tensor leak)',
        },
      } as CellResult;
    };
    const lane = new FakeLane(0, 'wasm', behave);
    const { ex, stored } = executor(cells, [lane]);
    await ex.run();
    expect(stored[0].status).toBe('failed');
    expect(stored[0].result).toBeNull();
    expect(stored[0].error).toMatch(/invalid record: seed/);
    expect(stored[1].status).toBe('failed');
    expect(lane.restarts).toHaveLength(2); // once per bad record
  });

  it('a dataset that cannot load fails once: its cells are "not run" with the reason, and leave the ETA', async () => {
    const cells = plan(['iris', 'letter'], ['lp']);
    const behave: Behaviour = async (cell) => {
      if (cell.dataset === 'letter')
        throw Object.assign(new Error('letter could not be downloaded from any host (offline).'), {
          name: 'DatasetError',
        });
      return fixtureCell(cell);
    };
    const lanes = [0, 1, 2].map((i) => new FakeLane(i, 'wasm', behave));
    const notices: string[] = [];
    const { ex, stored } = executor(cells, lanes, { cost: (c) => cellCost(c, compute), msPerUnit: 1e-6 });
    const outcome = await ex.run({ onNotice: (t) => notices.push(t) });
    expect(outcome.status).toBe('done');
    // Tried once, not per cell, nor once per lane (letter's fits are the longest: every lane wanted one first).
    expect(lanes.flatMap((l) => l.ran).filter((k) => k.startsWith('letter|'))).toHaveLength(1);
    expect(lanes.flatMap((l) => l.ran).filter((k) => k.startsWith('iris|'))).toHaveLength(12);
    const letter = stored.filter((c) => c.key.startsWith('letter|'));
    expect(letter).toHaveLength(12);
    expect(
      letter.every(
        (c) =>
          c.status === 'failed' &&
          /^not run: letter unavailable \(letter could not be downloaded/.test(c.error!),
      ),
    ).toBe(true);
    expect(outcome.unavailable).toEqual({
      letter: 'letter could not be downloaded from any host (offline).',
    });
    expect(notices).toHaveLength(1);
    const snap = ex.snapshot();
    expect(snap.failed).toBe(12);
    expect(snap.etaSeconds).toBe(0);
  });

  it("a fit that reports training has loaded its dataset: other lanes start the dataset's fits meanwhile", async () => {
    const cells = plan(['iris'], ['deepx']).slice(0, 2);
    const events: string[] = [];
    let release = () => {};
    const held = new Promise<void>((r) => (release = r));
    const behave =
      (training: boolean): Behaviour =>
      async (cell, _lane, onProgress) => {
        events.push(`start ${cell.key}`);
        if (events.length === 1) {
          // The first fit trains (a training event) and does not end until the second has started.
          if (training) onProgress(0.1, 'step 1', [{ t: 0 } as unknown as TimedTrainingEvent]);
          await Promise.race([held, new Promise((r) => setTimeout(r, 50))]);
        } else release();
        events.push(`end ${cell.key}`);
        return fixtureCell(cell);
      };
    for (const training of [true, false]) {
      events.length = 0;
      const lanes = [0, 1].map((i) => new FakeLane(i, 'wasm', behave(training)));
      const { ex } = executor(cells, lanes);
      expect((await ex.run()).status).toBe('done');
      // Training: the second fit starts while the first runs. No training event yet: it waits.
      expect(
        events.map((e) => e.split(' ')[0]),
        `training event: ${training}`,
      ).toEqual(training ? ['start', 'start', 'end', 'end'] : ['start', 'end', 'start', 'end']);
    }
  });

  it('a gate holds the run after exactly n fits, nothing in flight, until it is lifted', async () => {
    const cells = plan(['iris'], ['lp']); // 12 fits
    const slow: Behaviour = async (cell) => {
      await new Promise((r) => setTimeout(r, 2));
      return fixtureCell(cell);
    };
    const lanes = [0, 1, 2].map((i) => new FakeLane(i, 'wasm', slow));
    let limit: number | null = 5;
    let open = () => {};
    const opened = new Promise<void>((r) => (open = r));
    const gate = { limit: () => limit, opened: () => opened };
    const { ex, stored } = executor(cells, lanes, { gate });
    const done = ex.run();
    await vi.waitFor(() => expect(ex.held).toBe(true));
    expect(lanes.flatMap((l) => l.ran)).toHaveLength(5);
    expect(stored).toHaveLength(5);
    expect(ex.scheduler.inFlight()).toHaveLength(0);
    limit = null;
    open();
    expect((await done).status).toBe('done');
    expect(ex.held).toBe(false);
    expect(lanes.flatMap((l) => l.ran)).toHaveLength(12);
    expect(new Set(stored.map((c) => c.key)).size).toBe(cells.length);
  });

  it('a held run that is cancelled ends at once', async () => {
    const ac = new AbortController();
    const gate = { limit: () => 0, opened: () => new Promise<void>(() => {}) };
    const lane = new FakeLane(0, 'wasm', ok);
    const { ex } = executor(plan(['iris'], ['lp']), [lane], { gate, signal: ac.signal });
    const done = ex.run();
    await vi.waitFor(() => expect(ex.held).toBe(true));
    ac.abort();
    expect((await done).status).toBe('cancelled');
    expect(lane.ran).toEqual([]);
  });

  it('the watchdog recycles a lane that stays silent and retries the fit', async () => {
    const cells = plan(['iris'], ['lp']).slice(0, 1);
    const clock = manualClock();
    let calls = 0;
    const behave: Behaviour = (cell) => {
      calls++;
      if (calls === 1) {
        setTimeout(() => clock.advance(60_000), 5); // the fit never answers; a minute passes
        return new Promise<CellResult>(() => {});
      }
      return Promise.resolve(fixtureCell(cell));
    };
    const lane = new FakeLane(0, 'wasm', behave);
    const { ex, stored } = executor(cells, [lane], {
      clock,
      watchdog: { factor: 10, minMs: 30_000 },
      cost: () => 1000,
      msPerUnit: 1,
    });
    // expected 1 s × 10 = 10 s < minMs: the limit is 30 s, and 60 s passed silently.
    const outcome = await ex.run();
    expect(outcome.status).toBe('done');
    expect(lane.restarts).toEqual(['wasm']);
    expect(stored[0].status).toBe('ok');
    expect(stored[0].attempts).toBe(2);
  });
});
