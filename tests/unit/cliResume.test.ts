/**
 * The CLI survives kills (issue 12 rows 1, 2, 4): a SIGKILLed `run` resumes from its journal and
 * ends with the same cells as an uninterrupted run; `--out` is checked before the first fit; the
 * result file is replaced atomically; an oversized plan is refused at once.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI_BIN as bin, REPO_ROOT as root, runCli as cli } from './helpers/cli.ts';

const PLAN = [
  'run',
  '--dataset',
  'iris,wine',
  '--setting',
  'feature,label',
  '--labels',
  '5',
  '--algorithms',
  'xgb,lp,ls,ssgmm',
  '--seeds',
  '0-1',
  '--t',
  '0,0.4,1',
];

interface Cell {
  dataset: { id: string; source: string };
  setting: string;
  labels: number;
  algorithm: { name: string; hyper: unknown };
  t_index: number;
  seed: number;
  outcome: { status: string; accuracy: number | null; n_correct: number; flattened_from_t0: boolean };
  split: { indices_sha256: string };
}

/** What must match between a resumed and an uninterrupted run (times and timestamps may not). */
function essence(file: string): string[] {
  const run = JSON.parse(readFileSync(file, 'utf8')) as { cells: Cell[] };
  return run.cells
    .map((c) =>
      JSON.stringify([
        c.dataset.id,
        c.dataset.source,
        c.setting,
        c.labels,
        c.algorithm.name,
        c.algorithm.hyper,
        c.t_index,
        c.seed,
        c.outcome.status,
        c.outcome.accuracy,
        c.outcome.n_correct,
        c.outcome.flattened_from_t0,
        c.split.indices_sha256,
      ]),
    )
    .sort();
}

function journalLines(path: string): number {
  return existsSync(path)
    ? readFileSync(path, 'utf8')
        .split('\n')
        .filter((l) => l.trim()).length
    : 0;
}

describe('rac-bench run is crash-proof', () => {
  it('a SIGKILLed run resumes from its journal and ends with the same cells as an uninterrupted run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rac-resume-'));
    const whole = await cli([...PLAN, '--quiet', '--out', join(dir, 'whole.json')]);
    expect(whole.code, whole.stderr).toBe(0);
    expect(
      existsSync(join(dir, 'whole.json.journal')),
      'the journal is removed once the file is written',
    ).toBe(false);

    const out = join(dir, 'killed.json');
    writeFileSync(out, 'the previous file\n');
    // Held after 4 fits (their records journaled, nothing in flight), then killed there: a known
    // point of the run on any machine, not a moment that a fast one may have run past.
    const child = spawn(process.execPath, [bin, ...PLAN, '--quiet', '--out', out], {
      cwd: root,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, RAC_BENCH_HOLD_AFTER_FITS: '4' },
    });
    const exited = new Promise<void>((r) => child.on('exit', () => r()));
    await new Promise<void>((resolve, reject) => {
      let err = '';
      child.stderr!.on('data', (d: Buffer) => {
        err += d.toString();
        if (err.includes('holding after 4 fits')) resolve();
      });
      child.on('exit', (code) => reject(new Error(`the run ended (${code}) before holding: ${err}`)));
    });
    child.kill('SIGKILL');
    await exited;
    const saved = journalLines(`${out}.journal`) - 1;
    expect(saved).toBe(4);
    // The kill left the old file untouched (the result is only ever renamed into place).
    expect(readFileSync(out, 'utf8')).toBe('the previous file\n');

    const again = await cli([...PLAN, '--out', out]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/Resuming: \d+ of 96 cells already done/);
    // It did not start over: fewer fits ran than in a fresh run.
    const fitLines = again.stderr.split('\n').filter((l) => l.startsWith('['));
    expect(fitLines.length).toBeLessThan(80 - 3);
    expect(fitLines.length).toBeGreaterThan(0);
    expect(fitLines[0]).toMatch(/ETA /);
    expect(essence(out)).toEqual(essence(join(dir, 'whole.json')));
    expect(essence(out)).toHaveLength(96);
    expect(existsSync(`${out}.journal`)).toBe(false);
    // The record says where the data came from, not a placeholder.
    expect(essence(out)[0]).toContain('embedded:data/');
  }, 600_000);

  it('checks --out before the first fit', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rac-out-'));
    const cases: [string, RegExp][] = [
      ['/nonexistent/dir/x.json', /directory \/nonexistent\/dir does not exist/],
      [dir, /is a directory; give a file path/],
    ];
    for (const [out, message] of cases) {
      const r = await cli([...PLAN, '--out', out]);
      expect(r.code, out).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/^\[/m); // no fit ran
    }
  }, 60_000);

  it('refuses an oversized plan at once, saying how to split it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rac-cap-'));
    for (const seeds of [
      '0-99999',
      Array.from({ length: 40 }, (_, i) => `${i * 200000}-${i * 200000 + 99999}`).join(','),
    ]) {
      const r = await cli([
        'run',
        '--dataset',
        'iris',
        '--algorithms',
        'all',
        '--seeds',
        seeds,
        '--out',
        join(dir, 'x.json'),
      ]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/more than .* one run can hold.*rac-bench merge/);
      expect(r.ms).toBeLessThan(30_000); // tsx start-up included (seconds on a loaded machine); before, it grew for minutes
    }
    const r = await cli([
      'run',
      '--dataset',
      'iris,wine',
      '--setting',
      'all',
      '--labels',
      '1-100',
      '--algorithms',
      'statistical', // 7 algorithms ("all" grows with the catalogue)
      '--seeds',
      '0-99',
      '--out',
      join(dir, 'x.json'),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /This plan has 2,520,000 cells, more than the 100,000 one run may hold.*--shard/,
    );
  }, 120_000);
});
