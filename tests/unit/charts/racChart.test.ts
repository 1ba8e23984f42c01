import { describe, expect, it } from 'vitest';
import { racChart, racChartSize, tooltipLines } from '../../../src/lib/charts/racChart.ts';
import { curve, panelFixture, shimDocument } from './fixtures.ts';

/** One element per line, so snapshot diffs read well. */
const pretty = (svg: Element) => svg.outerHTML.replace(/></g, '>\n<') + '\n';

describe('racChart', () => {
  it('matches the committed SVG for a fixed panel', async () => {
    const svg = racChart(panelFixture(), { document: shimDocument() });
    await expect(pretty(svg)).toMatchFileSnapshot('./__snapshots__/rac-basic.svg');
  });

  it('matches the committed SVG with every explain overlay and a hidden algorithm', async () => {
    const svg = racChart(panelFixture({ kind: 'beta', alpha: 2, beta: 5 }), {
      document: shimDocument(),
      hidden: ['ls'],
      explain: ['auc', 'ea', 'wa', 'evm', 'vs', 'rcc'],
      label: (id) => id.toUpperCase(),
    });
    await expect(pretty(svg)).toMatchFileSnapshot('./__snapshots__/rac-explain.svg');
  });

  it('draws one band, one line and the measured points per visible curve; baselines dashed, t = 0 only', () => {
    const svg = racChart(panelFixture(), { document: shimDocument() });
    expect(svg.querySelectorAll('.bands path')).toHaveLength(4);
    const lines = [...svg.querySelectorAll('.lines path')];
    expect(lines.map((l) => l.getAttribute('data-algorithm'))).toEqual(['lp', 'ls', 'ssgmm', 'xgb']);
    const dashed = lines.filter((l) => l.getAttribute('stroke-dasharray'));
    expect(dashed.map((l) => l.getAttribute('data-algorithm'))).toEqual(['xgb']);
    expect(svg.querySelectorAll('.points g[data-algorithm="lp"] path.marker')).toHaveLength(6);
    expect(svg.querySelectorAll('.points g[data-algorithm="xgb"] path.marker')).toHaveLength(1);
    // One marker shape per algorithm, so coinciding curves stay apart without colour.
    const shapes = ['lp', 'ls', 'ssgmm', 'xgb'].map((a) =>
      svg.querySelector(`.points g[data-algorithm="${a}"] path.marker`)!.getAttribute('d'),
    );
    expect(new Set(shapes).size).toBe(4);
    // x ticks: exactly the six measured t.
    expect([...svg.querySelectorAll('.axis-x .tick text')].map((t) => t.textContent)).toEqual([
      '0.0',
      '0.2',
      '0.4',
      '0.6',
      '0.8',
      '1.0',
    ]);
  });

  it('leaves hidden algorithms out of the plot but keeps their legend entry unpressed', () => {
    const svg = racChart(panelFixture(), { document: shimDocument(), hidden: ['lp', 'xgb'] });
    expect([...svg.querySelectorAll('.lines path')].map((l) => l.getAttribute('data-algorithm'))).toEqual([
      'ls',
      'ssgmm',
    ]);
    expect(svg.querySelectorAll('[data-algorithm="lp"]:not(.legend-item)')).toHaveLength(0);
    const legend = [...svg.querySelectorAll('.legend-item')];
    expect(legend.map((g) => [g.getAttribute('data-algorithm'), g.getAttribute('aria-pressed')])).toEqual([
      ['lp', 'false'],
      ['ls', 'true'],
      ['ssgmm', 'true'],
      ['xgb', 'false'],
    ]);
    expect(legend[0].getAttribute('aria-label')).toBe('Show lp');
    expect(
      legend.every((g) => g.getAttribute('tabindex') === '0' && g.getAttribute('role') === 'button'),
    ).toBe(true);
  });

  it('calls onlegendclick with the id on click and on Enter/Space, not on other keys', () => {
    const doc = shimDocument();
    const clicks: string[] = [];
    const svg = racChart(panelFixture(), { document: doc, onlegendclick: (id) => clicks.push(id) });
    const ls = svg.querySelector('.legend-item[data-algorithm="ls"]')!;
    ls.dispatchEvent(new doc.defaultView!.Event('click'));
    for (const key of ['Enter', ' ', 'a']) {
      const e = new doc.defaultView!.Event('keydown') as Event & { key: string };
      Object.defineProperty(e, 'key', { value: key });
      ls.dispatchEvent(e);
    }
    expect(clicks).toEqual(['ls', 'ls', 'ls']);
  });

  it('draws each explain overlay on the target curve, and only the requested ones', () => {
    const doc = shimDocument();
    const all = racChart(panelFixture(), { document: doc, explain: ['auc', 'ea', 'wa', 'evm', 'vs', 'rcc'] });
    for (const cls of [
      'explain-auc',
      'explain-ea',
      'explain-wa',
      'explain-evm',
      'explain-vs',
      'explain-rcc',
    ]) {
      expect(all.querySelectorAll(`.${cls}`).length, cls).toBe(1);
    }
    expect(all.querySelector('.explain-under')!.getAttribute('data-algorithm')).toBe('lp');
    // EVM: five vertical bars whose lengths (in accuracy units) sum to the integral EVM (0.3 for E1).
    expect(all.querySelectorAll('.explain-evm line.rise')).toHaveLength(5);
    // WA circle sits at t = 1 (x = right edge), E1's worst point.
    const wa = all.querySelector('.explain-wa circle')!;
    expect(Number(wa.getAttribute('cx'))).toBeCloseTo(466, 6);
    const some = racChart(panelFixture(), { document: doc, explain: ['wa'], explainOn: 'ls' });
    expect(
      some.querySelectorAll('.explain-auc, .explain-ea, .explain-evm, .explain-vs, .explain-rcc'),
    ).toHaveLength(0);
    expect(some.querySelector('.explain-over')!.getAttribute('data-algorithm')).toBe('ls');
    const none = racChart(panelFixture(), { document: doc });
    expect(none.querySelectorAll('.explain *')).toHaveLength(0);
  });

  it('shades EA by P_T: uniform evenly, Beta(2,5) heaviest near t = 0.2, grid as stems', () => {
    const doc = shimDocument();
    const opac = (svg: Element) =>
      [...svg.querySelectorAll('.explain-ea stop')].map((p) => Number(p.getAttribute('stop-opacity')));
    const uniformSvg = racChart(panelFixture(), { document: doc, explain: ['ea'] });
    const gradient = uniformSvg.querySelector('.explain-ea linearGradient')!.getAttribute('id');
    expect(uniformSvg.querySelector('.explain-ea path')!.getAttribute('fill')).toBe(`url(#${gradient})`);
    const uniform = opac(uniformSvg);
    expect(uniform).toHaveLength(40);
    expect(new Set(uniform).size).toBe(1);
    const beta = opac(
      racChart(panelFixture({ kind: 'beta', alpha: 2, beta: 5 }), { document: doc, explain: ['ea'] }),
    );
    // Average density per slice / max, × 0.35 (scipy: Beta(2,5).cdf differences); the mode 0.2 sits between slices 7 and 8.
    expect([beta[0], beta[7], beta[8], beta[20], beta[39]]).toEqual([0.05, 0.35, 0.35, 0.124, 0]);
    const grid = racChart(panelFixture({ kind: 'grid', weights: [3, 1, 1, 1, 1, 0] }), {
      document: doc,
      explain: ['ea'],
    });
    const widths = [...grid.querySelectorAll('.explain-ea line')].map((l) =>
      Number(l.getAttribute('stroke-width')),
    );
    expect(widths).toEqual([8, 3.33, 3.33, 3.33, 3.33, 0]);
  });

  it('places the RCC trend line by least squares: E1 falls from 0.9 to 0.66 (y in data units)', () => {
    const svg = racChart(panelFixture(), { document: shimDocument(), explain: ['rcc'], yDomain: [0, 1] });
    const l = svg.querySelector('.explain-rcc')!;
    // y = 40 + 220·(1 − v); slope = 12(∫tA − ∫A/2) = 12(0.368 − 0.39) = −0.264, intercept = 0.78 + 0.132 = 0.912.
    expect(Number(l.getAttribute('y1'))).toBeCloseTo(40 + 220 * (1 - 0.912), 1);
    expect(Number(l.getAttribute('y2'))).toBeCloseTo(40 + 220 * (1 - 0.648), 1);
  });

  it('has a title and an aria-label naming the panel, and a keyboard slider for the values', () => {
    const svg = racChart(panelFixture(), { document: shimDocument() });
    expect(svg.querySelector('title')!.textContent).toBe(
      'Robustness analysis curves: iris · distribution · 5 labels',
    );
    expect(svg.getAttribute('aria-label')).toMatch(
      /iris · distribution · 5 labels\. 4 of 4 algorithms shown/,
    );
    const slider = svg.querySelector('.focus-target')!;
    expect(slider.getAttribute('role')).toBe('slider');
    expect(slider.getAttribute('tabindex')).toBe('0');
    expect(slider.getAttribute('aria-valuetext')).toContain('t = 0.0: lp  0.900 ± 0.020  (n = 5)');
  });

  it('steps the tooltip with the arrow keys and shows t, mean, std and n seeds', () => {
    const doc = shimDocument();
    const svg = racChart(panelFixture(), { document: doc });
    const slider = svg.querySelector('.focus-target')!;
    slider.dispatchEvent(new doc.defaultView!.Event('focus'));
    const press = (key: string) => {
      const e = new doc.defaultView!.Event('keydown') as Event & { key: string };
      Object.defineProperty(e, 'key', { value: key });
      slider.dispatchEvent(e);
    };
    press('ArrowRight');
    press('ArrowRight');
    expect(svg.querySelector('.hover')!.getAttribute('display')).toBeNull();
    const lines = [...svg.querySelectorAll('.tooltip tspan')].map((t) => t.textContent);
    expect(lines).toEqual([
      't = 0.4',
      'lp  0.800 ± 0.030  (n = 5)',
      'ls  0.650 ± 0.040  (n = 5)',
      'ssgmm  0.800 ± 0.000  (n = 5)',
      'xgb  0.800 ± 0.010  (n = 5)',
    ]);
    press('End');
    expect(slider.getAttribute('aria-valuenow')).toBe('1');
    slider.dispatchEvent(new doc.defaultView!.Event('blur'));
    expect(svg.querySelector('.hover')!.getAttribute('display')).toBe('none');
  });

  it('breaks lines at t values with no result yet (streaming) and says so in the tooltip', () => {
    const partial = curve('lp', [0.9, 0.85, NaN, NaN, NaN, NaN], [0.01, 0.02, NaN, NaN, NaN, NaN]);
    const svg = racChart([partial], { document: shimDocument(), explain: ['auc'], yDomain: [0, 1] });
    expect(svg.querySelector('.lines path')!.getAttribute('d')).toBe('M56,62L138,73');
    expect(svg.querySelectorAll('.points path.marker')).toHaveLength(2);
    expect(svg.querySelectorAll('.explain *')).toHaveLength(0); // incomplete: nothing to explain
    expect(tooltipLines([partial], 3, (id) => id)[0].text).toBe('lp  — (no seed yet)');
  });

  it('keeps its size fixed by the legend list, whatever the data', () => {
    const size = racChartSize(7);
    const svg = racChart(panelFixture().slice(0, 1), {
      document: shimDocument(),
      legendIds: ['lp', 'ls', 'ssgmm', 'tsvm', 'tritraining', 'assemble', 'xgb'],
    });
    expect(svg.getAttribute('viewBox')).toBe(`0 0 ${size.width} ${size.height}`);
    // 7 entries in 2 columns = 4 legend rows, then the caption row.
    expect(size).toEqual({ width: 480, height: 40 + 220 + 42 + 4 * 20 + 18 + 6 });
    expect(racChartSize(7, { legend: false }).height).toBe(40 + 220 + 42 + 18 + 6);
  });

  it('says in the figure what the band is and over how many seeds', () => {
    const svg = racChart(panelFixture(), { document: shimDocument() });
    expect(svg.querySelector('.caption')!.textContent).toBe(
      'Lines: mean over n = 5 seeds; bands: ±1 population std.',
    );
    const mixed = [
      curve('lp', [0.9, 0.8, 0.8, 0.7, 0.7, 0.6], [0, 0, 0, 0, 0, 0], { nSeeds: [3, 3, 2, 2, 2, 2] }),
    ];
    expect(racChart(mixed, { document: shimDocument() }).querySelector('.caption')!.textContent).toContain(
      'n = 2–3 seeds',
    );
  });

  it('keeps the y label clear of the title: rotated along the axis, below the plot top', () => {
    const svg = racChart(panelFixture(), { document: shimDocument() });
    const label = [...svg.querySelectorAll('.axis-y .axis-label')];
    expect(label).toHaveLength(1);
    expect(label[0].textContent).toBe('accuracy');
    expect(label[0].getAttribute('transform')).toBe('translate(-42,150) rotate(-90)');
    expect(Number(svg.querySelector('.panel-title')!.getAttribute('y'))).toBeLessThan(40 - 12);
  });

  it('shades the AUC overlay down to accuracy 0: the axis then starts at 0', () => {
    const svg = racChart(panelFixture(), { document: shimDocument(), explain: ['auc'] });
    const ticks = [...svg.querySelectorAll('.axis-y .tick text')].map((t) => t.textContent);
    expect(ticks[0]).toBe('0.00');
    // The area's baseline is y(0) = the plot bottom (40 + 220).
    expect(svg.querySelector('.explain-auc')!.getAttribute('d')).toMatch(/L466,260L.*Z$/);
  });

  it('fades the other curves while a legend entry is pointed at or focused', () => {
    const doc = shimDocument();
    const svg = racChart(panelFixture(), { document: doc });
    const ls = svg.querySelector('.legend-item[data-algorithm="ls"]')!;
    ls.dispatchEvent(new doc.defaultView!.Event('focus'));
    const op = (a: string) =>
      svg.querySelector(`.lines path[data-algorithm="${a}"]`)!.getAttribute('opacity');
    expect([op('lp'), op('ls'), op('xgb')]).toEqual(['0.15', null, '0.15']);
    ls.dispatchEvent(new doc.defaultView!.Event('blur'));
    expect(op('lp')).toBeNull();
  });

  it('draws a given line style per curve and no legend when asked (Compare: colour = algorithm, line = run)', () => {
    const svg = racChart(panelFixture(), {
      document: shimDocument(),
      legend: false,
      dash: (id) => (id === 'ls' ? '2 3' : null),
    });
    expect(svg.querySelectorAll('.legend-item')).toHaveLength(0);
    const dashes = [...svg.querySelectorAll('.lines path')].map((l) => l.getAttribute('stroke-dasharray'));
    expect(dashes).toEqual([null, '2 3', null, null]);
  });

  it('refuses curves of several panels with a clear message', () => {
    const mixed = [
      ...panelFixture(),
      curve('lp', [0.5, 0.5, 0.5, 0.5, 0.5, 0.5], [0, 0, 0, 0, 0, 0], { dataset: 'wine' }),
    ];
    expect(() => racChart(mixed, { document: shimDocument() })).toThrow(
      /expected the curves of one panel.*got 2 panels/,
    );
  });

  it('keeps hostile dataset ids and algorithm names as text, never HTML', () => {
    const evil = '<img src=x onerror=alert(1)>';
    const c = curve(evil, [0.9, 0.85, 0.8, 0.8, 0.7, 0.6], [0, 0, 0, 0, 0, 0], { dataset: evil });
    const doc = shimDocument();
    const svg = racChart([c], { document: doc, explain: ['auc'] });
    expect(svg.querySelectorAll('img')).toHaveLength(0);
    expect(svg.querySelector('.panel-title')!.textContent).toBe(`${evil} · distribution · 5 labels`);
    expect(svg.querySelector('.legend-item title')!.textContent).toBe(evil);
    expect(svg.outerHTML).toContain('&lt;img src=x onerror=alert(1)&gt;');
    // Mounted in a document, it still makes no <img>.
    doc.body.appendChild(svg as unknown as Node);
    expect(doc.querySelectorAll('img')).toHaveLength(0);
  });
});
