/**
 * §9 subsampling through a real cell: the record carries what was applied (pools, n before/after,
 * seed'), the protocol is labelled custom with the caps in `overrides`, the model sees the capped
 * pools; a plan without caps gives exactly the record it gave before.
 */
import { describe, expect, it } from 'vitest';
import { getAlgorithm } from '../../../src/lib/models/catalogue.ts';
import { expandPlan, type RunPlanSpec } from '../../../src/lib/suite/plan.ts';
import { presetPlan, validatePlan } from '../../../src/lib/suite/presets.ts';
import { runCell, type RunCellContext } from '../../../src/lib/suite/runCell.ts';
import { parseCellResult, parseRun, type CellResult } from '../../../src/lib/suite/schema.ts';
import {
  describeSubsample,
  formatSubsample,
  parseSubsample,
  subsampleProblems,
} from '../../../src/lib/suite/subsamplePlan.ts';
import { loadEmbedded } from '../helpers/datasets.ts';
import { validRun } from '../schema/fixtures.ts';
import { decodeRunLink, encodeRunLink } from '../../../src/lib/share/permalink.ts';

const wine = await loadEmbedded('wine');
const ctx: RunCellContext = {
  now: () => 0,
  isoTime: () => '2026-11-26T00:00:00.000Z',
  env: { backend: 'cpu', float_precision: 'float32', tfjs_version: 'x', app_version: 'x', device: 'test' },
};

/** The paper preset cut to one wine cell (the numpy fixture's case: feature · 5 · t = 0.4 · seed 1). */
function plan(algorithm: string, extra: Partial<RunPlanSpec> = {}): RunPlanSpec {
  return {
    ...presetPlan('tabular-statistical'),
    datasets: ['wine'],
    settings: ['feature'],
    labels: [5],
    algorithms: [algorithm],
    seeds: [1],
    tIndices: [2],
    ...extra,
  };
}

async function cell(p: RunPlanSpec): Promise<CellResult> {
  const [c] = expandPlan(p, () => false);
  return parseCellResult(await runCell(wine, 'test', c, p, getAlgorithm(p.algorithms[0]), ctx));
}

const caps = { test: { max: 30 }, unlabeled: { max: 40 }, graph: { max: 25 } };

describe('a subsampled cell (PROTOCOL.md §9, §10)', () => {
  it('records the caps applied, is labelled custom and scores the capped test pool', async () => {
    const plain = await cell(plan('lp'));
    const sub = await cell(plan('lp', { preset: 'custom', subsample: caps }));
    expect(sub.subsample).toEqual([
      { pool: 'test', n_before: 74, n_after: 30, method: 'stratified-split', seed: 1_000_004 },
      { pool: 'unlabeled', n_before: 89, n_after: 40, method: 'stratified-split', seed: 1_000_004 },
      { pool: 'graph', n_before: 40, n_after: 25, method: 'stratified-split', seed: 1_000_004 },
    ]);
    expect(sub.protocol.preset).toBe('custom');
    expect(sub.protocol.overrides).toEqual({
      'subsample.test.max': 30,
      'subsample.unlabeled.max': 40,
      'subsample.graph.max': 25,
    });
    expect(sub.outcome.n_test).toBe(30);
    // The split record stays the protocol's split (comparable with unsubsampled runs).
    expect(sub.split).toEqual(plain.split);
    expect(sub.outcome.accuracy).not.toBe(plain.outcome.accuracy);
  });

  it('a named preset with caps is still never labelled with the preset', async () => {
    const sub = await cell(plan('lp', { subsample: { test: { max: 30, seed: 2 } } }));
    expect(sub.protocol.preset).toBe('custom');
    expect(sub.protocol.overrides).toEqual({ 'subsample.test.max': 30, 'subsample.test.seed': 2 });
    expect(sub.subsample).toEqual([
      { pool: 'test', n_before: 74, n_after: 30, method: 'stratified-split', seed: 1_000_006 },
    ]);
  });

  it('the graph cap reaches only the graph-pool algorithms; the overrides name every cap', async () => {
    const xgb = await cell(plan('xgb', { preset: 'custom', subsample: caps }));
    expect(xgb.subsample!.map((r) => r.pool)).toEqual(['test', 'unlabeled']);
    expect(Object.keys(xgb.protocol.overrides)).toContain('subsample.graph.max');
    const graphOnly = await cell(plan('xgb', { preset: 'custom', subsample: { graph: { max: 5 } } }));
    expect(graphOnly.subsample).toBeNull(); // nothing applied to this cell
    expect(graphOnly.protocol.preset).toBe('custom');
  });

  it('a cap at or above the pool size is applied as a no-op and still recorded', async () => {
    const sub = await cell(plan('lp', { preset: 'custom', subsample: { test: { max: 1000 } } }));
    const plain = await cell(plan('lp', { preset: 'custom' }));
    expect(sub.subsample).toEqual([
      { pool: 'test', n_before: 74, n_after: 74, method: 'stratified-split', seed: 1_000_004 },
    ]);
    expect(sub.outcome).toEqual(plain.outcome);
  });

  it('without caps the record is what it was: subsample null, preset and overrides untouched', async () => {
    const before = await cell(plan('lp'));
    expect(before.subsample).toBeNull();
    expect(before.protocol.preset).toBe('tabular-statistical');
    expect(before.protocol.overrides).toEqual({});
    expect(await cell(plan('lp', { subsample: {} }))).toEqual(before);
    expect(await cell(plan('lp', { subsample: undefined }))).toEqual(before);
  });

  it('a run record carries the plan caps; bad caps are refused with a clear message', () => {
    const run = validRun([]) as { plan: Record<string, unknown> };
    run.plan.subsample = { test: { max: 2000 }, graph: { max: 300, seed: 4 } };
    expect(parseRun(run).plan.subsample).toEqual({ test: { max: 2000 }, graph: { max: 300, seed: 4 } });
    run.plan.subsample = { test: { max: 0 } };
    expect(() => parseRun(run)).toThrow(/plan\.subsample\.test\.max/);
    expect(validatePlan(plan('lp', { subsample: { test: { max: 2.5 } } }))).toContainEqual(
      'Subsample test: the most rows kept must be an integer from 1 to 1000000000; got 2.5.',
    );
    expect(subsampleProblems({ test: { max: 5, seed: 2 ** 32 } }, [0])[0]).toMatch(/exceeds 4294967295/);
  });
});

