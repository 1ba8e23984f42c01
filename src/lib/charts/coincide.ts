/**
 * Curves that hide each other (issue 21, item 15): two algorithms with the same mean accuracy at
 * every t draw one line, and the one drawn first disappears under the other (classroom-deep's
 * FT-Transformer lay under Pseudo-Label). The chart says so in a note under the panel, naming the
 * hidden curve. Pure.
 */
import type { CurveRecord } from '../suite/curves.ts';

/** Means closer than this (accuracy, 0–1) are one line on a panel a few hundred pixels high. */
export const COINCIDE_TOLERANCE = 0.0015;

type CurveLike = Pick<CurveRecord, 'algorithm' | 'mean'>;

/** Same points (a value at the same t) and means within the tolerance at each. */
function coincide(a: CurveLike, b: CurveLike): boolean {
  let common = 0;
  for (let i = 0; i < Math.max(a.mean.length, b.mean.length); i++) {
    const x = a.mean[i];
    const y = b.mean[i];
    const fx = Number.isFinite(x);
    if (fx !== Number.isFinite(y)) return false;
    if (!fx) continue;
    if (Math.abs(x - y) > COINCIDE_TOLERANCE) return false;
    common++;
  }
  return common > 0;
}

/**
 * Groups of the shown curves (not in `hidden`) that coincide, each in drawing order (the last
 * one drawn is the visible one). Only groups of two or more.
 */
export function coincidingGroups(curves: readonly CurveLike[], hidden: readonly string[] = []): string[][] {
  const off = new Set(hidden);
  const shown = curves.filter((c) => !off.has(c.algorithm));
  const groups: CurveLike[][] = [];
  for (const c of shown) {
    const g = groups.find((xs) => coincide(xs[0], c));
    if (g) g.push(c);
    else groups.push([c]);
  }
  return groups.filter((g) => g.length > 1).map((g) => g.map((c) => c.algorithm));
}

function listWords(xs: readonly string[]): string {
  return xs.length <= 2 ? xs.join(' and ') : `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}`;
}

/** One sentence per group, naming the curves hidden under the visible one; empty when none hide. */
export function coincidingNotes(
  curves: readonly CurveLike[],
  hidden: readonly string[],
  label: (id: string) => string,
): string[] {
  return coincidingGroups(curves, hidden).map((ids) => {
    const names = ids.map(label);
    const top = names[names.length - 1];
    const under = names.slice(0, -1);
    return (
      `${listWords(names)} have the same mean accuracy at every t, so their lines coincide: ` +
      `${listWords(under)} ${under.length === 1 ? 'lies' : 'lie'} under ${top}.`
    );
  });
}
