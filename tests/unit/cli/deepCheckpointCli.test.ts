/**
 * A killed `rac-bench run` resumes a deep fit mid-way (issue 20, item 4): the run is held once
 * its first checkpoint is on disk (RAC_BENCH_HOLD_AT_CHECKPOINT, so the kill lands mid-fit on any
 * machine), SIGKILLed, and run again; the rerun says it resumes from that step and writes the same
 * cells (timing aside) as a run that was never interrupted and never checkpointed. The checkpoint
 * file's codec keeps every array and number bit for bit and refuses a damaged file.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CheckpointFile, decodeCheckpoint, encodeCheckpoint } from '../../../src/cli/checkpointFile.ts';
import type { CellCheckpoint } from '../../../src/lib/suite/cellCheckpoint.ts';
import { CLI_BIN as bin, REPO_ROOT as root, runCli as cli } from '../helpers/cli.ts';

const STEPS = 40;
const PLAN = [
  'run',
  '--dataset',
  'iris',
  '--setting',
  'distribution',
  '--labels',
  '5',
  '--algorithms',
  'flexmatch',
  '--seeds',
  '0',
  '--t',
  '0.6',
  '--option',
  'flexmatch.size=tiny',
  '--option',
  `flexmatch.steps=${STEPS}`,
];

/** The run's cells without what may differ between an interrupted run and a whole one. */
function cells(file: string): unknown[] {
  const run = JSON.parse(readFileSync(file, 'utf8')) as { cells: Record<string, unknown>[] };
  return run.cells.map(({ timing: _t, created_at: _c, ...rest }) => rest);
}

describe('rac-bench run: a killed deep fit resumes from its checkpoint', () => {
  it('SIGKILL after the first checkpoint, rerun: the same cells as an uninterrupted run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rac-ckpt-'));
    const whole = await cli([
      ...PLAN,
      '--checkpoint-every',
      'off',
      '--quiet',
      '--out',
      join(dir, 'whole.json'),
    ]);
    expect(whole.code, whole.stderr).toBe(0);

    const out = join(dir, 'killed.json');
    const args = [...PLAN, '--checkpoint-every', '10', '--out', out];
    const child = spawn(process.execPath, [bin, ...args, '--quiet'], {
      cwd: root,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, RAC_BENCH_HOLD_AT_CHECKPOINT: '1' },
    });
    const exited = new Promise<void>((r) => child.on('exit', () => r()));
    const held = await new Promise<string>((resolve, reject) => {
      let err = '';
      child.stderr!.on('data', (d: Buffer) => {
        err += d.toString();
        if (err.includes('holding at checkpoint 1')) resolve(err);
      });
      child.on('exit', (code) => reject(new Error(`the run ended (${code}) before holding: ${err}`)));
    });
    expect(held).toMatch(new RegExp(`step 10 of ${STEPS}`));
    const file = new CheckpointFile(out);
    expect(existsSync(file.path)).toBe(true);
    child.kill('SIGKILL');
    await exited;
    const saved = (await file.load(''))!;
    expect(saved.step).toBe(10);
    expect(saved.policy).toBe('every 10 steps');

    const again = await cli(args);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`Deep fits save a checkpoint every 10 steps to ${file.path}`);
    expect(again.stderr).toContain(`resuming from its checkpoint at step 10 of ${STEPS}`);
    expect(existsSync(file.path), 'deleted once the cell is journaled').toBe(false);
    expect(existsSync(`${out}.journal`)).toBe(false);
    expect(cells(out)).toEqual(cells(join(dir, 'whole.json')));
    expect(cells(out)).toHaveLength(1);
  }, 600_000);

  it('refuses a bad --checkpoint-every before any fit', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rac-ckpt-flag-'));
    const r = await cli([...PLAN, '--checkpoint-every', 'often', '--out', join(dir, 'x.json')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--checkpoint-every: 'often' is not a checkpoint interval/);
  }, 120_000);
});

describe('the checkpoint file', () => {
  const sample = (): CellCheckpoint =>
    ({
      format: 'rac-cell-checkpoint/1',
      key: 'iris|distribution|5|flexmatch|3|0',
      fingerprint: { options: { lr: 1e-4 } },
      step: 7,
      steps: 20,
      policy: 'every 7 steps',
      savedAt: '2026-11-27T00:00:00.000Z',
      bytes: 0,
      deep: {
        format: 'rac-deep-checkpoint/1',
        method: 'flexmatch',
        step: 7,
        params: { w: Float32Array.of(1.5, -0, NaN, 3.4028234663852886e38) },
        shadow: { w: Float32Array.of(0.25, 1e-45, -Infinity, 2) },
        optimizer: { kind: 'adam', t: 7, slots: { 'm.w': new Float32Array([0.1, 0.2, 0.3, 0.4]) } },
        streams: { labeled: { mt: [1, 2], idx: 624, gaussNext: null }, dropoutSeed: 9 },
        methodState: { sigma: Int16Array.of(-1, 0, 2), mu: NaN, zero: -0, inf: Infinity },
      },
    }) as unknown as CellCheckpoint;

  it('keeps every array and number bit for bit', () => {
    const c = sample();
    const back = decodeCheckpoint(encodeCheckpoint(c));
    expect(back.deep.params.w).toBeInstanceOf(Float32Array);
    expect(Buffer.from(back.deep.params.w.buffer).equals(Buffer.from(c.deep.params.w.buffer))).toBe(true);
    expect(Buffer.from(back.deep.shadow.w.buffer).equals(Buffer.from(c.deep.shadow.w.buffer))).toBe(true);
    expect(back.deep.methodState!.sigma).toEqual(Int16Array.of(-1, 0, 2));
    expect(Number.isNaN(back.deep.methodState!.mu)).toBe(true);
    expect(Object.is(back.deep.methodState!.zero, -0)).toBe(true);
    expect(back.deep.methodState!.inf).toBe(Infinity);
    expect(back).toEqual(c);
  });

  it('refuses a damaged file, saying what is wrong', () => {
    const bytes = encodeCheckpoint(sample());
    const flipped = bytes.slice();
    flipped[flipped.length - 3] ^= 1;
    expect(() => decodeCheckpoint(flipped)).toThrow(/do not match their SHA-256/);
    expect(() => decodeCheckpoint(bytes.subarray(0, bytes.length - 4))).toThrow(/holds \d+ of \d+ bytes/);
    expect(() => decodeCheckpoint(new TextEncoder().encode('{"format":"x"}\n'))).toThrow(
      /not a rac-bench-checkpoint-file/,
    );
  });
});
