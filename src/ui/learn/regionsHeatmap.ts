/**
 * Decision regions as an ImageData at grid resolution (one pixel per cell; CSS scales the canvas),
 * like Playground's heatmap: the winning class's colour over white, stronger where the model is
 * surer, quantised to a few shades so the picture reads on a projector.
 */
import type { RegionGrid } from '../../lib/toy/regions.ts';
import { CLASS_COLOURS, hexToRgb } from './toyPalette.ts';

export const HEATMAP_DEFAULTS = Object.freeze({
  /** Colour strength at the least and most confident cells, in [0, 1]. */
  minStrength: 0.22,
  maxStrength: 0.72,
  /** Number of shades between them. */
  shades: 5,
});

const RGB = CLASS_COLOURS.map(hexToRgb);

export function regionsImage(grid: RegionGrid, options: Partial<typeof HEATMAP_DEFAULTS> = {}): ImageData {
  const o = { ...HEATMAP_DEFAULTS, ...options };
  const { res, k, cls, confidence } = grid;
  if (cls.length !== res * res || confidence.length !== res * res) {
    throw new RangeError(
      `regionsImage: expected ${res * res} cells for a ${res}×${res} grid; got ${cls.length} and ${confidence.length}.`,
    );
  }
  const img = new ImageData(res, res);
  const floor = 1 / k;
  for (let i = 0; i < res * res; i++) {
    const sure = Math.min(1, Math.max(0, (confidence[i] - floor) / (1 - floor)));
    const level = Math.round(sure * (o.shades - 1)) / (o.shades - 1);
    const a = o.minStrength + level * (o.maxStrength - o.minStrength);
    const [r, g, b] = RGB[cls[i]] ?? [128, 128, 128];
    img.data[4 * i] = Math.round(255 + a * (r - 255));
    img.data[4 * i + 1] = Math.round(255 + a * (g - 255));
    img.data[4 * i + 2] = Math.round(255 + a * (b - 255));
    img.data[4 * i + 3] = 255;
  }
  return img;
}
