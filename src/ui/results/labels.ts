/**
 * Display names for newcomers: algorithm ids as full names, dataset ids as titles, and a worker's
 * cell key ("wine|feature|5|lp|3|0") as a sentence. Unknown ids (imported runs, user datasets) are
 * shown as they are.
 */
import { algorithmLabel as catalogueLabel } from '../../lib/models/catalogue.ts';
import { DATASETS, isBuiltinDatasetId } from '../../lib/data/registry.ts';
import { modalPanelLabel } from '../../lib/suite/modalCurves.ts';
import { T_GRID } from '../../lib/types.ts';

/**
 * "xgb" → "XGBoost", "tsvm" → "Transductive SVM" (the catalogue's `label`), "supervised" (the
 * image/text baseline) → "Supervised"; unknown ids as they are.
 */
export function algorithmLabel(id: string): string {
  return id === 'supervised' ? 'Supervised' : catalogueLabel(id);
}

/** "iris" → "Iris", "user:my-data" → "my-data", "image-clef:i->p" → "Image-CLEF i → p". */
export function datasetLabel(id: string): string {
  if (isBuiltinDatasetId(id)) return DATASETS[id].title;
  const panel = modalPanelLabel(id);
  if (panel) return panel;
  return id.startsWith('user:') ? id.slice(5) : id;
}

/** A list for a sentence: "A, B and C". */
export function joinWords(xs: readonly string[]): string {
  return xs.length <= 1 ? (xs[0] ?? '') : `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}`;
}

/** A scheduler cell key (dataset|setting|labels|algorithm|tIndex|seed) in words. */
export function describeCellKey(key: string): string {
  const [dataset, setting, labels, algorithm, tIndex, seed] = key.split('|');
  if (seed === undefined) return key;
  const t = T_GRID[Number(tIndex)];
  return `${algorithmLabel(algorithm)} on ${datasetLabel(dataset)} (${setting}, ${labels} labels, seed ${seed}, t = ${t === undefined ? tIndex : t.toFixed(1)})`;
}
