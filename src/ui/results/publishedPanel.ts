/** One panel against the published reference: the curves to overlay and the badge's numbers. */
import type { ReferenceCurve } from '../../lib/charts/racChart.ts';
import {
  combine,
  publishedSeries,
  reproduction,
  type PublishedTable,
  type Reproduction,
} from '../../lib/published/reference.ts';
import type { Panel } from '../../lib/suite/curves.ts';

export interface PanelReference {
  /** Reference curves of the panel's shown algorithms that have a published series. */
  curves: ReferenceCurve[];
  /** Per algorithm, then all together. */
  perAlgorithm: { algorithm: string; source: string; r: Reproduction }[];
  total: Reproduction;
}

export function panelReference(
  table: PublishedTable,
  panel: Panel,
  hidden: readonly string[],
): PanelReference | null {
  const curves: ReferenceCurve[] = [];
  const perAlgorithm: PanelReference['perAlgorithm'] = [];
  for (const c of panel.curves) {
    if (hidden.includes(c.algorithm)) continue;
    const ref = publishedSeries(table, {
      dataset: panel.dataset,
      setting: panel.setting,
      labels: panel.labels,
      algorithm: c.algorithm,
    });
    if (!ref) continue;
    curves.push({ algorithm: c.algorithm, mean: ref.mean, std: ref.std });
    perAlgorithm.push({ algorithm: c.algorithm, source: ref.source, r: reproduction(c, ref) });
  }
  if (!perAlgorithm.length) return null;
  return { curves, perAlgorithm, total: combine(perAlgorithm.map((a) => a.r)) };
}
