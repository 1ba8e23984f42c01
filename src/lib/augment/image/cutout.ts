/**
 * Cutout (§6.4; LAMDA's Cutout(v=0.5, fill=(127, 127, 127)) → CutoutAbs on a PIL image): one
 * square of side s = 0.5·w·u₃ (w = width, also for the height) around a centre drawn with numpy's
 * `uniform(w)`, i.e. low = w, high = 1 (cx ∈ (1, w], as the original draws it), filled with Pillow's
 * `ImageDraw.rectangle`, which includes both corners, clipped to the image.
 */
import { checkImage, uniform, type RgbImage, type ViewRng } from './rgbImage.ts';

/** The fill of every channel. */
export const CUTOUT_FILL = 127;

/** The inclusive rectangle x0…x1, y0…y1 (before clipping to the image). */
export interface CutoutRect {
  readonly x0: number;
  readonly y0: number;
  readonly x1: number;
  readonly y1: number;
}

/** CutoutAbs's arithmetic, in doubles and in its order, from the three uniforms. */
export function cutoutRect(width: number, height: number, u1: number, u2: number, u3: number): CutoutRect {
  const cx = width + (1 - width) * u1;
  const cy = height + (1 - height) * u2;
  const side = 0.5 * width * u3;
  const x0 = Math.trunc(Math.max(0, cx - side / 2));
  const y0 = Math.trunc(Math.max(0, cy - side / 2));
  const x1 = Math.trunc(Math.min(width, x0 + side));
  const y1 = Math.trunc(Math.min(height, y0 + side));
  return { x0, y0, x1, y1 };
}

/** Fills the inclusive rectangle, clipped to the image, with `fill` in every channel. */
export function fillRect(img: RgbImage, rect: CutoutRect, fill = CUTOUT_FILL): RgbImage {
  const { rgb, width, height } = checkImage('fillRect', img);
  const out = rgb.slice();
  const xa = Math.max(0, rect.x0);
  const xb = Math.min(width - 1, rect.x1);
  const ya = Math.max(0, rect.y0);
  const yb = Math.min(height - 1, rect.y1);
  for (let y = ya; y <= yb; y++) if (xb >= xa) out.fill(fill, (y * width + xa) * 3, (y * width + xb + 1) * 3);
  return { rgb: out, width, height };
}

/** Cutout with its three draws: u₁ (x centre), u₂ (y centre), u₃ (side). */
export function cutout(img: RgbImage, rng: ViewRng): RgbImage {
  checkImage('cutout', img);
  const u1 = uniform(rng);
  const u2 = uniform(rng);
  const u3 = uniform(rng);
  return fillRect(img, cutoutRect(img.width, img.height, u1, u2, u3));
}
