/**
 * The worker pool: N bench workers take fits from the Scheduler; every finished fit is written to
 * the RunStore at once (with its derived baseline cells), so a reload loses only cells in flight.
 *
 * Failures: a cell whose fit fails comes back as a 'failed' record and the run goes on. A worker
 * that crashes, or loses its GPU device mid-cell, is replaced by a fresh worker on a fallback
 * backend and the cell runs once more there; a second crash records the cell as failed.
 */
import { proxy, releaseProxy, wrap, type Remote } from 'comlink';
import type { BenchWorkerApi, CellProgress } from './bench.worker.ts';
import type { BackendName, BackendPref, BackendReport } from '../src/lib/env/device.ts';
import { isBaselineAlgorithm } from '../src/lib/models/registry.ts';
import { expandPlan, type CellSpec } from '../src/lib/suite/plan.ts';
import { deriveBaselineCell } from '../src/lib/suite/runCell.ts';
import { Scheduler, type ProgressSnapshot } from '../src/lib/suite/scheduler.ts';
import type { RunStatus, RunStore, StoredCell, StoredRun } from '../src/lib/suite/runStore.ts';
import type { CellResult } from '../src/lib/suite/schema.ts';

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
}

export interface PoolOutcome {
  status: Extract<RunStatus, 'done' | 'cancelled' | 'paused'>;
  /** Why the run stopped early (status 'paused'): e.g. no worker could start. */
  reason?: string;
}

function defaultCreateWorker(name: string): Worker {
  return new Worker(new URL('./bench.worker.ts', import.meta.url), { type: 'module', name });
}

/** After a crash: leave the GPU for wasm; otherwise the same backend on a fresh worker. */
export function fallbackBackend(b: BackendName | null, pref: BackendPref): BackendPref {
  if (b === 'webgpu' || b === 'webgl') return 'wasm';
  return b ?? pref;
}

class CrashError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WorkerCrash';
  }
}

function isCrash(e: unknown): boolean {
  const name = (e as { name?: string } | null)?.name;
  return name === 'WorkerCrash' || name === 'DeviceLostError';
}

