/** The UI's pure helpers: link corrections, Compare's link, names and numbers for newcomers. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fixed3, formatMetric } from '../../../src/lib/charts/metricsTable.ts';
import { expectedStoredBytes, importDatasetFile } from '../../../src/lib/data/index.ts';
import { parseUserCsv } from '../../../src/lib/data/userCsv.ts';
import {
  clampSelection,
  PLANNER_DATASETS,
  PLANNER_LABELS,
  PLANNER_SEEDS,
} from '../../../src/ui/run/clampSelection.ts';
import { readCompareRuns, writeCompareRuns } from '../../../src/ui/share/compareUrl.ts';
import { urlNotices } from '../../../src/ui/common/urlNotices.ts';
import { algorithmLabel, describeCellKey, joinWords } from '../../../src/ui/results/labels.ts';

describe('numbers and names', () => {
  it('never shows -0.000', () => {
    expect(fixed3(-0.0001)).toBe('0.000');
    expect(fixed3(-0.0005)).toBe('-0.001');
    expect(formatMetric(-0.0004)).toBe('0.000');
    expect(formatMetric(0.7815)).toBe('0.781');
  });

  it('spells out algorithms and worker cells', () => {
    expect(algorithmLabel('tsvm')).toBe('Transductive SVM');
    expect(algorithmLabel('xgb')).toBe('XGBoost');
    expect(algorithmLabel('mystery')).toBe('mystery');
    expect(describeCellKey('wine|feature|5|lp|3|0')).toBe(
      'Label Propagation on Wine (feature, 5 labels, seed 0, t = 0.6)',
    );
    expect(joinWords(['Iris', 'Wine', 'Letter'])).toBe('Iris, Wine and Letter');
  });
});

describe('link corrections', () => {
  it('drops what the planner cannot show, one notice per field', () => {
    const { selection, notices } = clampSelection(
      {
        datasets: ['iris', 'nosuch'],
        settings: ['feature'],
        labels: [5, 7],
        algorithms: ['lp', 'zzz'],
        seeds: [0, 1, 2, 3, 4, 5, 6, 99],
        tIndices: [0],
      },
      { datasets: PLANNER_DATASETS, algorithms: ['lp', 'ls'], labels: PLANNER_LABELS, seeds: PLANNER_SEEDS },
    );
    expect(selection).toMatchObject({
      datasets: ['iris'],
      labels: [5],
      algorithms: ['lp'],
      seeds: [0, 1, 2, 3, 4],
    });
    expect(notices).toHaveLength(4);
    expect(notices[3]).toMatch(/^Ignored seeds 5-6,99 from the link: the planner offers seeds 0-4/);
  });

  it('names invalid fields and fields of another page', () => {
    expect(urlNotices('#/run?v=1&t=0.3')).toEqual([expect.stringMatching(/^Ignored t="0\.3"/)]);
    // With a plan, the Run page lists it among the plan's own corrections instead.
    expect(urlNotices('#/run?v=1&ds=iris&t=0.3')).toEqual([]);
    expect(urlNotices('#/data?v=1&hide=lp&run=x')).toEqual([
      'Ignored hide= on the Data page: it is read by the Results and Compare pages.',
      'Ignored run= on the Data page: it is read by the Results page.',
    ]);
    expect(urlNotices('#/results?v=1&hide=lp&run=x')).toEqual([]);
  });
});

describe("Compare's link", () => {
  it('round-trips link payloads and history ids, keeps other keys, reports bad entries', () => {
    const hash = writeCompareRuns('#/compare?v=1&form=code', [
      { kind: 'link', payload: '1.abc_-' },
      { kind: 'history', id: 'run-2026-x' },
    ]);
    expect(hash).toBe('#/compare?v=1&form=code&runs=1.abc_-,run:run-2026-x');
    expect(readCompareRuns(hash)).toEqual({
      entries: [
        { kind: 'link', payload: '1.abc_-' },
        { kind: 'history', id: 'run-2026-x' },
      ],
      bad: [],
    });
    expect(readCompareRuns('#/compare?runs=<script>,1.ok').bad).toEqual(['<script>']);
    expect(writeCompareRuns(hash, [])).toBe('#/compare?v=1&form=code');
  });
});

describe('data', () => {
  it('tells a CSV whose label column is a measurement to pick the label column, not to lower labels', () => {
    const rows = [
      'a,b,c',
      ...Array.from({ length: 40 }, (_, i) => `${i},${i % 5},${(i * 0.37 + 1).toFixed(3)}`),
    ];
    expect(() => parseUserCsv(rows.join('\n'), { name: 'x', labels: 10 })).toThrow(
      /does not look like a label column: 40 of its 40 distinct values/,
    );
  });

  it('loads letter from a local file through the same checks, refusing other content', async () => {
    const bytes = new Uint8Array(readFileSync('tests/fixtures/data/letter.pq'));
    const r = await importDatasetFile('letter', bytes, 'letter.pq', { cache: null });
    expect(r.dataset.sha256).toBe('56cd81c48b97e57b1ef8140b53839c2c78e7b3d7fbd197e03876c30a239307f8');
    expect(r.source).toBe('file:letter.pq');
    await expect(importDatasetFile('letter', bytes, 'letter.txt', { cache: null })).rejects.toThrow(
      /neither a parquet file/,
    );
    await expect(
      importDatasetFile('letter', new TextEncoder().encode('a,class\n1,A\n'), 'letter.csv', { cache: null }),
    ).rejects.toMatchObject({ name: 'DatasetError' });
    expect(expectedStoredBytes('letter')).toBe(20000 * 16 * 4 + 20000 * 4);
  });
});
