import { describe, expect, it } from 'vitest';
import { algorithmGroups, isBaselineAlgorithm } from '../../../src/lib/models/catalogue.ts';
import { expandPlan } from '../../../src/lib/suite/plan.ts';
import {
  classroomDeepPlan,
  classroomPlan,
  customPlan,
  planSize,
  presetPlan,
  tabularDeepPlan,
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
    expect([...plan.algorithms].sort()).toEqual(algorithmGroups().statistical.sort());
    expect(plan.seeds).toEqual([0, 1, 2, 3, 4]);
  });

  it('tabular-deep is the paper deep grid (PROTOCOL.md §9: 5 760 cells, 5 160 fits × 1 000 steps)', () => {
    const plan = tabularDeepPlan();
    expect(planSize(plan, isBaselineAlgorithm)).toEqual({ cells: 5760, fits: 5160 });
    // §9's eight: MeanTeacher is an extra outside the paper grid (§7.4).
    expect(plan.algorithms).toEqual([
      'ftt',
      'pseudolabel',
      'pimodel',
      'ict',
      'uda',
      'fixmatch',
      'flexmatch',
      'softmatch',
    ]);
    expect(plan.datasets).toEqual(['iris', 'wine', 'letter', 'covertype']);
    expect(plan.modelOptions).toBeUndefined(); // rsb size, 1 000 steps: the catalogue's defaults
    expect([plan.mode, plan.quirks, plan.options.modelStreamOffset]).toEqual(['rsb', 'rsb', 'paper']);
    expect(plan.options.t0StreamByDataset).toEqual({ iris: 'shared' });
  });

  it('classroom-deep: iris + wine, distribution, labels 5, seed 0, all six t, the tiny loop', () => {
    const plan = classroomDeepPlan();
    expect(plan.algorithms).toEqual(['ftt', 'pseudolabel', 'meanteacher', 'fixmatch']);
    expect(plan.tIndices).toEqual([0, 1, 2, 3, 4, 5]);
    // ftt fits at t = 0 only: 2 datasets × (1 + 3 methods × 6 t) = 38 fits.
    expect(planSize(plan, isBaselineAlgorithm)).toEqual({ cells: 2 * 4 * 6, fits: 2 * (1 + 3 * 6) });
    for (const a of plan.algorithms) expect(plan.modelOptions?.[a]).toMatchObject({ size: 'tiny' });
  });

  it('presets are plain JSON and valid run plans; keys are unique', () => {
    for (const plan of [classroomPlan(), tabularStatisticalPlan(), classroomDeepPlan(), tabularDeepPlan()]) {
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
