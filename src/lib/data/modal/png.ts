/**
 * PNG bytes → 8-bit RGB, as PIL's `Image.open(f).convert('RGB')` gives them (PROTOCOL-IMAGE-TEXT.md
 * §4.2): palette images through their palette, grey replicated into three channels, alpha dropped
 * without compositing, no colour management. PNG is lossless, so every decoder yields these exact
 * bytes; fast-png (pure JS) runs the same in the page, in workers and under Node.
 */
import { decode } from 'fast-png';

export interface RgbImage {
  width: number;
  height: number;
  /** Row-major HWC, 3 bytes a pixel. */
  rgb: Uint8Array;
}

export function decodePngRgb(bytes: Uint8Array): RgbImage {
  let png;
  try {
    png = decode(bytes);
  } catch (e) {
    throw new Error(`not a readable PNG image (${e instanceof Error ? e.message : String(e)})`, { cause: e });
  }
  const { width, height, channels, depth, palette } = png;
  const n = width * height;
  const rgb = new Uint8Array(n * 3);
  if (palette) {
    // Indexed: data holds one palette index a pixel (unpacked from 1/2/4/8 bits by fast-png).
    const idx = png.data;
    for (let p = 0; p < n; p++) {
      const entry = palette[idx[p]];
      if (!entry) throw new Error(`PNG palette index ${idx[p]} out of range (${palette.length} entries)`);
      rgb[3 * p] = entry[0];
      rgb[3 * p + 1] = entry[1];
      rgb[3 * p + 2] = entry[2];
    }
    return { width, height, rgb };
  }
  if (depth !== 8)
    throw new Error(`PNG of ${depth}-bit samples: only 8-bit images are expected here (CIFAR's are)`);
  const data = png.data;
  if (channels === 3) rgb.set(data.subarray(0, n * 3));
  else if (channels === 4)
    for (let p = 0; p < n; p++) {
      rgb[3 * p] = data[4 * p];
      rgb[3 * p + 1] = data[4 * p + 1];
      rgb[3 * p + 2] = data[4 * p + 2];
    }
  else if (channels === 1 || channels === 2)
    for (let p = 0; p < n; p++) rgb[3 * p] = rgb[3 * p + 1] = rgb[3 * p + 2] = data[channels * p];
  else throw new Error(`PNG with ${channels} channels`);
  return { width, height, rgb };
}
