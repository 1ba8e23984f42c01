/**
 * The run executor: the one loop that turns a plan into stored records, used by the browser pool
 * (lanes = Web Workers) and the CLI (one in-process lane). It owns what both need:
 *   - resume: finished keys are skipped (the Scheduler), derived baseline cells are filled from
 *     their stored t = 0 record;
 *   - cancel (an AbortSignal), progress snapshots, a cost-weighted ETA and longest-first order
 *     (costModel.ts through the Scheduler);
 *   - resource lanes: GPU work goes to a GPU lane when there is one, CPU lanes take the rest;
 *   - crashes: a crashed lane is restarted and the fit retried; the per-family policy says on
 *     which backend (statistical work may fall back to WASM; a deep fit never silently changes
 *     backend: it retries on the GPU, then the run pauses with a message);
 *   - a watchdog: a lane silent (no progress) far beyond the fit's expected time is restarted
 *     and the fit retried;
 *   - validation: every record is checked before it is stored; a record that fails, or a fit
 *     that leaked tensors, is stored as failed and the lane recycled;
 *   - a dataset that cannot load fails once: its waiting cells are stored as "not run" with the
 *     reason, and leave the ETA;
 *   - deep fits that survive: with a CheckpointStore, a deep fit saves its checkpoint as it trains
 *     (cellCheckpoint.ts), a fit that runs again (a crash, a reload, a rerun) resumes from it, and
 *     it is deleted once the cell's record is stored; a store that fails turns saving off, in words.
 * Pure orchestration: no workers, storage or timers of its own (all injected), so Node tests pin
 * every rule down.
 */
import type { TimedTrainingEvent } from '../models/trainingEvent.ts';
import {
  MAX_CHECKPOINT_BYTES,
  megabytes,
  saveFailureText,
  type CellCheckpoint,
  type CheckpointChannel,
  type CheckpointPolicy,
  type CheckpointStore,
} from './cellCheckpoint.ts';
import type { CellSpec } from './plan.ts';
import { deriveBaselineCell } from './runCell.ts';
import { Scheduler, type ProgressSnapshot } from './scheduler.ts';
import type { CellResult } from './schema.ts';

export type ResourceKind = 'gpu' | 'cpu';
/**
 * How a fit runs (the catalogue's `compute`): 'deep' work goes to the GPU lane and never moves to
 * another backend on its own; 'statistical' work may run on any lane and fall back to WASM.
 */
export type Compute = 'statistical' | 'deep';

/** A finished plan cell as stored (IndexedDB row without the run id, or a CLI journal entry). */
export interface ExecutedCell {
  key: string;
  status: CellResult['outcome']['status'];
  /** The record; null when none could be made (crashed twice, dataset unavailable). */
  result: CellResult | null;
  /** Why it failed (or the record's own reason). */
  error: string | null;
  attempts: number;
}

/** One place fits run: a Web Worker, or the CLI's own process. */
export interface Lane {
  readonly index: number;
  /** 'gpu' when this lane's backend is a GPU (WebGPU/WebGL); GPU work prefers it. */
  readonly resource: ResourceKind;
  /** The backend it runs on now (recorded; 'wasm', 'webgpu', …), null before it started. */
  readonly backend: string | null;
  /** Whether a hung fit can be stopped from outside (a worker can be terminated; the CLI's own thread cannot). */
  readonly restartable: boolean;
  /**
   * Runs one fit. Throws AbortError when cancelled, a crash (see isCrash) when the lane died.
   * `training`: a deep fit's step events since the last call (bounded, throttled by the lane).
   * `checkpoints`: a deep fit's checkpoint channel (resume from, save to), when the run keeps them.
   */
  run(cell: CellSpec, onProgress: LaneProgress, checkpoints?: CheckpointChannel): Promise<CellResult>;
  /** Replaces the lane's worker, on `backend` (null: the lane's default). */
  restart(backend: string | null, reason: string): Promise<void>;
  /** Aborts the running fit. */
  cancel(): void;
  close(): Promise<void>;
}

export type LaneProgress = (
  fraction: number,
  message?: string,
  training?: readonly TimedTrainingEvent[],
) => void;

export interface ExecutorHooks {
  /** Records just stored (a fit and its derived cells, or a dataset's "not run" cells). */
  onStored?(cells: ExecutedCell[]): void;
  /** A lane's state changed. */
  onLane?(view: LaneView): void;
  /** A notice for the user (a dataset that could not load, a dropped record, a pause). */
  onNotice?(text: string): void;
  /** A deep fit's training events (after the lane's busy view of `cell`); nothing is kept here. */
  onTraining?(lane: number, cell: string, events: readonly TimedTrainingEvent[]): void;
}

