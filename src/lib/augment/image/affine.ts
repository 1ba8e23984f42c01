/**
 * RandAugment's geometric ops (§6.3) as Pillow 9.4 runs them on an RGB image with the defaults
 * (nearest neighbour, same size, fill 0): `Image.transform(size, AFFINE, a)` and `Image.rotate`.
 * Output pixel (x, y) takes input pixel (a0·x' + a1·y' + a2, a3·x' + a4·y' + a5) at the pixel
 * centre x' = x + 0.5, y' = y + 0.5, floored. Pillow evaluates this in two ways
 * (src/libImaging/Geometry.c), and the bytes depend on which:
 * - a1 = a3 = 0 (translations): ImagingScaleAffine, doubles;
 * - otherwise (shears, rotations): affine_fixed, 16.16 fixed point, each coefficient rounded to
 *   a multiple of 2⁻¹⁶ and accumulated along rows and columns, so it can floor one pixel away
 *   from the exact double formula where that lands on an integer.
 */
import { checkImage, type RgbImage } from './rgbImage.ts';

/** The six coefficients of Pillow's AFFINE data (output → input). */
export type AffineCoefficients = readonly [number, number, number, number, number, number];

/** Pillow's COORD: negative → −1 (outside), else truncation. */
const coord = (v: number) => (v < 0 ? -1 : Math.trunc(v));

/** ImagingScaleAffine: a1 = a3 = 0; column and row tables in doubles. */
function scaleAffine(img: RgbImage, a: AffineCoefficients): RgbImage {
  const { rgb, width, height } = img;
  const out = new Uint8Array(rgb.length);
  const xin = new Int32Array(width).fill(-1);
  let xo = a[2] + a[0] * 0.5;
  for (let x = 0; x < width; x++, xo += a[0]) {
    const c = coord(xo);
    if (c >= 0 && c < width) xin[x] = c;
  }
  let yo = a[5] + a[4] * 0.5;
  for (let y = 0; y < height; y++, yo += a[4]) {
    const yi = coord(yo);
    if (yi < 0 || yi >= height) continue;
    for (let x = 0; x < width; x++) {
      const c = xin[x];
      if (c < 0) continue;
      const o = (y * width + x) * 3;
      const s = (yi * width + c) * 3;
      out[o] = rgb[s];
      out[o + 1] = rgb[s + 1];
      out[o + 2] = rgb[s + 2];
    }
  }
  return { rgb: out, width, height };
}

/** Pillow's FIX: 16.16 fixed point, rounded to nearest (FLOOR(v·65536 + 0.5)). */
const fix = (v: number) => Math.floor(v * 65536 + 0.5);

/** affine_fixed: the general nearest-neighbour path, in 16.16 fixed point. */
function fixedAffine(img: RgbImage, a: AffineCoefficients): RgbImage {
  const { rgb, width, height } = img;
  // check_fixed: the four corners must stay within ±32768 for the int arithmetic.
  const fits = (x: number, y: number) =>
    Math.abs(x * a[0] + y * a[1] + a[2]) < 32768 && Math.abs(x * a[3] + y * a[4] + a[5]) < 32768;
  if (!(fits(0, 0) && fits(width, height) && fits(0, height) && fits(width, 0)))
    throw new RangeError(
      `affineTransform: a ${width}×${height} image with these coefficients leaves Pillow's fixed-point range (±32768).`,
    );
  const a0 = fix(a[0]);
  const a1 = fix(a[1]);
  const a3 = fix(a[3]);
  const a4 = fix(a[4]);
  let rowX = fix(a[2] + a[0] * 0.5 + a[1] * 0.5);
  let rowY = fix(a[5] + a[3] * 0.5 + a[4] * 0.5);
  const out = new Uint8Array(rgb.length);
  for (let y = 0; y < height; y++, rowX += a1, rowY += a4) {
    let xx = rowX;
    let yy = rowY;
    for (let x = 0; x < width; x++, xx += a0, yy += a3) {
      const xi = xx >> 16;
      if (xi < 0 || xi >= width) continue;
      const yi = yy >> 16;
      if (yi < 0 || yi >= height) continue;
      const o = (y * width + x) * 3;
      const s = (yi * width + xi) * 3;
      out[o] = rgb[s];
      out[o + 1] = rgb[s + 1];
      out[o + 2] = rgb[s + 2];
    }
  }
  return { rgb: out, width, height };
}

