/**
 * Flip and crops of §6.1, as torchvision does them on PIL images: RandomHorizontalFlip (p = 0.5),
 * RandomCrop (top, then left, uniform integers; with reflect padding for CIFAR) and CenterCrop.
 */
import { checkImage, uniform, type RgbImage, type ViewRng } from './rgbImage.ts';

/** Mirror left–right (Pillow's `transpose(FLIP_LEFT_RIGHT)`). */
export function flipHorizontal(img: RgbImage): RgbImage {
  const { rgb, width, height } = checkImage('flipHorizontal', img);
  const out = new Uint8Array(rgb.length);
  for (let y = 0; y < height; y++) {
    const row = y * width * 3;
    for (let x = 0; x < width; x++) {
      const o = row + x * 3;
      const s = row + (width - 1 - x) * 3;
      out[o] = rgb[s];
      out[o + 1] = rgb[s + 1];
      out[o + 2] = rgb[s + 2];
    }
  }
  return { rgb: out, width, height };
}

/** torchvision's RandomHorizontalFlip: one coin, flip when u < 0.5. */
export function randomFlip(img: RgbImage, rng: ViewRng): RgbImage {
  return uniform(rng) < 0.5 ? flipHorizontal(img) : img;
}

/** The cropWidth × cropHeight window whose top-left pixel is (left, top); it must lie inside. */
export function crop(
  img: RgbImage,
  top: number,
  left: number,
  cropWidth: number,
  cropHeight: number,
): RgbImage {
  const { rgb, width, height } = checkImage('crop', img);
  if (
    !Number.isInteger(top) ||
    !Number.isInteger(left) ||
    !Number.isInteger(cropWidth) ||
    !Number.isInteger(cropHeight) ||
    top < 0 ||
    left < 0 ||
    cropWidth < 1 ||
    cropHeight < 1 ||
    left + cropWidth > width ||
    top + cropHeight > height
  )
    throw new RangeError(
      `crop: window ${cropWidth}×${cropHeight} at (left ${left}, top ${top}) is not inside the ${width}×${height} image.`,
    );
  const out = new Uint8Array(cropWidth * cropHeight * 3);
  for (let y = 0; y < cropHeight; y++) {
    const s = ((top + y) * width + left) * 3;
    out.set(rgb.subarray(s, s + cropWidth * 3), y * cropWidth * 3);
  }
  return { rgb: out, width: cropWidth, height: cropHeight };
}

/** Python's round(): halves go to the even neighbour (torchvision rounds the centre-crop offset with it). */
function roundHalfEven(x: number): number {
  const r = Math.round(x);
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** torchvision's CenterCrop: offsets round((H − size)/2), round((W − size)/2); 16 for 256 → 224. */
export function centerCrop(img: RgbImage, size: number): RgbImage {
  checkCropSize('centerCrop', img, size);
  return crop(img, roundHalfEven((img.height - size) / 2), roundHalfEven((img.width - size) / 2), size, size);
}

/** torchvision's RandomCrop without padding: top = randint(H − size + 1), then left likewise. */
export function randomCrop(img: RgbImage, size: number, rng: ViewRng): RgbImage {
  checkCropSize('randomCrop', img, size);
  const top = rng.randint(img.height - size + 1);
  const left = rng.randint(img.width - size + 1);
  return crop(img, top, left, size, size);
}

function checkCropSize(where: string, img: RgbImage, size: number): void {
  checkImage(where, img);
  if (!Number.isInteger(size) || size < 1 || size > img.width || size > img.height)
    throw new RangeError(`${where}: crop size ${size} does not fit the ${img.width}×${img.height} image.`);
}

/** Index into [0, n) of padded position i under 'reflect' padding (mirror without repeating the edge). */
function reflect(i: number, n: number): number {
  if (i < 0) return -i;
  if (i >= n) return 2 * (n - 1) - i;
  return i;
}

/**
 * CIFAR's weak view on a size × size image: flip (u < 0.5), then `pad` px of reflect padding and a
 * random size × size crop (top, then left, each randint(2·pad + 1)); one pass, no padded copy.
 * pad defaults to trunc(0.125 · size) = 4 for CIFAR, as LAMDA's RandomCrop(padding=0.125).
 */
export function flipPadCrop(img: RgbImage, rng: ViewRng, pad = Math.trunc(0.125 * img.width)): RgbImage {
  const { rgb, width: size, height } = checkImage('flipPadCrop', img);
  if (height !== size)
    throw new RangeError(`flipPadCrop: the CIFAR weak view needs a square image; got ${size}×${height}.`);
  // numpy's reflect padding needs pad < size (it cannot mirror a 1-pixel edge further than itself).
  if (!Number.isInteger(pad) || pad < 0 || (pad > 0 && pad >= size))
    throw new RangeError(`flipPadCrop: padding must be an integer in [0, ${size - 1}]; got ${pad}.`);
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
  return { rgb: out, width: size, height: size };
}
