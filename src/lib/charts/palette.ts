/**
 * Colours of algorithms: a fixed categorical table keyed by algorithm id, so an algorithm has the
 * same colour in every panel, run and export. Mid-tone colours with at least 3:1 contrast against
 * both the light (#ffffff) and the dark (#171b23) surface (WCAG 1.4.11), checked by a test.
 */
import { findAlgorithm } from '../models/catalogue.ts';

/**
 * The categorical scale for ids outside the catalogue (imported runs): a stable slot per id. The
 * catalogue's own colours (each entry's `color`) are checked by the same contrast test.
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
] as const;

/** FNV-1a: a stable slot for ids outside the catalogue. */
function hashSlot(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % PALETTE.length;
}

/** The colour of an algorithm id: the catalogue's, else a stable palette slot. */
export function algorithmColor(id: string): string {
  return findAlgorithm(id)?.color ?? PALETTE[hashSlot(id)];
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