describe('a subsampled run in a results link', () => {
  it("keeps the plan caps and every record's subsample", async () => {
    const p = plan('lp', { preset: 'custom', subsample: caps });
    const record = await cell(p);
    const run = parseRun({ ...validRun([record]), plan: p });
    const back = decodeRunLink(await encodeRunLink(run, 'fflate'));
    expect(back.plan.subsample).toEqual(caps);
    expect(back.cells[0].subsample).toEqual(record.subsample);
    expect(back.cells[0].protocol.overrides).toEqual(record.protocol.overrides);
  });
});

describe('subsample text (CLI --subsample, URL sub=)', () => {
  it('parses and formats round trip', () => {
    const spec = parseSubsample('test=2000, unlabeled=5000,graph=3000,seed=7');
    expect(spec).toEqual({
      test: { max: 2000, seed: 7 },
      unlabeled: { max: 5000, seed: 7 },
      graph: { max: 3000, seed: 7 },
    });
    expect(formatSubsample(spec)).toBe('test=2000,unlabeled=5000,graph=3000,seed=7');
    const mixed = parseSubsample('test:10,graph:5,graph.seed:3');
    expect(formatSubsample(mixed, ':')).toBe('test:10,graph:5,graph.seed:3');
    expect(parseSubsample(formatSubsample(mixed))).toEqual(mixed);
    expect(parseSubsample('')).toBeUndefined();
    expect(describeSubsample(spec)).toBe(
      'test ≤ 2,000 (seed +7), unlabeled ≤ 5,000 (seed +7), graph ≤ 3,000 (seed +7)',
    );
    expect(describeSubsample(undefined)).toBe('');
  });

  it.each([
    ['test=0', /Subsample test \(the most rows kept\) must be an integer from 1 to 1000000000; got "0"/],
    ['test=abc', /got "abc"/],
    ['tset=10', /unknown pool "tset"; pools are test, unlabeled, graph/],
    ['seed=3', /seed is given but no pool is capped/],
    ['graph.seed=3', /graph.seed is given but graph has no max/],
    ['test', /must look like pool=max/],
    ['test=1e3', /got "1e3"/],
  ])('refuses %s', (text, message) => {
    expect(() => parseSubsample(text)).toThrow(message);
  });
});
