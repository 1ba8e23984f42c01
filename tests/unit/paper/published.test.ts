/** The published reference (Robust-SSL-Benchmark @ c405226) and the reproduction numbers. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isBaselineAlgorithm } from '../../../src/lib/models/catalogue.ts';
import {
  combine,
  isDefective,
  loadPublished,
  publishedSeries,
  reproduction,
  reproductionByAlgorithm,
  reproductionSummary,
} from '../../../src/lib/published/reference.ts';
import { panelCurves } from '../../../src/lib/suite/curves.ts';
import { parseRun } from '../../../src/lib/suite/schema.ts';

describe('published reference', () => {
  it('ships every reported tabular series with its provenance and the known defects marked', async () => {
    const t = await loadPublished();
    expect(t.provenance).toMatchObject({ repository: 'YGZWQZD/Robust-SSL-Benchmark', commit: 'c405226' });
    expect(t.series.some((s) => s.algorithm === 'Co_Training')).toBe(false);
    const tri = publishedSeries(t, {
      dataset: 'wine',
      setting: 'feature',
      labels: 5,
      algorithm: 'tritraining',
    })!;
    expect(tri.source).toBe('Feature/results/wine_statistical_feature_labels_5.csv');
    expect(tri.mean).toHaveLength(6);
    const labelWine = publishedSeries(t, {
      dataset: 'wine',
      setting: 'label',
      labels: 5,
      algorithm: 'tsvm',
    })!;
    expect(isDefective(labelWine, 0)).toBe(true);
    expect(isDefective(labelWine, 1)).toBe(false);
    const labelLetter = publishedSeries(t, {
      dataset: 'letter',
      setting: 'label',
      labels: 10,
      algorithm: 'lp',
    })!;
    expect([0, 1, 2, 3, 4, 5].every((i) => isDefective(labelLetter, i))).toBe(true);
    expect(
      publishedSeries(t, { dataset: 'iris', setting: 'feature', labels: 5, algorithm: 'nope' }),
    ).toBeNull();
  });

  it('within noise is |Δ| ≤ max(2·std, 2 pts); exact needs mean and std; defects are left out', () => {
    const ref = {
      setting: 'feature' as const,
      dataset: 'x',
      family: 'statistical' as const,
      labels: 5,
      algorithm: 'A',
      source: 'f',
      defects: [{ t: 0.2, reason: 'copy' }],
      mean: [0.9, 0.9, 0.9, 0.9, 0.5, null],
      std: [0.001, 0.05, 0, 0.01, 0.1, 0.1],
    };
    const r = reproduction({ mean: [0.9, 0.8, 0.915, 0.7, 0.5, 0.5], std: [0.001, 0, 0, 0, 0.2, 0] }, ref);
    expect(r.points).toBe(4); // t = 0.2 is a defect, t = 1 has no published row
    expect(r.defective).toBe(1);
    expect(r.detail.map((d) => [d.within, d.exact])).toEqual([
      [true, true],
      [true, false],
      [false, false],
      [true, false],
    ]);
    expect(r.meanDiff).toBeCloseTo((0 + 0.015 - 0.2 + 0) / 4, 12);
    expect(reproductionSummary(r)).toBe('3/4 within noise · 1 exact · mean Δ −4.63 pp');
    expect(combine([r, r]).points).toBe(8);
  });

  it('the paper wine fixture run: SSGMM exact everywhere, Tri-Training within noise', async () => {
    const run = parseRun(JSON.parse(readFileSync('tests/fixtures/runs/paper-wine-5.json', 'utf8')));
    const rows = reproductionByAlgorithm(
      panelCurves(run.cells, { isBaseline: isBaselineAlgorithm }),
      await loadPublished(),
    );
    expect(rows.map((x) => [x.algorithm, x.r.within, x.r.points, x.r.exact])).toEqual([
      ['ssgmm', 11, 11, 11],
      ['tritraining', 11, 11, 9],
    ]);
  });
});
