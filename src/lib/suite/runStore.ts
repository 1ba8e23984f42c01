/**
 * Run checkpoints in IndexedDB: its own database 'rac-bench-runs' (the datasets database is
 * separate), with two stores per suite:
 *   runs         one StoredRun per tabular run: the plan, status, times and environment;
 *   cells        one StoredCell per finished plan cell, keyed [runId, key], written the moment the
 *                cell finishes, so closing the tab loses at most the cells in flight;
 *   modal-runs   one StoredModalRun per image/text run (its `rsb-run/3` plan and environment);
 *   modal-cells  its finished `rsb-cell/3` records, keyed [runId, key], written as each finishes;
 *   checkpoints  the latest checkpoint of each deep fit in flight (cellCheckpoint.ts), keyed
 *                [runId, key], replaced at each save and deleted once the cell's record is stored.
 * A run resumes by skipping the keys already stored, and a deep fit from its checkpoint.
 */
import { openDB, type IDBPDatabase } from 'idb';
import type { RunPlanSpec } from './plan.ts';
import { validatePlan } from './presets.ts';
import {
  parseCellResult,
  RUN_SCHEMA,
  RunPlanSchema,
  type CellResult,
  type RunEnv,
  type RunRecord,
} from './schema.ts';
import { parseWith } from './schemaParts.ts';
import type { ModalCellResult, ModalRunPlan, ModalRunRecord } from './schemaV3.ts';
import type { CellCheckpoint, CheckpointStore } from './cellCheckpoint.ts';

export const RUNS_DB_NAME = 'rac-bench-runs';
export const RUNS_STORE = 'runs';
export const CELLS_STORE = 'cells';
export const MODAL_RUNS_STORE = 'modal-runs';
export const MODAL_CELLS_STORE = 'modal-cells';
export const CHECKPOINTS_STORE = 'checkpoints';

export type RunStatus = 'running' | 'paused' | 'done' | 'cancelled';

export interface StoredRun {
  id: string;
  plan: RunPlanSpec;
  status: RunStatus;
  created_at: string;
  finished_at: string | null;
  /** As in the exported run record (`rsb-run/1`). */
  env: RunEnv;
  /** Workers the run was started with. */
  workers: number;
  /** Plan cells (records the run will hold when done). */
  total: number;
}

export interface StoredCell {
  runId: string;
  key: string;
  status: CellResult['outcome']['status'];
  /** The cell record; null when no record could be made (the worker crashed twice). */
  result: CellResult | null;
  /** Why it failed when `result` is null (or the record's own reason). */
  error: string | null;
  /** Worker tries the fit took (2 after a crash and a retry). */
  attempts: number;
}

/** Migrations, append only (as in the datasets database). */
const MIGRATIONS: ReadonlyArray<(db: IDBPDatabase) => void> = [
  (db) => {
    db.createObjectStore(RUNS_STORE, { keyPath: 'id' });
    const cells = db.createObjectStore(CELLS_STORE, { keyPath: ['runId', 'key'] });
    cells.createIndex('runId', 'runId');
  },
  (db) => {
    db.createObjectStore(MODAL_RUNS_STORE, { keyPath: 'id' });
    const cells = db.createObjectStore(MODAL_CELLS_STORE, { keyPath: ['runId', 'key'] });
    cells.createIndex('runId', 'runId');
  },
  (db) => {
    const checkpoints = db.createObjectStore(CHECKPOINTS_STORE, { keyPath: ['runId', 'key'] });
    checkpoints.createIndex('runId', 'runId');
  },
];

/** A deep fit's checkpoint as stored: the record plus its run. */
export interface StoredCheckpoint extends CellCheckpoint {
  runId: string;
}

/** An image/text run as stored: its plan, what it ran on, and how far it got. */
export interface StoredModalRun {
  id: string;
  plan: ModalRunPlan;
  /** The page's extra plan fields (backbone choice, loop overrides) to resume with. */
  request: unknown;
  status: RunStatus;
  created_at: string;
  finished_at: string | null;
  env: ModalRunRecord['env'];
  total: number;
}

export interface StoredModalCell {
  runId: string;
  key: string;
  result: ModalCellResult;
}

export interface ResumableRun {
  run: StoredRun;
  done: number;
}

/**
 * The browser's storage went away under an open run (the user cleared the site's data, or the
 * browser evicted it): IndexedDB answers "The database connection is closing". Said in plain words,
 * with what is lost, instead of that raw DOMException (issue 21, item 13).
 */
