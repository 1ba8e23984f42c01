/**
 * The toy's points as a detached SVG (d3, selection.join): labeled points big and filled, unlabeled
 * points small and hollow, drifted ones marked by setting (shifted: dark ring; masked: square;
 * unseen class: pink triangle). Columnar input; the caller mounts the returned node.
 */
import { create, scaleLinear, symbol, symbolSquare, symbolTriangle } from 'd3';
import type { Bounds } from '../../lib/toy/generate.ts';
import type { Setting } from '../../lib/types.ts';
import { CLASS_COLOURS, UNSEEN_COLOUR } from './toyPalette.ts';

export const OVERLAY_DEFAULTS = Object.freeze({
  size: 480,
  labeledRadius: 9,
  unlabeledRadius: 4.5,
  ariaLabel: 'Labeled and unlabeled points of the toy',
});

export interface OverlayData {
  bounds: Bounds;
  setting: Setting;
  labeledXY: Float64Array;
  labeledY: Int32Array;
  unlabeledXY: Float64Array;
  drifted: Uint8Array;
}

export function toyOverlay(data: OverlayData, options: Partial<typeof OVERLAY_DEFAULTS> = {}): SVGSVGElement {
  const o = { ...OVERLAY_DEFAULTS, ...options };
  const { bounds: b } = data;
  const x = scaleLinear().domain([b.x0, b.x1]).range([0, o.size]);
  const y = scaleLinear().domain([b.y0, b.y1]).range([o.size, 0]);
  const svg = create('svg')
    .attr('viewBox', `0 0 ${o.size} ${o.size}`)
    .attr('role', 'img')
    .attr('aria-label', o.ariaLabel);

  const nu = data.unlabeledXY.length / 2;
  const U = Array.from({ length: nu }, (_, i) => i);
  // Points that have not drifted first, so drifted ones are drawn on top.
  U.sort((a, c) => data.drifted[a] - data.drifted[c]);
  const square = symbol(symbolSquare, 70)()!;
  const triangle = symbol(symbolTriangle, 110)()!;
  const kind = (i: number) =>
    !data.drifted[i]
      ? 'plain'
      : data.setting === 'distribution'
        ? 'shifted'
        : data.setting === 'feature'
          ? 'masked'
          : 'unseen';

  svg
    .append('g')
    .attr('class', 'unlabeled')
    .selectAll('path')
    .data(U)
    .join('path')
    .attr('data-kind', kind)
    .attr(
      'transform',
      (i) =>
        `translate(${x(data.unlabeledXY[2 * i]).toFixed(1)},${y(data.unlabeledXY[2 * i + 1]).toFixed(1)})`,
    )
    .attr('d', (i) => {
      const k = kind(i);
      if (k === 'masked') return square;
      if (k === 'unseen') return triangle;
      const r = o.unlabeledRadius;
      return `M${-r},0a${r},${r} 0 1,0 ${2 * r},0a${r},${r} 0 1,0 ${-2 * r},0`;
    })
    .attr('fill', (i) => (kind(i) === 'unseen' ? UNSEEN_COLOUR : '#ffffff'))
    .attr('stroke', (i) => (kind(i) === 'plain' ? '#3a3f4b' : '#111111'))
    .attr('stroke-width', (i) => (kind(i) === 'plain' ? 1.5 : 2.2));

  const L = Array.from({ length: data.labeledY.length }, (_, i) => i);
  svg
    .append('g')
    .attr('class', 'labeled')
    .selectAll('circle')
    .data(L)
    .join('circle')
    .attr('cx', (i) => x(data.labeledXY[2 * i]).toFixed(1))
    .attr('cy', (i) => y(data.labeledXY[2 * i + 1]).toFixed(1))
    .attr('r', o.labeledRadius)
    .attr('fill', (i) => CLASS_COLOURS[data.labeledY[i]])
    .attr('stroke', '#111111')
    .attr('stroke-width', 3);
  return svg.node()!;
}
