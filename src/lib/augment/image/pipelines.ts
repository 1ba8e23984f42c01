/**
 * The view pipelines of §6.1, drawing from one view generator in pipeline order (§7.4):
 *
 * | dataset | clean | weak | strong |
 * |---|---|---|---|
 * | cifar (square, stored size) | as stored | flip → reflect-pad trunc(w/8) → crop | weak → RandAugment → Cutout |
 * | photo (image-clef, visda; any size) | Resize 256×256 → CenterCrop 224 | Resize → RandomCrop 224 → flip | weak → RandAugment → Cutout |
 *
 * Normalisation (normalise.ts) is the caller's last step.
 */
import { cutout } from './cutout.ts';
import { centerCrop, flipPadCrop, randomCrop, randomFlip } from './flipCrop.ts';
import { randAugment, type RandAugmentStep } from './randAugment.ts';
import { resizeBilinear } from './resize.ts';
import { checkImage, rgbImage, type RgbImage, type ViewRng } from './rgbImage.ts';

export type ImageDataset = 'cifar' | 'photo';
export type ImageViewKind = 'clean' | 'weak' | 'strong';

/** torchvision Resize([256, 256]) then the 224 crops of the photo datasets. */
export const PHOTO_RESIZE = 256;
export const PHOTO_CROP = 224;

export function cifarWeak(img: RgbImage, rng: ViewRng): RgbImage {
  return flipPadCrop(img, rng);
}

export function cifarStrong(img: RgbImage, rng: ViewRng, trace?: RandAugmentStep[]): RgbImage {
  return cutout(randAugment(flipPadCrop(img, rng), rng, trace), rng);
}

export function photoClean(img: RgbImage): RgbImage {
  return centerCrop(resizeBilinear(img, PHOTO_RESIZE, PHOTO_RESIZE), PHOTO_CROP);
}

export function photoWeak(img: RgbImage, rng: ViewRng): RgbImage {
  return randomFlip(randomCrop(resizeBilinear(img, PHOTO_RESIZE, PHOTO_RESIZE), PHOTO_CROP, rng), rng);
}

export function photoStrong(img: RgbImage, rng: ViewRng, trace?: RandAugmentStep[]): RgbImage {
  return cutout(randAugment(photoWeak(img, rng), rng, trace), rng);
}

/**
 * One view of one stored image: the single entry point of the image augmentations. `rng` is the
 * view's generator (bank/viewSeed.ts viewRng, or the finetune stream); the clean views draw
 * nothing. `trace`, if given, receives the two RandAugment slots of a strong view.
 */
export function imageView(
  dataset: ImageDataset,
  view: ImageViewKind,
  rgb: Uint8Array,
  width: number,
  height: number,
  rng: ViewRng,
  trace?: RandAugmentStep[],
): RgbImage {
  const img = rgbImage(`imageView(${dataset}, ${view})`, rgb, width, height);
  if (dataset === 'cifar') {
    if (view === 'clean') return { rgb: rgb.slice(), width, height };
    if (width !== height)
      throw new RangeError(
        `imageView(cifar, ${view}): CIFAR views need a square image; got ${width}×${height}.`,
      );
    return view === 'weak' ? cifarWeak(img, rng) : cifarStrong(img, rng, trace);
  }
  if (dataset === 'photo') {
    if (view === 'clean') return photoClean(img);
    return view === 'weak' ? photoWeak(img, rng) : photoStrong(img, rng, trace);
  }
  throw new RangeError(`imageView: unknown dataset ${String(dataset)}; expected 'cifar' or 'photo'.`);
}

function squareImage(where: string, rgb: Uint8Array, size: number): RgbImage {
  if (rgb.length !== size * size * 3)
    throw new RangeError(`${where}: ${rgb.length} bytes is not ${size}×${size}×3.`);
  return checkImage(where, { rgb, width: size, height: size });
}

/** CIFAR's weak view of a size × size image as bytes (flip → reflect-pad `pad` → crop). */
export function weakCifarView(
  rgb: Uint8Array,
  size: number,
  rng: ViewRng,
  pad = Math.trunc(0.125 * size),
): Uint8Array {
  return flipPadCrop(squareImage('weakCifarView', rgb, size), rng, pad).rgb;
}

/** CIFAR's strong view of a size × size image as bytes (weak → RandAugment → Cutout). */
export function strongCifarView(rgb: Uint8Array, size: number, rng: ViewRng): Uint8Array {
  return cifarStrong(squareImage('strongCifarView', rgb, size), rng).rgb;
}
