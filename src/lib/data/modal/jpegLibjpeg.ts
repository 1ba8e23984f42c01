/**
 * JPEG → RGB the way Pillow's libjpeg(-turbo) finishes a decode, on top of jpeg-js's entropy
 * decoding and IDCT. jpeg-js upsamples chroma by repeating samples and converts YCbCr in floating
 * point; libjpeg (Pillow's defaults: do_fancy_upsampling) interpolates chroma with its triangle
 * filter ("fancy" upsampling, jdsample.c) and converts with 16-bit fixed-point tables (jdcolor.c).
 * On a 4:2:0 photo the first difference is tens of levels at colour edges; redone here, what is
 * left is the IDCT's rounding (a few levels on some pixels).
 *
 * How: jpeg-js is asked for the untransformed component planes (colorTransform false, after an
 * Adobe marker's transform flag is cleared in a copy of the bytes), each sampled at full size by
 * repetition; the stored samples are read back from those planes (sample j of a plane subsampled
 * 2:1 sits at 2j), upsampled as libjpeg does and converted with its tables.
 */
import { decode as decodeJpeg } from 'jpeg-js';

interface JpegHeader {
  width: number;
  height: number;
  /** Sampling factors of each component, in frame order. */
  h: number[];
  v: number[];
  /** Offset of the Adobe APP14 transform byte, and its value (null: no Adobe marker). */
  adobeTransformAt: number | null;
  adobeTransform: number | null;
}

/** The frame header (SOFn) and the Adobe marker, read from the markers before the first scan. */
function readHeader(bytes: Uint8Array): JpegHeader {
  let at = 2;
  let adobeTransformAt: number | null = null;
  let adobeTransform: number | null = null;
  while (at + 4 <= bytes.length) {
    if (bytes[at] !== 0xff) throw new Error(`no JPEG marker at byte ${at}`);
    const marker = bytes[at + 1];
    if (marker === 0xff) {
      at++; // fill byte
      continue;
    }
    const length = (bytes[at + 2] << 8) | bytes[at + 3];
    const seg = at + 4;
    if (marker === 0xee && length >= 14 && String.fromCharCode(...bytes.subarray(seg, seg + 5)) === 'Adobe') {
      adobeTransformAt = seg + 11;
      adobeTransform = bytes[seg + 11];
    }
    const isSof = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isSof) {
      const height = (bytes[seg + 1] << 8) | bytes[seg + 2];
      const width = (bytes[seg + 3] << 8) | bytes[seg + 4];
      const n = bytes[seg + 5];
      const h: number[] = [];
      const v: number[] = [];
      for (let c = 0; c < n; c++) {
        h.push(bytes[seg + 7 + 3 * c] >> 4);
        v.push(bytes[seg + 7 + 3 * c] & 15);
      }
      // The Adobe marker may follow the frame header: keep reading up to the first scan.
      let rest = seg + length - 2;
      while (rest + 4 <= bytes.length && bytes[rest] === 0xff && bytes[rest + 1] !== 0xda) {
        const m = bytes[rest + 1];
        if (m === 0xff) {
          rest++;
          continue;
        }
        const len = (bytes[rest + 2] << 8) | bytes[rest + 3];
        const s = rest + 4;
        if (m === 0xee && len >= 14 && String.fromCharCode(...bytes.subarray(s, s + 5)) === 'Adobe') {
          adobeTransformAt = s + 11;
          adobeTransform = bytes[s + 11];
        }
        rest = s + len - 2;
      }
      return { width, height, h, v, adobeTransformAt, adobeTransform };
    }
    if (marker === 0xda) break;
    at = seg + length - 2;
  }
  throw new Error('no frame header (SOF marker) before the image data');
}

/** libjpeg's sample rows of a component, read back from jpeg-js's full-size repeated plane. */
function storedSamples(
  full: Uint8Array,
  comps: number,
  c: number,
  width: number,
  height: number,
  fx: number,
  fy: number,
): { data: Uint8Array; w: number; h: number } {
  const w = Math.ceil(width / fx);
  const h = Math.ceil(height / fy);
  const data = new Uint8Array(w * h);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) data[y * w + x] = full[(y * fy * width + x * fx) * comps + c];
  return { data, w, h };
}

/** jdsample.c h2v1_fancy_upsample: one row, doubled in width by the 3:1 triangle. */
function h2v1Row(
  inp: Uint8Array,
  off: number,
  w: number,
  out: Uint8Array,
  outOff: number,
  outW: number,
): void {
  const put = (i: number, value: number) => {
    if (i < outW) out[outOff + i] = value;
  };
  if (w === 1) {
    put(0, inp[off]);
    put(1, inp[off]);
    return;
  }
  let value = inp[off];
  put(0, value);
  put(1, (value * 3 + inp[off + 1] + 2) >> 2);
  for (let x = 1; x < w - 1; x++) {
    value = inp[off + x] * 3;
    put(2 * x, (value + inp[off + x - 1] + 1) >> 2);
    put(2 * x + 1, (value + inp[off + x + 1] + 2) >> 2);
  }
  value = inp[off + w - 1];
  put(2 * (w - 1), (value * 3 + inp[off + w - 2] + 1) >> 2);
  put(2 * (w - 1) + 1, value);
}

/**
 * One component at full size as libjpeg upsamples it: h2v2 / h2v1 / h1v2 fancy (triangle filters
 * with libjpeg's alternating rounding biases), other integer factors by repetition (int_upsample).
 * Rows outside the image repeat the first or last stored row, as libjpeg's context rows do.
 */
