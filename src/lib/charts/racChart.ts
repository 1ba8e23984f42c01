/**
 * racChart: one RAC panel (dataset × setting × labels) as a detached SVG. x = inconsistency t
 * (the six measured points marked, one marker shape per algorithm), y = accuracy; one line per
 * algorithm with a ±1 population-std band over seeds; supervised baselines dashed; a clickable,
 * focusable legend (hovering or focusing an entry fades the other curves); a caption saying what
 * the band is and over how many seeds; a tooltip on hover, tap and keyboard focus (arrow keys step
 * through t); optional explain overlays (explain.ts). Text is sized to print: placed at
 * PRINT_WIDTH_PT, the base text is 8 pt.
 *
 * Pure function of data and options: it never touches the page. Data text goes in with `.text()`
 * only, so a hostile dataset id or algorithm name stays text.
 *
 * @example
 *   const svg = racChart(panel.curves, { hidden: ['xgb'], explain: ['auc'], onlegendclick: toggle });
 *   container.replaceChildren(svg);
 */
import * as d3 from 'd3';
import type { PT } from '../metrics/index.ts';
import type { CurveRecord } from '../suite/curves.ts';
import { T_GRID } from '../types.ts';
import { explainTarget, ptSliceDensity, trendLine } from './explain.ts';
import { algorithmColor, PALETTE } from './palette.ts';
import { fixed3 } from './metricsTable.ts';
import type { ExplainKey } from './viewState.ts';

export const SVG_NS = 'http://www.w3.org/2000/svg';

export interface RacChartOptions {
  /** Width of the SVG user space (viewBox), in px. Default 480. */
  width?: number;
  /** Height of the plot area, in px. Default 220. */
  plotHeight?: number;
  /** Algorithm ids not drawn (their legend entries stay, unpressed). Default none. */
  hidden?: readonly string[];
  /** Metrics to draw on the curve. Default none. */
  explain?: readonly ExplainKey[];
  /** Algorithm the overlays explain; default the first visible complete non-baseline curve. */
  explainOn?: string | null;
  /** P_T for the EA overlay. Default: the P_T stored with the target curve's EA. */
  pt?: PT;
  /** Legend entries, in order; fixing this list fixes the chart's height. Default: the curves' ids. */
  legendIds?: readonly string[];
  /** Legend columns. Default 3. */
  legendColumns?: number;
  /** Display name of an algorithm id. Default: the id. */
  label?: (id: string) => string;
  /** Colour of an algorithm id. Default: algorithmColor (fixed per id). */
  color?: (id: string) => string;
  /** Line dash of a curve id (null: solid). Default: baselines dashed, others solid. */
  dash?: (id: string, baseline: boolean) => string | null;
  /** Marker shape index of a curve id (into d3.symbolsFill). Default: the shape of its colour (algorithmSymbol for ids). */
  symbol?: (id: string) => number;
  /** Draw the legend inside the SVG. Default true (Compare draws one shared legend instead). */
  legend?: boolean;
  /** y domain; default fitted to the visible means ± std (within [0, 1]). */
  yDomain?: readonly [number, number] | null;
  /** Panel title. Default "dataset · setting · N labels". */
  title?: string;
  /** Called with the algorithm id when a legend entry is clicked or pressed (Enter/Space). */
  onlegendclick?: ((id: string) => void) | null;
  /** Tooltip and keyboard stepping. Default true. */
  interactive?: boolean;
  /** Document that creates the nodes (a DOM shim under Node). Default globalThis.document. */
  document?: Document | null;
  /**
   * Published reference curves (the original's means ± std), drawn under ours as thin grey dashed
   * lines with grey bands; null entries are gaps. Default none.
   */
  reference?: readonly ReferenceCurve[];
  /**
   * Legend entry of the reference curves (a grey dashed line and this text, in its own row under
   * the legend), e.g. "RSB published · finetune". Default none (no entry, no row).
   */
  referenceLabel?: string | null;
  /** Draw the reference fainter: a different protocol, shown for orientation only. Default false. */
  referenceMuted?: boolean;
  /**
   * The reproduction verdict in words. Kept on the SVG as `data-reference-note` (the page shows it
   * in its badge); exports write it under the figure with `appendFigureNote`. Default none.
   */
  referenceNote?: string | null;
}

/** A published curve to draw for comparison (see src/lib/published). */
export interface ReferenceCurve {
  algorithm: string;
  mean: readonly (number | null)[];
  std: readonly (number | null)[];
}

export const defaults = {
  width: 480,
  plotHeight: 220,
  margin: { top: 40, right: 14, bottom: 42, left: 56 },
  fontSize: 12,
  titleSize: 13.5,
  legendRow: 20,
  legendColumns: 2,
  captionRow: 18,
  fadeOpacity: 0.15,
  markerArea: 30,
  bandOpacity: 0.16,
  lineWidth: 2,
  baselineDash: '6 4',
  pointRadius: 2.8,
  eaSlices: 40,
  eaMaxOpacity: 0.35,
  ariaLabel: 'Robustness analysis curves',
  emptyText: 'No curves to show yet',
} as const;

