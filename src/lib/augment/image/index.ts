/**
 * Image augmentations of PROTOCOL-IMAGE-TEXT.md §6.1–6.4 on uint8 RGB HWC images, matching
 * Pillow 9.4 (what torchvision and LAMDA's transforms call) byte for byte. Entry point:
 * `imageView(dataset, view, rgb, width, height, rng)`; the ops are exported for tests and tools.
 */
export {
  affineTransform,
  rotate,
  rotationCoefficients,
  shearX,
  shearY,
  translateX,
  translateY,
} from './affine.ts';
export { CUTOUT_FILL, cutout, cutoutRect, fillRect, type CutoutRect } from './cutout.ts';
export { blend, brightness, color, contrast, sharpness, smooth } from './enhance.ts';
export { centerCrop, crop, flipHorizontal, flipPadCrop, randomCrop, randomFlip } from './flipCrop.ts';
export {
  greyFromRed,
  IMAGENET_MEAN,
  IMAGENET_STD,
  labeledPixelStats,
  normalise,
  type PixelStats,
} from './normalise.ts';
export {
  cifarStrong,
  cifarWeak,
  imageView,
  PHOTO_CROP,
  PHOTO_RESIZE,
  photoClean,
  photoStrong,
  photoWeak,
  strongCifarView,
  weakCifarView,
  type ImageDataset,
  type ImageViewKind,
} from './pipelines.ts';
export { autoContrast, equalize, posterize, solarize } from './pointOps.ts';
export {
  applyOp,
  isSignedOp,
  opValue,
  RAND_AUGMENT_M,
  RAND_AUGMENT_N,
  RAND_AUGMENT_OPS,
  randAugment,
  type RandAugmentOp,
  type RandAugmentStep,
} from './randAugment.ts';
export { resizeBilinear } from './resize.ts';
export { checkImage, rgbImage, uniform, type RgbImage, type ViewRng } from './rgbImage.ts';
