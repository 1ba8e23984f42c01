/**
 * Issue 21 items 2, 3 and 5 through the CLI: inputs that were ignored, crashed, or failed only
 * after the work get a clear message before any work (no "Backend …" line, no fit), or are
 * honoured: non-finite and prototype-named `--option`s, `datasets --data-dir`, `--shard-count`
 * beside `--shard i/n`, a huge `--shard`, an empty shard, and resuming on another `--backend`.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveShard } from '../../../src/cli/shard.ts';
import { CLI_BIN, REPO_ROOT } from '../helpers/cli.ts';

function cli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI_BIN, ...args],
      { cwd: REPO_ROOT, env: { ...process.env, ...env }, maxBuffer: 64 << 20 },
      (err, stdout, stderr) =>
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const PLAN = [
  'run',
  '--dataset',
  'iris',
  '--setting',
  'label',
  '--labels',
  '5',
  '--algorithms',
  'lp',
  '--t',
  '0',
];

/** A refusal before any work: exit 2, one line with the reason, no backend started, no fit. */
function refusedUpFront(r: { code: number; stderr: string }, message: RegExp): void {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toMatch(message);
  expect(r.stderr).not.toMatch(/^Backend /m);
  expect(r.stderr).not.toMatch(/^\[/m);
  expect(r.stderr).not.toMatch(/TypeError|RangeError|\n\s+at /);
}

describe('--option values the record could not hold, and names on Object.prototype', () => {
  it.each([
    ['lp.gamma=Infinity', /must be a finite number in the range \[0, inf\)\. Got Infinity instead\./],
    [
      'lp.gamma=1e400',
      /must be a finite number in the range \[0, inf\)\. Got 1e400 \(read as Infinity\) instead\./,
    ],
    ['lp.constructor=1', /'constructor' is not an option of lp\. Options: gamma, maxIter, tol\./],
  ])(
    '--option %s is refused before any fit',
    async (option, message) => {
      const dir = mkdtempSync(join(tmpdir(), 'rac-opt-'));
      const out = join(dir, 'x.json');
      refusedUpFront(await cli([...PLAN, '--seeds', '0', '--option', option, '--out', out]), message);
      expect(existsSync(`${out}.journal`)).toBe(false);
    },
    60_000,
  );
});

describe('--shard and --shard-count', () => {
  it('--shard-count is honoured where it agrees and refused where it disagrees or has no --shard', () => {
    expect(resolveShard('2/4', {}, '4')).toEqual({ index: 2, count: 4, source: 'flag' });
    expect(() => resolveShard('1/2', {}, '3')).toThrow(
      '--shard-count 3 disagrees with --shard 1/2 (2 shards); drop one of them.',
    );
    expect(() => resolveShard(undefined, {}, '3')).toThrow(
      '--shard-count 3 needs --shard auto (or --shard i/3).',
    );
    const slurm = { SLURM_ARRAY_TASK_ID: '1', SLURM_ARRAY_TASK_MIN: '0', SLURM_ARRAY_TASK_MAX: '3' };
    expect(() => resolveShard('auto', slurm, '8')).toThrow(
      /--shard-count 8 disagrees with the Slurm array \(4 shards\)/,
    );
    expect(() => resolveShard('auto', { RAC_SHARD: '1/2' }, '5')).toThrow(/disagrees with RAC_SHARD=1\/2/);
  });

  it('a shard count too big for the record is refused when the flags are read', () => {
    expect(() => resolveShard('1/99999999999999999999', {})).toThrow(
      '--shard 1/99999999999999999999: at most 1000000 shards.',
    );
    expect(() => resolveShard('auto', { RAC_SHARD: `1/${'9'.repeat(400)}` })).toThrow(
      /at most 1000000 shards/,
    );
    expect(() => resolveShard('auto', { JOB_COMPLETION_INDEX: '0' }, '99999999999')).toThrow(
      /at most 1000000/,
    );
    const hugeArray = {
      SLURM_ARRAY_TASK_ID: '0',
      SLURM_ARRAY_TASK_MIN: '0',
      SLURM_ARRAY_TASK_MAX: '99999999',
    };
    expect(() => resolveShard('auto', hugeArray)).toThrow(
      /the Slurm array of 100000000 tasks: at most 1000000 shards/,
    );
  });

  it.each([
    [['--shard', '1/99999999999999999999'], /--shard 1\/99999999999999999999: at most 1000000 shards\./],
    [
      ['--shard', '5/1000'],
      /--shard 5\/1000: this plan can be cut into at most 2 shards, so shard 5 would hold no cell\./,
    ],
    [['--shard', '1/2', '--shard-count', '3'], /--shard-count 3 disagrees with --shard 1\/2/],
    [['--shard-count', '3'], /--shard-count 3 needs --shard auto/],
  ])(
    'run %j is refused before the backend starts',
    async (flags, message) => {
      const dir = mkdtempSync(join(tmpdir(), 'rac-shard-'));
      refusedUpFront(await cli([...PLAN, '--seeds', '0-1', ...flags, '--out', join(dir, 'x.json')]), message);
    },
    60_000,
  );
});

describe('datasets --data-dir checks the folder its help names', () => {
  it('reports each local copy as a run would read it', async () => {
    const r = await cli(['datasets', '--json', '--data-dir', join(REPO_ROOT, 'tests/fixtures/data')]);
    expect(r.code, r.stderr).toBe(0);
    const rows = JSON.parse(r.stdout) as { id: string; local?: { status: string; file: string | null } }[];
    const local = Object.fromEntries(rows.map((x) => [x.id, x.local]));
    expect(local.iris).toBeUndefined(); // embedded: nothing to look for
    expect(local.letter).toMatchObject({ status: 'ok', file: 'letter.pq' });
    expect(local.covertype).toMatchObject({ status: 'missing', file: null });

    const text = await cli(['datasets', '--data-dir', join(REPO_ROOT, 'tests/fixtures/data')]);
    expect(text.stdout).toMatch(/^letter +20000 x 16 +26 +local /m);
    expect(text.stdout).toMatch(
      /Local copies in .*:\n {2}letter +letter\.pq: OK, SHA-256 [0-9a-f]{12}…\n {2}covertype +not found \(looked for covertype\.pq/,
    );
  }, 120_000);

  it('a copy a run would refuse is named with its reason (exit 1); a missing folder is refused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rac-datadir-'));
    writeFileSync(join(dir, 'letter.csv'), 'a,b,class\n1,2,A\n');
    const r = await cli(['datasets', '--data-dir', dir]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /letter +letter\.csv: Dataset 'letter': the file has 1 rows x 2 features; expected 20000 x 16\./,
    );
    expect(r.stdout).toMatch(/^letter +20000 x 16 +26 +remote /m);

    const none = await cli(['datasets', '--data-dir', join(dir, 'nope')]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/--data-dir .*nope: no such folder/);
    expect(none.stdout).toBe('');
  }, 120_000);
});

