/**
 * The last step of every image input (§6.1–6.2), and the grey variant of §5.3. ToTensor divides
 * by 255, then (x − mean)/std per channel. Statistics are ImageNet's in the features and classroom
 * tiers (a bank cannot depend on a run's labeled set); finetune uses the labeled images' own
 * per-channel mean and population std, as the original scripts' `get_mena_std` computes them.
 */
import { checkImage, type RgbImage } from './rgbImage.ts';

/** ImageNet statistics (§6.2: the features and classroom tiers). */
export const IMAGENET_MEAN = [0.485, 0.456, 0.406] as const;
export const IMAGENET_STD = [0.229, 0.224, 0.225] as const;

/** uint8 HWC → float32 (x/255 − mean)/std, HWC (computed in doubles, stored as float32). */
export function normalise(
  rgb: Uint8Array,
  mean: readonly number[] = IMAGENET_MEAN,
  std: readonly number[] = IMAGENET_STD,
  out = new Float32Array(rgb.length),
): Float32Array {
  if (rgb.length % 3 !== 0)
    throw new RangeError(`normalise: ${rgb.length} bytes is not a whole number of RGB pixels.`);
  if (out.length !== rgb.length)
    throw new RangeError(`normalise: out has ${out.length} values; expected ${rgb.length}.`);
  for (let i = 0; i < rgb.length; i++) out[i] = (rgb[i] / 255 - mean[i % 3]) / std[i % 3];
  return out;
}

/** Per-channel statistics of pixel values /255. */
export interface PixelStats {
  readonly mean: [number, number, number];
  readonly std: [number, number, number];
}

/**
 * Mean and population std per channel over every pixel of every image, values /255, as numpy's
 * `np.mean(x / 255)` and `np.std(x / 255)` over the stacked pixels (§6.2; images at their stored
 * size). Exact per-channel level counts (integers in doubles), then a two-pass sum over the 256
 * levels: float64 throughout, within a few ulps of numpy's pairwise sums.
 */
export function labeledPixelStats(images: readonly RgbImage[]): PixelStats {
  if (images.length === 0) throw new RangeError('labeledPixelStats: needs at least one image; got none.');
  const counts = [new Float64Array(256), new Float64Array(256), new Float64Array(256)];
  let pixels = 0;
  images.forEach((img, i) => {
    const { rgb } = checkImage(`labeledPixelStats (image ${i})`, img);
    for (let p = 0; p < rgb.length; p += 3) {
      counts[0][rgb[p]]++;
      counts[1][rgb[p + 1]]++;
      counts[2][rgb[p + 2]]++;
    }
    pixels += rgb.length / 3;
  });
  const mean: [number, number, number] = [0, 0, 0];
  const std: [number, number, number] = [0, 0, 0];
  for (let c = 0; c < 3; c++) {
    let sum = 0;
    for (let v = 0; v < 256; v++) sum += counts[c][v] * v;
    const m = sum / 255 / pixels;
    let sq = 0;
    for (let v = 0; v < 256; v++) {
      const d = v / 255 - m;
      sq += counts[c][v] * d * d;
    }
    mean[c] = m;
    std[c] = Math.sqrt(sq / pixels);
  }
  return { mean, std };
}

/** §5.3's grey rows: G := R and B := R on the stored image (channel 0 copied, not a luminance). */
export function greyFromRed(img: RgbImage): RgbImage {
  const { rgb, width, height } = checkImage('greyFromRed', img);
  const out = new Uint8Array(rgb.length);
  for (let p = 0; p < rgb.length; p += 3) out[p] = out[p + 1] = out[p + 2] = rgb[p];
  return { rgb: out, width, height };
}
