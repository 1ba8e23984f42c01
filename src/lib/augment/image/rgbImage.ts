/**
 * The image type every augmentation of PROTOCOL-IMAGE-TEXT.md §6.1–6.4 reads and returns: uint8
 * RGB, row-major, channels interleaved (HWC), as Pillow stores an "RGB" image and as the bank and
 * the backbones read it. Operations never modify their input; one that changes nothing (Identity,
 * a flip coin that says no) may return it as is.
 */
import type { MT19937 } from '../../protocol/rng.ts';

export interface RgbImage {
  /** width × height × 3 bytes, row-major, R G B per pixel. */
  readonly rgb: Uint8Array;
  readonly width: number;
  readonly height: number;
}

/**
 * What the view pipelines draw from: a view generator (bank/viewSeed.ts) or any MT19937.
 * Only these two methods are used, so a test may script its own draws.
 */
export type ViewRng = Pick<MT19937, 'nextU32' | 'randint'>;

/** u = nextU32()/2³² (§7.4): the uniform double of every coin and of Cutout. */
export function uniform(rng: ViewRng): number {
  return rng.nextU32() / 4294967296;
}

/** Checks sizes and byte count; `where` names the caller in the message. */
export function checkImage(where: string, img: RgbImage): RgbImage {
  const { rgb, width, height } = img;
  if (!Number.isInteger(width) || width < 1 || !Number.isInteger(height) || height < 1)
    throw new RangeError(
      `${where}: width and height must be integers >= 1; got width ${width}, height ${height}.`,
    );
  if (!(rgb instanceof Uint8Array))
    throw new TypeError(`${where}: rgb must be a Uint8Array of RGB bytes; got ${typeof rgb}.`);
  if (rgb.length !== width * height * 3)
    throw new RangeError(
      `${where}: rgb has ${rgb.length} bytes; expected width × height × 3 = ${width * height * 3} (${width}×${height} RGB).`,
    );
  return img;
}

/** An image from its parts, checked. */
export function rgbImage(where: string, rgb: Uint8Array, width: number, height: number): RgbImage {
  return checkImage(where, { rgb, width, height });
}

/** Applies one 256-entry lookup table per channel (Pillow's `Image.point` on an RGB image). */
export function mapChannels(img: RgbImage, luts: readonly [Uint8Array, Uint8Array, Uint8Array]): RgbImage {
  const { rgb } = img;
  const [lr, lg, lb] = luts;
  const out = new Uint8Array(rgb.length);
  for (let i = 0; i < rgb.length; i += 3) {
    out[i] = lr[rgb[i]];
    out[i + 1] = lg[rgb[i + 1]];
    out[i + 2] = lb[rgb[i + 2]];
  }
  return { rgb: out, width: img.width, height: img.height };
}

/** Per-channel histograms (Pillow's `Image.histogram()`: 256 counts for R, then G, then B). */
export function channelHistograms(img: RgbImage): [Float64Array, Float64Array, Float64Array] {
  const h: [Float64Array, Float64Array, Float64Array] = [
    new Float64Array(256),
    new Float64Array(256),
    new Float64Array(256),
  ];
  const { rgb } = img;
  for (let i = 0; i < rgb.length; i += 3) {
    h[0][rgb[i]]++;
    h[1][rgb[i + 1]]++;
    h[2][rgb[i + 2]]++;
  }
  return h;
}
