/** The published reference (Robust-SSL-Benchmark @ c405226) and the reproduction numbers. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isBaselineAlgorithm } from '../../../src/lib/models/catalogue.ts';
import { combine, reproduction, reproductionSummary } from '../../../src/lib/published/agreement.ts';
import {
  isDefective,
  loadPublished,
  publishedSeries,
  reproductionByAlgorithm,
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

  it('agreement uses the noise of the means; exact needs mean, std and the same seeds; defects are left out', () => {
    const ref = {
      defects: [{ t: 0.2, reason: 'copy' }],
      mean: [0.9, 0.9, 0.9, 0.9, 0.5, null],
      std: [0.001, 0.05, 0, 0.01, 0.1, 0.1],
    };
    const seeds = [0, 1, 2, 3, 4];
    const ours = { mean: [0.9, 0.8, 0.915, 0.7, 0.5, 0.5], std: [0.001, 0, 0, 0, 0.2, 0], seeds };
    const r = reproduction(ours, ref, seeds);
    expect(r.points).toBe(4); // t = 0.2 is a defect, t = 1 has no published row
    expect(r.defective).toBe(1);
    // t = 0.8: |Δ| 0 ≤ 2·√(0.1²/4 + 0.2²/4); t = 0.4: 0.015 > 1e-6 (both std 0); t = 0.6: 0.2 > 2·0.01/2.
    expect(r.detail.map((d) => [d.agrees, d.exact])).toEqual([
      [true, true],
      [false, false],
      [false, false],
      [true, false],
    ]);
    expect(r.meanDiff).toBeCloseTo((0 + 0.015 - 0.2 + 0) / 4, 12);
    expect(reproductionSummary(r)).toBe(
      "2/4 points agree · no one-sided lean · 5 seeds vs the original's 5 · 1 exactly equal · mean Δ −4.63 pp",
    );
    // Other seeds than the original's: exact equality is not checked (it could not mean anything).
    expect(reproduction({ ...ours, seeds: [5, 6, 7, 8, 9] }, ref, seeds).exact).toBeNull();
    expect(combine([r, r]).points).toBe(8);
  });

  it('the paper wine fixture run: SSGMM exact everywhere, Tri-Training agrees everywhere', async () => {
    const run = parseRun(JSON.parse(readFileSync('tests/fixtures/runs/paper-wine-5.json', 'utf8')));
    const rows = reproductionByAlgorithm(
      panelCurves(run.cells, { isBaseline: isBaselineAlgorithm }),
      await loadPublished(),
    );
    expect(rows.map((x) => [x.algorithm, x.r.agree, x.r.points, x.r.exact])).toEqual([
      ['ssgmm', 11, 11, 11],
      ['tritraining', 11, 11, 9],
    ]);
  });
});
