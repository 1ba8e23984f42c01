import 'fake-indexeddb/auto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { classroomPlan } from '../../../src/lib/suite/presets.ts';
import { RunStore, type StoredCell, type StoredRun } from '../../../src/lib/suite/runStore.ts';

let dbCount = 0;
let store: RunStore;

function run(id: string, status: StoredRun['status'], total: number, created: string): StoredRun {
  return {
    id,
    plan: classroomPlan(),
    status,
    created_at: created,
    finished_at: null,
    total,
    workers: 2,
    env: { runtime: 'browser', backends: ['wasm'], adapter: null },
  };
}

function cell(runId: string, key: string, status: StoredCell['status'] = 'ok'): StoredCell {
  return { runId, key, status, result: null, error: status === 'failed' ? 'boom' : null, attempts: 1 };
}

beforeEach(async () => {
  store = await RunStore.open(`runs-test-${++dbCount}`);
});
afterEach(() => store.close());

describe('RunStore', () => {
  it('stores runs and cells; finished keys are per run', async () => {
    await store.putRun(run('a', 'running', 3, '2024-01-01T00:00:00.000Z'));
    await store.putRun(run('b', 'running', 2, '2024-01-02T00:00:00.000Z'));
    await store.putCells([cell('a', 'k1'), cell('a', 'k2', 'failed'), cell('b', 'k1')]);
    // Writing a key again replaces it: one record per (run, key).
    await store.putCells([cell('a', 'k1')]);
    expect([...(await store.finishedKeys('a'))].sort()).toEqual(['k1', 'k2']);
    expect(await store.countCells('a')).toBe(2);
    expect((await store.getCell('a', 'k2'))?.error).toBe('boom');
    expect((await store.listRuns()).map((r) => r.id)).toEqual(['b', 'a']);
  });

  it('resumable: running or paused runs with cells left', async () => {
    await store.putRun(run('full', 'running', 1, '2024-01-01T00:00:00.000Z'));
    await store.putRun(run('half', 'paused', 2, '2024-01-02T00:00:00.000Z'));
    await store.putRun(run('gone', 'cancelled', 2, '2024-01-03T00:00:00.000Z'));
    await store.putRun(run('new', 'running', 5, '2024-01-04T00:00:00.000Z'));
    await store.putCells([cell('full', 'x'), cell('half', 'x')]);
    const r = await store.resumable();
    expect(r.map((x) => [x.run.id, x.done])).toEqual([
      ['new', 0],
      ['half', 1],
    ]);
    await store.setStatus('new', 'done', '2024-01-05T00:00:00.000Z');
    expect((await store.getRun('new'))?.finished_at).toBe('2024-01-05T00:00:00.000Z');
    expect((await store.resumable()).map((x) => x.run.id)).toEqual(['half']);
    await expect(store.setStatus('nope', 'done')).rejects.toThrow(/no run with id "nope"/);
  });

  it('deleteRun removes the run and only its cells', async () => {
    await store.putRun(run('a', 'running', 3, '2024-01-01T00:00:00.000Z'));
    await store.putRun(run('b', 'running', 3, '2024-01-01T00:00:00.000Z'));
    await store.putCells([cell('a', 'k1'), cell('a', 'k2'), cell('b', 'k1')]);
    await store.deleteRun('a');
    expect(await store.getRun('a')).toBeUndefined();
    expect(await store.countCells('a')).toBe(0);
    expect(await store.countCells('b')).toBe(1);
  });
});
