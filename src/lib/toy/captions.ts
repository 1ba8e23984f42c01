/** Plain-language words for the toy: what each setting does, and what the picture shows at t. */
import type { Setting } from '../types.ts';

export const SETTING_TITLES: Record<Setting, string> = {
  distribution: 'Shifted data',
  feature: 'Missing features',
  label: 'Unseen class',
};

export const SETTING_SUMMARIES: Record<Setting, string> = {
  distribution: 'The unlabeled points come from a region that moves away from where the labeled points are.',
  feature: 'Some unlabeled points lose one coordinate: it is replaced by the average of the labeled points.',
  label: 'Some unlabeled points belong to a class that never appears among the labeled points.',
};

function pct(x: number): string {
  return `${Math.round(x * 100)}%`;
}

/** One or two sentences for the caption under the toy at (setting, t). */
export function toyCaption(setting: Setting, t: number, nDrifted: number, n: number): string {
  if (t === 0) {
    return (
      'At t = 0 the unlabeled points come from the same place as the labeled ones. ' +
      'Label Propagation spreads the few labels along the unlabeled points, and the coloured regions follow the data.'
    );
  }
  const degree = t < 0.35 ? 'A little' : t < 0.7 ? 'Much' : 'Most';
  switch (setting) {
    case 'distribution':
      return (
        `t = ${t.toFixed(2)}: the unlabeled cloud has moved ${pct(t)} of the way to its shifted place. ` +
        'The labels spread along points that are no longer where the classes really are, so the regions bend towards the moved cloud.'
      );
    case 'feature':
      return (
        `t = ${t.toFixed(2)}: ${nDrifted} of ${n} unlabeled points (${pct(nDrifted / n)}) lost a coordinate and now sit on the lines through the labeled average. ` +
        `${degree} of the structure that guided the labels is gone, so the regions blur.`
      );
    case 'label':
      return (
        `t = ${t.toFixed(2)}: ${nDrifted} of ${n} unlabeled points (${pct(nDrifted / n)}) are from the unseen pink class. ` +
        'Label Propagation must give them one of the known colours, so a known class grows into their territory.'
      );
  }
}
