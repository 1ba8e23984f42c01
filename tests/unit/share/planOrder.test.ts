import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sortCellsByPlan } from '../../../src/lib/share/planOrder.ts';
import { parseRun } from '../../../src/lib/suite/schema.ts';

describe('sortCellsByPlan', () => {
  it('puts labels 5 before 10 and algorithms in plan order, whatever order the store gave', () => {
    const run = parseRun(JSON.parse(readFileSync('tests/fixtures/runs/classroom.json', 'utf8')));
    const byKeyText = {
      ...run,
      cells: [...run.cells].sort((a, b) =>
        `${a.labels}|${a.algorithm.name}` < `${b.labels}|${b.algorithm.name}` ? -1 : 1,
      ),
    };
    expect(byKeyText.cells[0].labels).toBe(10);
    const sorted = sortCellsByPlan(byKeyText).cells;
    expect(
      sorted
        .map((c) => `${c.dataset.id}|${c.setting}|${c.labels}|${c.algorithm.name}|${c.seed}|${c.t_index}`)
        .slice(0, 8),
    ).toEqual([
      'iris|distribution|5|xgb|0|0',
      'iris|distribution|5|xgb|0|1',
      'iris|distribution|5|xgb|0|2',
      'iris|distribution|5|xgb|0|3',
      'iris|distribution|5|xgb|0|4',
      'iris|distribution|5|xgb|0|5',
      'iris|distribution|5|xgb|1|0',
      'iris|distribution|5|xgb|1|1',
    ]);
    expect(sorted[863]).toMatchObject({
      setting: 'label',
      labels: 10,
      seed: 2,
      t_index: 5,
      algorithm: { name: 'ssgmm' },
      dataset: { id: 'wine' },
    });
    expect(sorted).toHaveLength(864);
  });
});
