/**
 * Resize as torchvision's Resize([h, w]) does on a PIL image: Pillow's `Image.resize(size,
 * BILINEAR)`, i.e. ImagingResample (Pillow 9.4 src/libImaging/Resample.c). It is antialiased: the
 * triangle filter's support grows with the downscale factor. Two separable passes, horizontal
 * first, each rounding to uint8; weights in 22-bit fixed point, as Pillow's 8-bit path does, so
 * the result matches Pillow byte for byte (tests/unit/augment/imageResize.test.ts).
 */
import { checkImage, type RgbImage } from './rgbImage.ts';

/** Pillow's PRECISION_BITS for 8-bit images: 32 − 8 − 2. */
const PRECISION_BITS = 22;
const ONE = 1 << PRECISION_BITS;
const HALF = 1 << (PRECISION_BITS - 1);

/** Filter taps of one pass: output i reads input bounds[2i] … bounds[2i] + bounds[2i+1] − 1. */
interface Taps {
  /** Taps per output sample (Pillow's ksize). */
  readonly ksize: number;
  /** (first input index, number of taps) per output sample. */
  readonly bounds: Int32Array;
  /** Fixed-point weights, ksize per output sample. */
  readonly weights: Int32Array;
}

/** Pillow's bilinear filter (support 1). */
function triangle(x: number): number {
  const a = x < 0 ? -x : x;
  return a < 1 ? 1 - a : 0;
}

/** precompute_coeffs + normalize_coeffs_8bpc for the whole input range (no box). */
function taps(inSize: number, outSize: number): Taps {
  const scale = inSize / outSize;
  const filterscale = scale < 1 ? 1 : scale;
  const support = 1 * filterscale;
  const ksize = Math.ceil(support) * 2 + 1;
  const bounds = new Int32Array(outSize * 2);
  const weights = new Int32Array(outSize * ksize);
  const k = new Float64Array(ksize);
  const ss = 1 / filterscale;
  for (let xx = 0; xx < outSize; xx++) {
    const center = (xx + 0.5) * scale;
    // C's (int) cast truncates toward zero.
    const xmin = Math.max(0, Math.trunc(center - support + 0.5));
    const xmax = Math.min(inSize, Math.trunc(center + support + 0.5)) - xmin;
    let ww = 0;
    for (let x = 0; x < xmax; x++) {
      const w = triangle((x + xmin - center + 0.5) * ss);
      k[x] = w;
      ww += w;
    }
    for (let x = 0; x < xmax; x++) {
      const w = ww !== 0 ? k[x] / ww : k[x];
      // The weights are never negative for this filter: (int)(0.5 + w · 2²²).
      weights[xx * ksize + x] = Math.trunc(0.5 + w * ONE);
    }
    bounds[xx * 2] = xmin;
    bounds[xx * 2 + 1] = xmax;
  }
  return { ksize, bounds, weights };
}

/** Pillow's clip8: the accumulator >> 22, clamped to a byte. */
function clip8(ss: number): number {
  const v = ss >> PRECISION_BITS;
  return v < 0 ? 0 : v > 255 ? 255 : v;
}

/** Horizontal pass over rows [rowStart, rowEnd) of the input. */
function resampleRows(src: RgbImage, outWidth: number, rowStart: number, rowEnd: number): RgbImage {
  const { ksize, bounds, weights } = taps(src.width, outWidth);
  const inRow = src.width * 3;
  const inRgb = src.rgb;
  const height = rowEnd - rowStart;
  const out = new Uint8Array(outWidth * height * 3);
  for (let y = 0; y < height; y++) {
    const rowBase = (y + rowStart) * inRow;
    for (let xx = 0; xx < outWidth; xx++) {
      const xmin = bounds[xx * 2];
      const n = bounds[xx * 2 + 1];
      const kBase = xx * ksize;
      let s0 = HALF;
      let s1 = HALF;
      let s2 = HALF;
      for (let x = 0; x < n; x++) {
        const w = weights[kBase + x];
        const p = rowBase + (xmin + x) * 3;
        s0 += inRgb[p] * w;
        s1 += inRgb[p + 1] * w;
        s2 += inRgb[p + 2] * w;
      }
      const o = (y * outWidth + xx) * 3;
      out[o] = clip8(s0);
      out[o + 1] = clip8(s1);
      out[o + 2] = clip8(s2);
    }
  }
  return { rgb: out, width: outWidth, height };
}

/** Vertical pass; `rowOffset` is the first input row the horizontal pass kept. */
function resampleColumns(src: RgbImage, vertical: Taps, outHeight: number, rowOffset: number): RgbImage {
  const { ksize, bounds, weights } = vertical;
  const row = src.width * 3;
  const inRgb = src.rgb;
  const out = new Uint8Array(row * outHeight);
  // Row by row (contiguous reads); the integer sums are exact in doubles, so the order of the
  // additions cannot change a result.
  const acc = new Float64Array(row);
  for (let yy = 0; yy < outHeight; yy++) {
    const ymin = bounds[yy * 2] - rowOffset;
    const n = bounds[yy * 2 + 1];
    acc.fill(HALF);
    for (let y = 0; y < n; y++) {
      const w = weights[yy * ksize + y];
      const base = (ymin + y) * row;
      for (let i = 0; i < row; i++) acc[i] += inRgb[base + i] * w;
    }
    const o = yy * row;
    for (let i = 0; i < row; i++) out[o + i] = clip8(acc[i]);
  }
  return { rgb: out, width: src.width, height: outHeight };
}

/**
 * Pillow's antialiased bilinear resize to outWidth × outHeight (aspect ratio ignored). The same
 * size returns a copy, as Pillow does; a pass whose size does not change is skipped, as
 * ImagingResampleInner skips it.
 */
export function resizeBilinear(img: RgbImage, outWidth: number, outHeight: number): RgbImage {
  checkImage('resizeBilinear', img);
  if (!Number.isInteger(outWidth) || outWidth < 1 || !Number.isInteger(outHeight) || outHeight < 1)
    throw new RangeError(`resizeBilinear: output size must be integers >= 1; got ${outWidth}×${outHeight}.`);
  const needHorizontal = outWidth !== img.width;
  const needVertical = outHeight !== img.height;
  if (!needHorizontal && !needVertical) return { rgb: img.rgb.slice(), width: img.width, height: img.height };
  const vertical = taps(img.height, outHeight);
  let current = img;
  let rowOffset = 0;
  if (needHorizontal) {
    // Only the rows the vertical pass reads (Pillow's ybox_first … ybox_last).
    const first = vertical.bounds[0];
    const last = vertical.bounds[outHeight * 2 - 2] + vertical.bounds[outHeight * 2 - 1];
    current = needVertical
      ? resampleRows(img, outWidth, first, last)
      : resampleRows(img, outWidth, 0, img.height);
    rowOffset = needVertical ? first : 0;
  }
  return needVertical ? resampleColumns(current, vertical, outHeight, rowOffset) : current;
}
