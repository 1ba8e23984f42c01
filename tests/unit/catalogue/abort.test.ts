/**
 * The abort contract over the whole catalogue: every algorithm's fit stops within 100 ms of its
 * signal, (1) in this thread (the signal fires from a timer, which only runs when the fit yields)
 * and (2) in a Node worker_threads worker, where the abort arrives as a message from the parent
 * (what a browser worker sees). The fits are made long (abortHarness.ts), so a fit that finishes
 * before the signal fails the test instead of passing it unexamined.
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
import { prepareLongFit } from './abortHarness.ts';

/** Past each fit's set-up (kernels, sorted columns) and the JIT warm-up of a fresh worker. */
const ABORT_AFTER_MS = 1000;
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
    setTimeout(() => {
      abortedAt = performance.now();
      cpuAt = cpuMs();
      controller.abort();
    }, ABORT_AFTER_MS);
    const outcome = await run(controller.signal).then(
      (r) => r,
      (e: Error) => e.name,
    );
    const [wall, cpu] = [performance.now() - abortedAt, cpuMs() - cpuAt];
    expect(abortedAt, 'the fit ended before the signal: make it longer in abortHarness.ts').toBeGreaterThan(
      0,
    );
    expect(outcome).toBe('AbortError');
    expectPrompt(id, cpu, wall);
  });

  it(`aborts within ${LIMIT_MS} ms of a message (worker thread)`, async () => {
    const worker = new Worker(new URL('./abortWorker.mjs', import.meta.url), { workerData: { id } });
    try {
      const result = await new Promise<{ type: string; name?: string; wall: number; cpu: number }>(
        (resolve, reject) => {
          let sentAt = 0;
          let cpuAt = 0;
          worker.on('error', reject);
          worker.on('message', (m: { type: string; name?: string }) => {
            if (m.type === 'started') {
              setTimeout(() => {
                sentAt = performance.now();
                cpuAt = cpuMs(); // process-wide: this thread idles, so the delta is the worker's work
                worker.postMessage('abort');
              }, ABORT_AFTER_MS);
            } else resolve({ ...m, wall: sentAt ? performance.now() - sentAt : -1, cpu: cpuMs() - cpuAt });
          });
        },
      );
      expect(result.wall, 'the fit ended before the abort message: make it longer').toBeGreaterThan(0);
      expect(result.name).toBe('AbortError');
      expectPrompt(`${id} in a worker`, result.cpu, result.wall);
    } finally {
      await worker.terminate();
    }
  });
});