export class StorageClearedError extends Error {
  constructor() {
    super(
      "This browser's storage for RAC Bench was cleared while the run was going (site data deleted, or " +
        'evicted by the browser), so the run stopped. Lost: every result saved in this browser, this ' +
        "run's included, and the run itself (it cannot be resumed). The results drawn on this page stay " +
        'until you leave or reload it; start the run again to redo the rest.',
    );
    this.name = 'StorageClearedError';
  }
}

/** An IndexedDB error that means the connection is gone (closed under us, or the database deleted). */
export function isConnectionGone(e: unknown): boolean {
  const name = (e as { name?: unknown } | null)?.name;
  const message = e instanceof Error ? e.message : String(e);
  return (
    (name === 'InvalidStateError' && /clos/i.test(message)) ||
    /connection is clos|database (connection )?(was |has been |is )?(closed|deleted)/i.test(message)
  );
}

export class RunStore {
  readonly #db: IDBPDatabase;
  /** Set once the browser closed the connection under us (site data cleared) or asked us to close. */
  #gone = false;

  private constructor(db: IDBPDatabase) {
    this.#db = db;
  }

  /** Opens (and creates or upgrades) the database. Uses the global indexedDB. */
  static async open(name: string = RUNS_DB_NAME): Promise<RunStore> {
    let store: RunStore | null = null;
    const db = await openDB(name, MIGRATIONS.length, {
      upgrade(db, oldVersion) {
        for (let v = oldVersion; v < MIGRATIONS.length; v++) MIGRATIONS[v](db);
      },
      blocking(_current, _blocked, event) {
        // Another open wants to delete or upgrade the database: let it, and say so at the next use.
        if (store) store.#gone = true;
        (event.target as IDBDatabase).close();
      },
      terminated() {
        // The browser closed the connection itself: clearing site data does that.
        if (store) store.#gone = true;
      },
    });
    store = new RunStore(db);
    return store;
  }

  /** True once the storage went away under this connection (every later call fails with StorageClearedError). */
  get gone(): boolean {
    return this.#gone;
  }

  close(): void {
    this.#db.close();
  }

  /** Runs `f` on the database; a connection that went away becomes a StorageClearedError. */
  async #use<T>(f: (db: IDBPDatabase) => Promise<T>): Promise<T> {
    if (this.#gone) throw new StorageClearedError();
    try {
      return await f(this.#db);
    } catch (e) {
      if (this.#gone || isConnectionGone(e)) {
        this.#gone = true;
        throw new StorageClearedError();
      }
      throw e;
    }
  }

  async putRun(run: StoredRun): Promise<void> {
    await this.#use((db) => db.put(RUNS_STORE, run));
  }

  async getRun(id: string): Promise<StoredRun | undefined> {
    return this.#use((db) => db.get(RUNS_STORE, id));
  }

  /** Newest first. */
  async listRuns(): Promise<StoredRun[]> {
    const runs = (await this.#use((db) => db.getAll(RUNS_STORE))) as StoredRun[];
    return runs.sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0));
  }