/** `img.transform(img.size, Image.AFFINE, a)`: nearest neighbour, fill 0, same size. */
export function affineTransform(img: RgbImage, a: AffineCoefficients): RgbImage {
  checkImage('affineTransform', img);
  if (a.length !== 6 || !a.every(Number.isFinite))
    throw new RangeError(`affineTransform: needs 6 finite coefficients; got [${a.join(', ')}].`);
  return a[1] === 0 && a[3] === 0 ? scaleAffine(img, a) : fixedAffine(img, a);
}

/** ShearX: input column x' + v·y', row y' (LAMDA's data (1, v, 0, 0, 1, 0)). */
export function shearX(img: RgbImage, v: number): RgbImage {
  return affineTransform(img, [1, v, 0, 0, 1, 0]);
}

/** ShearY: input column x', row y' + v·x' (data (1, 0, 0, v, 1, 0)). */
export function shearY(img: RgbImage, v: number): RgbImage {
  return affineTransform(img, [1, 0, 0, v, 1, 0]);
}

/** TranslateX: output (x, y) samples input (x + pixels, y) (data (1, 0, pixels, 0, 1, 0)). */
export function translateX(img: RgbImage, pixels: number): RgbImage {
  return affineTransform(img, [1, 0, pixels, 0, 1, 0]);
}

/** TranslateY: output (x, y) samples input (x, y + pixels). */
export function translateY(img: RgbImage, pixels: number): RgbImage {
  return affineTransform(img, [1, 0, 0, 0, 1, pixels]);
}

/**
 * Python's round(x, 15) for the rotation matrix. toFixed rounds the exact binary value half away
 * from zero, Python half to even; a tie needs x·10¹⁵ to end in exactly .5, i.e. x an odd
 * multiple of 2⁻¹⁶, which no sine or cosine of a whole degree is.
 */
const round15 = (x: number) => Number(x.toFixed(15));

/** Python's float `%` by 360: the result takes the divisor's sign. */
function pythonMod360(degrees: number): number {
  const m = degrees % 360;
  return m < 0 ? m + 360 : m === 0 ? 0 : m;
}

/**
 * The AFFINE data of `img.rotate(degrees)` (Pillow 9.4 Image.rotate, no expand, centre (w/2, h/2)):
 * the angle is taken modulo 360 first, then −radians, and cos/sin are rounded to 15 decimals.
 */
export function rotationCoefficients(width: number, height: number, degrees: number): AffineCoefficients {
  const angle = -(pythonMod360(degrees) * (Math.PI / 180));
  const c = round15(Math.cos(angle));
  const s = round15(Math.sin(angle));
  const ms = round15(-Math.sin(angle));
  const cx = width / 2;
  const cy = height / 2;
  const a2 = c * -cx + s * -cy + 0 + cx;
  const a5 = ms * -cx + c * -cy + 0 + cy;
  return [c, s, a2, ms, c, a5];
}

/** Pillow's transpose fast paths of `rotate`: out(row r, col c) = in(source(r, c)). */
function transposeBy(img: RgbImage, outWidth: number, source: (r: number, c: number) => number): RgbImage {
  const { rgb } = img;
  const outHeight = rgb.length / 3 / outWidth;
  const out = new Uint8Array(rgb.length);
  for (let r = 0; r < outHeight; r++)
    for (let c = 0; c < outWidth; c++) {
      const s = source(r, c) * 3;
      const o = (r * outWidth + c) * 3;
      out[o] = rgb[s];
      out[o + 1] = rgb[s + 1];
      out[o + 2] = rgb[s + 2];
    }
  return { rgb: out, width: outWidth, height: outHeight };
}

/**
 * `img.rotate(degrees)`: counter-clockwise about the centre, same size, nearest, fill 0. Like
 * Pillow, 0 and 180 (and 90, 270 on a square image) are exact transposes; other angles go
 * through the fixed-point affine path.
 */
export function rotate(img: RgbImage, degrees: number): RgbImage {
  const { width: w, height: h } = checkImage('rotate', img);
  if (!Number.isFinite(degrees)) throw new RangeError(`rotate: degrees must be finite; got ${degrees}.`);
  const angle = pythonMod360(degrees);
  if (angle === 0) return { rgb: img.rgb.slice(), width: w, height: h };
  if (angle === 180) return transposeBy(img, w, (r, c) => (h - 1 - r) * w + (w - 1 - c));
  if (w === h && angle === 90) return transposeBy(img, w, (r, c) => c * w + (w - 1 - r));
  if (w === h && angle === 270) return transposeBy(img, w, (r, c) => (h - 1 - c) * w + r);
  return affineTransform(img, rotationCoefficients(w, h, degrees));
}
