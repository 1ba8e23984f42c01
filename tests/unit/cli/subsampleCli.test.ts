/** `rac-bench run --subsample` (PROTOCOL.md §9) as a user runs it: `node bin/rac-bench.mjs ...`. */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli as cli } from '../helpers/cli.ts';

interface Cell {
  algorithm: { name: string };
  seed: number;
  protocol: { preset: string; overrides: Record<string, unknown> };
  subsample: { pool: string; n_before: number; n_after: number; seed: number }[] | null;
  outcome: { n_test: number; accuracy: number };
}

describe('rac-bench run --subsample', () => {
  it('documents the flag in run --help', async () => {
    const r = await cli(['run', '--help']);
    expect(r.stdout).toMatch(
      /--subsample CAPS\s+PROTOCOL\.md §9 subsampling, e\.g\. test=2000,unlabeled=5000,graph=3000/,
    );
  });

  it(
    'records the caps in every cell, labels the run custom, and shards merge',
    { timeout: 60_000 },
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'rac-sub-'));
      const common = [
        'run',
        '--preset',
        'paper',
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
        '0.2',
        '--option',
        'lp.gamma=2',
        '--subsample',
        'test=20,graph=30,seed=2',
        '--quiet',
      ];
      const whole = await cli([...common, '--out', join(dir, 'all.json')]);
      expect(whole.code, whole.stderr).toBe(0);
      const run = JSON.parse(readFileSync(join(dir, 'all.json'), 'utf8'));
      expect(run.plan.preset).toBe('custom'); // §9 rule 1: never the paper preset
      expect(run.plan.subsample).toEqual({ test: { max: 20, seed: 2 }, graph: { max: 30, seed: 2 } });
      const cells = run.cells as Cell[];
      expect(cells).toHaveLength(4);
      for (const c of cells) {
        expect(c.protocol.preset).toBe('custom');
        expect(c.protocol.overrides).toMatchObject({
          'subsample.test.max': 20,
          'subsample.test.seed': 2,
          'subsample.graph.max': 30,
          'subsample.graph.seed': 2,
        });
        expect(c.outcome.n_test).toBe(20);
        const seedPrime = c.seed + 1_000_003 + 2;
        expect(c.subsample).toEqual(
          c.algorithm.name === 'lp'
            ? [
                { pool: 'test', n_before: 60, n_after: 20, method: 'stratified-split', seed: seedPrime },
                { pool: 'graph', n_before: 75, n_after: 30, method: 'stratified-split', seed: seedPrime },
              ]
            : [{ pool: 'test', n_before: 60, n_after: 20, method: 'stratified-split', seed: seedPrime }],
        );
      }
      // Shards of the same plan merge (overrides are compared per algorithm: lp.gamma is lp's only).
      const a = await cli([...common, '--shard', '1/2', '--out', join(dir, 's1.json')]);
      const b = await cli([...common, '--shard', '2/2', '--out', join(dir, 's2.json')]);
      expect(a.code + b.code, a.stderr + b.stderr).toBe(0);
      const m = await cli([
        'merge',
        join(dir, 's1.json'),
        join(dir, 's2.json'),
        '--out',
        join(dir, 'm.json'),
      ]);
      expect(m.code, m.stderr).toBe(0);
      const merged = JSON.parse(readFileSync(join(dir, 'm.json'), 'utf8'));
      const key = (c: Cell) => `${c.algorithm.name}|${c.seed}|${c.outcome.accuracy}`;
      expect((merged.cells as Cell[]).map(key).sort()).toEqual(cells.map(key).sort());
    },
  );

  it.each([
    ['test=0', /--subsample: Subsample test \(the most rows kept\) must be an integer from 1/],
    ['tests=10', /--subsample: Subsample: unknown pool "tests"/],
    [
      'test=10,seed=4293967290',
      /--subsample: Subsample test: seed' = run seed \+ 1000003 \+ 4293967290 exceeds 4294967295 for seed 4/,
    ],
  ])('refuses --subsample %s with a clear message before any fit', async (flag, message) => {
    const r = await cli(['run', '--dataset', 'iris', '--subsample', flag, '--out', '/dev/null']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
