import { describe, expect, it } from 'vitest';
import { betaDensityPlot, betaPdf } from '../../../src/lib/charts/betaDensity.ts';
import {
  explainSentences,
  explainTarget,
  interpolate,
  ptSliceDensity,
  trendLine,
} from '../../../src/lib/charts/explain.ts';
import { PALETTE, algorithmColor, contrast } from '../../../src/lib/charts/palette.ts';
import { curve, panelFixture, shimDocument } from './fixtures.ts';

describe('palette', () => {
  it('gives every colour at least 3:1 contrast on the light and dark surfaces and backgrounds', () => {
    for (const c of PALETTE)
      for (const bg of ['#ffffff', '#fbfbfd', '#171b23', '#0f1218'])
        expect(contrast(c, bg), `${c} on ${bg}`).toBeGreaterThanOrEqual(3);
  });
  it('keys colours by id: fixed slots, distinct for the statistical suite, stable for unknown ids', () => {
    const ids = ['lp', 'ls', 'ssgmm', 'tsvm', 'tritraining', 'assemble', 'xgb'];
    expect(new Set(ids.map(algorithmColor)).size).toBe(7);
    expect(algorithmColor('lp')).toBe('#3b6fd4');
    expect(algorithmColor('my-own')).toBe(algorithmColor('my-own'));
    expect(PALETTE).toContain(algorithmColor('__proto__'));
  });
  it('never gives an id outside the catalogue the colour of an entry (lp and fixmatch differ)', () => {
    const taken = new Set(
      ['lp', 'ls', 'ssgmm', 'tsvm', 'tritraining', 'assemble', 'xgb'].map(algorithmColor),
    );
    for (const id of [
      'fixmatch',
      'flexmatch',
      'softmatch',
      'uda',
      'ict',
      'pimodel',
      'pseudolabel',
      'ftt',
      'my-own',
    ]) {
      expect(taken.has(algorithmColor(id)), id).toBe(false);
    }
    expect(algorithmColor('fixmatch')).not.toBe(algorithmColor('lp'));
  });
  it('computes WCAG contrast (black on white is 21)', () => {
    expect(contrast('#000000', '#ffffff')).toBeCloseTo(21, 10);
  });
});

describe('beta density sparkline', () => {
  it('evaluates the density (Beta(2,5) at 0.2 is 2.4576)', () => {
    expect(betaPdf(0.2, 2, 5)).toBeCloseTo(30 * 0.2 * 0.8 ** 4, 12);
    expect(betaPdf(0.5, 1, 1)).toBeCloseTo(1, 12);
    expect(betaPdf(0, 0.5, 0.5)).toBe(Infinity);
  });
  it('draws a finite path even for U-shaped densities, with an aria-label', async () => {
    const svg = betaDensityPlot(0.5, 0.5, { document: shimDocument() });
    expect(svg.getAttribute('aria-label')).toBe('Density of Beta(0.5, 0.5) over t from 0 to 1');
    expect(svg.querySelector('path')!.getAttribute('d')).not.toMatch(/NaN|Infinity/);
    await expect(svg.outerHTML.replace(/></g, '>\n<') + '\n').toMatchFileSnapshot(
      './__snapshots__/beta-0.5-0.5.svg',
    );
    const b25 = betaDensityPlot(2, 5, { document: shimDocument() });
    await expect(b25.outerHTML.replace(/></g, '>\n<') + '\n').toMatchFileSnapshot(
      './__snapshots__/beta-2-5.svg',
    );
  });
  it('refuses bad parameters with a clear message', () => {
    expect(() => betaDensityPlot(0, 1, { document: shimDocument() })).toThrow(
      /alpha and beta must be finite numbers > 0, got alpha=0, beta=1/,
    );
  });
});

describe('explain helpers', () => {
  it('interpolates the piecewise-linear curve', () => {
    const a = [0.9, 0.85, 0.8, 0.8, 0.7, 0.6];
    expect(interpolate(a, 0)).toBe(0.9);
    expect(interpolate(a, 0.1)).toBeCloseTo(0.875, 12);
    expect(interpolate(a, 0.9)).toBeCloseTo(0.65, 12);
    expect(interpolate(a, 1)).toBeCloseTo(0.6, 12);
  });
  it('slices P_T into average densities that integrate to 1', () => {
    const d = ptSliceDensity({ kind: 'beta', alpha: 2, beta: 5 }, 40)!;
    expect(d.reduce((s, x) => s + x, 0) / 40).toBeCloseTo(1, 12);
    expect(ptSliceDensity({ kind: 'uniform' }, 4)).toEqual([1, 1, 1, 1]);
    expect(ptSliceDensity({ kind: 'grid', weights: [1, 1, 1, 1, 1, 1] }, 4)).toBeNull();
  });
  it('fits the least-squares trend: a straight curve is its own trend line', () => {
    const [m] = [curve('x', [0.5, 0.6, 0.7, 0.8, 0.9, 1.0], [0, 0, 0, 0, 0, 0])].map(
      (c) => c.metrics!.integral,
    );
    const { slope, intercept } = trendLine(m.auc, m.intTA);
    expect(slope).toBeCloseTo(0.5, 12);
    expect(intercept).toBeCloseTo(0.5, 12);
  });
  it('picks the target: the requested visible curve, else the first visible SSL curve', () => {
    const cs = panelFixture();
    expect(explainTarget(cs, [], null)!.algorithm).toBe('lp');
    expect(explainTarget(cs, ['lp'], null)!.algorithm).toBe('ls');
    expect(explainTarget(cs, [], 'xgb')!.algorithm).toBe('xgb');
    expect(explainTarget(cs, ['xgb'], 'xgb')!.algorithm).toBe('lp');
    expect(explainTarget(cs, ['lp', 'ls', 'ssgmm'], null)!.algorithm).toBe('xgb');
  });
  it('writes one sentence per overlay with the value', () => {
    const s = explainSentences(panelFixture()[0], ['auc', 'wa', 'rcc'], (id) => id.toUpperCase());
    expect(s.map((x) => x.key)).toEqual(['auc', 'wa', 'rcc']);
    expect(s[0].text).toBe(
      "AUC = 0.780: the shaded area under LP's curve, its average accuracy over all degrees of inconsistency t.",
    );
    expect(s[1].text).toContain('circled at t = 1.0');
    expect(s[2].text).toMatch(/^RCC = -0.963: .* falls, so accuracy drops/);
    expect(explainSentences(panelFixture()[2], ['rcc'])[0].text).toMatch(/undefined .* flat curve/);
    expect(explainSentences(null, ['auc'])[0].text).toMatch(/^Waiting/);
    expect(explainSentences(panelFixture()[0], [])).toEqual([]);
  });
});