/** Width at which the figure's base text prints at 8 pt (exports carry it as their size). */
export const PRINT_WIDTH_PT = (defaults.width * 8) / defaults.fontSize;

/** Size of the chart in user units, to reserve its box before it is drawn. */
export function racChartSize(
  nLegend: number,
  options: Pick<RacChartOptions, 'width' | 'plotHeight' | 'legendColumns' | 'legend' | 'referenceLabel'> = {},
): { width: number; height: number } {
  const width = options.width ?? defaults.width;
  const plotHeight = options.plotHeight ?? defaults.plotHeight;
  const rows =
    options.legend === false
      ? 0
      : Math.ceil(Math.max(1, nLegend) / (options.legendColumns ?? defaults.legendColumns));
  const { top, bottom } = defaults.margin;
  const refRow = options.referenceLabel ? defaults.legendRow : 0;
  return {
    width,
    height: top + plotHeight + bottom + rows * defaults.legendRow + refRow + defaults.captionRow + 6,
  };
}

/** The marker shape of an algorithm: its palette slot, so colour and shape go together. */
export function algorithmSymbol(id: string): number {
  return symbolForColor(algorithmColor(id));
}

/** Shape that goes with a palette colour (d3.symbolsFill has 7 shapes for 8 colours: the last two share). */
function symbolForColor(colour: string): number {
  return Math.min(
    d3.symbolsFill.length - 1,
    Math.max(0, PALETTE.indexOf(colour as (typeof PALETTE)[number])),
  );
}

/** "Lines: mean over n = 5 seeds; bands: ±1 population std." (a range of n where the curves differ). */
export function bandCaption(curves: readonly CurveRecord[]): string {
  const ns = curves.flatMap((c) => c.nSeeds.filter((n) => n > 0));
  if (!ns.length) return 'Lines: mean over seeds; bands: ±1 population std (no results yet).';
  const lo = Math.min(...ns);
  const hi = Math.max(...ns);
  const n = lo === hi ? `n = ${lo}` : `n = ${lo}–${hi}`;
  return `Lines: mean over ${n} seed${hi === 1 ? '' : 's'}; bands: ±1 population std.`;
}

/** Lines of at most `maxChars` characters, broken at spaces (a longer word stays whole). */
export function wrapWords(text: string, maxChars: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > maxChars) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

/** Line height of a figure note, in user units. */
const NOTE_ROW = 14;

/**
 * Writes a chart's reference note (its `data-reference-note`: the reproduction verdict) under the
 * figure as text lines, and grows the viewBox to hold them, so an exported panel carries the
 * badge the page shows beside it. For a clone about to be exported; a chart without a note is
 * left as it is. Returns the figure's size in user units.
 */
export function appendFigureNote(svg: SVGSVGElement): { width: number; height: number } {
  const [, , w, h] = (svg.getAttribute('viewBox') ?? '').split(/[\s,]+/).map(Number);
  const width = Number.isFinite(w) && w > 0 ? w : Number(svg.getAttribute('width')) || defaults.width;
  const height = Number.isFinite(h) && h > 0 ? h : Number(svg.getAttribute('height')) || 0;
  const note = svg.getAttribute('data-reference-note');
  if (!note) return { width, height };
  const doc = svg.ownerDocument;
  const lines = wrapWords(note, Math.floor((width - 16) / ((defaults.fontSize - 1) * 0.56)));
  const g = doc.createElementNS(SVG_NS, 'g');
  g.setAttribute('class', 'figure-note');
  g.setAttribute('font-size', String(defaults.fontSize - 1));
  lines.forEach((text, i) => {
    const t = doc.createElementNS(SVG_NS, 'text');
    t.setAttribute('x', '8');
    t.setAttribute('y', String(height + (i + 1) * NOTE_ROW - 2));
    t.textContent = text;
    g.append(t);
  });
  svg.append(g);
  const grown = height + lines.length * NOTE_ROW + 4;
  svg.setAttribute('viewBox', `0 0 ${width} ${grown}`);
  return { width, height: grown };
}

/** "iris · distribution · 5 labels" */
export function panelTitle(c: Pick<CurveRecord, 'dataset' | 'setting' | 'labels'>): string {
  return `${c.dataset} · ${c.setting} · ${c.labels} labels`;
}

const fmt3 = (x: number) => (Number.isFinite(x) ? fixed3(x) : '—');

