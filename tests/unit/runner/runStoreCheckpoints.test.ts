/**
 * The browser's checkpoint store (runStore.ts, migration 3): one checkpoint per [run, cell],
 * replaced at each save, typed arrays kept as they were, deleted with their run, and pruned when a
 * run starts (cells already stored, runs that can no longer resume). A database made by the
 * previous version (two migrations) upgrades in place and keeps its runs.
 */
import 'fake-indexeddb/auto';
import { openDB } from 'idb';
import { describe, expect, it } from 'vitest';
import type { CellCheckpoint } from '../../../src/lib/suite/cellCheckpoint.ts';
import { classroomPlan } from '../../../src/lib/suite/presets.ts';
import { RunStore, type StoredRun } from '../../../src/lib/suite/runStore.ts';

let dbCount = 0;

function run(id: string, status: StoredRun['status']): StoredRun {
  return {
    id,
    plan: classroomPlan(),
    status,
    created_at: '2026-01-01T00:00:00.000Z',
    finished_at: null,
    total: 3,
    workers: 1,
    env: { runtime: 'browser', backends: ['wasm'], adapter: null },
  };
}

function checkpoint(key: string, step: number): CellCheckpoint {
  return {
    format: 'rac-cell-checkpoint/1',
    key,
    step,
    steps: 100,
    policy: 'every 30 s of training',
    savedAt: '2026-01-01T00:00:00.000Z',
    bytes: 16,
    fingerprint: {} as CellCheckpoint['fingerprint'],
    deep: { params: { w: Float32Array.of(step, -0, NaN, 1e-45) } } as unknown as CellCheckpoint['deep'],
  };
}

describe('RunStore checkpoints', () => {
  it('keeps one per cell, replaced at each save, arrays intact; deleted with the run', async () => {
    const store = await RunStore.open(`ckpt-test-${++dbCount}`);
    await store.putRun(run('a', 'running'));
    const ck = store.checkpointsOf('a');
    expect(await ck.load('k1')).toBeNull();
    await ck.save(checkpoint('k1', 10));
    await ck.save(checkpoint('k1', 20));
    await ck.save(checkpoint('k2', 5));
    const back = (await ck.load('k1'))!;
    expect(back.step).toBe(20);
    expect('runId' in back).toBe(false);
    const w = back.deep.params.w;
    expect(w).toBeInstanceOf(Float32Array);
    expect(Buffer.from(w.buffer).equals(Buffer.from(Float32Array.of(20, -0, NaN, 1e-45).buffer))).toBe(true);
    expect((await store.checkpointKeys('a')).sort()).toEqual(['k1', 'k2']);
    await ck.remove(['k1']);
    expect(await store.checkpointKeys('a')).toEqual(['k2']);
    await store.deleteRun('a');
    expect(await store.checkpointKeys('a')).toEqual([]);
    store.close();
  });

  it('prunes checkpoints of stored cells and of runs that cannot resume', async () => {
    const store = await RunStore.open(`ckpt-test-${++dbCount}`);
    await store.putRun(run('now', 'running'));
    await store.putRun(run('paused', 'paused'));
    await store.putRun(run('old', 'cancelled'));
    await store.putCheckpoint('now', checkpoint('done', 1));
    await store.putCheckpoint('now', checkpoint('open', 1));
    await store.putCheckpoint('paused', checkpoint('x', 1));
    await store.putCheckpoint('old', checkpoint('y', 1));
    await store.putCheckpoint('deleted-run', checkpoint('z', 1));
    expect(await store.pruneCheckpoints('now', new Set(['done']))).toBe(3);
    expect(await store.checkpointKeys('now')).toEqual(['open']);
    expect(await store.checkpointKeys('paused')).toEqual(['x']);
    expect(await store.checkpointKeys('old')).toEqual([]);
    expect(await store.checkpointKeys('deleted-run')).toEqual([]);
    store.close();
  });

  it('upgrades a database of the previous version in place', async () => {
    const name = `ckpt-test-${++dbCount}`;
    const old = await openDB(name, 2, {
      upgrade(db) {
        db.createObjectStore('runs', { keyPath: 'id' });
        db.createObjectStore('cells', { keyPath: ['runId', 'key'] }).createIndex('runId', 'runId');
        db.createObjectStore('modal-runs', { keyPath: 'id' });
        db.createObjectStore('modal-cells', { keyPath: ['runId', 'key'] }).createIndex('runId', 'runId');
      },
    });
    await old.put('runs', run('kept', 'paused'));
    old.close();
    const store = await RunStore.open(name);
    expect((await store.getRun('kept'))?.status).toBe('paused');
    await store.putCheckpoint('kept', checkpoint('k', 3));
    expect((await store.checkpointsOf('kept').load('k'))?.step).toBe(3);
    store.close();
  });
});
