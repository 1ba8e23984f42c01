/**
 * Plan selectors: the one grammar shared by the CLI flags, the URL hash and presets.
 *   datasets   "iris,wine" | "all"
 *   settings   "distribution,label" | "all"
 *   labels     "5,10"
 *   seeds      "0-4" | "0,2,4" | "0-2,7"
 *   t          "all" | "0,0.2,1"      (values of the grid T, never indices)
 *   algorithms "lp,ls" | "all" | "statistical" | "deep"
 * Every parser throws a SelectorError that says which selector, what was expected, what came.
 */
import { SETTINGS, T_GRID, type Setting } from '../types.ts';

export class SelectorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SelectorError';
  }
}

function items(name: string, text: string): string[] {
  if (typeof text !== 'string' || text.trim() === '') {
    throw new SelectorError(`--${name} is empty; expected a comma-separated list.`);
  }
  const parts = text.split(',').map((s) => s.trim());
  if (parts.some((p) => p === '')) throw new SelectorError(`--${name} "${text}" has an empty item.`);
  return parts;
}

function unique<T>(xs: T[]): T[] {
  return [...new Set(xs)];
}

/** A list of names from `known`, or "all". Order follows `known` for "all", the input otherwise. */
export function parseNames<T extends string>(
  name: string,
  text: string,
  known: readonly T[],
  groups: Record<string, readonly T[]> = {},
): T[] {
  const out: T[] = [];
  for (const p of items(name, text)) {
    const key = p.toLowerCase();
    if (key === 'all') out.push(...known);
    else if (groups[key]) out.push(...groups[key]);
    else if ((known as readonly string[]).includes(key)) out.push(key as T);
    else {
      const extra = Object.keys(groups);
      throw new SelectorError(
        `--${name}: unknown value "${p}". Expected one of: ${[...known, 'all', ...extra].join(', ')}.`,
      );
    }
  }
  return unique(out);
}

export function parseSettings(text: string): Setting[] {
  return parseNames('setting', text, SETTINGS);
}

/** Values one integer selector may list: far more than any plan under the cell cap can use. */
export const MAX_LIST_VALUES = 10_000;

/**
 * Non-negative integers with ranges: "0-4", "0,2,4", "0-2,7". The values are counted before any
 * range is expanded, so "0-99999" or forty long ranges answer at once with the limit.
 */
export function parseIntegerList(
  name: string,
  text: string,
  { min = 0, max = 0xffffffff, maxCount = MAX_LIST_VALUES } = {},
): number[] {
  const ranges: [number, number][] = [];
  let count = 0;
  for (const p of items(name, text)) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(p);
    if (!m) throw new SelectorError(`--${name}: "${p}" is not an integer or a range like 0-4.`);
    const a = Number(m[1]);
    const b = m[2] === undefined ? a : Number(m[2]);
    if (b < a) throw new SelectorError(`--${name}: range "${p}" runs backwards.`);
    if (a < min || b > max) throw new SelectorError(`--${name}: "${p}" is outside [${min}, ${max}].`);
    count += b - a + 1;
    if (count > maxCount) {
      throw new SelectorError(
        `--${name}: "${text.length > 60 ? `${text.slice(0, 57)}...` : text}" lists more than ${maxCount.toLocaleString('en-US')} values, ` +
          'more than one run can hold. Split the study into runs (e.g. seeds 0-49, then 50-99) and join the files with "rac-bench merge".',
      );
    }
    ranges.push([a, b]);
  }
  const out: number[] = [];
  for (const [a, b] of ranges) for (let v = a; v <= b; v++) out.push(v);
  return unique(out);
}

export function parseSeeds(text: string): number[] {
  return parseIntegerList('seeds', text, { min: 0, max: 0xffffffff, maxCount: 1000 });
}

export function parseLabels(text: string): number[] {
  const xs = parseIntegerList('labels', text, { min: 1, max: 100_000, maxCount: 1000 });
  return xs;
}

/** t values from the grid, returned as indices 0..5 in grid order. */
export function parseTIndices(text: string): number[] {
  const out: number[] = [];
  for (const p of items('t', text)) {
    if (p.toLowerCase() === 'all') {
      out.push(0, 1, 2, 3, 4, 5);
      continue;
    }
    const v = /^[0-9]*\.?[0-9]+$/.test(p) ? Number(p) : NaN;
    const i = T_GRID.findIndex((g) => g === v);
    if (i < 0) {
      throw new SelectorError(
        `--t: "${p}" is not on the grid. Expected "all" or values among ${T_GRID.join(', ')}.`,
      );
    }
    out.push(i);
  }
  return unique(out).sort((a, b) => a - b);
}

/** Formats integers back into the compact range form ("0-4,7"). */
export function formatIntegerList(xs: readonly number[]): string {
  const s = [...new Set(xs)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < s.length;) {
    let j = i;
    while (j + 1 < s.length && s[j + 1] === s[j] + 1) j++;
    parts.push(j > i ? `${s[i]}-${s[j]}` : `${s[i]}`);
    i = j + 1;
  }
  return parts.join(',');
}