/** Visible y range: means ± std of the shown curves, padded, inside [0, 1] (shared ranges use it over all panels). */
export function fitY(curves: readonly Pick<CurveRecord, 'mean' | 'std'>[]): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  for (const c of curves) {
    c.mean.forEach((m, i) => {
      if (!Number.isFinite(m)) return;
      const s = Number.isFinite(c.std[i]) ? c.std[i] : 0;
      lo = Math.min(lo, m - s);
      hi = Math.max(hi, m + s);
    });
  }
  if (!(hi >= lo)) return [0, 1];
  const pad = Math.max(0.02, (hi - lo) * 0.08);
  lo = Math.max(0, lo - pad);
  hi = Math.min(1, hi + pad);
  if (hi - lo < 0.1) [lo, hi] = [Math.max(0, Math.min(lo, hi - 0.1)), Math.min(1, Math.max(hi, lo + 0.1))];
  return [Math.floor(lo * 20) / 20, Math.ceil(hi * 20) / 20];
}

/** FNV-1a, base 36: a deterministic id for gradients (same inputs, same id; defs then agree). */
function hashId(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(36);
}

function checkOnePanel(curves: readonly CurveRecord[]): void {
  const keys = new Set(curves.map((c) => JSON.stringify([c.dataset, c.setting, c.labels])));
  if (keys.size > 1) {
    throw new RangeError(
      `racChart: expected the curves of one panel (dataset, setting, labels), got ${keys.size} panels: ${[...keys].join(' ')}. Group them with groupPanels first.`,
    );
  }
}

type Sel<E extends Element = SVGGElement> = d3.Selection<E, unknown, null, undefined>;

