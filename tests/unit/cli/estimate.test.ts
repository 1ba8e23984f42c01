/** `rac-bench estimate` as a user runs it (child process): real split shapes, shards, bad input. */
import { describe, expect, it } from 'vitest';
import { runCli as cli } from '../helpers/cli.ts';

describe('rac-bench estimate', () => {
  it('prints per algorithm × dataset fits and the wall time of the shards', async () => {
    const args = [
      '--dataset',
      'iris,wine',
      '--setting',
      'feature',
      '--labels',
      '5',
      '--algorithms',
      'tsvm,lp',
    ];
    const r = await cli(['estimate', ...args, '--seeds', '0-2', '--t', '0,1', '--shards', '2', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const est = JSON.parse(r.stdout) as {
      rows: { algorithm: string; dataset: string; fits: number; seconds: number }[];
      fits: number;
      cpuSeconds: number;
      shardSeconds: number[];
      wallSeconds: number;
      msPerUnit: number;
    };
    expect(est.rows.map((x) => `${x.algorithm}/${x.dataset}/${x.fits}`)).toEqual([
      'tsvm/iris/6',
      'lp/iris/6',
      'tsvm/wine/6',
      'lp/wine/6',
    ]);
    expect(est.fits).toBe(24);
    expect(est.msPerUnit).toBeGreaterThan(0);
    expect(est.shardSeconds).toHaveLength(2);
    expect(est.shardSeconds[0] + est.shardSeconds[1]).toBeCloseTo(est.cpuSeconds, 9);
    expect(est.wallSeconds).toBe(Math.max(...est.shardSeconds));
    const text = await cli(['estimate', ...args, '--seeds', '0', '--t', '0', '--shards', '2']);
    expect(text.stdout).toMatch(/^tsvm\s+iris\s+1\s/m);
    expect(text.stdout).toMatch(/2 shards in parallel \(rac-bench run --shard i\/2\)/);
  });

  it('refuses a bad --shards and says why', async () => {
    const r = await cli(['estimate', '--dataset', 'iris', '--shards', '0']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--shards must be an integer from 1 to 10000; got "0"/);
  });

  it('answers --help', async () => {
    const r = await cli(['estimate', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/--shards N/);
  });
});
