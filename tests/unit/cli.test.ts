/** The CLI as a user runs it: `node bin/rac-bench.mjs ...` in a child process. */
import { readFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT as root, runCli as cli } from './helpers/cli.ts';

interface FixtureCell {
  mode: string;
  setting: string;
  labels: number;
  tIndex: number;
  seed: number;
  L: number[];
  E: number[];
  U: number[];
}

describe('rac-bench CLI', () => {
  it('answers --help for every subcommand (was "TypeError: Unknown option \'--help\'")', async () => {
    for (const cmd of ['datasets', 'split', 'run', 'merge', 'published']) {
      for (const args of [
        [cmd, '--help'],
        [cmd, '-h'],
        ['help', cmd],
      ]) {
        const r = await cli(args);
        expect(r.stderr).toBe('');
        expect(r.code).toBe(0);
        expect(r.stdout).toContain(`Usage: rac-bench ${cmd}`);
      }
    }
  });

  it('run --help lists every catalogue id, group and preset (derived, never a stale list)', async () => {
    const { algorithmIds, algorithmGroups } = await import('../../src/lib/models/catalogue.ts');
    const { PRESET_IDS } = await import('../../src/lib/suite/presets.ts');
    const r = await cli(['run', '--help']);
    for (const id of [...algorithmIds(), ...Object.keys(algorithmGroups()), ...PRESET_IDS, 'paper']) {
      expect(r.stdout, id).toMatch(new RegExp(`[ (|,]${id}[,)|; \n]`));
    }
    expect(r.stdout).toContain('ftt');
    expect(r.stdout).toContain('classroom-deep');
  });

  it('split prints the numpy/scikit-learn index sets for iris', async () => {
    const r = await cli([
      'split',
      '--dataset',
      'iris',
      '--setting',
      'all',
      '--labels',
      '5,10',
      '--seeds',
      '0-1',
      '--t',
      'all',
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const cells = JSON.parse(r.stdout) as {
      setting: string;
      labels: number;
      seed: number;
      t: number;
      labeled: number[];
      test: number[];
      unlabeled: number[];
      maskedColumns: number[];
    }[];
    expect(cells).toHaveLength(3 * 2 * 2 * 6);
    const fixture = JSON.parse(readFileSync(join(root, 'tests/fixtures/splits/iris.json'), 'utf8'))
      .cells as FixtureCell[];
    const grid = [0, 0.2, 0.4, 0.6, 0.8, 1];
    let checked = 0;
    for (const c of cells) {
      const f = fixture.find(
        (x) =>
          x.mode === 'rsb' &&
          x.setting === c.setting &&
          x.labels === c.labels &&
          x.seed === c.seed &&
          grid[x.tIndex] === c.t &&
          !(x as { t0Stream?: string }).t0Stream,
      );
      expect(f, `fixture for ${c.setting}/${c.labels}/${c.seed}/${c.t}`).toBeDefined();
      expect(c.labeled).toEqual(f!.L);
      expect(c.test).toEqual(f!.E);
      expect(c.unlabeled).toEqual(f!.U);
      checked++;
    }
    expect(checked).toBe(72);
    const feature = cells.find((c) => c.setting === 'feature' && c.t === 0.4)!;
    expect(feature.maskedColumns).toHaveLength(2);
  });

  it('rejects malformed selectors and unknown datasets with a clear message', async () => {
    const cases: [string[], RegExp][] = [
      [['split', '--dataset', 'iris', '--t', '2'], /--t: "2" is not on the grid/],
      [['split', '--dataset', 'mnist'], /unknown value "mnist"/],
      [['split', '--dataset', 'iris', '--seeds', 'x'], /--seeds: "x" is not an integer/],
      [['split', '--setting', 'all'], /Missing --dataset/],
      [['split', '--dataset', 'iris', '--protocol', 'paper'], /--protocol must be "rsb" or "readme"/],
      [['split', '--dataset', 'letter', '--seeds', '0', '--t', '0'], /not embedded.*--data-dir/],
      [['frobnicate'], /Unknown command "frobnicate"/],
      [['run', '--dataset', 'iris', '--algorithms', 'svm', '--out', '/dev/null'], /unknown value "svm"/],
      [['run', '--dataset', 'iris', '--shard', '3/2', '--out', '/dev/null'], /--shard 3\/2/],
    ];
    for (const [args, message] of cases) {
      const r = await cli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(message);
      expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace for user errors
    }
  });

  it('reads letter from --data-dir (OpenML parquet layout) and checks the structure', async () => {
    const r = await cli([
      'split',
      '--dataset',
      'letter',
      '--setting',
      'feature',
      '--labels',
      '5',
      '--seeds',
      '0',
      '--t',
      '0.4',
      '--data-dir',
      join(root, 'tests/fixtures/data'),
    ]);
    expect(r.stderr).toBe('');
    const [cell] = JSON.parse(r.stdout);
    expect(cell.labeled).toHaveLength(130);
    expect(cell.unlabeled).toHaveLength(10000);
    expect(cell.test).toHaveLength(9870);
    expect(cell.maskedColumns).toHaveLength(7);
  });

  it('datasets lists the registry as JSON', async () => {
    const r = await cli(['datasets', '--json']);
    const rows = JSON.parse(r.stdout) as { id: string; N: number }[];
    expect(rows.map((x) => [x.id, x.N])).toEqual([
      ['iris', 150],
      ['wine', 178],
      ['letter', 20000],
      ['covertype', 581012],
    ]);
  });

  it('run writes a valid result file, and shards merge back to the whole', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rac-cli-'));
    const common = [
      'run',
      '--dataset',
      'iris',
      '--setting',
      'feature',
      '--labels',
      '5',
      '--algorithms',
      'xgb,lp',
      '--seeds',
      '0-1',
      '--t',
      '0,1',
      '--quiet',
    ];
    const whole = await cli([...common, '--out', join(dir, 'all.json')]);
    expect(whole.code, whole.stderr).toBe(0);
    const a = await cli([...common, '--shard', '1/2', '--out', join(dir, 's1.json')]);
    const b = await cli([...common, '--shard', '2/2', '--out', join(dir, 's2.json')]);
    expect(a.code + b.code).toBe(0);
    const m = await cli([
      'merge',
      join(dir, 's1.json'),
      join(dir, 's2.json'),
      '--out',
      join(dir, 'merged.json'),
    ]);
    expect(m.code, m.stderr).toBe(0);
    const load = (f: string) => JSON.parse(readFileSync(join(dir, f), 'utf8'));
    const all = load('all.json');
    const merged = load('merged.json');
    expect(all.schema).toBe('rsb-run/2');
    expect(all.cells).toHaveLength(2 * 2 * 2);
    const key = (c: {
      algorithm: { name: string };
      seed: number;
      t: number;
      outcome: { accuracy: number };
    }) => `${c.algorithm.name}|${c.seed}|${c.t}|${c.outcome.accuracy}`;
    expect(merged.cells.map(key).sort()).toEqual(all.cells.map(key).sort());
    const xgbT1 = all.cells.find(
      (c: { algorithm: { name: string }; t: number }) => c.algorithm.name === 'xgb' && c.t === 1,
    );
    expect(xgbT1.outcome.flattened_from_t0).toBe(true);
    const bad = await cli(['merge', join(dir, 'nope.json'), '--out', join(dir, 'x.json')]);
    expect(bad.stderr).toMatch(/nope.json: not a readable JSON file/);
  });
});
