import { describe, expect, it } from 'vitest';
import {
  FLAT_CURVE_TEXT,
  formatMetric,
  metricHeader,
  metricRows,
  missingReason,
  sortRows,
} from '../../../src/lib/charts/metricsTable.ts';
import { curve, panelFixture } from './fixtures.ts';

describe('metric table rows', () => {
  it('shows the integral forms (PROTOCOL.md §8.3 worked examples)', () => {
    const rows = metricRows(panelFixture({ kind: 'beta', alpha: 2, beta: 5 }), 'integral');
    const lp = rows[0].values;
    expect(lp.auc).toBeCloseTo(0.78, 12);
    expect(lp.ea).toBeCloseTo(0.833773714286, 12);
    expect(lp.evm).toBeCloseTo(0.3, 12);
    expect(lp.vs).toBeCloseTo(0.035, 12);
    expect(lp.rcc).toBeCloseTo(-0.962708943886, 12);
    expect(rows[1].values.rcc).toBeCloseTo(0.862975823953, 12);
    expect(rows[2].values.rcc).toBeNaN(); // flat
  });

  it('shows the code forms with Acc_T0 in place of EA', () => {
    const rows = metricRows(panelFixture(), 'code');
    expect(rows[0].values.auc).toBeCloseTo(0.775, 12);
    expect(rows[0].values.ea).toBe(0.9);
    expect(rows[0].values.vs).toBeCloseTo(0.0374165738677, 12);
    expect(rows[1].values.rcc).toBeCloseTo(0.83152184062, 11);
    expect(metricHeader('ea', 'code')).toBe('Acc_T0');
    expect(metricHeader('ea', 'integral')).toBe('EA');
    expect(metricHeader('evm', 'code')).toBe('EVM');
  });

  it('marks the best per column within each panel: higher AUC/EA/WA/RCC, lower EVM/VS, ties all marked, baselines and flat curves out of EVM/VS', () => {
    const rows = metricRows(panelFixture(), 'integral');
    const best = Object.fromEntries(rows.map((r) => [r.algorithm, [...r.best].sort()]));
    // AUC: ssgmm 0.8 and the flattened xgb 0.8 tie; WA: ssgmm and xgb 0.8; RCC: ls. EVM/VS: ssgmm's
    // curve is flat (0 is no robustness, issue 21 item 14) and xgb is a baseline, so lp's are best.
    expect(best).toEqual({
      lp: ['evm', 'vs'],
      ls: ['rcc'],
      ssgmm: ['auc', 'ea', 'wa'],
      xgb: ['auc', 'ea', 'wa'],
    });
  });

  it('tags a flat semi-supervised curve and never marks its EVM or VS of 0 best (issue 21, item 14)', () => {
    const rows = metricRows(panelFixture(), 'integral');
    const flat = rows.filter((r) => r.flat).map((r) => r.algorithm);
    // ssgmm is 0.8 at every t; the xgb baseline is flat by construction and tagged as a baseline.
    expect(flat).toEqual(['ssgmm']);
    const ssgmm = rows.find((r) => r.algorithm === 'ssgmm')!;
    expect(ssgmm.values.evm).toBe(0);
    expect(ssgmm.best.has('evm') || ssgmm.best.has('vs')).toBe(false);
    expect(FLAT_CURVE_TEXT).toMatch(/^flat: the same accuracy at every t/);
  });

  it('compares best values per panel, not across panels', () => {
    const curves = [
      ...panelFixture(),
      curve('lp', [0.5, 0.5, 0.5, 0.5, 0.5, 0.4], [0, 0, 0, 0, 0, 0], { dataset: 'wine' }),
      curve('ls', [0.3, 0.3, 0.3, 0.3, 0.3, 0.29], [0, 0, 0, 0, 0, 0], { dataset: 'wine' }),
    ];
    const wine = metricRows(curves, 'integral').filter((r) => r.dataset === 'wine');
    expect(wine[0].best.has('auc')).toBe(true); // 0.49 < iris values, but best in its panel
    expect(wine[1].best.has('evm')).toBe(true);
  });

  it('sorts inside each panel, missing values last either way; panel columns order the panels', () => {
    const curves = [
      ...panelFixture(),
      curve('lp', [0.5, 0.5, 0.5, 0.5, 0.5, 0.4], [0, 0, 0, 0, 0, 0], { dataset: 'aaa' }),
      curve('tsvm', [0.9, NaN, NaN, NaN, NaN, NaN], [0, NaN, NaN, NaN, NaN, NaN], { dataset: 'aaa' }),
    ];
    const rows = metricRows(curves, 'integral');
    const order = (column: string, dir: 'asc' | 'desc') =>
      sortRows(rows, { column, dir }).map((r) => `${r.dataset}/${r.algorithm}`);
    expect(order('auc', 'desc')).toEqual([
      'iris/ssgmm',
      'iris/xgb',
      'iris/lp',
      'iris/ls',
      'aaa/lp',
      'aaa/tsvm',
    ]);
    expect(order('auc', 'asc')).toEqual([
      'iris/ls',
      'iris/lp',
      'iris/ssgmm',
      'iris/xgb',
      'aaa/lp',
      'aaa/tsvm',
    ]);
    expect(order('rcc', 'asc')).toEqual([
      'iris/lp',
      'iris/ls',
      'iris/ssgmm',
      'iris/xgb',
      'aaa/lp',
      'aaa/tsvm',
    ]);
    expect(order('dataset', 'asc').slice(0, 2)).toEqual(['aaa/lp', 'aaa/tsvm']);
    expect(order('algorithm', 'desc').slice(0, 4)).toEqual(['iris/xgb', 'iris/ssgmm', 'iris/ls', 'iris/lp']);
    expect(order('panel', 'asc')).toEqual(rows.map((r) => `${r.dataset}/${r.algorithm}`));
  });

  it('formats with 3 decimals and explains the dashes', () => {
    expect(formatMetric(0.78)).toBe('0.780');
    expect(formatMetric(-0.9627089)).toBe('-0.963');
    expect(formatMetric(NaN)).toBe('—');
    expect(formatMetric(null)).toBe('—');
    expect(missingReason(NaN)).toMatch(/^flat curve/);
    expect(missingReason(null)).toMatch(/not complete yet/);
    expect(missingReason(0.5)).toBeNull();
  });
});