describe('resuming with another --backend', () => {
  it('a finished file of the same plan run on wasm is not re-recorded as cpu', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rac-backend-'));
    const out = join(dir, 'x.json');
    const first = await cli([...PLAN, '--seeds', '0-1', '--quiet', '--out', out]);
    expect(first.code, first.stderr).toBe(0);
    const before = readFileSync(out, 'utf8');
    const r = await cli([...PLAN, '--seeds', '0-1', '--backend', 'cpu', '--out', out]);
    refusedUpFront(
      r,
      /The 2 cells already done \(.*x\.json\) ran on wasm, not cpu; resume with --backend wasm, or move .*x\.json away to start over on cpu\./,
    );
    expect(readFileSync(out, 'utf8')).toBe(before);
  }, 120_000);

  it('an interrupted run on wasm is not resumed on cpu; its journal is kept', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rac-backend-'));
    const out = join(dir, 'x.json');
    const args = [...PLAN, '--seeds', '0-3', '--quiet', '--out', out];
    // Held after 2 fits (journaled), then killed: an interrupted run on any machine's speed.
    const child = spawn(process.execPath, [CLI_BIN, ...args], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, RAC_BENCH_HOLD_AFTER_FITS: '2' },
    });
    const exited = new Promise<void>((r) => child.on('exit', () => r()));
    await new Promise<void>((resolve, reject) => {
      let err = '';
      child.stderr!.on('data', (d: Buffer) => {
        err += d.toString();
        if (err.includes('holding after 2 fits')) resolve();
      });
      child.on('exit', (code) => reject(new Error(`the run ended (${code}) before holding: ${err}`)));
    });
    child.kill('SIGKILL');
    await exited;
    const journal = readFileSync(`${out}.journal`, 'utf8');
    const r = await cli([...args, '--backend', 'cpu']);
    refusedUpFront(
      r,
      /The 2 cells already done \(.*x\.json\.journal\) ran on wasm, not cpu; resume with --backend wasm/,
    );
    expect(readFileSync(`${out}.journal`, 'utf8')).toBe(journal);
    const again = await cli(args.filter((a) => a !== '--quiet'));
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/Resuming: 2 of 4 cells/);
    expect((JSON.parse(readFileSync(out, 'utf8')) as { env: { backends: string[] } }).env.backends).toEqual([
      'wasm',
    ]);
  }, 120_000);
});