/** Render one RAC panel. See RacChartOptions for each option and its default. */
export function racChart(curves: readonly CurveRecord[], options: RacChartOptions = {}): SVGSVGElement {
  checkOnePanel(curves);
  const doc = options.document ?? globalThis.document;
  if (!doc)
    throw new Error(
      'racChart: no document; pass options.document (a DOM shim) when rendering outside a browser.',
    );
  const label = options.label ?? ((id: string) => id);
  const color = options.color ?? algorithmColor;
  const hidden = new Set(options.hidden ?? []);
  const legendIds = options.legendIds ?? [...new Set(curves.map((c) => c.algorithm))];
  const legendColumns = options.legendColumns ?? defaults.legendColumns;
  const showLegend = options.legend ?? true;
  const { width, height } = racChartSize(legendIds.length, { ...options, legendColumns, legend: showLegend });
  const dash =
    options.dash ?? ((_id: string, baseline: boolean) => (baseline ? defaults.baselineDash : null));
  // Shape follows colour, so a curve keeps its algorithm's shape under any colour mapping (Compare).
  const symbolOf = options.symbol ?? ((id: string) => symbolForColor(color(id)));
  const plotHeight = options.plotHeight ?? defaults.plotHeight;
  const m = defaults.margin;
  const innerW = width - m.left - m.right;
  const shown = curves.filter((c) => !hidden.has(c.algorithm));
  const title = options.title ?? (curves[0] ? panelTitle(curves[0]) : 'Empty panel');

  const x = d3
    .scaleLinear()
    .domain([0, 1])
    .range([m.left, m.left + innerW]);
  const refs = (options.reference ?? []).filter((r) => !hidden.has(r.algorithm));
  const refFit = refs.map((r) => ({
    mean: r.mean.map((v) => v ?? Number.NaN),
    std: r.std.map((v) => v ?? Number.NaN),
  }));
  const target = options.explain?.length ? explainTarget(curves, [...hidden], options.explainOn) : null;
  // AUC and EA are areas down to accuracy 0, so their shading needs an axis that starts at 0.
  const domain: [number, number] = options.yDomain ? [...options.yDomain] : fitY([...shown, ...refFit]);
  if (target && options.explain?.some((k) => k === 'auc' || k === 'ea')) domain[0] = 0;
  const y = d3
    .scaleLinear()
    .domain(domain)
    .range([m.top + plotHeight, m.top]);
  const bottom = m.top + plotHeight;

  const svg = d3
    .select(doc.createElementNS(SVG_NS, 'svg') as SVGSVGElement)
    .attr('xmlns', SVG_NS)
    .attr('class', 'rac-chart')
    .attr('viewBox', `0 0 ${width} ${height}`)
    .attr('width', width)
    .attr('height', height)
    .attr('role', 'group')
    .attr('font-family', 'system-ui, sans-serif')
    .attr('font-size', defaults.fontSize)
    .attr('fill', 'currentColor');
  const range = y
    .domain()
    .map((v) => v.toFixed(2))
    .join(' to ');
  svg.attr(
    'aria-label',
    `${defaults.ariaLabel}: ${title}. ${shown.length} of ${curves.length} algorithms shown; accuracy axis from ${range}.`,
  );
  svg.append('title').text(`${defaults.ariaLabel}: ${title}`);
  svg
    .append('text')
    .attr('class', 'panel-title')
    .attr('x', m.left)
    .attr('y', 18)
    .attr('font-size', defaults.titleSize)
    .attr('font-weight', 600)
    .text(title);

  svg.append('g').attr('class', 'axis axis-x').call(axisX, x, bottom, plotHeight);
  svg.append('g').attr('class', 'axis axis-y').call(axisY, y, m.left, innerW);

  const under = svg.append('g').attr('class', 'explain explain-under');
  if (target)
    drawExplainUnder(under, target, options.explain ?? [], options.pt, x, y, bottom, color(target.algorithm));

  const line = d3
    .line<number>()
    .defined((v) => Number.isFinite(v))
    .x((_, i) => x(T_GRID[i]))
    .y((v) => y(v))
    .digits(2);
  const band = (c: CurveRecord) =>
    d3
      .area<number>()
      .defined((v, i) => Number.isFinite(v) && Number.isFinite(c.std[i]))
      .x((_, i) => x(T_GRID[i]))
      .y0((v, i) => y(Math.max(0, v - c.std[i])))
      .y1((v, i) => y(Math.min(1, v + c.std[i])))
      .digits(2)(c.mean);

  if (refs.length)
    drawReference(svg.append('g').attr('class', 'published'), refs, x, y, options.referenceMuted ?? false);
  if (options.referenceNote) svg.attr('data-reference-note', options.referenceNote);

  svg
    .append('g')
    .attr('class', 'bands')
    .selectAll('path')
    .data(shown, (c) => (c as CurveRecord).algorithm)
    .join('path')
    .attr('class', 'band')
    .attr('data-algorithm', (c) => c.algorithm)
    .attr('fill', (c) => color(c.algorithm))
    .attr('fill-opacity', defaults.bandOpacity)
    .attr('d', band);

  svg
    .append('g')
    .attr('class', 'lines')
    .selectAll('path')
    .data(shown, (c) => (c as CurveRecord).algorithm)
    .join('path')
    .attr('class', (c) => (c.baseline ? 'line baseline' : 'line'))
    .attr('data-algorithm', (c) => c.algorithm)
    .attr('fill', 'none')
    .attr('stroke', (c) => color(c.algorithm))
    .attr('stroke-width', defaults.lineWidth)
    .attr('stroke-linejoin', 'round')
    .attr('stroke-dasharray', (c) => dash(c.algorithm, c.baseline))
    .attr('d', (c) => line(c.mean));

  // Measured points: all six for SSL curves; only t = 0 for baselines (fitted once, §7.1). One
  // shape per algorithm, so coinciding curves stay apart in print and for colour-blind readers.
  svg
    .append('g')
    .attr('class', 'points')
    .selectAll('g')
    .data(shown, (c) => (c as CurveRecord).algorithm)
    .join('g')
    .attr('data-algorithm', (c) => c.algorithm)
    .attr('fill', (c) => color(c.algorithm))
    .each(function (c) {
      const shape =
        d3
          .symbol(d3.symbolsFill[symbolOf(c.algorithm) % d3.symbolsFill.length], defaults.markerArea)
          .digits(2)() ?? '';
      d3.select(this)
        .selectAll('path')
        .data(
          c.mean.map((v, i) => ({ v, i })).filter((p) => Number.isFinite(p.v) && (!c.baseline || p.i === 0)),
        )
        .join('path')
        .attr('class', 'marker')
        .attr('d', shape)
        .attr('transform', (p) => `translate(${x(T_GRID[p.i])},${y(p.v).toFixed(2)})`);
    });

  const over = svg.append('g').attr('class', 'explain explain-over');
  if (target) drawExplainOver(over, target, options.explain ?? [], x, y, color(target.algorithm));

  if (!shown.length) {
    svg
      .append('text')
      .attr('class', 'empty')
      .attr('x', m.left + innerW / 2)
      .attr('y', m.top + plotHeight / 2)
      .attr('text-anchor', 'middle')
      .attr('fill-opacity', 0.7)
      .text(defaults.emptyText);
  }

  const legendTop = bottom + m.bottom - 4;
  if (showLegend) {
    drawLegend(svg.append('g').attr('class', 'legend'), legendIds, curves, hidden, {
      label,
      color,
      dash,
      symbolOf,
      root: svg,
      legendColumns,
      top: legendTop,
      left: m.left,
      innerW,
      onclick: options.onlegendclick ?? null,
    });
  }
  const rows = showLegend ? Math.ceil(Math.max(1, legendIds.length) / legendColumns) : 0;
  let below = legendTop + rows * defaults.legendRow;
  if (options.referenceLabel) {
    drawReferenceLegend(svg, options.referenceLabel, m.left, below, options.referenceMuted ?? false);
    below += defaults.legendRow;
  }
  svg
    .append('text')
    .attr('class', 'caption')
    .attr('x', 8)
    .attr('y', below + 12)
    .attr('font-size', defaults.fontSize - 1)
    .attr('fill-opacity', 0.8)
    .text(bandCaption(shown));
  if (options.interactive ?? true)
    drawHover(svg, shown, { x, y, label, color, top: m.top, bottom, left: m.left, innerW });
  return svg.node()!;
}

/** Grey of the reference curves; muted (a different protocol) draws them at this opacity. */
const REFERENCE_STROKE = '#7a7a7a';
const REFERENCE_MUTED_OPACITY = 0.55;

