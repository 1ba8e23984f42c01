/**
 * The browser's lanes for the run executor (src/lib/suite/executor.ts): N bench workers, each a
 * Lane. The executor decides what runs where, retries, validates and stores; this file only
 * starts, calls, restarts and ends workers. Every finished fit is written to the RunStore at
 * once (with its derived baseline cells), so a reload loses only cells in flight.
 *
 * Failures: a cell whose fit fails comes back as a 'failed' record and the run goes on. A worker
 * that crashes, loses its GPU device or stays silent past the watchdog is replaced by a fresh
 * worker (statistical work on WASM after a GPU failure; deep work on the GPU again) and the cell
 * runs once more; a second crash records the cell as failed (deep: the run pauses instead).
 *
 * Deep fits survive: a worker's deep fit sends its checkpoint here as it trains (every 30 s of
 * training by default), the RunStore keeps the latest per cell, and a fit that runs again (the
 * worker replaced, the tab closed and the run resumed) starts from it (executor.ts).
 */
import { proxy, releaseProxy, wrap, type Remote } from 'comlink';
import type { BenchWorkerApi, CellProgress } from './bench.worker.ts';
import {
  isBackendName,
  type BackendName,
  type BackendPref,
  type BackendReport,
  type WorkerBackendRequest,
} from '../src/lib/env/device.ts';
import { getAlgorithm, isBaselineAlgorithm } from '../src/lib/models/catalogue.ts';
import { calibrateOnce, cellCost } from '../src/lib/suite/costModel.ts';
import { planOptionsOf } from '../src/lib/suite/modelOptions.ts';
import {
  errText,
  RunExecutor,
  type ExecutedCell,
  type FitGate,
  type Lane,
  type LaneProgress,
  type ResourceKind,
} from '../src/lib/suite/executor.ts';
import type { TimedTrainingEvent } from '../src/lib/charts/trainingFeed.ts';
import { expandPlan, fitCells, type CellSpec, type RunPlanSpec } from '../src/lib/suite/plan.ts';
import type { ProgressSnapshot } from '../src/lib/suite/scheduler.ts';
import {
  resumedCells,
  type RunStatus,
  type RunStore,
  type StoredCell,
  type StoredRun,
} from '../src/lib/suite/runStore.ts';
import { parseCellResult, type CellResult } from '../src/lib/suite/schema.ts';
import { after } from '../src/lib/env/timer.ts';
import {
  DEFAULT_CHECKPOINT_POLICY,
  type CellCheckpoint,
  type CheckpointChannel,
  type CheckpointPolicy,
} from '../src/lib/suite/cellCheckpoint.ts';

export type WorkerPhase = 'starting' | 'idle' | 'busy' | 'restarting' | 'stopped' | 'error';

/** What the page shows per worker. Plain and replaced whole. */
export interface WorkerView {
  index: number;
  phase: WorkerPhase;
  backend: BackendName | null;
  cell: string | null;
  attempt: number;
  fraction: number;
  message: string | null;
}

export interface PoolHooks {
  /** Records just stored (a fit and its derived cells, in one batch). */
  onStored?(cells: StoredCell[]): void;
  /** A worker's view changed (progress posts arrive at most every ~150 ms per worker). */
  onWorker?(view: WorkerView): void;
  /** A worker finished initialising its backend. */
  onBackend?(index: number, report: BackendReport): void;
  /** Something the user should read (a dataset that could not load, dropped records, a pause). */
  onNotice?(text: string): void;
  /** A deep fit's training events on worker `index` (batched with the throttled progress posts). */
  onTraining?(index: number, cell: string, events: readonly TimedTrainingEvent[]): void;
}

