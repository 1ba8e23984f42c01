/** The deep SSL methods by id (PROTOCOL.md §7.4, `readme` deltas §7.6). */
import type { ProtocolMode } from '../../../types.ts';
import { fixMatch } from './fixMatch.ts';
import { flexMatch } from './flexMatch.ts';
import { ict } from './ict.ts';
import { meanTeacher } from './meanTeacher.ts';
import { piModel } from './piModel.ts';
import { pseudoLabel } from './pseudoLabel.ts';
import { softMatch } from './softMatch.ts';
import { supervised } from './supervised.ts';
import type { DeepMethod, DeepMethodId } from './types.ts';
import { uda } from './uda.ts';

export type { DeepMethod, DeepMethodId } from './types.ts';

export const DEEP_METHOD_IDS: readonly DeepMethodId[] = [
  'ftt',
  'pseudolabel',
  'pimodel',
  'meanteacher',
  'ict',
  'uda',
  'fixmatch',
  'flexmatch',
  'softmatch',
];

/** A fresh method instance (methods hold state: one per fit). `params` overrides its defaults. */
export function createMethod(
  id: DeepMethodId,
  mode: ProtocolMode = 'rsb',
  params: Record<string, number> = {},
): DeepMethod {
  switch (id) {
    case 'ftt':
      return supervised();
    case 'pseudolabel':
      return pseudoLabel(params);
    case 'pimodel':
      return piModel({ mode, ...params });
    case 'meanteacher':
      return meanTeacher({ mode, ...params });
    case 'ict':
      return ict(params);
    case 'uda':
      return uda(params);
    case 'fixmatch':
      return fixMatch(params);
    case 'flexmatch':
      return flexMatch(params);
    case 'softmatch':
      return softMatch(params);
    default:
      throw new RangeError(`Unknown deep method '${String(id)}'. Known: ${DEEP_METHOD_IDS.join(', ')}.`);
  }
}
