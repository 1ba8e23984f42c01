/**
 * A tiny Image-CLEF-style dataset of real JPEG files (PROTOCOL-IMAGE-TEXT.md §4.2 layout
 * `<root>/<domain>/<class>/<file>.jpg`), shared by the CLI and browser tests of the distribution
 * panels: each class a colour (so a tiny conv net's features separate the classes), each domain a
 * shade of it (so the domains differ), each file a little noise and its own size (the photo pipeline
 * resizes any size to 256×256).
 */
import { zipSync } from 'fflate';
import { encode as encodeJpeg } from 'jpeg-js';
import { mt } from '../../src/lib/protocol/rng.ts';

export interface FixtureEntry {
  path: string;
  bytes: Uint8Array;
}

const CLASS_RGB = Array.from({ length: 12 }, (_, c) => [
  (c * 53 + 30) % 256,
  (c * 97 + 60) % 256,
  (c * 151 + 90) % 256,
]);

/** One JPEG of class `c` in domain number `d` (a shade of the class colour), `w`×`h`. */
export function classJpeg(c: number, d: number, w: number, h: number, seed: number): Uint8Array {
  const rng = mt(seed);
  const shade = [1, 0.8, 0.6][d % 3];
  const data = new Uint8Array(w * h * 4);
  for (let p = 0; p < w * h; p++) {
    for (let ch = 0; ch < 3; ch++)
      data[4 * p + ch] = Math.max(
        0,
        Math.min(255, Math.round(CLASS_RGB[c][ch] * shade + (rng.random() - 0.5) * 30)),
      );
    data[4 * p + 3] = 255;
  }
  return new Uint8Array(encodeJpeg({ width: w, height: h, data }, 85).data);
}

/** `perClass` JPEGs per class of each domain, under `root/` (root '' = at the top). */
export function imageClefEntries(
  domains: readonly string[],
  perClass: number,
  root = 'image_CLEF',
): FixtureEntry[] {
  const out: FixtureEntry[] = [];
  domains.forEach((domain, d) => {
    for (let c = 0; c < 12; c++)
      for (let i = 0; i < perClass; i++)
        out.push({
          path: `${root ? `${root}/` : ''}${domain}/${c}/${domain}_${c}_${i}.jpg`,
          bytes: classJpeg(c, d, 24 + ((i * 7) % 17), 20 + ((i * 5) % 13), 1000 * d + 50 * c + i),
        });
  });
  return out;
}

export function zipOf(entries: readonly FixtureEntry[]): Uint8Array {
  return zipSync(Object.fromEntries(entries.map((e) => [e.path, e.bytes])));
}
