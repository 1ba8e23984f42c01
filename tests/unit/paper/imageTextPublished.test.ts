/**
 * The published image/text curves (PROTOCOL-IMAGE-TEXT.md §9; issue 18, item 5): the 702 rows of
 * rsb-image-text-published.csv parsed into series per (panel, pair, setting, algorithm), counted
 * against the CSV itself, and drawn only as a different protocol outside the finetune tier.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  IMAGE_TEXT_NAMES,
  loadImageTextPublished,
  parseImageTextPublished,
} from '../../../src/lib/published/imageText.ts';
import {
  comparePanel,
  comparisonHeadline,
  comparisonSummary,
  publishedSeries,
  referenceLegend,
} from '../../../src/lib/published/reference.ts';
import csvModule from '../../../src/lib/published/rsbImageTextCsv.ts';
import { groupPanels, panelCurves } from '../../../src/lib/suite/curves.ts';
import { isModalBaseline, modalCurveCell } from '../../../src/lib/suite/modalCurves.ts';
import { parseRunV3, type ModalRunRecord } from '../../../src/lib/suite/schemaV3.ts';

const CSV = readFileSync('scripts/published/rsb-image-text-published.csv', 'utf8');

/** Rows per panel id, read from the CSV without the parser. */
function rowsPerPanel(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of text.trim().split(/\r?\n/).slice(1)) {
    const [setting, dataset, source, target] = line.split(',');
    const id = `${source ? `${dataset}:${source}->${target}` : dataset}|${setting}`;
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

describe('published image/text curves', () => {
  it('ships the CSV verbatim and parses all 702 rows into 117 series', async () => {
    expect(csvModule).toBe(CSV);
    const table = await loadImageTextPublished();
    expect(table).toMatchObject({ suite: 'image-text', seeds: [0, 1, 2], label: 'RSB published · finetune' });
    expect(table.series).toHaveLength(117);
    const points = table.series.reduce((a, s) => a + s.mean.filter((m) => m !== null).length, 0);
    expect(points).toBe(702);
    expect(table.series.every((s) => s.mean.every((m) => m !== null) && s.std.every((x) => x !== null))).toBe(
      true,
    );
  });

  it('has as many points per panel as the CSV has rows (15 panels: 9 published panels, 8 pairs)', async () => {
    const table = await loadImageTextPublished();
    const mine = new Map<string, number>();
    for (const s of table.series) {
      const id = `${s.dataset}|${s.setting}`;
      mine.set(id, (mine.get(id) ?? 0) + s.mean.filter((m) => m !== null).length);
    }
    const theirs = rowsPerPanel(CSV);
    expect(Object.fromEntries(mine)).toEqual(Object.fromEntries(theirs));
    expect(theirs.size).toBe(15);
    expect(theirs.get('image-clef:i->p|distribution')).toBe(48);
    expect(theirs.get('visda:validation->train|distribution')).toBe(48);
    expect(theirs.get('imdb-amazon|distribution')).toBe(42); // no ICT on text
    expect(theirs.get('ag_news|label')).toBe(42);
    expect(theirs.get('cifar100|feature')).toBe(48);
  });

  it('finds a series by our ids: panel id with its pair, labeled total, method id', async () => {
    const table = await loadImageTextPublished();
    const fix = publishedSeries(table, {
      dataset: 'image-clef:i->p',
      setting: 'distribution',
      labels: 100,
      algorithm: 'fixmatch',
    })!;
    expect(fix.mean[0]).toBe(0.905333333);
    expect(fix.std[0]).toBe(0.027390185);
    expect(fix.source).toBe('Distribution/results/Image_distribution.csv');
    expect(
      publishedSeries(table, {
        dataset: 'cifar10',
        setting: 'feature',
        labels: 200,
        algorithm: 'supervised',
      }),
    ).not.toBeNull();
    expect(
      publishedSeries(table, { dataset: 'cifar10', setting: 'label', labels: 200, algorithm: 'fixmatch' }),
    ).toBeNull(); // label's total is 100
    expect(
      publishedSeries(table, {
        dataset: 'cifar10',
        setting: 'feature',
        labels: 200,
        algorithm: 'meanteacher',
      }),
    ).toBeNull();
    expect(
      publishedSeries(table, { dataset: 'ag_news', setting: 'feature', labels: 100, algorithm: 'ict' }),
    ).toBeNull();
    expect(Object.keys(IMAGE_TEXT_NAMES)).toHaveLength(8);
  });

  it('names the first bad row of a damaged text', () => {
    const lines = CSV.trim().split(/\r?\n/);
    const head = lines[0];
    expect(() => parseImageTextPublished('a,b\n')).toThrow(/line 1: expected the header/);
    expect(() => parseImageTextPublished([head, lines[1], lines[1]].join('\n'))).toThrow(
      'line 3: image-clef:i->p · distribution · Supervised at t = 0 appears twice.',
    );
    expect(() => parseImageTextPublished([head, lines[1].replace(',i,p,', ',i,x,')].join('\n'))).toThrow(
      'line 2: Image-CLEF has no pair "i->x".',
    );
    expect(() =>
      parseImageTextPublished([head, lines[1].replace(',0,0.909', ',0.3,0.909')].join('\n')),
    ).toThrow(/line 2: t "0.3" is not on the grid/);
    expect(() => parseImageTextPublished([head, lines[1].replace('image-clef', 'mnist')].join('\n'))).toThrow(
      'line 2: unknown dataset "mnist".',
    );
  });

  it('overlays the same panel and pair on a features run as a different protocol, with no verdict', async () => {
    const run = parseRunV3(
      JSON.parse(readFileSync('tests/fixtures/runs/image-features-2.json', 'utf8')),
    ) as ModalRunRecord;
    const curves = panelCurves(run.cells.map(modalCurveCell), { isBaseline: isModalBaseline });
    const table = await loadImageTextPublished();
    const panels = groupPanels(curves);
    expect(panels.map((p) => p.dataset)).toEqual(['cifar10', 'image-clef:i->p']);
    for (const p of panels) {
      const pc = comparePanel(p.curves, table)!;
      expect(pc.verdict).toBe('different-protocol');
      expect(pc.total).toBeNull();
      expect(pc.curves.map((c) => c.published)).toEqual(['FixMatch']);
      expect(comparisonHeadline(pc)).toBe('Different protocol');
      expect(referenceLegend(pc)).toBe('RSB published · finetune (different protocol)');
      expect(comparisonSummary(pc)).toBe(
        "reference only, no reproduction verdict: this run's tier is features, the published curves are finetune (ResNet-50 / RoBERTa-base)",
      );
    }
    // The published rows never enter our curves.
    expect(curves.map((c) => c.nSeeds)).toEqual([
      [0, 1, 0, 0, 0, 0],
      [1, 0, 0, 0, 0, 0],
    ]);
  });

  it('compares a finetune curve, and shows none where an override changes a §5–§7 value', async () => {
    const table = await loadImageTextPublished();
    const s = publishedSeries(table, {
      dataset: 'cifar10',
      setting: 'feature',
      labels: 200,
      algorithm: 'fixmatch',
    })!;
    const curve = {
      dataset: 'cifar10',
      setting: 'feature' as const,
      labels: 200,
      algorithm: 'fixmatch',
      mean: s.mean.map((m) => m!),
      std: s.std.map((x) => x!),
      seeds: [0, 1, 2],
      protocol: { mode: 'rsb', options: { tier: 'finetune' }, overrides: {} },
    };
    const pc = comparePanel([curve], table)!;
    expect(pc.verdict).toBe('reproduced');
    expect(referenceLegend(pc)).toBe('RSB published · finetune');
    expect(pc.total).toMatchObject({ points: 6, agree: 6, exact: 6, nOurs: [3, 3], nPublished: 3 });
    const overridden = comparePanel(
      [{ ...curve, protocol: { ...curve.protocol, overrides: { iterations: 60 } } }],
      table,
    )!;
    expect(overridden.curves).toEqual([]);
    expect(comparisonSummary(overridden)).toBe(
      'no published curve shown: it overrides iterations, values of PROTOCOL-IMAGE-TEXT.md §5–§7',
    );
    expect(comparePanel([curve], table, { nonstandard: true })!.notShown[0].why).toMatch(
      /not the standard files/,
    );
  });
});