/** The legend row of the reference curves: a grey dashed line and its label (not a toggle). */
function drawReferenceLegend(
  svg: Sel<SVGSVGElement>,
  label: string,
  left: number,
  top: number,
  muted: boolean,
): void {
  const g = svg
    .append('g')
    .attr('class', 'reference-legend')
    .attr('transform', `translate(${left},${top})`)
    .attr('opacity', muted ? REFERENCE_MUTED_OPACITY : null);
  g.append('line')
    .attr('x1', 0)
    .attr('x2', 22)
    .attr('y1', 8)
    .attr('y2', 8)
    .attr('stroke', REFERENCE_STROKE)
    .attr('stroke-width', 1.5)
    .attr('stroke-dasharray', '3 3');
  g.append('text').attr('x', 28).attr('y', 12).text(label);
}

/** The published reference: a grey ±std band and a thin grey dashed mean line per algorithm. */
function drawReference(
  g: Sel,
  refs: readonly ReferenceCurve[],
  x: d3.ScaleLinear<number, number>,
  y: d3.ScaleLinear<number, number>,
  muted: boolean,
): void {
  const ok = (v: number | null): v is number => v !== null && Number.isFinite(v);
  // A different protocol is drawn fainter (PROTOCOL-IMAGE-TEXT.md §9: de-emphasised).
  if (muted) g.attr('opacity', REFERENCE_MUTED_OPACITY).attr('data-muted', 'true');
  for (const r of refs) {
    const pts = T_GRID.map((t, i) => ({ t, m: r.mean[i], s: r.std[i] }));
    g.append('path')
      .attr('class', 'published-band')
      .attr('data-algorithm', r.algorithm)
      .attr('fill', '#8a8a8a')
      .attr('fill-opacity', 0.14)
      .attr(
        'd',
        d3
          .area<(typeof pts)[number]>()
          .defined((p) => ok(p.m) && ok(p.s))
          .x((p) => x(p.t))
          .y0((p) => y(Math.max(0, p.m! - p.s!)))
          .y1((p) => y(Math.min(1, p.m! + p.s!)))
          .digits(2)(pts),
      );
    g.append('path')
      .attr('class', 'published-line')
      .attr('data-algorithm', r.algorithm)
      .attr('fill', 'none')
      .attr('stroke', REFERENCE_STROKE)
      .attr('stroke-width', 1)
      .attr('stroke-dasharray', '3 3')
      .attr(
        'd',
        d3
          .line<(typeof pts)[number]>()
          .defined((p) => ok(p.m))
          .x((p) => x(p.t))
          .y((p) => y(p.m!))
          .digits(2)(pts),
      );
  }
}

function axisX(g: Sel, x: d3.ScaleLinear<number, number>, bottom: number, plotHeight: number): void {
  g.attr('transform', `translate(0,${bottom})`)
    .call(
      d3
        .axisBottom(x)
        .tickValues([...T_GRID])
        .tickFormat(d3.format('.1f'))
        .tickSizeOuter(0),
    )
    .call((a) =>
      a
        .selectAll('.tick line')
        .clone()
        .attr('class', 'grid')
        .attr('y2', -plotHeight)
        .attr('stroke-opacity', 0.1),
    );
  g.append('text')
    .attr('class', 'axis-label')
    .attr('x', x.range()[1])
    .attr('y', 32)
    .attr('text-anchor', 'end')
    .attr('fill', 'currentColor')
    .text('inconsistency t →');
}

function axisY(g: Sel, y: d3.ScaleLinear<number, number>, left: number, innerW: number): void {
  g.attr('transform', `translate(${left},0)`)
    .call(d3.axisLeft(y).ticks(5).tickFormat(d3.format('.2f')).tickSizeOuter(0))
    .call((a) =>
      a.selectAll('.tick line').clone().attr('class', 'grid').attr('x2', innerW).attr('stroke-opacity', 0.1),
    );
  // Rotated along the axis: never in the way of the panel title above the plot.
  const [y0, y1] = y.range();
  g.append('text')
    .attr('class', 'axis-label')
    .attr('transform', `translate(${-left + 14},${(y0 + y1) / 2}) rotate(-90)`)
    .attr('text-anchor', 'middle')
    .attr('fill', 'currentColor')
    .text('accuracy');
}

interface LegendOptions {
  label: (id: string) => string;
  color: (id: string) => string;
  dash: (id: string, baseline: boolean) => string | null;
  symbolOf: (id: string) => number;
  root: Sel<SVGSVGElement>;
  legendColumns: number;
  top: number;
  left: number;
  innerW: number;
  onclick: ((id: string) => void) | null;
}