export type LanePhase = 'idle' | 'busy' | 'restarting' | 'stopped';

export interface LaneView {
  index: number;
  phase: LanePhase;
  backend: string | null;
  cell: string | null;
  attempt: number;
  fraction: number;
  message: string | null;
}

export interface Clock {
  now(): number;
  /** Calls `fn` after `ms`; returns a function that cancels it. */
  after(ms: number, fn: () => void): () => void;
}

export interface ExecutorOptions {
  /** The plan's cells (or one shard's). */
  cells: readonly CellSpec[];
  /** Records already stored (resume). Must be valid: the caller drops unreadable ones first. */
  stored: readonly ExecutedCell[];
  lanes: readonly Lane[];
  /** Stores a batch durably before it counts as done (IndexedDB transaction, journal line + fsync). */
  put(batch: ExecutedCell[]): Promise<void>;
  compute(algorithm: string): Compute;
  /** Work units of a fit (costModel.ts); ordering and ETA. */
  cost?(cell: CellSpec): number;
  /** Device calibration (ms per work unit): ETA before any fit ends, and the watchdog. */
  msPerUnit?: number;
  /** Checks a record before it is stored; throws with the reason when it is not valid. */
  validate?(result: CellResult): CellResult;
  clock: Clock;
  signal?: AbortSignal;
  /** Tries per fit after crashes (2 = one retry). */
  maxAttempts?: number;
  /** Watchdog: a lane silent beyond max(minMs, factor × expected fit time) is restarted. */
  watchdog?: { factor: number; minMs: number } | null;
  /** Test hook: hold the run after a number of fits (FitGate). */
  gate?: FitGate;
  /** Deep fits' checkpoints: where they are kept and when a fit saves (none: deep fits never resume). */
  checkpoints?: ExecutorCheckpoints;
}

export interface ExecutorCheckpoints {
  store: CheckpointStore;
  policy: CheckpointPolicy;
  /**
   * Test hook, awaited after each checkpoint is stored (the fit waits meanwhile): a test holds a
   * fit here, mid-way with its checkpoint stored, to close the tab or kill the process.
   */
  saved?(c: CellCheckpoint): Promise<void>;
}

/**
 * A test hook that holds a run at a known point instead of a moment in time: once `limit()` fits
 * have been taken, lanes wait before taking another until `opened()` resolves (or the run stops).
 * Nothing is in flight while held, so a reload, a closed tab or a crashed worker then meets a run
 * that is mid-way by construction, whatever the machine's speed.
 */
export interface FitGate {
  /** Fits that may be taken before the lanes wait; null = no limit. Read before each fit. */
  limit(): number | null;
  /** Resolves when the limit is lifted or raised. */
  opened(): Promise<void>;
}

export interface ExecutorOutcome {
  status: 'done' | 'cancelled' | 'paused';
  reason?: string;
  /** Datasets that could not load, with the reason (their cells are stored as "not run"). */
  unavailable: Record<string, string>;
}

/** Errors after which the lane is gone: run the fit again on a fresh one. */
export function isCrash(e: unknown): boolean {
  const name = (e as { name?: string } | null)?.name;
  return name === 'WorkerCrash' || name === 'DeviceLostError' || name === 'WatchdogTimeout';
}

function isAbort(e: unknown): boolean {
  return (e as { name?: string } | null)?.name === 'AbortError';
}

/** A dataset that could not be loaded (download, hash, parse): no other cell of it can run either. */
export function isDatasetUnavailable(e: unknown): boolean {
  const err = e as { name?: string; message?: string } | null;
  return err?.name === 'DatasetError' || /^DatasetError: /.test(err?.message ?? '');
}

export function errText(e: unknown): string {
  return e instanceof Error || (typeof e === 'object' && e !== null && 'message' in e)
    ? `${(e as Error).name}: ${(e as Error).message}`
    : String(e);
}

/** What a record says about a tensor leak (runCell fails such a fit with this in its reason). */
export function reportsLeak(r: CellResult): boolean {
  return r.outcome.status === 'failed' && /\bleak/i.test(r.outcome.reason ?? '');
}

/**
 * After a crash, where the fit runs next. Statistical work may leave the GPU for WASM; a deep fit
 * must not change backend behind the user's back: it retries on the same backend.
 */