function errText(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
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
    this.died = new Promise<never>((_, reject) => { this.#kill = reject; });
    this.died.catch(() => {}); // observed through Promise.race
    this.worker.addEventListener('error', (e) => {
      e.preventDefault();
      this.#kill(new CrashError(`worker ${name} crashed: ${e.message || 'unknown error'}`));
    });
    this.worker.addEventListener('messageerror', () => this.#kill(new CrashError(`worker ${name}: a message could not be read`)));
  }

  /** Races a call against the worker's death. */
  call<T>(p: Promise<T>): Promise<T> {
    return Promise.race([p, this.died]);
  }

  terminate(reason: string): void {
    this.#kill(new CrashError(reason));
    try { this.remote[releaseProxy](); } catch { /* already gone */ }
    this.worker.terminate();
  }
}

export class BenchPool {
  readonly #opts: Required<Omit<PoolOptions, 'createWorker' | 'now'>> & Pick<PoolOptions, 'createWorker' | 'now'>;
  #scheduler: Scheduler | null = null;
  #slots: (Slot | null)[] = [];
  #cancelled = false;
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

  /** Backends the workers ran on so far. */
  get backends(): BackendName[] {
    return [...this.#backends];
  }

  /** Workers replaced after a crash or a lost GPU device. */
  get restarts(): number {
    return this.#restarts;
  }

  /** Test hook: make worker `index` crash (an uncaught error in the worker). False when it is not running. */
  simulateCrash(index: number): boolean {
    const slot = this.#slots[index];
    if (!slot) return false;
    void slot.remote.simulateCrash().catch(() => {});
    return true;
  }

  /** Test hook: make worker `index` lose its WebGPU device (false result when it is not on WebGPU). */
  async simulateDeviceLost(index: number): Promise<boolean> {
    const slot = this.#slots[index];
    return slot ? slot.remote.simulateDeviceLost() : false;
  }

  snapshot(): ProgressSnapshot | null {
    return this.#scheduler?.snapshot(this.#now()) ?? null;
  }

  /** Runs (or resumes) a stored run until every cell is stored or `cancel` is called. */
  async run(run: StoredRun, hooks: PoolHooks = {}): Promise<PoolOutcome> {
    const { store } = this.#opts;
    const cells = expandPlan(run.plan, isBaselineAlgorithm);
    const stored = await store.cells(run.id);
    const scheduler = new Scheduler(cells, stored.map((c) => c.key), {
      failed: stored.filter((c) => c.status === 'failed').map((c) => c.key),
    });
    this.#scheduler = scheduler;
    await this.#fillOrphans(run, scheduler, hooks);
    const size = Math.min(this.#opts.size, Math.max(1, scheduler.pending));
    const reasons: string[] = [];
    await Promise.all(Array.from({ length: size }, (_, i) => this.#slotLoop(i, run, scheduler, hooks).catch((e) => {
      reasons.push(errText(e));
    })));
    if (this.#cancelled) return { status: 'cancelled' };
    if (!scheduler.finished) return { status: 'paused', reason: reasons.join(' ') || 'The workers stopped early.' };
    return { status: 'done' };
  }

  /** Stops the run: aborts the cells in flight, then ends the workers. Cells in flight are not stored. */
  cancel(): void {
    this.#cancelled = true;
    for (const slot of this.#slots) {
      if (!slot) continue;
      void slot.remote.cancel().catch(() => {});
      // An algorithm that never checks its signal must not keep the run alive.
      setTimeout(() => slot.terminate('cancelled'), 1000);
    }
  }

  /** Derived cells whose t = 0 record was stored before a reload, filled without a fit. */
  async #fillOrphans(run: StoredRun, scheduler: Scheduler, hooks: PoolHooks): Promise<void> {
    const orphans = scheduler.orphans();
    if (orphans.length === 0) return;
    const out: StoredCell[] = [];
    for (const d of orphans) {
      const t0 = await this.#opts.store.getCell(run.id, d.derivedFromKey!);
      if (t0) out.push(derivedStored(t0, d));
    }
    await this.#opts.store.putCells(out);
    for (const c of out) scheduler.markDone(c.key, c.status === 'failed');
    hooks.onStored?.(out);
  }

  async #spawn(index: number, pref: BackendPref, hooks: PoolHooks): Promise<Slot> {
    const create = this.#opts.createWorker ?? defaultCreateWorker;
    const slot = new Slot(create, `bench-${index}`);
    this.#slots[index] = slot;
    slot.report = await slot.call(slot.remote.init(pref, { baseUrl: this.#opts.baseUrl }));
    this.#backends.add(slot.report.backend);
    hooks.onBackend?.(index, slot.report);
    return slot;
  }

  async #slotLoop(index: number, run: StoredRun, scheduler: Scheduler, hooks: PoolHooks): Promise<void> {
    const view = (patch: Partial<WorkerView>, slot: Slot | null) => hooks.onWorker?.({
      index, phase: 'idle', backend: slot?.report?.backend ?? null, cell: null, attempt: 0, fraction: 0, message: null, ...patch,
    });
    view({ phase: 'starting' }, null);
    let slot: Slot | null = await this.#spawn(index, this.#opts.backend, hooks);
    try {
      while (!this.#cancelled) {
        const cell = scheduler.next(index, this.#now());
        if (!cell) break;
        // A crashed try is retried here, on this slot's fresh worker.
        for (;;) {
          const attempt = scheduler.attempt(cell.key);
          view({ phase: 'busy', cell: cell.key, attempt }, slot);
          const onProgress = proxy((p: CellProgress) => {
            if (p.runId === run.id && p.key === cell.key) view({ phase: 'busy', cell: cell.key, attempt, fraction: p.fraction, message: p.message ?? null }, slot);
          });
          try {
            const result = await slot.call(slot.remote.runCell(cell, run.plan, run.id, onProgress));
            await this.#record(run, scheduler, cell, result, null, attempt, hooks);
            break;
          } catch (e) {
            if (this.#cancelled) {
              scheduler.release(cell.key);
              return;
            }
            if (!isCrash(e)) {
              // The cell itself could not run (dataset missing, bad split): record and go on.
              await this.#record(run, scheduler, cell, null, errText(e), attempt, hooks);
              break;
            }
            const failedBackend = slot.report?.backend ?? null;
            slot.terminate('replaced after a crash');
            this.#restarts++;
            view({ phase: 'restarting', cell: cell.key, attempt, message: errText(e) }, slot);
            const decision = scheduler.crashed(cell.key);
            slot = null;
            slot = await this.#spawn(index, fallbackBackend(failedBackend, this.#opts.backend), hooks);
            if (decision === 'give-up') {
              await this.#record(run, scheduler, cell, null, `Crashed twice: ${errText(e)}`, attempt, hooks);
              break;
            }
          }
        }
        view({ phase: 'idle' }, slot);
      }
    } finally {
      view({ phase: 'stopped' }, slot);
      if (slot) {
        const s = slot;
        await Promise.race([s.remote.dispose().catch(() => {}), new Promise((r) => setTimeout(r, 500))]);
        s.terminate('pool finished');
      }
      this.#slots[index] = null;
    }
  }

  /** Stores a fit's record and its derived baseline cells in one transaction, then counts them. */
  async #record(run: StoredRun, scheduler: Scheduler, cell: CellSpec, result: CellResult | null, error: string | null,
    attempts: number, hooks: PoolHooks): Promise<void> {
    const own = storedCell(run.id, cell.key, result, error, attempts);
    // A plan without t = 0 has no cell for a baseline's fit itself, only for its derived cells.
    const batch: StoredCell[] = scheduler.isPlanKey(cell.key) ? [own] : [];
    for (const d of scheduler.derivedPending(cell.key)) batch.push(derivedStored(own, d));
    await this.#opts.store.putCells(batch);
    scheduler.complete(cell.key, own.status === 'failed');
    hooks.onStored?.(batch);
  }
}

function storedCell(runId: string, key: string, result: CellResult | null, error: string | null, attempts: number): StoredCell {
  const status = result ? result.outcome.status : 'failed';
  return { runId, key, status, result, error: error ?? (status === 'failed' ? result?.outcome.reason ?? null : null), attempts };
}

function derivedStored(t0: StoredCell, d: CellSpec): StoredCell {
  return { ...t0, key: d.key, result: t0.result ? deriveBaselineCell(t0.result, d) : null };
}