export interface PoolOptions {
  size: number;
  backend: BackendPref;
  /** Site base URL for embedded datasets. */
  baseUrl: string;
  store: RunStore;
  /** Makes a worker; tests may substitute. */
  createWorker?: (name: string) => Worker;
  now?: () => number;
  /** Watchdog: a worker silent beyond max(minMs, factor × expected fit time) is recycled. */
  watchdog?: { factor: number; minMs: number } | null;
  /** Test hook: holds the run after a number of fits (FitHold). */
  gate?: FitGate;
  /** The device calibration (ms per work unit) the page estimated the plan with; measured here when absent. */
  msPerUnit?: number;
  /** When a deep fit saves its checkpoint (default every 30 s of training; null: never). */
  checkpointPolicy?: CheckpointPolicy;
  /** Test hook: holds a deep fit once its checkpoint is stored (CheckpointHold). */
  checkpointHold?: CheckpointHold;
}

/**
 * The test hook behind holdAtCheckpoint (window.__racRun): once `n` checkpoints are stored, the
 * fit that saved the n-th waits there, mid-way with its checkpoint in IndexedDB, so a test can
 * close the tab or crash the worker at a known point instead of racing the fit's speed.
 */
export class CheckpointHold {
  #limit: number | null = null;
  #count = 0;
  #waiting = 0;
  #open: () => void = () => {};
  #opened = new Promise<void>((resolve) => (this.#open = resolve));

  /** Hold after `n` more checkpoints are stored (null: never; lifts a hold in place). */
  set(n: number | null): void {
    this.#limit = n;
    this.#count = 0;
    const open = this.#open;
    this.#opened = new Promise<void>((resolve) => (this.#open = resolve));
    open();
  }

  /** True while a fit waits here with its checkpoint stored. */
  get held(): boolean {
    return this.#waiting > 0;
  }

  async saved(_c: CellCheckpoint): Promise<void> {
    if (this.#limit === null) return;
    this.#count++;
    while (this.#limit !== null && this.#count >= this.#limit) {
      this.#waiting++;
      try {
        await this.#opened;
      } finally {
        this.#waiting--;
      }
    }
  }
}

/**
 * The FitGate behind the test hooks holdAfter/release (window.__racRun): a run held after n fits
 * is mid-way by construction, so a test can reload, close the tab or crash a worker there.
 */
export class FitHold implements FitGate {
  #limit: number | null = null;
  #open: () => void = () => {};
  #opened = new Promise<void>((resolve) => (this.#open = resolve));

  limit(): number | null {
    return this.#limit;
  }

  opened(): Promise<void> {
    return this.#opened;
  }

  /** Hold after `limit` fits in all (null: never); lanes waiting look again at once. */
  set(limit: number | null): void {
    this.#limit = limit;
    const open = this.#open;
    this.#opened = new Promise<void>((resolve) => (this.#open = resolve));
    open();
  }
}

export interface PoolOutcome {
  status: Extract<RunStatus, 'done' | 'cancelled' | 'paused'>;
  /** Why the run stopped early (status 'paused'): e.g. no worker could start. */
  reason?: string;
  /** Datasets that could not be loaded, with the reason (their cells are stored as not run). */
  unavailable?: Record<string, string>;
}

/** Generous by default: a fit is only declared hung far beyond its expected time, and never under 2 minutes. */
export const DEFAULT_WATCHDOG = { factor: 30, minMs: 120_000 };

function defaultCreateWorker(name: string): Worker {
  return new Worker(new URL('./bench.worker.ts', import.meta.url), { type: 'module', name });
}

class CrashError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WorkerCrash';
  }
}

/** One worker plus a promise that rejects when it dies. */
class Slot {
  readonly worker: Worker;
  readonly remote: Remote<BenchWorkerApi>;
  readonly died: Promise<never>;
  report: BackendReport | null = null;
  #kill!: (e: Error) => void;

  constructor(create: (name: string) => Worker, name: string) {
    this.worker = create(name);
    this.remote = wrap<BenchWorkerApi>(this.worker);
    this.died = new Promise<never>((_, reject) => {
      this.#kill = reject;
    });
    this.died.catch(() => {}); // observed through Promise.race
    this.worker.addEventListener('error', (e) => {
      e.preventDefault();
      this.#kill(new CrashError(`worker ${name} crashed: ${e.message || 'unknown error'}`));
    });
    this.worker.addEventListener('messageerror', () =>
      this.#kill(new CrashError(`worker ${name}: a message could not be read`)),
    );
  }