export function fallbackBackend(compute: Compute, failed: string | null): string | null {
  if (compute === 'deep') return failed;
  return failed === 'webgpu' || failed === 'webgl' ? 'wasm' : failed;
}

export class WatchdogTimeout extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WatchdogTimeout';
  }
}

/** The "not run" text of a dataset that could not load. */
export function unavailableText(dataset: string, reason: string): string {
  return `not run: ${dataset} unavailable (${reason})`;
}

export function executedCell(
  key: string,
  result: CellResult | null,
  error: string | null,
  attempts: number,
): ExecutedCell {
  const status = result ? result.outcome.status : 'failed';
  return {
    key,
    status,
    result,
    error: error ?? (status === 'failed' ? (result?.outcome.reason ?? null) : null),
    attempts,
  };
}

export function derivedExecuted(t0: ExecutedCell, d: CellSpec): ExecutedCell {
  return { ...t0, key: d.key, result: t0.result ? deriveBaselineCell(t0.result, d) : null };
}

export class RunExecutor {
  readonly scheduler: Scheduler;
  readonly #o: ExecutorOptions;
  readonly #unavailable: Record<string, string> = {};
  readonly #storedByKey: Map<string, ExecutedCell>;
  #pauseReason: string | null = null;
  readonly #hasGpuLane: boolean;
  /** Datasets a fit has loaded (any record came back): their fits run on every lane. */
  readonly #loaded = new Set<string>();
  /**
   * Datasets whose first fit is in flight and has not started training: other lanes wait, so one
   * that cannot load fails once.
   */
  readonly #probing = new Set<string>();
  #wakers: (() => void)[] = [];
  /** Fits taken past the gate (FitGate), and lanes now waiting at it. */
  #fitsTaken = 0;
  #atGate = 0;
  /** Set once a checkpoint could not be stored: no fit of this run saves again (said once). */
  #checkpointsOff = false;

