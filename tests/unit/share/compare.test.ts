import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compareRuns } from '../../../src/lib/share/compare.ts';
import { isBaselineAlgorithm } from '../../../src/lib/models/catalogue.ts';
import { parseRun, type RunRecord } from '../../../src/lib/suite/schema.ts';

const run = parseRun(JSON.parse(readFileSync('tests/fixtures/runs/classroom.json', 'utf8')));
const opts = { form: 'code' as const, isBaseline: isBaselineAlgorithm };

/** The same run with one curve's scores lowered by `drop` correct answers at every cell. */
function lowered(r: RunRecord, algorithm: string, drop: number): RunRecord {
  return {
    ...r,
    cells: r.cells.map((c) => {
      if (
        c.algorithm.name !== algorithm ||
        c.dataset.id !== 'iris' ||
        c.setting !== 'distribution' ||
        c.labels !== 5
      )
        return c;
      const nc = Math.max(0, c.outcome.n_correct - drop);
      return { ...c, outcome: { ...c.outcome, n_correct: nc, accuracy: nc / c.outcome.n_test } };
    }),
  };
}

describe('compareRuns', () => {
  it('gives each run its metrics and the Δ against the first', () => {
    const b = lowered(run, 'lp', 6); // 6 of 60 test points: code AUC drops by exactly 0.1
    const cmp = compareRuns(
      [
        { name: 'A', run },
        { name: 'B', run: b },
      ],
      opts,
    );
    expect(cmp.refused).toEqual([]);
    expect(cmp.rows).toHaveLength(2 * 3 * 2 * 4);
    const lp = cmp.rows.find(
      (r) => r.dataset === 'iris' && r.setting === 'distribution' && r.labels === 5 && r.algorithm === 'lp',
    )!;
    expect(lp.delta.auc[0]).toBe(0);
    expect(lp.delta.auc[1]).toBeCloseTo(-0.1, 12);
    expect(lp.values.auc[1]! - lp.values.auc[0]!).toBeCloseTo(-0.1, 12);
    const ls = cmp.rows.find(
      (r) => r.dataset === 'iris' && r.setting === 'distribution' && r.labels === 5 && r.algorithm === 'ls',
    )!;
    expect(ls.delta.auc[1]).toBe(0);
    expect(cmp.curves.filter((c) => c.algorithm === 'lp@B')).toHaveLength(12);
  });
  it('refuses a run under another protocol mode or quirks, and says so', () => {
    const fixed = { ...run, plan: { ...run.plan, quirks: 'fixed' as const } };
    const cmp = compareRuns(
      [
        { name: 'A', run },
        { name: 'B', run: fixed },
      ],
      opts,
    );
    expect(cmp.included.map((x) => x.name)).toEqual(['A']);
    expect(cmp.refused[0].reason).toBe(
      'Run B used protocol mode "rsb" with quirks "fixed", but run A used mode "rsb" with quirks "rsb"; results under different protocols are not compared or pooled.',
    );
    expect(cmp.rows[0].values.auc).toHaveLength(1);
  });
});