function drawLegend(
  g: Sel,
  ids: readonly string[],
  curves: readonly CurveRecord[],
  hidden: Set<string>,
  o: LegendOptions,
): void {
  const colW = o.innerW / o.legendColumns;
  const maxChars = Math.floor((colW - 30) / (defaults.fontSize * 0.56));
  const baseline = new Set(curves.filter((c) => c.baseline).map((c) => c.algorithm));
  const items = g
    .selectAll<SVGGElement, string>('g')
    .data(ids, (d) => d)
    .join('g')
    .attr('class', 'legend-item')
    .attr('data-algorithm', (d) => d)
    .attr(
      'transform',
      (_, i) =>
        `translate(${o.left + (i % o.legendColumns) * colW},${o.top + Math.floor(i / o.legendColumns) * defaults.legendRow})`,
    )
    .attr('role', 'button')
    .attr('tabindex', 0)
    .attr('aria-pressed', (d) => String(!hidden.has(d)))
    .attr('aria-label', (d) => `${hidden.has(d) ? 'Show' : 'Hide'} ${o.label(d)}`)
    .attr('opacity', (d) => (hidden.has(d) ? 0.45 : 1))
    .style('cursor', 'pointer');
  items
    .append('rect')
    .attr('class', 'hit')
    .attr('x', -2)
    .attr('y', -2)
    .attr('width', colW - 4)
    .attr('height', defaults.legendRow - 2)
    .attr('rx', 4)
    .attr('fill', 'transparent');
  items
    .append('line')
    .attr('x1', 0)
    .attr('x2', 22)
    .attr('y1', 8)
    .attr('y2', 8)
    .attr('stroke', (d) => o.color(d))
    .attr('stroke-width', 2.5)
    .attr('stroke-dasharray', (d) => o.dash(d, baseline.has(d)));
  items
    .append('path')
    .attr('class', 'marker')
    .attr('transform', 'translate(11,8)')
    .attr('fill', (d) => o.color(d))
    .attr(
      'd',
      (d) =>
        d3.symbol(d3.symbolsFill[o.symbolOf(d) % d3.symbolsFill.length], defaults.markerArea).digits(2)() ??
        '',
    );
  items
    .append('text')
    .attr('x', 28)
    .attr('y', 12)
    .text((d) => {
      const s = o.label(d);
      return s.length > maxChars ? `${s.slice(0, Math.max(1, maxChars - 1))}…` : s;
    })
    .attr('text-decoration', (d) => (hidden.has(d) ? 'line-through' : null));
  items.append('title').text((d) => o.label(d));
  // Emphasis: pointing at (or focusing) an entry fades every other curve of the panel.
  const emphasise = (id: string | null) => {
    o.root.selectAll<SVGElement, unknown>('.lines path, .bands path, .points g').attr('opacity', function () {
      return id === null || this.getAttribute('data-algorithm') === id ? null : defaults.fadeOpacity;
    });
  };
  items
    .on('pointerenter', (_e, d) => emphasise(d))
    .on('pointerleave', () => emphasise(null))
    .on('focus', (_e, d) => emphasise(d))
    .on('blur', () => emphasise(null));
  if (o.onclick) {
    const onclick = o.onclick;
    items
      .on('click', (_e, d) => onclick(d))
      .on('keydown', (e: KeyboardEvent, d) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          onclick(d);
        }
      });
  }
}

interface HoverOptions {
  x: d3.ScaleLinear<number, number>;
  y: d3.ScaleLinear<number, number>;
  label: (id: string) => string;
  color: (id: string) => string;
  top: number;
  bottom: number;
  left: number;
  innerW: number;
}

/** Tooltip lines at t index i: "label  mean ± std  (n seeds)". */
export function tooltipLines(
  curves: readonly CurveRecord[],
  i: number,
  label: (id: string) => string,
): { id: string; text: string }[] {
  return curves.map((c) => ({
    id: c.algorithm,
    text: Number.isFinite(c.mean[i])
      ? `${label(c.algorithm)}  ${fmt3(c.mean[i])} ± ${fmt3(c.std[i])}  (n = ${c.nSeeds[i]})`
      : `${label(c.algorithm)}  — (no seed yet)`,
  }));
}

