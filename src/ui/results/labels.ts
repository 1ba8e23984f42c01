/** Display names of algorithm ids for charts and tables: the registry title without its note. */
import { ALGORITHMS } from '../../lib/models/registry.ts';

const SHORT = new Map(ALGORITHMS.map((a) => [a.id, a.title.replace(/\s*\(.*\)\s*$/, '')]));

/** "XGBoost (supervised baseline)" → "XGBoost"; unknown ids (imported runs) are shown as they are. */
export function algorithmLabel(id: string): string {
  return SHORT.get(id) ?? id;
}
