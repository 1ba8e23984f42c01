import { describe, expect, it } from 'vitest';
import { isBaselineAlgorithm, algorithmIds } from '../../../src/lib/models/catalogue.ts';
import { expandPlan } from '../../../src/lib/suite/plan.ts';
import {
  classroomPlan,
  customPlan,
  planSize,
  presetPlan,
  tabularStatisticalPlan,
  validatePlan,
} from '../../../src/lib/suite/presets.ts';
import { RunPlanSchema } from '../../../src/lib/suite/schema.ts';
import * as v from 'valibot';

describe('presets', () => {
  it('classroom: 2 datasets × 3 settings × 2 labels × 4 algorithms × 6 t × 3 seeds', () => {
    const plan = classroomPlan();
    const { cells, fits } = planSize(plan, isBaselineAlgorithm);
    expect(cells).toBe(2 * 3 * 2 * 4 * 6 * 3); // 864
    // xgb fits only at t = 0: 2·3·2·3 = 36 fits; lp, ls, ssgmm: 3 · 2·3·2·6·3 = 648.
    expect(fits).toBe(36 + 648);
    expect(plan.algorithms).toEqual(['xgb', 'lp', 'ls', 'ssgmm']);
    expect([plan.mode, plan.quirks, plan.options.scaler]).toEqual(['rsb', 'rsb', 'split']);
  });

  it('tabular-statistical is the paper statistical grid (PROTOCOL.md §9: 3 780 cells, 3 330 fits)', () => {
    const plan = tabularStatisticalPlan();
    expect(planSize(plan, isBaselineAlgorithm)).toEqual({ cells: 3780, fits: 3330 });
    expect([...plan.algorithms].sort()).toEqual(algorithmIds().sort());
    expect(plan.seeds).toEqual([0, 1, 2, 3, 4]);
  });

  it('presets are plain JSON and valid run plans; keys are unique', () => {
    for (const plan of [classroomPlan(), tabularStatisticalPlan()]) {
      expect(JSON.parse(JSON.stringify(plan))).toEqual(plan);
      expect(v.safeParse(RunPlanSchema, plan).success).toBe(true);
      const keys = expandPlan(plan, isBaselineAlgorithm).map((c) => c.key);
      expect(new Set(keys).size).toBe(keys.length);
    }
  });

  it('custom orders and de-duplicates the selection, and validatePlan names what is missing', () => {
    const plan = customPlan({
      datasets: ['wine', 'iris'],
      settings: ['label', 'distribution'],
      labels: [10, 5, 10],
      algorithms: ['ls', 'xgb'],
      seeds: [2, 0],
    });
    expect([plan.datasets, plan.settings, plan.labels, plan.algorithms, plan.seeds]).toEqual([
      ['iris', 'wine'],
      ['distribution', 'label'],
      [5, 10],
      ['xgb', 'ls'],
      [0, 2],
    ]);
    expect(planSize(plan, isBaselineAlgorithm)).toEqual({
      cells: 2 * 2 * 2 * 2 * 6 * 2,
      fits: 2 * 2 * 2 * 2 * (1 + 6),
    });
    const empty = customPlan({ datasets: [], settings: ['label'], labels: [5], algorithms: [], seeds: [0] });
    expect(validatePlan(empty)).toEqual(['Choose at least one dataset.', 'Choose at least one algorithm.']);
    expect(validatePlan(plan)).toEqual([]);
    expect(() => presetPlan('custom')).toThrow(/needs a selection/);
  });
});
