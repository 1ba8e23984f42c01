/**
 * trainingChart: the live view of one deep fit as a detached SVG. x = optimiser step (0..total),
 * left y = loss terms (one line each), right y = rates in [0, 1] (mask rate and other fractions,
 * dashed). Pure function of a TrainingLog's points: it never touches the page, and names go in
 * with `.text()` only.
 *
 * @example
 *   const svg = trainingChart(log.points, { total: log.total, title: 'FixMatch · iris · t 0.4 · seed 0' });
 *   container.replaceChildren(svg);
 */
import * as d3 from 'd3';
import type { TrainingPoint } from './trainingLog.ts';

export interface TrainingChartOptions {
  /** Last step of the fit (the x domain's end). Default: the last point's step. */
  total?: number;
  /** Names drawn on the right-hand [0, 1] axis. Default: names containing "mask" or "rate". */
  fractions?: readonly string[];
  /** Names not drawn (e.g. the learning rate: the text alternative lists it). */
  hide?: readonly string[];
  /** The legend's name of a series. Default: `trainingLabel`. */
  label?: (name: string) => string;
  title?: string;
  width?: number;
  height?: number;
  document?: Document | null;
}

export const trainingDefaults = {
  width: 480,
  height: 210,
  margin: { top: 30, right: 46, bottom: 52, left: 50 },
  colors: ['#3b6fd4', '#d9622b', '#2a9257', '#c8416b', '#8a5cd0', '#16919f'],
  ariaLabel: 'Training curves: loss terms and mask rate against step',
} as const;

const SVG_NS = 'http://www.w3.org/2000/svg';

const LABELS: Readonly<Record<string, string>> = {
  lr: 'learning rate',
  ramp: 'warm-up ramp',
  maskRate: 'mask rate',
};

/** Plain words for a series name: known names, else camelCase split ("maskRate" → "mask rate"). */
export function trainingLabel(name: string): string {
  return LABELS[name] ?? name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
}

function isFraction(name: string, fractions: readonly string[] | undefined): boolean {
  return fractions ? fractions.includes(name) : /mask|rate/i.test(name);
}

export function trainingChart(
  points: readonly TrainingPoint[],
  options: TrainingChartOptions = {},
): SVGSVGElement {
  const doc = options.document ?? globalThis.document;
  const width = options.width ?? trainingDefaults.width;
  const height = options.height ?? trainingDefaults.height;
  const m = trainingDefaults.margin;
  const svgNode = doc.createElementNS(SVG_NS, 'svg') as SVGSVGElement;
  const svg = d3
    .select(svgNode)
    .attr('viewBox', `0 0 ${width} ${height}`)
    .attr('class', 'training-chart')
    .attr('role', 'img')
    .attr('aria-label', trainingDefaults.ariaLabel);
  if (options.title)
    svg
      .append('text')
      .attr('class', 'title')
      .attr('x', m.left)
      .attr('y', 18)
      .attr('font-weight', 600)
      .text(options.title);

  const hidden = new Set(options.hide ?? []);
  const label = options.label ?? trainingLabel;
  const names = [...new Set(points.flatMap((p) => Object.keys(p.values)))].filter((n) => !hidden.has(n));
  const losses = names.filter((n) => !isFraction(n, options.fractions));
  const rates = names.filter((n) => isFraction(n, options.fractions));
  const lastStep = points.length ? points[points.length - 1].step : 0;
  const x = d3
    .scaleLinear()
    .domain([0, Math.max(1, options.total ?? lastStep)])
    .range([m.left, width - m.right]);
  const maxLoss =
    d3.max(points, (p) => d3.max(losses, (n) => (Number.isFinite(p.values[n]) ? p.values[n] : 0))) ?? 1;
  const yLoss = d3
    .scaleLinear()
    .domain([0, maxLoss > 0 ? maxLoss : 1])
    .nice()
    .range([height - m.bottom, m.top]);
  const yRate = d3
    .scaleLinear()
    .domain([0, 1])
    .range([height - m.bottom, m.top]);

  svg
    .append('g')
    .attr('class', 'axis-x')
    .attr('transform', `translate(0,${height - m.bottom})`)
    .call(d3.axisBottom(x).ticks(5, 'd'));
  svg
    .append('text')
    .attr('x', (m.left + width - m.right) / 2)
    .attr('y', height - m.bottom + 30)
    .attr('text-anchor', 'middle')
    .attr('class', 'axis-label')
    .text('step');
  svg
    .append('g')
    .attr('class', 'axis-loss')
    .attr('transform', `translate(${m.left},0)`)
    .call(d3.axisLeft(yLoss).ticks(4));
  svg
    .append('text')
    .attr('transform', `translate(12,${(m.top + height - m.bottom) / 2}) rotate(-90)`)
    .attr('text-anchor', 'middle')
    .attr('class', 'axis-label')
    .text('loss');
  if (rates.length) {
    svg
      .append('g')
      .attr('class', 'axis-rate')
      .attr('transform', `translate(${width - m.right},0)`)
      .call(d3.axisRight(yRate).ticks(4, '.0%'));
  }

  const color = (i: number) => trainingDefaults.colors[i % trainingDefaults.colors.length];
  const series = [
    ...losses.map((n) => ({ n, y: yLoss, dashed: false })),
    ...rates.map((n) => ({ n, y: yRate, dashed: true })),
  ];
  const lines = svg.append('g').attr('class', 'lines').attr('fill', 'none');
  series.forEach((s, i) => {
    const line = d3
      .line<TrainingPoint>()
      .defined((p) => Number.isFinite(p.values[s.n]))
      .x((p) => x(p.step))
      .y((p) => s.y(p.values[s.n]));
    lines
      .append('path')
      .attr('data-series', s.n)
      .attr('stroke', color(i))
      .attr('stroke-width', 1.8)
      .attr('stroke-dasharray', s.dashed ? '5 3' : null)
      .attr('d', line(points as TrainingPoint[]) ?? '');
  });

  const legend = svg
    .append('g')
    .attr('class', 'legend')
    .attr('transform', `translate(${m.left},${height - 12})`);
  // Items side by side, each as wide as its text (about 6.2 px a character at 11 px).
  let at = 0;
  series.forEach((s, i) => {
    const text = s.dashed ? `${label(s.n)} (right)` : label(s.n);
    const g = legend.append('g').attr('class', 'legend-item').attr('transform', `translate(${at},0)`);
    at += 34 + 6.2 * text.length;
    g.append('line')
      .attr('x1', 0)
      .attr('x2', 16)
      .attr('y1', -4)
      .attr('y2', -4)
      .attr('stroke', color(i))
      .attr('stroke-width', 2)
      .attr('stroke-dasharray', s.dashed ? '5 3' : null);
    g.append('text').attr('x', 20).attr('y', 0).text(text);
  });
  if (points.length === 0) {
    svg
      .append('text')
      .attr('class', 'empty')
      .attr('x', width / 2)
      .attr('y', height / 2)
      .attr('text-anchor', 'middle')
      .text('Waiting for the first steps');
  }
  return svgNode;
}
