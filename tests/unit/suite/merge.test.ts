/** merge refuses what must not be pooled, naming the first difference (issue 12 row 5). */
import { describe, expect, it } from 'vitest';
import { mergeRuns, viewProblems } from '../../../src/lib/suite/merge.ts';
import { parseRun, type RunRecord } from '../../../src/lib/suite/schema.ts';
import { setPath, validCell, validRun } from '../schema/fixtures.ts';

function run(edit: (cell: Record<string, unknown>) => void = () => {}, seed = 2): RunRecord {
  const cell = validCell({ seed });
  edit(cell);
  const r = validRun([cell]) as { plan: { seeds: number[]; tIndices: number[] } };
  // The plan lists exactly this cell (merge refuses a plan with cells no file holds).
  r.plan.seeds = [seed];
  r.plan.tIndices = [3];
  return parseRun(r);
}

describe('mergeRuns', () => {
  it('pools disjoint shards of one protocol', () => {
    const merged = mergeRuns([run(), run(() => {}, 3)]);
    expect(merged.cells.map((c) => c.seed)).toEqual([2, 3]);
  });

  it.each([
    [
      'protocol version',
      (c: Record<string, unknown>) => setPath(c, 'protocol.version', '1.1.0'),
      /Run b\.json was made under protocol 1\.1\.0, but run a\.json under protocol 1\.0\.0/,
    ],
    [
      'overrides',
      (c: Record<string, unknown>) => setPath(c, 'protocol.overrides', { 'lp.gamma': 2 }),
      /has protocol overrides \{"lp\.gamma":2\}/,
    ],
    [
      'hyperparameters',
      (c: Record<string, unknown>) => setPath(c, 'algorithm.hyper.gamma', 20),
      /ran lp with other hyperparameters .*\(gamma: 1 vs 20\)/,
    ],
    [
      'dataset hash',
      (c: Record<string, unknown>) => setPath(c, 'dataset.sha256', 'b'.repeat(64)),
      /Dataset iris has two different contents/,
    ],
  ])('refuses a different %s, naming it', (_what, edit, message) => {
    expect(() => mergeRuns([run(), run(edit, 3)], ['a.json', 'b.json'])).toThrow(message);
  });
});

describe('viewProblems', () => {
  it('names what a chart would get wrong instead of drawing nothing', () => {
    expect(viewProblems(run())).toEqual([]);
    const dupPlan = run();
    dupPlan.plan.algorithms = ['lp', 'lp'];
    expect(viewProblems(dupPlan)[0]).toMatch(/lists algorithms "lp" twice/);
    const a = run();
    const b = run((c) => setPath(c, 'algorithm.hyper.gamma', 20), 3);
    expect(viewProblems({ plan: a.plan, cells: [...a.cells, ...b.cells] })[0]).toMatch(
      /lp appears with two sets of hyperparameters \(gamma: 1 vs 20\)/,
    );
  });
});
