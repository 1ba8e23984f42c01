/**
 * Run checkpoints in IndexedDB: its own database 'rac-bench-runs' (the datasets database is
 * separate), with two stores per suite:
 *   runs         one StoredRun per tabular run: the plan, status, times and environment;
 *   cells        one StoredCell per finished plan cell, keyed [runId, key], written the moment the
 *                cell finishes, so closing the tab loses at most the cells in flight;
 *   modal-runs   one StoredModalRun per image/text run (its `rsb-run/3` plan and environment);
 *   modal-cells  its finished `rsb-cell/3` records, keyed [runId, key], written as each finishes.
 * A run resumes by skipping the keys already stored.
 */
import { openDB, type IDBPDatabase } from 'idb';
import type { RunPlanSpec } from './plan.ts';
import { RUN_SCHEMA, type CellResult, type RunEnv, type RunRecord } from './schema.ts';
import type { ModalCellResult, ModalRunPlan, ModalRunRecord } from './schemaV3.ts';

export const RUNS_DB_NAME = 'rac-bench-runs';
export const RUNS_STORE = 'runs';
export const CELLS_STORE = 'cells';
export const MODAL_RUNS_STORE = 'modal-runs';
export const MODAL_CELLS_STORE = 'modal-cells';

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
];

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

export class RunStore {
  readonly #db: IDBPDatabase;

  private constructor(db: IDBPDatabase) {
    this.#db = db;
  }

  /** Opens (and creates or upgrades) the database. Uses the global indexedDB. */
  static async open(name: string = RUNS_DB_NAME): Promise<RunStore> {
    const db = await openDB(name, MIGRATIONS.length, {
      upgrade(db, oldVersion) {
        for (let v = oldVersion; v < MIGRATIONS.length; v++) MIGRATIONS[v](db);
      },
      blocking(_current, _blocked, event) {
        (event.target as IDBDatabase).close();
      },
    });
    return new RunStore(db);
  }

  close(): void {
    this.#db.close();
  }

  async putRun(run: StoredRun): Promise<void> {
    await this.#db.put(RUNS_STORE, run);
  }

  async getRun(id: string): Promise<StoredRun | undefined> {
    return this.#db.get(RUNS_STORE, id);
  }

  /** Newest first. */
  async listRuns(): Promise<StoredRun[]> {
    const runs = (await this.#db.getAll(RUNS_STORE)) as StoredRun[];
    return runs.sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0));
  }

  async setStatus(id: string, status: RunStatus, finishedAt: string | null = null): Promise<void> {
    const tx = this.#db.transaction(RUNS_STORE, 'readwrite');
    const run = (await tx.store.get(id)) as StoredRun | undefined;
    if (!run) throw new Error(`RunStore.setStatus: no run with id "${id}".`);
    await tx.store.put({ ...run, status, finished_at: finishedAt });
    await tx.done;
  }

  /** Writes finished cells in one transaction (a fit and its derived baseline cells land together). */
  async putCells(cells: readonly StoredCell[]): Promise<void> {
    if (cells.length === 0) return;
    const tx = this.#db.transaction(CELLS_STORE, 'readwrite');
    await Promise.all([...cells.map((c) => tx.store.put(c)), tx.done]);
  }

  /** Removes cells of a run (records that failed validation on resume, to be run again). */
  async deleteCells(runId: string, keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    const tx = this.#db.transaction(CELLS_STORE, 'readwrite');
    await Promise.all([...keys.map((k) => tx.store.delete([runId, k])), tx.done]);
  }

  async getCell(runId: string, key: string): Promise<StoredCell | undefined> {
    return this.#db.get(CELLS_STORE, [runId, key]);
  }

  async cells(runId: string): Promise<StoredCell[]> {
    return this.#db.getAllFromIndex(CELLS_STORE, 'runId', runId) as Promise<StoredCell[]>;
  }

  async finishedKeys(runId: string): Promise<Set<string>> {
    const keys = (await this.#db.getAllKeysFromIndex(CELLS_STORE, 'runId', runId)) as unknown as [
      string,
      string,
    ][];
    return new Set(keys.map((k) => k[1]));
  }

  async countCells(runId: string): Promise<number> {
    return this.#db.countFromIndex(CELLS_STORE, 'runId', runId);
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

  /** Removes a run and all its cells. */
  async deleteRun(id: string): Promise<void> {
    const tx = this.#db.transaction([RUNS_STORE, CELLS_STORE], 'readwrite');
    const cells = tx.objectStore(CELLS_STORE);
    const keys = await cells.index('runId').getAllKeys(id);
    await Promise.all([...keys.map((k) => cells.delete(k)), tx.objectStore(RUNS_STORE).delete(id), tx.done]);
  }
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
