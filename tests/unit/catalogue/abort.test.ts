/**
 * The abort contract over the whole catalogue: every algorithm's fit stops within 100 ms of its
 * signal, (1) in this thread (the signal fires from a timer, which only runs when the fit yields)
 * and (2) in a Node worker_threads worker, where the abort arrives as a message from the parent
 * (what a browser worker sees), so the delay measured is the rest of the stretch the fit was in.
 *
 * The signal is sent at a point of the fit, not of the clock: at its ARM_AT_CHECKPOINT-th checkpoint
 * (a `ctx.tick()` or a progress report, abortHarness.ts), past set-up and warm-up. A fit makes the
 * same checkpoints on every machine, and each long fit of the harness makes hundreds more after that
 * one, so neither a fast machine (the fit ends first) nor a loaded one (the signal lands in set-up)
 * changes what is measured.
 *
 * The limit is on the work a fit does between the signal and the rejection, bounded by the smaller
 * of the process's CPU time (which a loaded CI machine does not inflate) and the wall time (which
 * other threads of the process do not inflate); on an idle machine (load below the core count) the
 * wall-clock delay alone is held to the same limit.
 */
import { availableParallelism, loadavg } from 'node:os';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { CATALOGUE } from '../../../src/lib/models/catalogue.ts';
import { ARM_AT_CHECKPOINT, prepareLongFit } from './abortHarness.ts';

const LIMIT_MS = 100;
const idle = () => loadavg()[0] < availableParallelism() - 0.5;
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

function expectPrompt(what: string, cpu: number, wall: number): void {
  // The fit's own work is at most the wall time and at most the process's CPU time. Each alone
  // can overstate it: wall under load, CPU when other threads of this process run meanwhile
  // (process.cpuUsage counts every thread: other test files' workers, GC). The smaller bounds it.
  expect(
    Math.min(cpu, wall),
    `${what}: ms between the abort and the rejection, min of CPU ${cpu.toFixed(0)} and wall ${wall.toFixed(0)}`,
  ).toBeLessThan(LIMIT_MS);
  if (idle()) expect(wall, `${what}: wall-clock ms on an idle machine`).toBeLessThan(LIMIT_MS);
}

describe.each(CATALOGUE.map((a) => a.id))('%s', (id) => {
  it(`aborts within ${LIMIT_MS} ms of the signal (this thread)`, async () => {
    const run = await prepareLongFit(id);
    const controller = new AbortController();
    let abortedAt = 0;
    let cpuAt = 0;
    let checkpoints = 0;
    const onCheckpoint = () => {
      if (++checkpoints !== ARM_AT_CHECKPOINT) return;
      setTimeout(() => {
        abortedAt = performance.now();
        cpuAt = cpuMs();
        controller.abort();
      }, 0);
    };
    const outcome = await run(controller.signal, onCheckpoint).then(
      (r) => r,
      (e: Error) => e.name,
    );
    const [wall, cpu] = [performance.now() - abortedAt, cpuMs() - cpuAt];
    expect(
      abortedAt,
      `the fit ended after ${checkpoints} checkpoints, before the signal: make it longer in abortHarness.ts`,
    ).toBeGreaterThan(0);
    expect(outcome).toBe('AbortError');
    expectPrompt(id, cpu, wall);
  });

  it(`aborts within ${LIMIT_MS} ms of a message (worker thread)`, async () => {
    const worker = new Worker(new URL('./abortWorker.mjs', import.meta.url), { workerData: { id } });
    try {
      const result = await new Promise<{
        type: string;
        name?: string;
        checkpoints?: number;
        wall: number;
        cpu: number;
      }>((resolve, reject) => {
        let sentAt = 0;
        let cpuAt = 0;
        worker.on('error', reject);
        worker.on('message', (m: { type: string; name?: string; checkpoints?: number }) => {
          if (m.type === 'armed') {
            // At once: the message waits in the worker's queue until the fit next yields.
            sentAt = performance.now();
            cpuAt = cpuMs(); // process-wide: this thread idles, so the delta is the worker's work
            worker.postMessage('abort');
          } else resolve({ ...m, wall: sentAt ? performance.now() - sentAt : -1, cpu: cpuMs() - cpuAt });
        });
      });
      expect(
        result.wall,
        `the fit ended after ${result.checkpoints} checkpoints, before the abort message: make it longer`,
      ).toBeGreaterThan(0);
      expect(result.name).toBe('AbortError');
      expectPrompt(`${id} in a worker`, result.cpu, result.wall);
    } finally {
      await worker.terminate();
    }
  });
});