  async setStatus(id: string, status: RunStatus, finishedAt: string | null = null): Promise<void> {
    await this.#use(async (db) => {
      const tx = db.transaction(RUNS_STORE, 'readwrite');
      const run = (await tx.store.get(id)) as StoredRun | undefined;
      if (!run) throw new Error(`RunStore.setStatus: no run with id "${id}".`);
      await tx.store.put({ ...run, status, finished_at: finishedAt });
      await tx.done;
    });
  }

  /** Writes finished cells in one transaction (a fit and its derived baseline cells land together). */
  async putCells(cells: readonly StoredCell[]): Promise<void> {
    if (cells.length === 0) return;
    await this.#use(async (db) => {
      const tx = db.transaction(CELLS_STORE, 'readwrite');
      await Promise.all([...cells.map((c) => tx.store.put(c)), tx.done]);
    });
  }

  /** Removes cells of a run (records that failed validation on resume, to be run again). */
  async deleteCells(runId: string, keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    await this.#use(async (db) => {
      const tx = db.transaction(CELLS_STORE, 'readwrite');
      await Promise.all([...keys.map((k) => tx.store.delete([runId, k])), tx.done]);
    });
  }

  async getCell(runId: string, key: string): Promise<StoredCell | undefined> {
    return this.#use((db) => db.get(CELLS_STORE, [runId, key]));
  }

  async cells(runId: string): Promise<StoredCell[]> {
    return this.#use((db) => db.getAllFromIndex(CELLS_STORE, 'runId', runId) as Promise<StoredCell[]>);
  }

  async finishedKeys(runId: string): Promise<Set<string>> {
    const keys = (await this.#use((db) =>
      db.getAllKeysFromIndex(CELLS_STORE, 'runId', runId),
    )) as unknown as [string, string][];
    return new Set(keys.map((k) => k[1]));
  }

  async countCells(runId: string): Promise<number> {
    return this.#use((db) => db.countFromIndex(CELLS_STORE, 'runId', runId));
  }

  /** Runs left running or paused with cells still to do: what the Run page offers to resume. */
  async resumable(): Promise<ResumableRun[]> {
    const out: ResumableRun[] = [];
    for (const run of await this.listRuns()) {
      if (run.status !== 'running' && run.status !== 'paused') continue;
      const done = await this.countCells(run.id);
      if (done < run.total) out.push({ run, done });
    }
    return out;
  }

  async putModalRun(run: StoredModalRun): Promise<void> {
    await this.#db.put(MODAL_RUNS_STORE, run);
  }

  async getModalRun(id: string): Promise<StoredModalRun | undefined> {
    return this.#db.get(MODAL_RUNS_STORE, id);
  }

  /** Newest first. */
  async listModalRuns(): Promise<StoredModalRun[]> {
    const runs = (await this.#db.getAll(MODAL_RUNS_STORE)) as StoredModalRun[];
    return runs.sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0));
  }

  async putModalCell(cell: StoredModalCell): Promise<void> {
    await this.#db.put(MODAL_CELLS_STORE, cell);
  }

  async modalCells(runId: string): Promise<StoredModalCell[]> {
    return this.#db.getAllFromIndex(MODAL_CELLS_STORE, 'runId', runId) as Promise<StoredModalCell[]>;
  }

  async deleteModalRun(id: string): Promise<void> {
    const tx = this.#db.transaction([MODAL_RUNS_STORE, MODAL_CELLS_STORE], 'readwrite');
    const cells = tx.objectStore(MODAL_CELLS_STORE);
    const keys = await cells.index('runId').getAllKeys(id);
    await Promise.all([
      ...keys.map((k) => cells.delete(k)),
      tx.objectStore(MODAL_RUNS_STORE).delete(id),
      tx.done,
    ]);
  }

  /** Removes a run, all its cells and its checkpoints. */
  async deleteRun(id: string): Promise<void> {
    await this.#use(async (db) => {
      const tx = db.transaction([RUNS_STORE, CELLS_STORE, CHECKPOINTS_STORE], 'readwrite');
      const cells = tx.objectStore(CELLS_STORE);
      const checkpoints = tx.objectStore(CHECKPOINTS_STORE);
      const keys = await cells.index('runId').getAllKeys(id);
      const saved = await checkpoints.index('runId').getAllKeys(id);
      await Promise.all([
        ...keys.map((k) => cells.delete(k)),
        ...saved.map((k) => checkpoints.delete(k)),
        tx.objectStore(RUNS_STORE).delete(id),
        tx.done,
      ]);
    });
  }

  /** Stores a deep fit's checkpoint, replacing the cell's previous one (one per [run, key]). */
  async putCheckpoint(runId: string, c: CellCheckpoint): Promise<void> {
    await this.#use((db) => db.put(CHECKPOINTS_STORE, { ...c, runId } satisfies StoredCheckpoint));
  }

  async getCheckpoint(runId: string, key: string): Promise<StoredCheckpoint | undefined> {
    return this.#use((db) => db.get(CHECKPOINTS_STORE, [runId, key]));
  }

  /** The cell keys of a run that have a checkpoint (without reading the checkpoints). */
  async checkpointKeys(runId: string): Promise<string[]> {
    const keys = (await this.#use((db) =>
      db.getAllKeysFromIndex(CHECKPOINTS_STORE, 'runId', runId),
    )) as unknown as [string, string][];
    return keys.map((k) => k[1]);
  }

  async deleteCheckpoints(runId: string, keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    await this.#use(async (db) => {
      const tx = db.transaction(CHECKPOINTS_STORE, 'readwrite');
      await Promise.all([...keys.map((k) => tx.store.delete([runId, k])), tx.done]);
    });
  }

  /**
   * Bounds what checkpoints hold when a run starts or resumes: this run's checkpoints of cells
   * already stored go, and so do those of every run that can no longer resume (done, cancelled,
   * deleted). What is left is at most one per deep fit in flight of a resumable run.
   */
  async pruneCheckpoints(runId: string, done: ReadonlySet<string>): Promise<number> {
    return this.#use(async (db) => {
      const runs = new Map(((await db.getAll(RUNS_STORE)) as StoredRun[]).map((r) => [r.id, r.status]));
      const keys = (await db.getAllKeys(CHECKPOINTS_STORE)) as unknown as [string, string][];
      const stale = keys.filter(([run, key]) => {
        if (run === runId) return done.has(key);
        const status = runs.get(run);
        return status !== 'running' && status !== 'paused';
      });
      if (stale.length === 0) return 0;
      const tx = db.transaction(CHECKPOINTS_STORE, 'readwrite');
      await Promise.all([...stale.map((k) => tx.store.delete(k)), tx.done]);
      return stale.length;
    });
  }

  /** This store as one run's CheckpointStore (the executor's view). */
  checkpointsOf(runId: string): CheckpointStore {
    return {
      load: async (key) => {
        const c = await this.getCheckpoint(runId, key);
        if (!c) return null;
        const { runId: _run, ...rest } = c;
        return rest;
      },
      save: (c) => this.putCheckpoint(runId, c),
      remove: (keys) => this.deleteCheckpoints(runId, keys),
    };
  }
}

