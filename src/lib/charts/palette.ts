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
 */
export const PALETTE = [
  '#3b6fd4', // blue
  '#d9622b', // orange
  '#2a9257', // green
  '#c8416b', // crimson
  '#8a5cd0', // purple
  '#16919f', // teal
  '#a6761d', // ochre
  '#7a7f8c', // grey
  '#b5479b', // magenta
  '#6b8e23', // olive
  '#9c6644', // brown
  '#5a62c8', // indigo
  '#1f86c2', // sky
  '#58788f', // slate
  '#d24040', // red
] as const;

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
