/** Label encoding (PROTOCOL.md §4): sorted distinct raw labels -> 0..k-1. */

/** A plain decimal number (12, -0.5, .5, 3e-4); not hex, binary, octal, Infinity or NaN. */
export const DECIMAL_NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** Whether `s` (already trimmed) is a decimal number with a finite value. */
export function isDecimalNumber(s: string): boolean {
  return DECIMAL_NUMBER.test(s) && Number.isFinite(Number(s));
}

/**
 * Sorts distinct raw labels: numerically when every label is a decimal number (so '10' follows
 * '9', and the canonical CSV's integer labels keep their values), otherwise by UTF-16 code units
 * (numpy's order for ASCII strings: 'A' < 'B' < ... < 'Z').
 */
export function sortedDistinctLabels(raw: readonly string[]): string[] {
  const distinct = Array.from(new Set(raw));
  const numeric = distinct.every((s) => isDecimalNumber(s.trim()));
  return numeric
    ? distinct.sort((a, b) => Number(a) - Number(b))
    : distinct.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

export interface EncodedLabels {
  y: Int32Array;
  /** The raw label of each code, in code order. */
  labels: string[];
}

export function encodeLabels(raw: readonly string[]): EncodedLabels {
  const labels = sortedDistinctLabels(raw);
  const code = new Map(labels.map((l, i) => [l, i]));
  const y = new Int32Array(raw.length);
  for (let i = 0; i < raw.length; i++) y[i] = code.get(raw[i]) as number;
  return { y, labels };
}

export function classCounts(y: Int32Array, k: number): number[] {
  const counts = new Array<number>(k).fill(0);
  for (let i = 0; i < y.length; i++) counts[y[i]]++;
  return counts;
}