function upsample(
  s: { data: Uint8Array; w: number; h: number },
  fx: number,
  fy: number,
  width: number,
  height: number,
): Uint8Array {
  const out = new Uint8Array(width * height);
  const row = (y: number) => Math.min(s.h - 1, Math.max(0, y)) * s.w;
  if (fx === 2 && fy === 2 && s.w >= 2) {
    for (let oy = 0; oy < height; oy++) {
      const iy = oy >> 1;
      const near = row(iy);
      const far = row(oy & 1 ? iy + 1 : iy - 1);
      const col = (x: number) => s.data[near + x] * 3 + s.data[far + x];
      const o = oy * width;
      const put = (i: number, value: number) => {
        if (i < width) out[o + i] = value;
      };
      let last = col(0);
      let cur = last;
      let next = col(1);
      put(0, (cur * 4 + 8) >> 4);
      put(1, (cur * 3 + next + 7) >> 4);
      last = cur;
      cur = next;
      for (let x = 1; x < s.w - 1; x++) {
        next = col(x + 1);
        put(2 * x, (cur * 3 + last + 8) >> 4);
        put(2 * x + 1, (cur * 3 + next + 7) >> 4);
        last = cur;
        cur = next;
      }
      put(2 * (s.w - 1), (cur * 3 + last + 8) >> 4);
      put(2 * (s.w - 1) + 1, (cur * 4 + 7) >> 4);
    }
    return out;
  }
  if (fx === 2 && fy === 1) {
    for (let y = 0; y < height; y++) h2v1Row(s.data, row(y), s.w, out, y * width, width);
    return out;
  }
  if (fx === 1 && fy === 2) {
    for (let oy = 0; oy < height; oy++) {
      const iy = oy >> 1;
      const near = row(iy);
      const far = row(oy & 1 ? iy + 1 : iy - 1);
      const bias = oy & 1 ? 2 : 1;
      for (let x = 0; x < width; x++)
        out[oy * width + x] = (s.data[near + x] * 3 + s.data[far + x] + bias) >> 2;
    }
    return out;
  }
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) out[y * width + x] = s.data[row(Math.floor(y / fy)) + Math.floor(x / fx)];
  return out;
}

/** jdcolor.c's tables (SCALEBITS 16, ONE_HALF rounding). */
const FIX = (x: number) => Math.floor(x * 65536 + 0.5);
const CR_R = new Int32Array(256);
const CB_B = new Int32Array(256);
const CR_G = new Int32Array(256);
const CB_G = new Int32Array(256);
for (let i = 0; i < 256; i++) {
  const x = i - 128;
  CR_R[i] = (FIX(1.402) * x + 32768) >> 16;
  CB_B[i] = (FIX(1.772) * x + 32768) >> 16;
  CR_G[i] = -FIX(0.71414) * x;
  CB_G[i] = -FIX(0.34414) * x + 32768;
}
const clamp8 = (v: number) => (v < 0 ? 0 : v > 255 ? 255 : v);

/**
 * A one- or three-component JPEG as libjpeg would finish it; null for what this does not redo
 * (four components: jpeg-js's own conversion, which matches Pillow's CMYK formula, is used).
 */
export function decodeJpegLikeLibjpeg(
  bytes: Uint8Array,
): { width: number; height: number; rgb: Uint8Array } | null {
  const header = readHeader(bytes);
  const n = header.h.length;
  if (n !== 1 && n !== 3) return null;
  let input = bytes;
  if (header.adobeTransformAt !== null && header.adobeTransform !== 0) {
    input = bytes.slice();
    input[header.adobeTransformAt] = 0;
  }
  const planes = decodeJpeg(input, {
    useTArray: true,
    formatAsRGBA: false,
    colorTransform: false,
    tolerantDecoding: false,
    maxResolutionInMP: 64,
    maxMemoryUsageInMB: 1024,
  });
  const { width, height } = planes;
  if (width !== header.width || height !== header.height)
    throw new Error(`frame header says ${header.width}×${header.height}, the decoder ${width}×${height}`);
  const rgb = new Uint8Array(width * height * 3);
  // jpeg-js returns grey replicated into 3 channels (formatAsRGBA false), 3 values a pixel either way.
  if (n === 1) {
    rgb.set(planes.data.subarray(0, rgb.length));
    return { width, height, rgb };
  }
  const maxH = Math.max(...header.h);
  const maxV = Math.max(...header.v);
  const comp = [0, 1, 2].map((c) => {
    const fx = maxH / header.h[c];
    const fy = maxV / header.v[c];
    if (fx === 1 && fy === 1) {
      const p = new Uint8Array(width * height);
      for (let i = 0; i < p.length; i++) p[i] = planes.data[3 * i + c];
      return p;
    }
    if (!Number.isInteger(fx) || !Number.isInteger(fy)) return null;
    return upsample(storedSamples(planes.data, 3, c, width, height, fx, fy), fx, fy, width, height);
  });
  if (comp.some((p) => p === null)) return null;
  const [a, b, c] = comp as Uint8Array[];
  // An Adobe marker with transform 0 says the components are R, G, B already; otherwise YCbCr.
  const ycc = header.adobeTransform !== 0;
  for (let i = 0; i < width * height; i++) {
    if (!ycc) {
      rgb[3 * i] = a[i];
      rgb[3 * i + 1] = b[i];
      rgb[3 * i + 2] = c[i];
      continue;
    }
    const y = a[i];
    rgb[3 * i] = clamp8(y + CR_R[c[i]]);
    rgb[3 * i + 1] = clamp8(y + ((CB_G[b[i]] + CR_G[c[i]]) >> 16));
    rgb[3 * i + 2] = clamp8(y + CB_B[b[i]]);
  }
  return { width, height, rgb };
}
