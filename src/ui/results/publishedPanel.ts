/**
 * One panel against the published table, as the chart draws it: the dashed reference curves, their
 * legend entry ("RSB published · finetune (different protocol)") and the verdict line that exports
 * carry under the figure. The comparison itself is lib/published (comparePanel).
 */
import type { ReferenceCurve } from '../../lib/charts/racChart.ts';
import {
  comparisonHeadline,
  comparisonSummary,
  referenceLegend,
  type PanelComparison,
} from '../../lib/published/reference.ts';

export interface PanelOverlay {
  reference: ReferenceCurve[];
  referenceLabel: string | null;
  referenceMuted: boolean;
  referenceNote: string | null;
}

export const NO_OVERLAY: PanelOverlay = Object.freeze({
  reference: [],
  referenceLabel: null,
  referenceMuted: false,
  referenceNote: null,
}) as PanelOverlay;

/** "✓ Reproduced: 12/12 points agree · …" (the badge's words, for the figure). */
export function verdictLine(pc: PanelComparison, label: (id: string) => string): string {
  return `${pc.label} · ${comparisonHeadline(pc)}: ${comparisonSummary(pc, label)}`;
}

export function panelOverlay(pc: PanelComparison | null, label: (id: string) => string): PanelOverlay {
  if (!pc) return NO_OVERLAY;
  return {
    reference: pc.curves.map((c) => ({ algorithm: c.algorithm, mean: c.series.mean, std: c.series.std })),
    referenceLabel: pc.curves.length ? referenceLegend(pc) : null,
    referenceMuted: pc.verdict === 'different-protocol',
    referenceNote: verdictLine(pc, label),
  };
}
