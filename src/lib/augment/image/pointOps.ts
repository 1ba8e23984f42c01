/**
 * RandAugment's per-channel lookup-table ops (§6.3), as Pillow 9.4's ImageOps builds their tables:
 * AutoContrast, Equalize, Posterize, Solarize. Pillow clips every table entry to 0…255 (CLIP8 in
 * `_point`), which matters for Equalize (its brightest level can map to 256).
 */
import { channelHistograms, checkImage, mapChannels, type RgbImage } from './rgbImage.ts';

type Luts = [Uint8Array, Uint8Array, Uint8Array];

const identityLut = (): Uint8Array => Uint8Array.from({ length: 256 }, (_, i) => i);

/** Table entries as `Image.point` stores them: clipped to a byte. */
function clip8(v: number): number {
  return v < 0 ? 0 : v > 255 ? 255 : v;
}

/**
 * `ImageOps.autocontrast(img)` (cutoff 0): per channel, lo/hi = darkest/brightest level present;
 * if hi > lo, x ↦ clamp(trunc(x·s + (−lo·s))) with s = 255/(hi − lo); else unchanged.
 */
export function autoContrast(img: RgbImage): RgbImage {
  checkImage('autoContrast', img);
  const luts = channelHistograms(img).map((h) => {
    let lo = 0;
    while (lo < 256 && h[lo] === 0) lo++;
    let hi = 255;
    while (hi >= 0 && h[hi] === 0) hi--;
    if (hi <= lo) return identityLut();
    const scale = 255 / (hi - lo);
    const offset = -lo * scale;
    return Uint8Array.from({ length: 256 }, (_, x) => clip8(Math.trunc(x * scale + offset)));
  }) as Luts;
  return mapChannels(img, luts);
}

/**
 * `ImageOps.equalize(img)`, per channel: step = (count of all pixels but the brightest level's)
 * // 255; if at least two levels occur and step > 0, level i ↦ (step//2 + pixels below i) // step.
 */
export function equalize(img: RgbImage): RgbImage {
  checkImage('equalize', img);
  const luts = channelHistograms(img).map((h) => {
    let levels = 0;
    let total = 0;
    let brightest = 0;
    for (let i = 0; i < 256; i++) {
      if (h[i] === 0) continue;
      levels++;
      total += h[i];
      brightest = h[i];
    }
    if (levels <= 1) return identityLut();
    const step = Math.floor((total - brightest) / 255);
    if (step === 0) return identityLut();
    const lut = new Uint8Array(256);
    let n = Math.floor(step / 2);
    for (let i = 0; i < 256; i++) {
      lut[i] = clip8(Math.floor(n / step));
      n += h[i];
    }
    return lut;
  }) as Luts;
  return mapChannels(img, luts);
}

/** `ImageOps.posterize(img, bits)`: keep the top `bits` bits of every channel. */
export function posterize(img: RgbImage, bits: number): RgbImage {
  checkImage('posterize', img);
  if (!Number.isInteger(bits) || bits < 1 || bits > 8)
    throw new RangeError(`posterize: bits must be an integer in [1, 8]; got ${bits}.`);
  const mask = ~(2 ** (8 - bits) - 1) & 255;
  const lut = Uint8Array.from({ length: 256 }, (_, i) => i & mask);
  return mapChannels(img, [lut, lut, lut]);
}

/** `ImageOps.solarize(img, threshold)`: x ≥ threshold ↦ 255 − x. */
export function solarize(img: RgbImage, threshold: number): RgbImage {
  checkImage('solarize', img);
  if (!Number.isFinite(threshold))
    throw new RangeError(`solarize: threshold must be finite; got ${threshold}.`);
  const lut = Uint8Array.from({ length: 256 }, (_, i) => (i < threshold ? i : 255 - i));
  return mapChannels(img, [lut, lut, lut]);
}