/**
 * Why a stored run cannot be resumed, in one sentence, or null. Its plan comes back from storage
 * like any other input and is checked like one (the run-file schema, then the planner's checks):
 * a damaged `plan.datasets: "iris"` would otherwise run datasets "i", "r", "s" (issue 21, item 13).
 */
export function storedRunProblem(run: StoredRun): string | null {
  let plan: RunPlanSpec;
  try {
    plan = parseWith(RunPlanSchema, run.plan) as RunPlanSpec;
  } catch (e) {
    return `Its saved plan is damaged (plan.${(e as Error).message}), so it cannot be resumed: discard it and start the plan again.`;
  }
  const problems = validatePlan(plan);
  if (problems.length)
    return `Its saved plan cannot run here (${problems[0]}), so it cannot be resumed: discard it and start the plan again.`;
  return null;
}

/** Stored cells on their way back in (resume), sorted by what happens to them. */
export interface ResumedCells {
  /** Records that pass the schema, and failures recorded as such: kept, not run again. */
  kept: StoredCell[];
  /** Unreadable records (damaged, or an older shape): removed and run again, so never "failed". */
  rerun: string[];
  /** Cells stored as failed without a record: what the page lists as failures (as during the run). */
  failures: { key: string; reason: string }[];
}

/**
 * Sorts a run's stored cells on resume (the pool and the page share it, so a cell the pool repairs
 * by running it again is not also listed as failed): a record that passes the schema is kept; a
 * failure is kept and listed; anything else is run again.
 */
export function resumedCells(cells: readonly StoredCell[]): ResumedCells {
  const out: ResumedCells = { kept: [], rerun: [], failures: [] };
  for (const c of cells) {
    if (c.result === null) {
      if (c.status === 'failed') {
        out.kept.push(c);
        out.failures.push({ key: c.key, reason: c.error ?? 'failed' });
      } else out.rerun.push(c.key);
      continue;
    }
    try {
      // A failed fit with a record (its outcome says why) is a result, as when it was stored.
      out.kept.push({ ...c, result: parseCellResult(c.result) });
    } catch {
      out.rerun.push(c.key);
    }
  }
  return out;
}

/**
 * The exportable run record (`rsb-run/1`): the stored cells that have a record, in plan order
 * of their keys. Cells without a record (crashed twice, dataset unavailable) are listed in
 * `failures` with their reason.
 */
export function toRunRecord(run: StoredRun, cells: readonly StoredCell[]): RunRecord {
  const byKey = (a: StoredCell, b: StoredCell) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
  const results = cells.filter((c) => c.result !== null).sort(byKey);
  const missing = cells.filter((c) => c.result === null).sort(byKey);
  return {
    schema: RUN_SCHEMA,
    id: run.id,
    created_at: run.created_at,
    finished_at: run.finished_at,
    plan: run.plan,
    env: run.env,
    cells: results.map((c) => c.result!),
    // Cells without a record (a dataset that could not load, two crashes) travel with their reason.
    ...(missing.length
      ? { failures: missing.map((c) => ({ key: c.key, reason: (c.error ?? 'failed').slice(0, 2000) })) }
      : {}),
  } as RunRecord;
}
