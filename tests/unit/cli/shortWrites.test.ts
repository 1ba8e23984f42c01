/**
 * Issue 21 item 1: a short write is not success. writeFileAtomic writes until every byte is out,
 * checks the size before the rename and removes its temp file on failure; `run` deletes its
 * journal and `merge` reports success only once the renamed file reads back and validates. The
 * full disk is played by an injected writer (unit) and by the drill's hook in a real CLI process
 * (scripts/drill/shortWriteHook.mjs, the same fault `npm run drill` injects).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFileAtomic, writeFileVerified, type WriteBytes } from '../../../src/cli/files.ts';
import { writeSync } from 'node:fs';
import { CLI_BIN, REPO_ROOT } from '../helpers/cli.ts';

const TEXT = `${JSON.stringify({ schema: 'rsb-run/2', cells: Array.from({ length: 200 }, (_, i) => ({ i })) })}\n`;

/** A disk that takes `room` more bytes, then reports 0 written (or throws ENOSPC with `throws`). */
function nearlyFull(room: number, throws = false): WriteBytes {
  let left = room;
  return (fd, buffer, offset, length) => {
    if (left === 0) {
      if (throws)
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      return 0;
    }
    const n = writeSync(fd, buffer, offset, Math.min(length, left));
    left -= n;
    return n;
  };
}

const tempsIn = (dir: string) => readdirSync(dir).filter((f) => f.endsWith('.tmp'));

describe('writeFileAtomic on a disk that fills up', () => {
  it('loops over short writes until every byte is out', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rac-short-'));
    const out = join(dir, 'run.json');
    // At most 7 bytes per call: a slow but not full disk.
    const trickle: WriteBytes = (fd, buffer, offset, length) =>
      writeSync(fd, buffer, offset, Math.min(7, length));
    writeFileAtomic(out, TEXT, trickle);
    expect(readFileSync(out, 'utf8')).toBe(TEXT);
    expect(tempsIn(dir)).toEqual([]);
  });

  for (const throws of [false, true]) {
    it(`keeps the old file and removes the temp file when the disk ${throws ? 'throws ENOSPC' : 'stops taking bytes'}`, () => {
      const dir = mkdtempSync(join(tmpdir(), 'rac-short-'));
      const out = join(dir, 'run.json');
      writeFileSync(out, 'the previous file\n');
      expect(Buffer.byteLength(TEXT)).toBeGreaterThan(512); // the disk fills up mid-file
      expect(() => writeFileAtomic(out, TEXT, nearlyFull(512, throws))).toThrow(
        /^Could not write .*run\.json \(ENOSPC: no space left on device, write.*\); it was left as it was\.$/,
      );
      expect(readFileSync(out, 'utf8')).toBe('the previous file\n');
      expect(tempsIn(dir)).toEqual([]);
    });
  }

  it('writeFileVerified refuses a file its schema does not accept, after reading it back', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rac-short-'));
    const out = join(dir, 'run.json');
    expect(() =>
      writeFileVerified(out, TEXT, () => {
        throw new Error('cells[0]: expected a cell');
      }),
    ).toThrow(/run\.json was written but does not validate \(cells\[0\]: expected a cell\)/);
    expect(() => writeFileVerified(out, TEXT, () => true)).not.toThrow();
  });
});

/** The CLI in a child process with the drill's short-write fault loaded (or not). */
function cli(args: string[], fault: boolean): Promise<{ code: number; stderr: string }> {
  const env = { ...process.env };
  if (fault) env.NODE_OPTIONS = `--import ${join(REPO_ROOT, 'scripts/drill/shortWriteHook.mjs')}`;
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI_BIN, ...args], { cwd: REPO_ROOT, env }, (err, _stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stderr }),
    );
  });
}

const PLAN = ['--dataset', 'iris', '--setting', 'label', '--labels', '5', '--algorithms', 'lp'];

describe('rac-bench run and merge on a disk that fills up (the drill fault)', () => {
  it('run exits non-zero, keeps the old file and the journal; the rerun resumes every cell', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rac-short-run-'));
    const out = join(dir, 'run.json');
    writeFileSync(out, 'the previous file\n');
    const args = ['run', ...PLAN, '--seeds', '0-1', '--t', '0,1', '--quiet', '--out', out];
    const r = await cli(args, true);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(
      /Could not write .*run\.json \(ENOSPC: no space left on device, write\); it was left as it was\. The 4 finished cells stay in .*run\.json\.journal; free some space if the disk is full, then run the same command again/,
    );
    expect(r.stderr).not.toMatch(/Wrote /);
    expect(readFileSync(out, 'utf8')).toBe('the previous file\n');
    expect(existsSync(`${out}.journal`)).toBe(true);
    expect(tempsIn(dir)).toEqual([]);

    const again = await cli(
      args.filter((a) => a !== '--quiet'),
      false,
    );
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/Resuming: 4 of 4 cells already done/);
    expect((JSON.parse(readFileSync(out, 'utf8')) as { cells: unknown[] }).cells).toHaveLength(4);
    expect(existsSync(`${out}.journal`)).toBe(false);
  }, 120_000);

  it('merge exits non-zero and keeps the old file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rac-short-merge-'));
    const shards = [1, 2].map((i) => join(dir, `shard-${i}.json`));
    for (const [i, f] of shards.entries()) {
      const r = await cli(
        ['run', ...PLAN, '--seeds', '0-1', '--t', '0', '--shard', `${i + 1}/2`, '--quiet', '--out', f],
        false,
      );
      expect(r.code, r.stderr).toBe(0);
    }
    const out = join(dir, 'all.json');
    writeFileSync(out, 'the previous file\n');
    const r = await cli(['merge', ...shards, '--out', out], true);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/Could not write .*all\.json \(ENOSPC.*\); it was left as it was\./);
    expect(r.stderr).not.toMatch(/Merged /);
    expect(readFileSync(out, 'utf8')).toBe('the previous file\n');
    expect(tempsIn(dir)).toEqual([]);
  }, 120_000);
});