  constructor(opts: ExecutorOptions) {
    this.#o = opts;
    this.#storedByKey = new Map(opts.stored.map((c) => [c.key, c]));
    this.scheduler = new Scheduler(opts.cells, this.#storedByKey.keys(), {
      maxAttempts: opts.maxAttempts,
      failed: opts.stored.filter((c) => c.status === 'failed').map((c) => c.key),
      cost: opts.cost,
      msPerUnit: opts.msPerUnit,
      lanes: opts.lanes.length,
    });
    this.#hasGpuLane = opts.lanes.some((l) => l.resource === 'gpu');
  }

  get unavailable(): Record<string, string> {
    return { ...this.#unavailable };
  }

  snapshot(): ProgressSnapshot {
    return this.scheduler.snapshot(this.#o.clock.now());
  }

  async run(hooks: ExecutorHooks = {}): Promise<ExecutorOutcome> {
    await this.#fillOrphans(hooks);
    const lanes = this.#o.lanes;
    const reasons: string[] = [];
    await Promise.all(
      lanes.map((lane) =>
        this.#laneLoop(lane, hooks).catch((e) => {
          reasons.push(errText(e));
        }),
      ),
    );
    const unavailable = this.unavailable;
    if (this.#o.signal?.aborted) return { status: 'cancelled', unavailable };
    if (this.#pauseReason) return { status: 'paused', reason: this.#pauseReason, unavailable };
    if (!this.scheduler.finished)
      return { status: 'paused', reason: reasons.join(' ') || 'The workers stopped early.', unavailable };
    return { status: 'done', unavailable };
  }

  /** Derived cells whose t = 0 record was stored before an interruption: filled without a fit. */
  async #fillOrphans(hooks: ExecutorHooks): Promise<void> {
    const out: ExecutedCell[] = [];
    for (const d of this.scheduler.orphans()) {
      const t0 = this.#storedByKey.get(d.derivedFromKey!);
      if (t0) out.push(derivedExecuted(t0, d));
    }
    if (out.length === 0) return;
    await this.#put(out);
    for (const c of out) this.scheduler.markDone(c.key, c.status === 'failed');
    hooks.onStored?.(out);
  }

  /**
   * What `lane` may take now. GPU work goes to a GPU lane when the run has one (a GPU lane takes
   * CPU work too); a dataset's first fit runs alone until it has loaded.
   */
  #accepts(lane: Lane): (cell: CellSpec) => boolean {
    const gpuOnly = this.#hasGpuLane && lane.resource !== 'gpu';
    return (cell) =>
      (!gpuOnly || this.#o.compute(cell.algorithm) !== 'deep') &&
      !(cell.dataset in this.#unavailable) &&
      (this.#loaded.has(cell.dataset) || !this.#probing.has(cell.dataset));
  }

  /** Something finished or went back to the queue: lanes waiting for work look again. */
  #wake(): void {
    const w = this.#wakers;
    this.#wakers = [];
    for (const f of w) f();
  }

  #changed(): Promise<void> {
    return new Promise((resolve) => this.#wakers.push(resolve));
  }

  /** The next fit for `lane`; waits while fits are in flight that may unblock one; null when none is left for it. */
  async #nextFor(lane: Lane): Promise<CellSpec | null> {
    for (;;) {
      if (this.#stopped()) return null;
      const cell = this.scheduler.next(lane.index, this.#o.clock.now(), this.#accepts(lane));
      if (cell) {
        if (!this.#loaded.has(cell.dataset)) this.#probing.add(cell.dataset);
        return cell;
      }
      if (this.scheduler.pending === 0 || this.scheduler.inFlight().length === 0) return null;
      await this.#changed();
    }
  }

  /** A fit of `dataset` ended without a dataset error: the dataset loads. */
  #datasetLoaded(dataset: string): void {
    this.#loaded.add(dataset);
    this.#probing.delete(dataset);
  }

  #stopped(): boolean {
    return Boolean(this.#o.signal?.aborted) || this.#pauseReason !== null;
  }

  /** True while the gate holds the run: its limit is reached, a lane waits and no fit is in flight. */
  get held(): boolean {
    const limit = this.#o.gate?.limit() ?? null;
    return (
      limit !== null && this.#fitsTaken >= limit && this.#atGate > 0 && this.scheduler.inFlight().length === 0
    );
  }

  /** Waits at the gate while its limit is reached; false when the run stopped meanwhile. */
  async #passGate(): Promise<boolean> {
    const gate = this.#o.gate;
    if (!gate) return true;
    for (;;) {
      if (this.#stopped()) return false;
      const limit = gate.limit();
      if (limit === null || this.#fitsTaken < limit) {
        this.#fitsTaken++; // taken before any await, so two lanes never pass on the same count
        return true;
      }
      this.#atGate++;
      const signal = this.#o.signal;
      let onAbort = () => {};
      const stopped = new Promise<void>((resolve) => (onAbort = resolve));
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        await Promise.race([gate.opened(), stopped]);
      } finally {
        // Each wait adds a listener: take it off again, or a long held run piles them up.
        signal?.removeEventListener('abort', onAbort);
        this.#atGate--;
      }
    }
  }

  async #laneLoop(lane: Lane, hooks: ExecutorHooks): Promise<void> {
    const { scheduler } = this;
    const view = (patch: Partial<LaneView>) =>
      hooks.onLane?.({
        index: lane.index,
        phase: 'idle',
        backend: lane.backend,
        cell: null,
        attempt: 0,
        fraction: 0,
        message: null,
        ...patch,
      });
    try {
      while (!this.#stopped()) {
        if (!(await this.#passGate())) break;
        const cell = await this.#nextFor(lane);
        if (!cell) break;
        for (;;) {
          const attempt = scheduler.attempt(cell.key);
          view({ phase: 'busy', cell: cell.key, attempt });
          try {
            // Progress travels on its own channel and may land after the result: a late post
            // still brings its training events, but no longer marks the lane busy.
            let returned = false;
            const checkpoints = await this.#checkpointChannel(cell, hooks);
            const result = await this.#runWatched(lane, cell, checkpoints, (fraction, message, training) => {
              // The ETA counts the reported part of a fit in flight (scheduler ignores late posts).
              scheduler.progress(cell.key, fraction);
              if (!returned)
                view({ phase: 'busy', cell: cell.key, attempt, fraction, message: message ?? null });
              if (training?.length) {
                // A fit that trains has its data: the other lanes need not wait for it to end (a
                // deep fit takes minutes to hours, and the dataset's other fits would idle behind it).
                if (!this.#loaded.has(cell.dataset)) {
                  this.#datasetLoaded(cell.dataset);
                  this.#wake();
                }
                hooks.onTraining?.(lane.index, cell.key, training);
              }
            }).finally(() => {
              returned = true;
            });
            let checked: CellResult;
            try {
              checked = this.#o.validate ? this.#o.validate(result) : result;
            } catch (e) {
              await this.#record(
                cell,
                null,
                `The fit returned an invalid record: ${(e as Error).message}`,
                attempt,
                hooks,
              );
              await lane.restart(lane.backend, 'invalid record');
              break;
            }
            await this.#record(cell, checked, null, attempt, hooks);
            // A fit that leaked tensors fails (runCell says so); its worker's memory is not trusted.
            if (reportsLeak(checked)) await lane.restart(lane.backend, 'tensor leak');
            break;
          } catch (e) {
            if (this.#o.signal?.aborted || isAbort(e)) {
              scheduler.release(cell.key);
              this.#probing.delete(cell.dataset);
              this.#wake();
              return;
            }
            if (isDatasetUnavailable(e)) {
              await this.#datasetUnavailable(cell, (e as Error).message, attempt, hooks);
              break;
            }
            if (!isCrash(e)) {
              // The cell itself could not run (bad split, model error): record it and go on.
              await this.#record(cell, null, errText(e), attempt, hooks);
              break;
            }
            const compute = this.#o.compute(cell.algorithm);
            const failedOn = lane.backend;
            view({ phase: 'restarting', cell: cell.key, attempt, message: errText(e) });
            const decision = scheduler.crashed(cell.key);
            if (decision === 'give-up' && compute === 'deep') {
              // Never record a deep fit as failed because its GPU lane died twice, nor move it to WASM.
              scheduler.release(cell.key);
              this.#wake();
              this.#pauseReason =
                `${cell.key} crashed ${attempt} times on ${failedOn ?? 'its backend'} (${errText(e)}). ` +
                'A deep fit does not move to another backend on its own: resume the run to try it on the GPU again.';
              hooks.onNotice?.(this.#pauseReason);
              await lane.restart(failedOn, 'replaced after a crash').catch(() => {});
              return;
            }
            await lane.restart(fallbackBackend(compute, failedOn), 'replaced after a crash');
            if (decision === 'give-up') {
              await this.#record(cell, null, `Crashed twice: ${errText(e)}`, attempt, hooks);
              break;
            }
          }
        }
        view({ phase: 'idle' });
      }
    } finally {
      view({ phase: 'stopped' });
      this.#wake();
    }
  }

  /**
   * A deep fit's checkpoint channel: the stored checkpoint of its cell (a store that cannot read it
   * gives none, with a notice), the run's policy (off once a save failed), and a save that never
   * fails the fit: too large a checkpoint is skipped, a store error turns saving off for the run.
   */
  async #checkpointChannel(cell: CellSpec, hooks: ExecutorHooks): Promise<CheckpointChannel | undefined> {
    const ck = this.#o.checkpoints;
    if (!ck || this.#o.compute(cell.algorithm) !== 'deep') return undefined;
    const notice = (text: string) => hooks.onNotice?.(text);
    let resumeFrom: CellCheckpoint | null = null;
    try {
      resumeFrom = await ck.store.load(cell.key);
    } catch (e) {
      notice(
        `${cell.key}: its saved checkpoint could not be read (${errText(e)}); the fit starts from step 0.`,
      );
    }
    let tooLarge = false;
    return {
      resumeFrom,
      policy: this.#checkpointsOff ? null : ck.policy,
      notice,
      save: async (c) => {
        if (this.#checkpointsOff || tooLarge) return;
        if (c.bytes > MAX_CHECKPOINT_BYTES) {
          tooLarge = true;
          notice(
            `${c.key}: its checkpoint (${megabytes(c.bytes)}) is over the ${megabytes(MAX_CHECKPOINT_BYTES)} a run keeps per fit, so this fit is not checkpointed; it runs on, but an interruption restarts it.`,
          );
          return;
        }
        try {
          await ck.store.save(c);
        } catch (e) {
          this.#checkpointsOff = true;
          notice(saveFailureText(c.key, c.bytes, e));
          return;
        }
        await ck.saved?.(c);
      },
    };
  }

  /** Deletes the checkpoints of fits whose records are stored (a failure leaves a stale one: harmless). */
  async #dropCheckpoints(cell: CellSpec): Promise<void> {
    const ck = this.#o.checkpoints;
    if (!ck || this.#o.compute(cell.algorithm) !== 'deep') return;
    try {
      await ck.store.remove([cell.key]);
    } catch {
      // Never resumed from (its cell is done) and pruned when the run resumes or is deleted.
    }
  }

  /** Runs a fit; a restartable lane that stays silent too long is failed with WatchdogTimeout. */
  #runWatched(
    lane: Lane,
    cell: CellSpec,
    checkpoints: CheckpointChannel | undefined,
    onProgress: LaneProgress,
  ): Promise<CellResult> {
    const wd = this.#o.watchdog;
    if (!wd || !lane.restartable) return lane.run(cell, onProgress, checkpoints);
    const expected = this.scheduler.costOf(cell.key) * (this.#o.msPerUnit ?? 0);
    const limit = Math.max(wd.minMs, wd.factor * expected);
    return new Promise<CellResult>((resolve, reject) => {
      let cancel = () => {};
      let settled = false;
      const arm = () => {
        cancel();
        cancel = this.#o.clock.after(limit, () => {
          if (settled) return;
          settled = true;
          reject(
            new WatchdogTimeout(
              `lane ${lane.index} was silent for ${Math.round(limit / 1000)} s on ${cell.key} (expected about ${Math.max(1, Math.round(expected / 1000))} s); restarted`,
            ),
          );
        });
      };
      arm();
      lane
        .run(
          cell,
          (f, m, training) => {
            if (!settled) arm();
            onProgress(f, m, training);
          },
          checkpoints,
        )
        .then(
          (r) => {
            if (!settled) {
              settled = true;
              cancel();
              resolve(r);
            }
          },
          (e) => {
            if (!settled) {
              settled = true;
              cancel();
              reject(e);
            }
          },
        );
    });
  }

  /**
   * Stores a batch. Storage that fails (the browser's storage cleared under the run, a full disk)
   * stops every lane, with the store's own words as the reason: the other lanes' fits could not
   * be stored either, and one clear sentence beats one per lane.
   */
  async #put(batch: ExecutedCell[]): Promise<void> {
    try {
      await this.#o.put(batch);
    } catch (e) {
      this.#pauseReason ??= errText(e);
      this.#wake();
      throw e;
    }
  }

  /** Stores a fit's record with its derived baseline cells in one batch, then counts them. */
  async #record(
    cell: CellSpec,
    result: CellResult | null,
    error: string | null,
    attempts: number,
    hooks: ExecutorHooks,
  ): Promise<void> {
    const own = executedCell(cell.key, result, error, attempts);
    if (!(cell.dataset in this.#unavailable)) this.#datasetLoaded(cell.dataset);
    // A plan without t = 0 has no cell for a baseline's fit itself, only for its derived cells.
    const batch: ExecutedCell[] = this.scheduler.isPlanKey(cell.key) ? [own] : [];
    for (const d of this.scheduler.derivedPending(cell.key)) batch.push(derivedExecuted(own, d));
    await this.#put(batch);
    await this.#dropCheckpoints(cell);
    this.scheduler.complete(cell.key, own.status === 'failed');
    hooks.onStored?.(batch);
    this.#wake();
  }

  /** The dataset of `cell` cannot load: this fit and every waiting fit of it are stored as not run, once. */
  async #datasetUnavailable(
    cell: CellSpec,
    reason: string,
    attempts: number,
    hooks: ExecutorHooks,
  ): Promise<void> {
    const ds = cell.dataset;
    const text = unavailableText(ds, reason);
    this.#probing.delete(ds);
    const first = !(ds in this.#unavailable);
    this.#unavailable[ds] = reason;
    // Out of the queue before any await, so no other lane starts one of them.
    const match = (c: CellSpec) => c.dataset === ds;
    const batch: ExecutedCell[] = [];
    for (const f of this.scheduler.queued().filter(match)) {
      const own = executedCell(f.key, null, text, 0);
      if (this.scheduler.isPlanKey(f.key)) batch.push(own);
      for (const d of this.scheduler.derivedPending(f.key)) batch.push(derivedExecuted(own, d));
    }
    this.scheduler.failQueued(match);
    if (first) hooks.onNotice?.(`${ds} could not be loaded; its cells are not run. ${reason}`);
    await this.#record(cell, null, text, attempts, hooks);
    if (batch.length === 0) return;
    await this.#put(batch);
    hooks.onStored?.(batch);
    this.#wake();
  }
}

/** The "not run" cells of a run's records: key → reason (for progress, table, charts, exports). */
export function failureList(cells: readonly ExecutedCell[]): { key: string; reason: string }[] {
  return cells.filter((c) => c.status === 'failed').map((c) => ({ key: c.key, reason: c.error ?? 'failed' }));
}
