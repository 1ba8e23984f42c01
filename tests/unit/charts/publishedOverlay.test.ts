/**
 * The published overlay travels (issue 21, item 6): the dashed curves get a legend entry in the
 * chart, the verdict goes with an exported figure (appendFigureNote), and the switch is part of
 * the view state that links carry (`pub=on`), while links from before it read exactly as before.
 */
import { describe, expect, it } from 'vitest';
import { parseViewState } from '../../../src/lib/charts/viewState.ts';
import { appendFigureNote, racChart, racChartSize } from '../../../src/lib/charts/racChart.ts';
import { formatHash, readHash, viewFromFields, viewToFields } from '../../../src/lib/share/urlState.ts';
import { panelOverlay } from '../../../src/ui/results/publishedPanel.ts';
import { loadImageTextPublished } from '../../../src/lib/published/imageText.ts';
import { comparePanel } from '../../../src/lib/published/reference.ts';
import { curve, panelFixture, shimDocument } from './fixtures.ts';

const REF = [
  { algorithm: 'lp', mean: [0.9, 0.88, 0.85, 0.8, null, 0.7], std: [0.02, 0.02, 0.03, 0.03, null, 0.04] },
];

describe('published overlay in the chart', () => {
  it('draws a legend row for the dashed curves, and reserves its height', () => {
    const label = 'RSB published · finetune (different protocol)';
    const plain = racChart(panelFixture(), { document: shimDocument(), reference: REF });
    expect(plain.querySelector('.reference-legend')).toBeNull();
    const svg = racChart(panelFixture(), {
      document: shimDocument(),
      reference: REF,
      referenceLabel: label,
      referenceMuted: true,
      referenceNote: 'RSB published · finetune · Different protocol: reference only, no reproduction verdict',
    });
    const entry = svg.querySelector('.reference-legend')!;
    expect(entry.querySelector('text')!.textContent).toBe(label);
    expect(entry.querySelector('line')!.getAttribute('stroke-dasharray')).toBe('3 3');
    expect(svg.querySelector('.published')!.getAttribute('data-muted')).toBe('true');
    expect(svg.getAttribute('data-reference-note')).toMatch(/^RSB published · finetune · Different protocol/);
    const base = racChartSize(4);
    expect(racChartSize(4, { referenceLabel: label }).height).toBe(base.height + 20);
    expect(svg.getAttribute('viewBox')).toBe(`0 0 480 ${base.height + 20}`);
  });

  it('writes the verdict under an exported figure and grows it to fit', () => {
    const note =
      'RSB published · ✗ Not reproduced: 22/24 points agree · SSGMM lies below at 6 of 6 points (sign test p = 0.031) · ' +
      "5 seeds vs the original's 5 · 20 exactly equal · mean Δ −2.10 pp";
    const svg = racChart(panelFixture(), { document: shimDocument(), reference: REF, referenceNote: note });
    const before = Number(svg.getAttribute('viewBox')!.split(' ')[3]);
    const size = appendFigureNote(svg);
    const lines = [...svg.querySelectorAll('.figure-note text')].map((t) => t.textContent);
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.join(' ')).toBe(note);
    expect(size.height).toBe(before + lines.length * 14 + 4);
    expect(svg.getAttribute('viewBox')).toBe(`0 0 480 ${size.height}`);
    // A chart without a note is left as it is.
    const bare = racChart(panelFixture(), { document: shimDocument() });
    expect(appendFigureNote(bare).height).toBe(Number(bare.getAttribute('viewBox')!.split(' ')[3]));
    expect(bare.querySelector('.figure-note')).toBeNull();
  });

  it('panelOverlay: an image/text features panel is muted and labelled "different protocol"', async () => {
    const table = await loadImageTextPublished();
    const c = curve('fixmatch', [0.8, 0.79, 0.78, 0.77, 0.76, 0.75], [0.01, 0.01, 0.01, 0.01, 0.01, 0.01], {
      dataset: 'cifar10',
      setting: 'feature',
      labels: 200,
    });
    c.protocol = { ...c.protocol, options: { tier: 'features' } };
    const o = panelOverlay(comparePanel([c], table), (id) => id);
    expect(o.referenceLabel).toBe('RSB published · finetune (different protocol)');
    expect(o.referenceMuted).toBe(true);
    expect(o.reference.map((r) => r.algorithm)).toEqual(['fixmatch']);
    expect(o.referenceNote).toMatch(/^RSB published · finetune · Different protocol: reference only/);
  });
});

describe('the overlay switch in the view state and links', () => {
  it('pub=on opens with the overlay on; off is not written; old links read exactly as before', () => {
    const on = viewFromFields(readHash('#/results?v=1&form=code&pub=on').fields);
    expect(on.published).toBe(true);
    expect(formatHash({ page: 'results', fields: viewToFields(on) })).toBe('#/results?v=1&form=code&pub=on');
    const old = viewFromFields(readHash('#/results?v=1&form=code&hide=lp').fields);
    expect('published' in old).toBe(false);
    expect(formatHash({ page: 'results', fields: viewToFields(old) })).toBe(
      '#/results?v=1&form=code&hide=lp',
    );
    expect(readHash('#/results?v=1&pub=yes').notices[0]).toMatch(
      /^Ignored pub="yes" \(expected one of off, on\)/,
    );
    expect(parseViewState({ published: true }).published).toBe(true);
    expect('published' in parseViewState({ published: 'yes' })).toBe(false);
  });
});
