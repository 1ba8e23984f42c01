/**
 * Charts as files: the RAC panels on the page (svg.rac-chart) cloned with their computed styles
 * inlined, so the file looks as on screen without the page's CSS (and keeps dark mode colours
 * resolved). Several panels are laid out on one sheet. PNG goes through a canvas at 2× scale.
 * A panel compared with the published curves carries its verdict under the figure
 * (appendFigureNote), as the page shows it in the badge beside the chart.
 */
import { appendFigureNote } from '../../lib/charts/racChart.ts';

const SVG_NS = 'http://www.w3.org/2000/svg';
/** Properties that decide how a chart looks; everything else keeps the SVG defaults. */
const STYLE_PROPS = [
  'fill',
  'fill-opacity',
  'stroke',
  'stroke-width',
  'stroke-dasharray',
  'stroke-opacity',
  'stroke-linecap',
  'opacity',
  'font-family',
  'font-size',
  'font-weight',
  'text-anchor',
  'dominant-baseline',
  'visibility',
  'display',
  'color',
];

function inlineStyles(source: Element, target: Element): void {
  const cs = getComputedStyle(source);
  const style = STYLE_PROPS.map((p) => `${p}:${cs.getPropertyValue(p)}`).join(';');
  target.setAttribute('style', style);
  const a = source.children;
  const b = target.children;
  for (let i = 0; i < a.length && i < b.length; i++) inlineStyles(a[i], b[i]);
}

function sizeOf(svg: SVGSVGElement): { w: number; h: number } {
  const vb = svg.viewBox.baseVal;
  if (vb && vb.width > 0) return { w: vb.width, h: vb.height };
  const r = svg.getBoundingClientRect();
  return { w: Math.max(1, r.width), h: Math.max(1, r.height) };
}

/** One standalone SVG document holding the given charts, two per row. */
export function chartsToSvg(
  charts: SVGSVGElement[],
  background: string,
): { text: string; width: number; height: number } {
  const cols = Math.min(2, charts.length);
  const clones = charts.map((svg) => {
    const clone = svg.cloneNode(true) as SVGSVGElement;
    inlineStyles(svg, clone);
    const { width, height } = appendFigureNote(clone);
    return { clone, size: width > 0 && height > 0 ? { w: width, h: height } : sizeOf(svg) };
  });
  const sizes = clones.map((c) => c.size);
  const cellW = Math.max(...sizes.map((s) => s.w));
  const cellH = Math.max(...sizes.map((s) => s.h));
  const rows = Math.ceil(charts.length / cols);
  const pad = 16; // a margin around and between panels
  const width = cellW * cols + pad * (cols + 1);
  const height = cellH * rows + pad * (rows + 1);
  const sheet = document.createElementNS(SVG_NS, 'svg');
  sheet.setAttribute('xmlns', SVG_NS);
  sheet.setAttribute('width', String(width));
  sheet.setAttribute('height', String(height));
  sheet.setAttribute('viewBox', `0 0 ${width} ${height}`);
  const bg = document.createElementNS(SVG_NS, 'rect');
  bg.setAttribute('width', '100%');
  bg.setAttribute('height', '100%');
  bg.setAttribute('fill', background);
  sheet.append(bg);
  clones.forEach(({ clone }, i) => {
    clone.setAttribute('x', String(pad + (i % cols) * (cellW + pad)));
    clone.setAttribute('y', String(pad + Math.floor(i / cols) * (cellH + pad)));
    clone.setAttribute('width', String(sizes[i].w));
    clone.setAttribute('height', String(sizes[i].h));
    sheet.append(clone);
  });
  return { text: new XMLSerializer().serializeToString(sheet), width, height };
}

/**
 * One panel as a figure for a paper: the chart alone (no sheet margin), its size in points such
 * that the base text prints at 8 pt (PRINT_WIDTH_PT), so it drops into a document as is.
 */
export function panelToSvg(
  chart: SVGSVGElement,
  background: string,
  printWidthPt: number,
): { text: string; width: number; height: number } {
  const clone = chart.cloneNode(true) as SVGSVGElement;
  inlineStyles(chart, clone);
  const grown = appendFigureNote(clone);
  const { w, h } = grown.width > 0 && grown.height > 0 ? { w: grown.width, h: grown.height } : sizeOf(chart);
  // Interaction layers are not part of the figure.
  clone.querySelectorAll('.hover, .focus-target').forEach((el) => el.remove());
  clone.setAttribute('xmlns', SVG_NS);
  clone.setAttribute('width', `${printWidthPt.toFixed(1)}pt`);
  clone.setAttribute('height', `${((printWidthPt * h) / w).toFixed(1)}pt`);
  clone.setAttribute('viewBox', `0 0 ${w} ${h}`);
  const bg = document.createElementNS(SVG_NS, 'rect');
  bg.setAttribute('width', '100%');
  bg.setAttribute('height', '100%');
  bg.setAttribute('fill', background);
  clone.insertBefore(bg, clone.firstChild);
  return { text: new XMLSerializer().serializeToString(clone), width: w, height: h };
}

/** The same sheet as a PNG (device-independent 2× scale). */
export async function svgToPng(
  svg: { text: string; width: number; height: number },
  scale = 2,
): Promise<Blob> {
  const url = URL.createObjectURL(new Blob([svg.text], { type: 'image/svg+xml' }));
  try {
    const img = new Image();
    img.src = url;
    await img.decode();
    const canvas = document.createElement('canvas');
    canvas.width = Math.round(svg.width * scale);
    canvas.height = Math.round(svg.height * scale);
    const ctx = canvas.getContext('2d');
    if (!ctx) throw new Error('This browser cannot draw on a canvas, so the PNG could not be made.');
    ctx.scale(scale, scale);
    ctx.drawImage(img, 0, 0, svg.width, svg.height);
    return await new Promise<Blob>((resolve, reject) =>
      canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('The PNG could not be made.'))), 'image/png'),
    );
  } finally {
    URL.revokeObjectURL(url);
  }
}
