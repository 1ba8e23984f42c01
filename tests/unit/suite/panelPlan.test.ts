/**
 * The plan of an image/text run (suite/panelPlan.ts): its cells in run order with stable keys, the
 * settings each dataset has, and the bank views its methods need (§7.4: strong views for the
 * FixMatch family, two distinct weak views for PiModel and MeanTeacher).
 */
import { describe, expect, it } from 'vitest';
import {
  bankRefusal,
  describePanelCell,
  PANEL_METHODS,
  panelCellKey,
  panelCells,
  panelMethodViews,
  type PanelPlan,
} from '../../../src/lib/suite/panelPlan.ts';

const plan: PanelPlan = {
  datasets: ['cifar10', 'cifar100'],
  settings: ['distribution', 'label', 'feature'],
  algorithms: ['supervised', 'fixmatch'],
  seeds: [0, 1],
  tIndices: [0, 5],
  tier: 'features',
  quirks: 'rsb',
};

describe('panel plans', () => {
  it('lists every cell once, in dataset/setting/method/labels/seed/t order, with the published totals', () => {
    const cells = panelCells(plan);
    // CIFAR has no distribution panel: 2 datasets × 2 settings × 2 methods × 2 seeds × 2 t.
    expect(cells).toHaveLength(32);
    expect(new Set(cells.map(panelCellKey)).size).toBe(32);
    expect(cells[0]).toEqual({
      dataset: 'cifar10',
      pair: null,
      setting: 'label',
      labels: 100,
      method: 'supervised',
      seed: 0,
      tIndex: 0,
    });
    expect(cells[1].tIndex).toBe(5);
    expect(cells[8]).toMatchObject({ dataset: 'cifar10', setting: 'feature', labels: 200 });
    expect(cells[16]).toMatchObject({ dataset: 'cifar100', setting: 'label', labels: 1_000 });
    expect(panelCells({ ...plan, labels: [40, 80] })).toHaveLength(64);
    expect(describePanelCell(cells[1])).toBe('cifar10 label supervised labels 100 t=1 seed 0');
  });

  it('says which bank views the methods need', () => {
    expect(PANEL_METHODS).toHaveLength(9);
    expect(panelMethodViews('supervised')).toEqual([]);
    expect(panelMethodViews('softmatch')).toEqual(['weak', 'strong']);
    expect(bankRefusal(PANEL_METHODS, 2, 1)).toBeNull();
    expect(bankRefusal(['supervised', 'pseudolabel', 'ict'], 1, 0)).toBeNull();
    expect(bankRefusal(['pimodel', 'uda', 'fixmatch'], 2, 0)).toBe(
      'uda, fixmatch need strong views, and the banks have none (K_s = 0). Make the banks with K_s ≥ 1, ' +
        'or run Supervised, PseudoLabel, PiModel, MeanTeacher and ICT.',
    );
    expect(bankRefusal(['meanteacher'], 1, 2)).toBe(
      'meanteacher needs two distinct weak views: make the banks with K_w ≥ 2.',
    );
  });
});
