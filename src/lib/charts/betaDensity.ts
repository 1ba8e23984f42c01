/**
 * betaDensityPlot: a small sparkline of the Beta(α, β) density on [0, 1], shown next to EA's P_T
 * control so the user sees where the weight goes. A detached SVG, like racChart.
 */
import * as d3 from 'd3';
import { logBetaDensity } from '../metrics/incompleteBeta.ts';
import { SVG_NS } from './racChart.ts';

export interface BetaDensityOptions {
  /** Width in px. Default 120. */
  width?: number;
  /** Height in px. Default 36. */
  height?: number;
  /** Samples along t. Default 60. */
  samples?: number;
  /** Document that creates the nodes. Default globalThis.document. */
  document?: Document | null;
}

export const betaDensityDefaults = { width: 120, height: 36, samples: 60, pad: 2 } as const;

/** Beta(α, β) density at t ∈ (0, 1). */
export function betaPdf(t: number, alpha: number, beta: number): number {
  if (t <= 0 || t >= 1)
    return t === 0
      ? alpha < 1
        ? Infinity
        : alpha === 1
          ? beta
          : 0
      : beta < 1
        ? Infinity
        : beta === 1
          ? alpha
          : 0;
  return Math.exp(logBetaDensity(t, alpha, beta));
}

/** The density sparkline. Samples at the midpoints of equal slices, so unbounded ends stay finite. */
export function betaDensityPlot(
  alpha: number,
  beta: number,
  options: BetaDensityOptions = {},
): SVGSVGElement {
  const o = { ...betaDensityDefaults, ...options };
  const doc = options.document ?? globalThis.document;
  if (!doc)
    throw new Error('betaDensityPlot: no document; pass options.document when rendering outside a browser.');
  if (!(alpha > 0 && beta > 0 && Number.isFinite(alpha) && Number.isFinite(beta))) {
    throw new RangeError(
      `betaDensityPlot: alpha and beta must be finite numbers > 0, got alpha=${alpha}, beta=${beta}.`,
    );
  }
  const ts = d3.range(o.samples).map((j) => (j + 0.5) / o.samples);
  const ys = ts.map((t) => betaPdf(t, alpha, beta));
  const x = d3
    .scaleLinear()
    .domain([0, 1])
    .range([o.pad, o.width - o.pad]);
  const y = d3
    .scaleLinear()
    .domain([0, Math.max(...ys) || 1])
    .range([o.height - o.pad, o.pad]);
  const svg = d3
    .select(doc.createElementNS(SVG_NS, 'svg') as SVGSVGElement)
    .attr('xmlns', SVG_NS)
    .attr('class', 'beta-density')
    .attr('viewBox', `0 0 ${o.width} ${o.height}`)
    .attr('width', o.width)
    .attr('height', o.height)
    .attr('role', 'img')
    .attr('aria-label', `Density of Beta(${alpha}, ${beta}) over t from 0 to 1`);
  const area = d3
    .area<number>()
    .x((_, i) => x(ts[i]))
    .y0(o.height - o.pad)
    .y1((v) => y(v))
    .digits(2);
  svg.append('path').attr('fill', 'currentColor').attr('fill-opacity', 0.15).attr('d', area(ys));
  svg
    .append('path')
    .attr('fill', 'none')
    .attr('stroke', 'currentColor')
    .attr('stroke-width', 1.5)
    .attr(
      'd',
      d3
        .line<number>()
        .x((_, i) => x(ts[i]))
        .y((v) => y(v))
        .digits(2)(ys),
    );
  svg
    .append('line')
    .attr('x1', o.pad)
    .attr('x2', o.width - o.pad)
    .attr('y1', o.height - o.pad)
    .attr('y2', o.height - o.pad)
    .attr('stroke', 'currentColor')
    .attr('stroke-opacity', 0.35);
  return svg.node()!;
}
