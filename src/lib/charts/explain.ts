/**
 * Explain overlays: what each RAC metric means on the curve (PROTOCOL.md §8.1, integral forms),
 * as geometry the chart draws and one plain sentence each. Pure: no DOM.
 */
import { regularizedIncompleteBeta, type PT } from '../metrics/index.ts';
import { T_GRID } from '../types.ts';
import type { CurveRecord } from '../suite/curves.ts';
import type { ExplainKey } from './viewState.ts';
import { fixed3 } from './metricsTable.ts';

/** The value of the piecewise-linear curve through `a` at t ∈ [0, 1]. */
export function interpolate(a: readonly number[], t: number): number {
  const i = Math.min(T_GRID.length - 2, Math.max(0, Math.floor(t * 5)));
  const u = (t - T_GRID[i]) / (T_GRID[i + 1] - T_GRID[i]);
  return a[i] + u * (a[i + 1] - a[i]);
}

/**
 * P_T's mass on `n` equal slices of [0, 1], as an average density per slice (uniform: all 1).
 * Grid P_T is not a density: it is drawn as stems, so this returns null for it.
 */
export function ptSliceDensity(pt: PT, n: number): number[] | null {
  if (pt.kind === 'grid') return null;
  if (pt.kind === 'uniform') return Array.from({ length: n }, () => 1);
  const F = Array.from({ length: n + 1 }, (_, j) => regularizedIncompleteBeta(j / n, pt.alpha, pt.beta));
  return Array.from({ length: n }, (_, j) => (F[j + 1] - F[j]) * n);
}

/** Least-squares line of A(t) on t ~ U[0, 1]: slope = cov(t, A)/var(t), through (½, ∫A). */
export function trendLine(auc: number, intTA: number): { slope: number; intercept: number } {
  const slope = (intTA - auc / 2) * 12;
  return { slope, intercept: auc - slope / 2 };
}

/** The curve the overlays are drawn on: the requested one if visible, else the first visible complete SSL curve. */
export function explainTarget(
  curves: readonly CurveRecord[],
  hidden: readonly string[],
  preferred?: string | null,
): CurveRecord | null {
  const shown = curves.filter((c) => c.metrics && !hidden.includes(c.algorithm));
  return shown.find((c) => c.algorithm === preferred) ?? shown.find((c) => !c.baseline) ?? shown[0] ?? null;
}

const f3 = (x: number) => (Number.isFinite(x) ? fixed3(x) : '—');

function ptText(pt: PT): string {
  if (pt.kind === 'uniform') return 'uniform over t, so EA equals AUC';
  if (pt.kind === 'beta') return `Beta(${pt.alpha}, ${pt.beta}); darker shading where it puts more weight`;
  return `weights ${pt.weights.join(', ')} on the six measured points (the stems)`;
}

/** One plain sentence per requested overlay, in EXPLAIN_KEYS order, about `curve` (integral forms). */
export function explainSentences(
  curve: CurveRecord | null,
  keys: readonly ExplainKey[],
  label: (id: string) => string = (id) => id,
): { key: ExplainKey; text: string }[] {
  if (!keys.length) return [];
  if (!curve?.metrics) {
    return keys.map((key) => ({
      key,
      text: 'Waiting for a complete curve: the overlay appears once every t has a result.',
    }));
  }
  const m = curve.metrics.integral;
  const name = label(curve.algorithm);
  const worst = curve.mean.indexOf(Math.min(...curve.mean));
  const text: Record<ExplainKey, string> = {
    auc: `AUC = ${f3(m.auc)}: the shaded area under ${name}'s curve, its average accuracy over all degrees of inconsistency t.`,
    ea: `EA = ${f3(m.ea)}: the area again, but weighted by P_T (${ptText(m.pt)}): the accuracy to expect when t is drawn from P_T.`,
    wa: `WA = ${f3(m.wa)}: the worst accuracy on ${name}'s curve, circled at t = ${T_GRID[worst].toFixed(1)}.`,
    evm: `EVM = ${f3(m.evm)}: the total rise and fall of the curve, the summed length of the vertical bars.`,
    vs: `VS = ${f3(m.vs)}: how uneven the slopes are; each segment is compared with the average slope (dashed), and bigger gaps mean a larger VS.`,
    rcc: Number.isFinite(m.rcc)
      ? `RCC = ${f3(m.rcc)}: the correlation of accuracy with t; the trend line ${m.rcc < 0 ? 'falls, so accuracy drops' : 'rises, so accuracy grows'} as inconsistency grows.`
      : 'RCC is undefined (—) for a flat curve: accuracy does not change with t.',
  };
  return keys.map((key) => ({ key, text: text[key] }));
}
