/**
 * The CLI as a user runs it: `node bin/rac-bench.mjs ARGS` in a child process from the repository
 * root. Resolves (never rejects) with the exit code, both streams and the wall time.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ModalRunRecord } from '../../../src/lib/suite/schemaV3.ts';

export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const CLI_BIN = join(REPO_ROOT, 'bin/rac-bench.mjs');

export function runCli(
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string; ms: number }> {
  const t0 = Date.now();
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI_BIN, ...args],
      { cwd: REPO_ROOT, maxBuffer: 256 << 20 },
      (err, stdout, stderr) => {
        resolve({
          code: err ? Number((err as { code?: number }).code ?? 1) : 0,
          stdout,
          stderr,
          ms: Date.now() - t0,
        });
      },
    );
  });
}

/** The record without what a clock decides (ids, times, timings). */
export function withoutClocks(run: ModalRunRecord): unknown {
  return {
    ...run,
    id: null,
    created_at: null,
    finished_at: null,
    cells: run.cells.map((c) => ({
      ...c,
      created_at: null,
      timing: { ...c.timing, fit_ms: 0, predict_ms: 0 },
    })),
  };
}
