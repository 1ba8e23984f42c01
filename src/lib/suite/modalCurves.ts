/**
 * Image and text records on the tabular suite's charts: an `rsb-cell/3` image or text cell as the
 * CurveCell that curves.ts groups and scores. A panel is the dataset (with its source→target pair,
 * when it has one), setting and labeled total; what must never pool goes into the curve's protocol:
 * the tier, the backbone feature and its weights, and the bank's views (PROTOCOL-IMAGE-TEXT.md §9:
 * tiers are different protocols). Supervised is the baseline, flattened to a₀ (§8).
 */
import { PANEL_DATASETS, isPanelDatasetId } from '../data/modal/panels.ts';
import type { CurveCell } from './curves.ts';
import type { ModalCellResult } from './schemaV3.ts';

/** Separates a panel dataset id from its pair in a curve's dataset id ("image-clef:i->p"). */
const PAIR_MARK = ':';

/** The curve's dataset id of a record: its dataset, and its pair when it has one. */
export function modalPanelId(c: Pick<ModalCellResult, 'dataset'>): string {
  const pair = 'pair' in c.dataset && c.dataset.pair ? c.dataset.pair : null;
  return pair ? `${c.dataset.id}${PAIR_MARK}${pair.source}->${pair.target}` : c.dataset.id;
}

/** "cifar10" → "CIFAR-10", "image-clef:i->p" → "Image-CLEF i → p"; null for ids that are not panels. */
export function modalPanelLabel(id: string): string | null {
  const at = id.indexOf(PAIR_MARK);
  const base = at < 0 ? id : id.slice(0, at);
  if (!isPanelDatasetId(base)) return null;
  const title = PANEL_DATASETS[base].title;
  return at < 0 ? title : `${title} ${id.slice(at + 1).replace('->', ' → ')}`;
}

/** The image/text baseline: trained on L alone, scored at t = 0 and drawn flat. */
export const isModalBaseline = (algorithm: string): boolean => algorithm === 'supervised';

const curveCells = new WeakMap<ModalCellResult, CurveCell>();

/** The record as curves.ts reads it (the same object for the same record, so live updates stay incremental). */
export function modalCurveCell(c: ModalCellResult): CurveCell {
  let cell = curveCells.get(c);
  if (cell) return cell;
  const { tier, quirks, mode, version, options, overrides } = c.protocol;
  cell = {
    dataset: { id: modalPanelId(c), sha256: c.dataset.content_sha256 },
    setting: c.setting,
    labels: c.labels,
    t_index: c.t_index,
    seed: c.seed,
    algorithm: { name: c.algorithm.name, family: 'deep' },
    protocol: {
      mode,
      version,
      quirks,
      options: {
        ...options,
        tier,
        modality: c.modality,
        backbone: c.backbone.feature,
        weights: c.backbone.weights_sha256,
      },
      overrides,
    },
    outcome: { status: c.outcome.status, accuracy: c.outcome.accuracy },
  };
  curveCells.set(c, cell);
  return cell;
}
