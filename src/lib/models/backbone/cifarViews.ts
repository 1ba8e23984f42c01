/**
 * CIFAR's clean and weak views (PROTOCOL-IMAGE-TEXT.md §6.1) on 32×32 uint8 RGB, drawn from a view
 * generator (bank/viewSeed.ts): flip with p = 0.5 (u < 0.5), then 4-px reflect padding and a random
 * 32×32 crop (top, then left, uniform integers 0…8). The strong view adds RandAugment and Cutout,
 * which arrive with the image suite. Normalisation (§6.2) is the caller's last step.
 */
import type { MT19937 } from '../../protocol/rng.ts';

/** u = nextU32()/2³² (§7.4). */
const uniform = (rng: MT19937) => rng.nextU32() / 4294967296;

/** Reflect index ('reflect': mirror without repeating the edge pixel). */
function reflect(i: number, n: number): number {
  if (i < 0) return -i;
  if (i >= n) return 2 * (n - 1) - i;
  return i;
}

/** flip → reflect-pad `pad` → crop back to size; returns a new image. */
export function weakCifarView(
  rgb: Uint8Array,
  size: number,
  rng: MT19937,
  pad = Math.trunc(0.125 * size),
): Uint8Array {
  if (rgb.length !== size * size * 3)
    throw new Error(`weakCifarView: ${rgb.length} bytes is not ${size}×${size}×3.`);
  const flip = uniform(rng) < 0.5;
  const top = rng.randint(2 * pad + 1);
  const left = rng.randint(2 * pad + 1);
  const out = new Uint8Array(rgb.length);
  for (let y = 0; y < size; y++) {
    const sy = reflect(y + top - pad, size);
    for (let x = 0; x < size; x++) {
      // The crop reads the padded, flipped image: flip first, then pad and crop.
      const px = reflect(x + left - pad, size);
      const sx = flip ? size - 1 - px : px;
      const o = (y * size + x) * 3;
      const s = (sy * size + sx) * 3;
      out[o] = rgb[s];
      out[o + 1] = rgb[s + 1];
      out[o + 2] = rgb[s + 2];
    }
  }
  return out;
}

/** ImageNet statistics (§6.2: the features and classroom tiers). */
export const IMAGENET_MEAN = [0.485, 0.456, 0.406] as const;
export const IMAGENET_STD = [0.229, 0.224, 0.225] as const;

/** uint8 HWC → float32 (x/255 − mean)/std, HWC. */
export function normalise(
  rgb: Uint8Array,
  mean: readonly number[] = IMAGENET_MEAN,
  std: readonly number[] = IMAGENET_STD,
  out = new Float32Array(rgb.length),
): Float32Array {
  for (let i = 0; i < rgb.length; i++) out[i] = (rgb[i] / 255 - mean[i % 3]) / std[i % 3];
  return out;
}
