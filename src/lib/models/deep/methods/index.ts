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
import { DEEP_METHOD_IDS } from './registry.ts';
import { uda } from './uda.ts';

export type { DeepMethod, DeepMethodId } from './types.ts';
export { DEEP_METHOD_IDS, DEEP_METHODS, methodDefaults, methodRecord } from './registry.ts';

/** Each method's factory; the type says there is one for every record of registry.ts and no other. */
const FACTORIES = {
  ftt: () => supervised(),
  pseudolabel: (_mode, params) => pseudoLabel(params),
  pimodel: (mode, params) => piModel({ mode, ...params }),
  meanteacher: (mode, params) => meanTeacher({ mode, ...params }),
  ict: (_mode, params) => ict(params),
  uda: (_mode, params) => uda(params),
  fixmatch: (_mode, params) => fixMatch(params),
  flexmatch: (_mode, params) => flexMatch(params),
  softmatch: (_mode, params) => softMatch(params),
} satisfies Record<DeepMethodId, (mode: ProtocolMode, params: Record<string, number>) => DeepMethod>;

/** A fresh method instance (methods hold state: one per fit). `params` overrides its defaults. */
export function createMethod(
  id: DeepMethodId,
  mode: ProtocolMode = 'rsb',
  params: Record<string, number> = {},
): DeepMethod {
  const make = (FACTORIES as Record<string, (m: ProtocolMode, p: Record<string, number>) => DeepMethod>)[id];
  if (!make)
    throw new RangeError(`Unknown deep method '${String(id)}'. Known: ${DEEP_METHOD_IDS.join(', ')}.`);
  return make(mode, params);
}