  /** Races a call against the worker's death. */
  call<T>(p: Promise<T>): Promise<T> {
    return Promise.race([p, this.died]);
  }

  /** Set once terminated: its comlink proxy is released, and any call on it would throw. */
  terminated = false;

  terminate(reason: string): void {
    this.terminated = true;
    this.#kill(new CrashError(reason));
    try {
      this.remote[releaseProxy]();
    } catch {
      /* already gone */
    }
    this.worker.terminate();
  }
}

/** One bench worker as an executor lane. */
class WorkerLane implements Lane {
  readonly restartable = true;
  slot: Slot | null = null;
  /** What this lane's first worker was started with (a restart on the same backend reuses it). */
  request: WorkerBackendRequest | null = null;

  constructor(
    readonly index: number,
    readonly pool: BenchPool,
    readonly runId: string,
    readonly plan: RunPlanSpec,
    readonly hooks: PoolHooks,
  ) {}

  get backend(): BackendName | null {
    return this.slot?.report?.backend ?? null;
  }

  get resource(): ResourceKind {
    return this.backend === 'webgpu' || this.backend === 'webgl' ? 'gpu' : 'cpu';
  }

  async start(request: WorkerBackendRequest): Promise<void> {
    this.request ??= request;
    this.slot = await this.pool.spawn(this.index, request, this.hooks);
  }

  async run(cell: CellSpec, onProgress: LaneProgress, checkpoints?: CheckpointChannel): Promise<CellResult> {
    const slot = this.slot;
    if (!slot) throw new CrashError(`worker ${this.index + 1} is not running`);
    const listener = proxy((p: CellProgress) => {
      if (p.runId === this.runId && p.key === cell.key) onProgress(p.fraction, p.message, p.training);
    });
    // The checkpoint to resume from goes with the call (copied); saves and notices come back
    // through a proxy, and the worker's fit waits until each save is stored.
    const channel = checkpoints
      ? proxy({
          save: (c: CellCheckpoint) => checkpoints.save(c),
          notice: (text: string) => checkpoints.notice(text),
        })
      : undefined;
    return slot.call(
      slot.remote.runCell(
        cell,
        this.plan,
        this.runId,
        listener,
        checkpoints ? { resumeFrom: checkpoints.resumeFrom, policy: checkpoints.policy } : undefined,
        channel,
      ),
    );
  }

  async restart(backend: string | null, reason: string): Promise<void> {
    const failedOn = this.backend;
    this.slot?.terminate(reason);
    this.slot = null;
    this.pool.countRestart();
    this.hooks.onWorker?.({
      index: this.index,
      phase: 'restarting',
      backend: null,
      cell: null,
      attempt: 0,
      fraction: 0,
      message: reason,
    });
    await this.start(replacementRequest(this.request, this.pool.backendPref, backend, failedOn));
  }

  cancel(): void {
    const slot = this.slot;
    if (!slot || slot.terminated) return;
    void slot.remote.cancel().catch(() => {});
    // An algorithm that never checks its signal must not keep the run alive.
    setTimeout(() => slot.terminate('cancelled'), 1000);
  }

  async close(): Promise<void> {
    const s = this.slot;
    if (!s) return;
    this.slot = null;
    // A cancel that had to terminate a worker stuck in a long step (a software GPU's first step
    // takes seconds) released its proxy: calling it would throw "Proxy has been released".
    if (s.terminated) return;
    await Promise.race([s.remote.dispose().catch(() => {}), new Promise((r) => setTimeout(r, 500))]);
    s.terminate('pool finished');
  }
}

/**
 * The request of worker `index` of a pool: with deep work in the plan, worker 1 takes the user's
 * preference (the GPU lane when it gives a GPU) and the others run beside it; without deep work
 * every worker takes the preference. The role travels with the request so that the worker's
 * reason is the real one (issue 21, item 9: never "You chose WASM" for a choice the pool made).
 */
export function laneRequest(index: number, pref: BackendPref, hasDeep: boolean): WorkerBackendRequest {
  return { pref, role: hasDeep && index > 0 ? { kind: 'beside-gpu' } : { kind: 'main' } };
}

