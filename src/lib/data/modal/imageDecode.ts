/**
 * Image file bytes → 8-bit RGB for the local datasets (PROTOCOL-IMAGE-TEXT.md §4.2: Image-CLEF's
 * JPEGs, VisDA's PNG renderings and JPEG photos), as PIL's `Image.open(f).convert('RGB')` gives
 * them: no colour management, EXIF orientation ignored, greyscale replicated into three channels,
 * CMYK through Pillow's formula. The format is told by the file's signature, not its name.
 *
 * JPEG goes through jpeg-js (pure JS, the same in the page, in workers and under Node, so a bank
 * is the same wherever it is made), finished as libjpeg finishes it (jpegLibjpeg.ts: its chroma
 * upsampling and colour tables). The IDCT is still jpeg-js's, so pixels may differ from Pillow's
 * by a few levels (tests/unit/data/imageDecode.test.ts bounds it against Pillow-decoded
 * fixtures). That is why §4.4 hashes the file bytes, not the pixels, and why the record names the
 * decoder.
 */
import { decode as decodeJpeg } from 'jpeg-js';
import { decodeJpegLikeLibjpeg } from './jpegLibjpeg.ts';
import { decodePngRgb, type RgbImage } from './png.ts';

export type { RgbImage } from './png.ts';

/** The record's `input.decoder` for local images (§4.2: "record the decoder"). */
export const LOCAL_IMAGE_DECODER = 'jpeg-js@0.4.4 + fast-png';

export type ImageFormat = 'jpeg' | 'png';

/** The format of a file from its first bytes (JPEG's SOI marker, PNG's signature), or null. */
export function imageFormat(bytes: Uint8Array): ImageFormat | null {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (bytes.length >= 8 && png.every((b, i) => bytes[i] === b)) return 'png';
  return null;
}

/** Photos larger than this are refused (jpeg-js's own guard is 100 MP; no dataset image comes near). */
const MAX_MEGAPIXELS = 64;

/** A JPEG or PNG file as uint8 RGB; a message saying what is wrong otherwise (the caller adds the path). */
export function decodeImageRgb(bytes: Uint8Array): RgbImage {
  const format = imageFormat(bytes);
  if (format === 'png') return decodePngRgb(bytes);
  if (format !== 'jpeg') throw new Error('not a JPEG or PNG image (its first bytes are neither signature)');
  try {
    const like = decodeJpegLikeLibjpeg(bytes);
    if (like) return like;
  } catch (e) {
    throw new Error(`not a readable JPEG image (${e instanceof Error ? e.message : String(e)})`, {
      cause: e,
    });
  }
  let img;
  try {
    // Four components (CMYK, Adobe's inverted or not): jpeg-js turns them into RGB as Pillow's
    // cmyk2rgb does, (255−C)(255−K)/255.
    img = decodeJpeg(bytes, {
      useTArray: true,
      formatAsRGBA: false,
      tolerantDecoding: false,
      maxResolutionInMP: MAX_MEGAPIXELS,
      maxMemoryUsageInMB: 1024,
    });
  } catch (e) {
    throw new Error(`not a readable JPEG image (${e instanceof Error ? e.message : String(e)})`, {
      cause: e,
    });
  }
  if (!(img.width > 0 && img.height > 0) || img.data.length !== img.width * img.height * 3)
    throw new Error(`a JPEG image of ${img.width}×${img.height} pixels that decodes to no pixels`);
  return { width: img.width, height: img.height, rgb: img.data };
}