/** Hover and keyboard focus: a vertical rule at the nearest measured t and a tooltip with the values. */
function drawHover(svg: Sel<SVGSVGElement>, shown: readonly CurveRecord[], o: HoverOptions): void {
  const hover = svg.append('g').attr('class', 'hover').attr('pointer-events', 'none').attr('display', 'none');
  const rule = hover
    .append('line')
    .attr('y1', o.top)
    .attr('y2', o.bottom)
    .attr('stroke', 'currentColor')
    .attr('stroke-opacity', 0.5);
  const tip = hover.append('g').attr('class', 'tooltip');
  const box = tip
    .append('rect')
    .attr('rx', 4)
    .attr('class', 'tooltip-box')
    .attr('fill', 'Canvas')
    .attr('stroke', 'currentColor')
    .attr('stroke-opacity', 0.3);
  const text = tip.append('text').attr('font-size', defaults.fontSize - 1);
  const step = 15;

  const valueText = (i: number) =>
    `t = ${T_GRID[i].toFixed(1)}: ${tooltipLines(shown, i, o.label)
      .map((l) => l.text)
      .join('; ')}`;
  const show = (i: number) => {
    const px = o.x(T_GRID[i]);
    rule.attr('x1', px).attr('x2', px);
    const lines = [{ id: '', text: `t = ${T_GRID[i].toFixed(1)}` }, ...tooltipLines(shown, i, o.label)];
    text
      .selectAll('tspan')
      .data(lines)
      .join('tspan')
      .attr('x', 8)
      .attr('dy', (_, j) => (j ? step : 0))
      .attr('font-weight', (_, j) => (j ? null : 600))
      .attr('fill', (l) => (l.id ? o.color(l.id) : 'currentColor'))
      .text((l) => l.text);
    const w = 16 + 0.57 * (defaults.fontSize - 1) * Math.max(...lines.map((l) => l.text.length));
    const h = 10 + step * lines.length;
    box
      .attr('width', w)
      .attr('height', h)
      .attr('y', -step + 2);
    const right = px + 10 + w <= o.left + o.innerW;
    tip.attr('transform', `translate(${right ? px + 10 : Math.max(2, px - 10 - w)},${o.top + step})`);
    hover.attr('display', null);
    focus.attr('aria-valuenow', T_GRID[i]).attr('aria-valuetext', valueText(i));
  };
  const hide = () => hover.attr('display', 'none');
  let current = 0;
  const nearest = (e: PointerEvent) => {
    const [px] = d3.pointer(e, svg.node());
    return Math.max(0, Math.min(T_GRID.length - 1, Math.round(o.x.invert(px) * 5)));
  };

  const focus = svg
    .append('rect')
    .attr('class', 'focus-target')
    .attr('x', o.left)
    .attr('y', o.top)
    .attr('width', o.innerW)
    .attr('height', o.bottom - o.top)
    .attr('fill', 'transparent')
    .attr('tabindex', shown.length ? 0 : -1)
    .attr('role', 'slider')
    .attr('aria-label', 'Values at inconsistency t (use the arrow keys)')
    .attr('aria-valuemin', 0)
    .attr('aria-valuemax', 1)
    .attr('aria-valuenow', 0)
    .attr('aria-valuetext', shown.length ? valueText(0) : 'no curves')
    .on('pointermove', (e: PointerEvent) => {
      current = nearest(e);
      show(current);
    })
    // A tap (touch) shows the values too, and they stay until a tap elsewhere (blur).
    .on('pointerdown', (e: PointerEvent) => {
      current = nearest(e);
      show(current);
    })
    .on('pointerleave', (e: PointerEvent) => {
      if (e.pointerType !== 'touch') hide();
    })
    .on('focus', () => show(current))
    .on('blur', hide)
    .on('keydown', (e: KeyboardEvent) => {
      const next = {
        ArrowRight: current + 1,
        ArrowUp: current + 1,
        ArrowLeft: current - 1,
        ArrowDown: current - 1,
        Home: 0,
        End: T_GRID.length - 1,
      }[e.key];
      if (next === undefined) return;
      e.preventDefault();
      current = Math.max(0, Math.min(T_GRID.length - 1, next));
      show(current);
    });
  // Keep the tooltip above the focus rectangle.
  hover.raise();
}

function drawExplainUnder(
  g: Sel,
  c: CurveRecord,
  keys: readonly ExplainKey[],
  ptOption: PT | undefined,
  x: d3.ScaleLinear<number, number>,
  y: d3.ScaleLinear<number, number>,
  bottom: number,
  colour: string,
): void {
  const a = c.mean;
  const m = c.metrics!.integral;
  g.attr('data-algorithm', c.algorithm);
  if (keys.includes('auc')) {
    // Down to accuracy 0 (the axis starts at 0 when this overlay is on), not to the cut axis.
    const area = d3
      .area<number>()
      .x((_, i) => x(T_GRID[i]))
      .y0(y(0))
      .y1((v) => y(v))
      .digits(2);
    g.append('path')
      .attr('class', 'explain-auc')
      .attr('fill', colour)
      .attr('fill-opacity', 0.18)
      .attr('d', area(a));
  }
  if (keys.includes('ea')) {
    const pt = ptOption ?? m.pt;
    const ea = g.append('g').attr('class', 'explain-ea').attr('fill', colour).attr('stroke', colour);
    const density = ptSliceDensity(pt, defaults.eaSlices);
    if (density) {
      // One area filled with a horizontal gradient whose opacity follows P_T (no seams between slices).
      const top = Math.max(...density.filter(Number.isFinite));
      const id = `rac-ea-${hashId(JSON.stringify([c.dataset, c.setting, c.labels, c.algorithm, pt, y.domain(), a]))}`;
      const grad = ea
        .append('linearGradient')
        .attr('id', id)
        .attr('x1', 0)
        .attr('x2', 1)
        .attr('y1', 0)
        .attr('y2', 0);
      grad
        .selectAll('stop')
        .data(density)
        .join('stop')
        .attr('offset', (_, j) => ((j + 0.5) / density.length).toFixed(4))
        .attr('stop-color', colour)
        .attr('stop-opacity', (w) =>
          ((defaults.eaMaxOpacity * (Number.isFinite(w) ? w : 0)) / (top || 1)).toFixed(3),
        );
      const area = d3
        .area<number>()
        .x((_, i) => x(T_GRID[i]))
        .y0(y(0))
        .y1((v) => y(v))
        .digits(2);
      ea.append('path').attr('stroke', 'none').attr('fill', `url(#${id})`).attr('d', area(a));
    } else if (pt.kind === 'grid') {
      const top = Math.max(...pt.weights);
      ea.selectAll('line')
        .data(pt.weights)
        .join('line')
        .attr('x1', (_, i) => x(T_GRID[i]))
        .attr('x2', (_, i) => x(T_GRID[i]))
        .attr('y1', y(0))
        .attr('y2', (_, i) => y(a[i]).toFixed(2))
        .attr('stroke-width', (w) => (w > 0 ? 1 + (7 * w) / top : 0).toFixed(2))
        .attr('stroke-opacity', 0.45);
    }
    g.append('line')
      .attr('class', 'explain-ea-level')
      .attr('x1', x(0))
      .attr('x2', x(1))
      .attr('y1', y(m.ea).toFixed(2))
      .attr('y2', y(m.ea).toFixed(2))
      .attr('stroke', colour)
      .attr('stroke-dasharray', '2 3')
      .attr('stroke-width', 1.5);
  }
}

