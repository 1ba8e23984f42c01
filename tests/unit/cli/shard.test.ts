/** --shard auto: the shard a scheduler's task runs, and that the shards of a plan tile it exactly. */
import { describe, expect, it } from 'vitest';
import { resolveShard } from '../../../src/cli/shard.ts';
import { isBaselineAlgorithm } from '../../../src/lib/models/catalogue.ts';
import { defaultPlanOptions, expandPlan, shardCells, type RunPlanSpec } from '../../../src/lib/suite/plan.ts';

const PAPER_STATISTICAL: RunPlanSpec = {
  preset: 'custom',
  datasets: ['iris', 'wine', 'letter'],
  settings: ['distribution', 'feature', 'label'],
  labels: [5, 10],
  algorithms: ['xgb', 'ssgmm', 'tsvm', 'lp', 'ls', 'tritraining', 'assemble'],
  seeds: [0, 1, 2, 3, 4],
  tIndices: [0, 1, 2, 3, 4, 5],
  mode: 'rsb',
  quirks: 'rsb',
  options: defaultPlanOptions('rsb'),
};

describe('resolveShard', () => {
  it('takes i/n by hand and 1/1 by default', () => {
    expect(resolveShard(undefined, {})).toEqual({ index: 1, count: 1, source: 'default' });
    expect(resolveShard('3/8', {})).toEqual({ index: 3, count: 8, source: 'flag' });
    expect(() => resolveShard('9/8', {})).toThrow(/need 1 <= i <= n/);
    expect(() => resolveShard('2-8', {})).toThrow(/i\/n .* or "auto"/);
  });

  it('numbers Slurm array tasks from 1 whether the array starts at 0 or 1', () => {
    const zero = {
      SLURM_ARRAY_TASK_ID: '0',
      SLURM_ARRAY_TASK_MIN: '0',
      SLURM_ARRAY_TASK_MAX: '7',
      SLURM_ARRAY_TASK_COUNT: '8',
    };
    expect(resolveShard('auto', zero)).toEqual({ index: 1, count: 8, source: 'slurm' });
    expect(resolveShard('auto', { ...zero, SLURM_ARRAY_TASK_ID: '7' })).toEqual({
      index: 8,
      count: 8,
      source: 'slurm',
    });
    const one = { SLURM_ARRAY_TASK_ID: '4', SLURM_ARRAY_TASK_MIN: '1', SLURM_ARRAY_TASK_MAX: '8' };
    expect(resolveShard('auto', one)).toEqual({ index: 4, count: 8, source: 'slurm' });
  });

  it('refuses strided or sparse Slurm arrays, whose ids do not number the shards', () => {
    const strided = {
      SLURM_ARRAY_TASK_ID: '4',
      SLURM_ARRAY_TASK_MIN: '0',
      SLURM_ARRAY_TASK_MAX: '14',
      SLURM_ARRAY_TASK_COUNT: '8',
    };
    expect(() => resolveShard('auto', strided)).toThrow(/strided or sparse/);
    expect(() => resolveShard('auto', { SLURM_ARRAY_TASK_ID: '2' })).toThrow(/SLURM_ARRAY_TASK_COUNT/);
    expect(() => resolveShard('auto', { SLURM_ARRAY_TASK_ID: 'x', SLURM_ARRAY_TASK_COUNT: '2' })).toThrow(
      /whole number/,
    );
  });

  it('reads a Kubernetes Indexed Job index (0-based) with the count from a flag or RAC_SHARD_COUNT', () => {
    expect(resolveShard('auto', { JOB_COMPLETION_INDEX: '0' }, '4')).toEqual({
      index: 1,
      count: 4,
      source: 'kubernetes',
    });
    expect(resolveShard('auto', { JOB_COMPLETION_INDEX: '3', RAC_SHARD_COUNT: '4' })).toEqual({
      index: 4,
      count: 4,
      source: 'kubernetes',
    });
    expect(() => resolveShard('auto', { JOB_COMPLETION_INDEX: '4' }, '4')).toThrow(
      /not below the shard count 4/,
    );
    expect(() => resolveShard('auto', { JOB_COMPLETION_INDEX: '1' })).toThrow(
      /--shard-count N or set RAC_SHARD_COUNT/,
    );
    expect(() => resolveShard('auto', { JOB_COMPLETION_INDEX: '1' }, '0')).toThrow(/>= 1/);
  });

  it('falls back to RAC_SHARD, and says what it looked for when nothing is set', () => {
    expect(resolveShard('auto', { RAC_SHARD: '2/3' })).toEqual({ index: 2, count: 3, source: 'env' });
    expect(() => resolveShard('auto', {})).toThrow(
      /SLURM_ARRAY_TASK_ID .* JOB_COMPLETION_INDEX .* RAC_SHARD/,
    );
  });
});

describe('shards of the paper statistical grid', () => {
  const all = expandPlan(PAPER_STATISTICAL, isBaselineAlgorithm);

  it.each([
    [
      'slurm',
      (i: number) => ({
        SLURM_ARRAY_TASK_ID: String(i),
        SLURM_ARRAY_TASK_MIN: '0',
        SLURM_ARRAY_TASK_MAX: '7',
      }),
    ],
    ['kubernetes', (i: number) => ({ JOB_COMPLETION_INDEX: String(i), RAC_SHARD_COUNT: '8' })],
  ])(
    'the 8 %s tasks tile the plan: disjoint, complete, balanced, baselines beside their t=0 fit',
    (_name, envOf) => {
      expect(all).toHaveLength(3780);
      const seen = new Map<string, number>();
      const fitsPerShard: number[] = [];
      for (let task = 0; task < 8; task++) {
        const shard = resolveShard('auto', envOf(task));
        const cells = shardCells(all, shard.index, shard.count);
        for (const c of cells) {
          expect(seen.has(c.key), `cell ${c.key} in two shards`).toBe(false);
          seen.set(c.key, shard.index);
        }
        fitsPerShard.push(cells.filter((c) => c.derivedFromKey === null).length);
      }
      expect(seen.size).toBe(all.length);
      expect(fitsPerShard.reduce((a, b) => a + b, 0)).toBe(3330);
      expect(Math.max(...fitsPerShard) - Math.min(...fitsPerShard)).toBeLessThanOrEqual(1);
      for (const c of all) if (c.derivedFromKey) expect(seen.get(c.key)).toBe(seen.get(c.derivedFromKey));
    },
  );
});
