/**
 * Colours of algorithms: a fixed categorical table keyed by algorithm id, so an algorithm has the
 * same colour in every panel, run and export. Mid-tone colours with at least 3:1 contrast against
 * both the light (#ffffff) and the dark (#171b23) surface (WCAG 1.4.11), checked by a test.
 */
import { CATALOGUE, findAlgorithm } from '../models/catalogue.ts';

/**
 * Mid-tone colours that pass the contrast test: the catalogue's entries take theirs from here (each
 * entry's `color`; a new entry picks one no other entry uses), and ids outside the catalogue
 * (imported runs) get a stable slot among the ones no entry uses, so they never look like one.
 * Every pair of entries' colours is at least MIN_ENTRY_DELTA_E apart (CIEDE2000), so no two
 * algorithms look alike in a chart or Compare, whichever presets they come from (issue 21, item 15:
 * Label Spreading and Pseudo-Label were both orange). The first eight slots keep their order: a
 * marker's shape is its colour's slot (racChart.ts).
 */
export const PALETTE = [
  '#3b6fd4', // blue: Label Propagation
  '#d9622b', // orange: Label Spreading
  '#2a9257', // green: SSGMM
  '#c8416b', // crimson: TSVM
  '#8a5cd0', // purple: Tri-Training
  '#16919f', // teal: ASSEMBLE
  '#a6761d', // ochre (spare)
  '#7a7f8c', // grey: XGBoost
  '#807018', // olive brown: FT-Transformer
  '#986028', // brown: Pseudo-Label
  '#487800', // dark green: Π-Model
  '#f838d0', // magenta: Mean Teacher
  '#2098d8', // sky: ICT
  '#d80020', // red: UDA
  '#889800', // yellow olive: FixMatch
  '#f85860', // salmon: FlexMatch
  '#c88000', // amber: SoftMatch
  '#b5479b', // plum (spare)
  '#8888d0', // lavender (spare)
  '#40a008', // lime (spare)
  '#d07098', // rose (spare)
] as const;

/** The least CIEDE2000 distance between two catalogue entries' colours (checked by a test). */
export const MIN_ENTRY_DELTA_E = 15;

/** FNV-1a: a stable slot for ids outside the catalogue. */
function hashSlot(id: string, n: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % n;
}

/** The colour of an algorithm id: the catalogue's, else a stable slot among the unused colours. */
export function algorithmColor(id: string): string {
  const own = findAlgorithm(id)?.color;
  if (own) return own;
  const used = new Set(CATALOGUE.map((a) => a.color));
  const free = PALETTE.filter((c) => !used.has(c));
  const pool = free.length ? free : PALETTE;
  return pool[hashSlot(id, pool.length)];
}

/** WCAG relative luminance of `#rrggbb`. */
export function luminance(hex: string): number {
  const c = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255);
  const lin = c.map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
  return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
}

/** WCAG contrast ratio of two `#rrggbb` colours. */
export function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/** CIE L*a*b* (D65) of `#rrggbb`. */
export function toLab(hex: string): [number, number, number] {
  const lin = [1, 3, 5].map((i) => {
    const v = parseInt(hex.slice(i, i + 2), 16) / 255;
    return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  });
  const [r, g, b] = lin;
  const x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
  const y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  const z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
  const f = (t: number) => (t > 0.008856 ? Math.cbrt(t) : 7.787 * t + 16 / 116);
  return [116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))];
}

/** How different two colours look: CIEDE2000 ΔE (about 2: just noticeable; 15: clearly distinct). */
export function deltaE(hexA: string, hexB: string): number {
  const [L1, a1, b1] = toLab(hexA);
  const [L2, a2, b2] = toLab(hexB);
  const rad = Math.PI / 180;
  const cBar = (Math.hypot(a1, b1) + Math.hypot(a2, b2)) / 2;
  const g = 0.5 * (1 - Math.sqrt(cBar ** 7 / (cBar ** 7 + 25 ** 7)));
  const a1p = (1 + g) * a1;
  const a2p = (1 + g) * a2;
  const c1 = Math.hypot(a1p, b1);
  const c2 = Math.hypot(a2p, b2);
  const hue = (b: number, a: number) => (((Math.atan2(b, a) / rad) % 360) + 360) % 360;
  const h1 = hue(b1, a1p);
  const h2 = hue(b2, a2p);
  let dh = h2 - h1;
  if (c1 * c2 === 0) dh = 0;
  else if (dh > 180) dh -= 360;
  else if (dh < -180) dh += 360;
  const dL = L2 - L1;
  const dC = c2 - c1;
  const dH = 2 * Math.sqrt(c1 * c2) * Math.sin((dh * rad) / 2);
  const lBar = (L1 + L2) / 2;
  const cpBar = (c1 + c2) / 2;
  const hBar = c1 * c2 === 0 ? h1 + h2 : Math.abs(h1 - h2) > 180 ? (h1 + h2 + 360) / 2 : (h1 + h2) / 2;
  const t =
    1 -
    0.17 * Math.cos((hBar - 30) * rad) +
    0.24 * Math.cos(2 * hBar * rad) +
    0.32 * Math.cos((3 * hBar + 6) * rad) -
    0.2 * Math.cos((4 * hBar - 63) * rad);
  const dTheta = 30 * Math.exp(-(((hBar - 275) / 25) ** 2));
  const rc = 2 * Math.sqrt(cpBar ** 7 / (cpBar ** 7 + 25 ** 7));
  const sl = 1 + (0.015 * (lBar - 50) ** 2) / Math.sqrt(20 + (lBar - 50) ** 2);
  const sc = 1 + 0.045 * cpBar;
  const sh = 1 + 0.015 * cpBar * t;
  const rt = -Math.sin(2 * dTheta * rad) * rc;
  return Math.sqrt((dL / sl) ** 2 + (dC / sc) ** 2 + (dH / sh) ** 2 + rt * (dC / sc) * (dH / sh));
}
