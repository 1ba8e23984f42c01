/**
 * Pillow's ImageEnhance ops used by RandAugment (§6.3): Brightness, Color, Contrast, Sharpness.
 * Each is blend(degenerate, img, factor) with Pillow's ImagingBlend, whose factor is a C float:
 * out = (uint8)(a + f·(b − a)) in single precision, so every step goes through Math.fround
 * (doubles differ by one level for factors such as 0.32, 0.59 and 0.68).
 */
import { checkImage, type RgbImage } from './rgbImage.ts';

const f32 = Math.fround;

/** ImagingBlend of one sample: a + f·(b − a) in float32, clipped to a byte, truncated. */
function blendSample(a: number, b: number, factor32: number): number {
  const v = f32(a + f32(factor32 * (b - a)));
  return v <= 0 ? 0 : v >= 255 ? 255 : Math.trunc(v);
}

/** blend(a, b, factor) of two images of the same size (Pillow's `Image.blend`). */
export function blend(a: RgbImage, b: RgbImage, factor: number): RgbImage {
  checkImage('blend', a);
  checkImage('blend', b);
  if (a.width !== b.width || a.height !== b.height)
    throw new RangeError(`blend: images differ in size: ${a.width}×${a.height} and ${b.width}×${b.height}.`);
  const factor32 = checkFactor('blend', factor);
  const out = new Uint8Array(a.rgb.length);
  for (let i = 0; i < out.length; i++) out[i] = blendSample(a.rgb[i], b.rgb[i], factor32);
  return { rgb: out, width: a.width, height: a.height };
}

function checkFactor(where: string, factor: number): number {
  if (!Number.isFinite(factor)) throw new RangeError(`${where}: factor must be finite; got ${factor}.`);
  return f32(factor);
}

/** Blend against a constant degenerate level: a 256-entry table does it. */
function blendConstant(img: RgbImage, level: number, factor32: number): RgbImage {
  const lut = Uint8Array.from({ length: 256 }, (_, b) => blendSample(level, b, factor32));
  const out = new Uint8Array(img.rgb.length);
  for (let i = 0; i < out.length; i++) out[i] = lut[img.rgb[i]];
  return { rgb: out, width: img.width, height: img.height };
}

/** `ImageEnhance.Brightness(img).enhance(factor)`: blend(black, img, factor). */
export function brightness(img: RgbImage, factor: number): RgbImage {
  checkImage('brightness', img);
  return blendConstant(img, 0, checkFactor('brightness', factor));
}

/** Pillow's RGB → L: (19595 R + 38470 G + 7471 B + 0x8000) >> 16. */
function grayLevel(rgb: Uint8Array, p: number): number {
  return (rgb[p] * 19595 + rgb[p + 1] * 38470 + rgb[p + 2] * 7471 + 0x8000) >> 16;
}

/** `ImageEnhance.Color(img).enhance(factor)`: blend(img as L as RGB, img, factor). */
export function color(img: RgbImage, factor: number): RgbImage {
  const { rgb, width, height } = checkImage('color', img);
  const factor32 = checkFactor('color', factor);
  const out = new Uint8Array(rgb.length);
  for (let p = 0; p < rgb.length; p += 3) {
    const g = grayLevel(rgb, p);
    out[p] = blendSample(g, rgb[p], factor32);
    out[p + 1] = blendSample(g, rgb[p + 1], factor32);
    out[p + 2] = blendSample(g, rgb[p + 2], factor32);
  }
  return { rgb: out, width, height };
}

/**
 * `ImageEnhance.Contrast(img).enhance(factor)`: blend(constant grey, img, factor), the grey being
 * int(mean of the L image + 0.5) (ImageStat: a float64 sum of levels over the pixel count).
 */
export function contrast(img: RgbImage, factor: number): RgbImage {
  const { rgb } = checkImage('contrast', img);
  const factor32 = checkFactor('contrast', factor);
  let sum = 0;
  for (let p = 0; p < rgb.length; p += 3) sum += grayLevel(rgb, p);
  const mean = Math.trunc(sum / (rgb.length / 3) + 0.5);
  return blendConstant(img, mean, factor32);
}

/**
 * Pillow's ImageFilter.SMOOTH ([1 1 1; 1 5 1; 1 1 1]/13): each inner sample is the weighted sum
 * S/13 rounded to nearest (Filter.c adds 0.5 and truncates; S/13 + 0.5 is never within float error
 * of an integer, so the integer form floor((2S + 13)/26) is exact); border pixels are copied, and
 * an image narrower or shorter than 3 is returned as is (ImagingFilter copies it).
 */
export function smooth(img: RgbImage): RgbImage {
  const { rgb, width, height } = checkImage('smooth', img);
  const out = rgb.slice();
  if (width < 3 || height < 3) return { rgb: out, width, height };
  const row = width * 3;
  for (let y = 1; y < height - 1; y++) {
    for (let i = y * row + 3; i < (y + 1) * row - 3; i++) {
      const s =
        rgb[i - row - 3] +
        rgb[i - row] +
        rgb[i - row + 3] +
        rgb[i - 3] +
        5 * rgb[i] +
        rgb[i + 3] +
        rgb[i + row - 3] +
        rgb[i + row] +
        rgb[i + row + 3];
      out[i] = Math.floor((2 * s + 13) / 26);
    }
  }
  return { rgb: out, width, height };
}

/** `ImageEnhance.Sharpness(img).enhance(factor)`: blend(smooth(img), img, factor). */
export function sharpness(img: RgbImage, factor: number): RgbImage {
  checkImage('sharpness', img);
  return blend(smooth(img), img, checkFactor('sharpness', factor));
}
