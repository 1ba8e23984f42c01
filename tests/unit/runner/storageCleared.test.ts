/**
 * Issue 21, item 13: the browser's storage cleared under a run says so in plain words (not the raw
 * "The database connection is closing"), a stored plan is checked before a resume runs it, and a
 * cell the resume repairs (runs again) is not listed as failed.
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { classroomPlan } from '../../../src/lib/suite/presets.ts';
import {
  resumedCells,
  RunStore,
  StorageClearedError,
  storedRunProblem,
  type StoredCell,
  type StoredRun,
} from '../../../src/lib/suite/runStore.ts';
import type { CellResult } from '../../../src/lib/suite/schema.ts';
import { validCell } from '../schema/fixtures.ts';

function run(plan: unknown = classroomPlan()): StoredRun {
  return {
    id: 'r1',
    plan: plan as StoredRun['plan'],
    status: 'running',
    created_at: '2026-01-01T00:00:00.000Z',
    finished_at: null,
    total: 10,
    workers: 2,
    env: { runtime: 'browser', backends: ['wasm'], adapter: null },
  };
}

/** Deleting the database while a connection is open: what "Clear site data" does to a running tab. */
function clearSiteData(name: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = indexedDB.deleteDatabase(name);
    req.onsuccess = () => resolve();
    req.onerror = () => reject(req.error);
  });
}

describe('storage cleared mid-run', () => {
  it('the next write says the storage was cleared and what is lost', async () => {
    const name = 'runs-cleared-1';
    const store = await RunStore.open(name);
    await store.putRun(run());
    await clearSiteData(name);
    const cell: StoredCell = { runId: 'r1', key: 'k', status: 'ok', result: null, error: null, attempts: 1 };
    const err = await store.putCells([cell]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StorageClearedError);
    expect((err as Error).message).toMatch(
      /^This browser's storage for RAC Bench was cleared while the run was going/,
    );
    expect((err as Error).message).toMatch(/Lost: every result saved in this browser/);
    expect((err as Error).message).not.toMatch(/DOMException|connection is closing/);
    expect(store.gone).toBe(true);
    // Reads too; a fresh connection works again (the page opens one for the next run).
    await expect(store.getRun('r1')).rejects.toBeInstanceOf(StorageClearedError);
    const fresh = await RunStore.open(name);
    expect(await fresh.getRun('r1')).toBeUndefined();
    fresh.close();
  });
});

describe('resuming a stored run', () => {
  it('refuses a damaged plan in one sentence instead of running datasets "i", "r", "s"', () => {
    expect(storedRunProblem(run())).toBeNull();
    const damaged = { ...classroomPlan(), datasets: 'iris' };
    expect(storedRunProblem(run(damaged))).toMatch(
      /^Its saved plan is damaged \(plan\.datasets: expected .*got "iris"\), so it cannot be resumed/,
    );
    expect(storedRunProblem(run({ ...classroomPlan(), datasets: ['mnist'] }))).toMatch(
      /cannot run here \(Unknown dataset "mnist"\.\)/,
    );
  });

  it('lists as failed only cells stored as failed, not those it runs again', () => {
    const good = validCell() as unknown as CellResult;
    const cells: StoredCell[] = [
      { runId: 'r1', key: 'ok', status: 'ok', result: good, error: null, attempts: 1 },
      { runId: 'r1', key: 'crashed', status: 'failed', result: null, error: 'Crashed twice', attempts: 2 },
      // Damaged: no record although it says ok, and a record that fails the schema.
      { runId: 'r1', key: 'lost', status: 'ok', result: null, error: null, attempts: 1 },
      { runId: 'r1', key: 'bad', status: 'ok', result: { ...good, t: 7 }, error: null, attempts: 1 },
    ];
    const sorted = resumedCells(cells);
    expect(sorted.kept.map((c) => c.key)).toEqual(['ok', 'crashed']);
    expect(sorted.rerun).toEqual(['lost', 'bad']);
    expect(sorted.failures).toEqual([{ key: 'crashed', reason: 'Crashed twice' }]);
  });
});