function drawExplainOver(
  g: Sel,
  c: CurveRecord,
  keys: readonly ExplainKey[],
  x: d3.ScaleLinear<number, number>,
  y: d3.ScaleLinear<number, number>,
  colour: string,
): void {
  const a = c.mean;
  const m = c.metrics!.integral;
  const px = (i: number) => x(T_GRID[i]);
  const py = (v: number) => Number(y(v).toFixed(2));
  g.attr('data-algorithm', c.algorithm);
  if (keys.includes('wa')) {
    const i = a.indexOf(Math.min(...a));
    const wa = g.append('g').attr('class', 'explain-wa').attr('stroke', colour).attr('fill', 'none');
    wa.append('line')
      .attr('x1', x(0))
      .attr('x2', x(1))
      .attr('y1', py(a[i]))
      .attr('y2', py(a[i]))
      .attr('stroke-dasharray', '3 3')
      .attr('stroke-opacity', 0.7);
    wa.append('circle').attr('cx', px(i)).attr('cy', py(a[i])).attr('r', 7).attr('stroke-width', 2);
  }
  if (keys.includes('evm')) {
    const evm = g.append('g').attr('class', 'explain-evm').attr('stroke', colour);
    const segs = d3.range(T_GRID.length - 1);
    evm
      .selectAll('line.step')
      .data(segs)
      .join('line')
      .attr('class', 'step')
      .attr('x1', (i) => px(i))
      .attr('x2', (i) => px(i + 1))
      .attr('y1', (i) => py(a[i]))
      .attr('y2', (i) => py(a[i]))
      .attr('stroke-dasharray', '2 2')
      .attr('stroke-opacity', 0.6);
    evm
      .selectAll('line.rise')
      .data(segs)
      .join('line')
      .attr('class', 'rise')
      .attr('x1', (i) => px(i + 1))
      .attr('x2', (i) => px(i + 1))
      .attr('y1', (i) => py(a[i]))
      .attr('y2', (i) => py(a[i + 1]))
      .attr('stroke-width', 4)
      .attr('stroke-linecap', 'round')
      .attr('stroke-opacity', 0.75);
  }
  if (keys.includes('vs')) {
    // The average slope ∫A′ = a₅ − a₀, drawn through each segment's midpoint.
    const mean = a[a.length - 1] - a[0];
    const vs = g.append('g').attr('class', 'explain-vs').attr('stroke', colour);
    vs.selectAll('line')
      .data(d3.range(T_GRID.length - 1))
      .join('line')
      .attr('x1', (i) => px(i))
      .attr('x2', (i) => px(i + 1))
      .attr('y1', (i) => py((a[i] + a[i + 1]) / 2 - (mean * 0.2) / 2))
      .attr('y2', (i) => py((a[i] + a[i + 1]) / 2 + (mean * 0.2) / 2))
      .attr('stroke-dasharray', '4 3')
      .attr('stroke-width', 1.5);
  }
  if (keys.includes('rcc')) {
    const { slope, intercept } = trendLine(m.auc, m.intTA);
    g.append('line')
      .attr('class', 'explain-rcc')
      .attr('x1', x(0))
      .attr('x2', x(1))
      .attr('y1', py(intercept))
      .attr('y2', py(intercept + slope))
      .attr('stroke', colour)
      .attr('stroke-width', 2)
      .attr('stroke-dasharray', '8 3 2 3');
  }
}