/**
 * The request of a worker that replaces one: on the same backend (or none named) the lane's first
 * request again; on another backend (statistical work after a GPU crash) a replacement's.
 */
export function replacementRequest(
  first: WorkerBackendRequest | null,
  pref: BackendPref,
  backend: string | null,
  failedOn: BackendName | null,
): WorkerBackendRequest {
  const same = first ?? { pref, role: { kind: 'main' } };
  if (backend === null || backend === failedOn || !isBackendName(backend)) return same;
  return { pref, role: { kind: 'replacement', backend, failedOn } };
}

export class BenchPool {
  readonly #opts: PoolOptions;
  #executor: RunExecutor | null = null;
  #lanes: WorkerLane[] = [];
  #ac = new AbortController();
  #backends = new Set<BackendName>();
  #restarts = 0;

  constructor(opts: PoolOptions) {
    if (!Number.isInteger(opts.size) || opts.size < 1) {
      throw new RangeError(`BenchPool: size must be an integer >= 1; got ${opts.size}.`);
    }
    this.#opts = opts;
  }

  #now(): number {
    return (this.#opts.now ?? (() => performance.now()))();
  }

  get backendPref(): BackendPref {
    return this.#opts.backend;
  }

  /** Backends the workers ran on so far. */
  get backends(): BackendName[] {
    return [...this.#backends];
  }

  /** Workers replaced after a crash, a lost GPU device, a leak or the watchdog. */
  get restarts(): number {
    return this.#restarts;
  }

  countRestart(): void {
    this.#restarts++;
  }

  /** Test hook: true while the gate holds the run (its fits taken, none in flight, all stored). */
  get held(): boolean {
    return this.#executor?.held ?? false;
  }

  /** Test hook: make worker `index` crash (an uncaught error in the worker). False when it is not running. */
  simulateCrash(index: number): boolean {
    const slot = this.#lanes[index]?.slot;
    if (!slot) return false;
    void slot.remote.simulateCrash().catch(() => {});
    return true;
  }

  /** Test hook: make worker `index` lose its WebGPU device (false result when it is not on WebGPU). */
  async simulateDeviceLost(index: number): Promise<boolean> {
    const slot = this.#lanes[index]?.slot;
    return slot ? slot.remote.simulateDeviceLost() : false;
  }

  /** Test hook: make worker `index` hang (a synchronous loop that never posts), for the watchdog. */
  simulateHang(index: number): boolean {
    const slot = this.#lanes[index]?.slot;
    if (!slot) return false;
    void slot.remote.simulateHang().catch(() => {});
    return true;
  }

  snapshot(): ProgressSnapshot | null {
    return this.#executor?.snapshot() ?? null;
  }

  async spawn(index: number, request: WorkerBackendRequest, hooks: PoolHooks): Promise<Slot> {
    const create = this.#opts.createWorker ?? defaultCreateWorker;
    const slot = new Slot(create, `bench-${index}`);
    hooks.onWorker?.({
      index,
      phase: 'starting',
      backend: null,
      cell: null,
      attempt: 0,
      fraction: 0,
      message: null,
    });
    slot.report = await slot.call(slot.remote.init(request, { baseUrl: this.#opts.baseUrl }));
    this.#backends.add(slot.report.backend);
    hooks.onBackend?.(index, slot.report);
    return slot;
  }

  /** Runs (or resumes) a stored run until every cell is stored or `cancel` is called. */
  async run(run: StoredRun, hooks: PoolHooks = {}): Promise<PoolOutcome> {
    const { store } = this.#opts;
    const cells = expandPlan(run.plan, isBaselineAlgorithm);
    // Every stored record is checked on its way back in: a bad one is dropped and run again.
    const { kept: stored, rerun: bad } = resumedCells(await store.cells(run.id));
    if (bad.length) {
      await store.deleteCells(run.id, bad);
      hooks.onNotice?.(
        `${bad.length} saved result${bad.length === 1 ? ' was' : 's were'} unreadable and ${bad.length === 1 ? 'is' : 'are'} run again (${bad.slice(0, 3).join(', ')}${bad.length > 3 ? ', …' : ''}); the other ${stored.length} are kept.`,
      );
    }
    const done = new Set(stored.map((c) => c.key));
    // Checkpoints of cells already stored, and of runs that cannot resume, go (bounded storage).
    await store.pruneCheckpoints(run.id, done).catch(() => 0);
    const pending = fitCells(cells).filter((f) => !done.has(f.key)).length;
    const size = Math.min(this.#opts.size, Math.max(1, pending));
    const lanes = Array.from({ length: size }, (_, i) => new WorkerLane(i, this, run.id, run.plan, hooks));
    this.#lanes = lanes;
    // Resource lanes: with deep work in the plan, worker 1 is the GPU lane (the chosen backend) and
    // the others run statistical work on WASM beside it; without, every worker takes the choice.
    const hasDeep = run.plan.algorithms.some((a) => getAlgorithm(a).compute === 'deep');
    const started = await Promise.allSettled(
      lanes.map((l) => l.start(laneRequest(l.index, this.#opts.backend, hasDeep))),
    );
    const failures = started.flatMap((r) => (r.status === 'rejected' ? [errText(r.reason)] : []));
    const live = lanes.filter((_, i) => started[i].status === 'fulfilled');
    if (live.length === 0)
      return { status: 'paused', reason: failures.join(' ') || 'No worker could start.' };
    if (this.#ac.signal.aborted) {
      await Promise.all(live.map((l) => l.close()));
      return { status: 'cancelled' };
    }
    const compute = (a: string) => getAlgorithm(a).compute;
    // The calibration of the estimate before Start, so the first ETA is the one the user saw.
    const msPerUnit = this.#opts.msPerUnit ?? calibrateOnce(() => performance.now()).msPerUnit;
    const executor = new RunExecutor({
      cells,
      stored: stored.map(({ runId: _r, ...c }) => c),
      lanes: live,
      put: (batch) => store.putCells(batch.map((c) => ({ runId: run.id, ...c }))),
      compute,
      cost: (c) => cellCost(c, compute, undefined, planOptionsOf(run.plan), run.plan.subsample),
      msPerUnit,
      validate: parseCellResult,
      clock: {
        now: () => this.#now(),
        after,
      },
      signal: this.#ac.signal,
      watchdog: this.#opts.watchdog === undefined ? DEFAULT_WATCHDOG : this.#opts.watchdog,
      gate: this.#opts.gate,
      checkpoints: {
        store: store.checkpointsOf(run.id),
        policy:
          this.#opts.checkpointPolicy === undefined ? DEFAULT_CHECKPOINT_POLICY : this.#opts.checkpointPolicy,
        saved: this.#opts.checkpointHold ? (c) => this.#opts.checkpointHold!.saved(c) : undefined,
      },
    });
    this.#executor = executor;
    try {
      const outcome = await executor.run({
        onStored: (batch: ExecutedCell[]) => hooks.onStored?.(batch.map((c) => ({ runId: run.id, ...c }))),
        onLane: (v) => hooks.onWorker?.({ ...v, backend: v.backend as BackendName | null }),
        onNotice: (text) => hooks.onNotice?.(text),
        onTraining: (index, cell, events) => hooks.onTraining?.(index, cell, events),
      });
      const unavailable = Object.keys(outcome.unavailable).length ? outcome.unavailable : undefined;
      if (outcome.status === 'cancelled') return { status: 'cancelled', unavailable };
      if (outcome.status === 'paused')
        return {
          status: 'paused',
          reason: [outcome.reason, ...failures].filter(Boolean).join(' '),
          unavailable,
        };
      return { status: 'done', unavailable };
    } finally {
      await Promise.all(lanes.map((l) => l.close()));
      for (const l of lanes)
        hooks.onWorker?.({
          index: l.index,
          phase: 'stopped',
          backend: l.backend,
          cell: null,
          attempt: 0,
          fraction: 0,
          message: null,
        });
    }
  }

  /** Stops the run: aborts the cells in flight, then ends the workers. Cells in flight are not stored. */
  cancel(): void {
    this.#ac.abort();
    for (const lane of this.#lanes) lane.cancel();
  }
}
