/**
 * The image and text panels a user can select (PROTOCOL-IMAGE-TEXT.md §5.1, §9): which files each
 * reads, which settings it has, its labeled total, and for `distribution` its source→target pairs.
 * `panelLabels` turns loaded files into the label arrays panelSplit() works on.
 */
import type { Setting } from '../../types.ts';
import { panelRule, type PanelLabels } from '../../protocol/panelSplit.ts';
import type { Modality } from './hubSources.ts';

export interface PanelDataset {
  id: 'cifar10' | 'cifar100' | 'ag_news' | 'imdb-amazon' | 'image-clef' | 'visda';
  title: string;
  modality: Modality;
  /** The published settings and their labeled totals (§1, §5.1). */
  labels: Partial<Record<Setting, number>>;
  /** `distribution`: the pairs, 'source->target'. */
  pairs?: readonly string[];
  k: number;
  /** Where the rows come from: Hub files or a local folder/zip. */
  source: 'hub' | 'local';
}

export const PANEL_DATASETS: Readonly<Record<PanelDataset['id'], PanelDataset>> = {
  cifar10: {
    id: 'cifar10',
    title: 'CIFAR-10',
    modality: 'image',
    labels: { feature: 200, label: 100 },
    k: 10,
    source: 'hub',
  },
  cifar100: {
    id: 'cifar100',
    title: 'CIFAR-100',
    modality: 'image',
    labels: { feature: 2_000, label: 1_000 },
    k: 100,
    source: 'hub',
  },
  ag_news: {
    id: 'ag_news',
    title: 'AG News',
    modality: 'text',
    labels: { feature: 100, label: 100 },
    k: 4,
    source: 'hub',
  },
  'imdb-amazon': {
    id: 'imdb-amazon',
    title: 'IMDB → Amazon',
    modality: 'text',
    labels: { distribution: 100 },
    pairs: ['imdb->amazon'],
    k: 2,
    source: 'hub',
  },
  'image-clef': {
    id: 'image-clef',
    title: 'Image-CLEF',
    modality: 'image',
    labels: { distribution: 100 },
    pairs: ['i->p', 'i->c', 'p->i', 'p->c', 'c->i', 'c->p'],
    k: 12,
    source: 'local',
  },
  visda: {
    id: 'visda',
    title: 'VisDA-2017',
    modality: 'image',
    labels: { distribution: 100 },
    pairs: ['train->validation', 'validation->train'],
    k: 12,
    source: 'local',
  },
};

export const PANEL_DATASET_IDS = Object.keys(PANEL_DATASETS) as PanelDataset['id'][];

export function isPanelDatasetId(id: string): id is PanelDataset['id'] {
  return id in PANEL_DATASETS;
}

/** The files (Hub dataset and split, or local domain) a panel cell reads, by role. */
export function panelFiles(
  id: PanelDataset['id'],
  pair: string | null,
  amazonPool: 'train' | 'test' = 'train',
): {
  train: { dataset: string; split: string };
  test?: { dataset: string; split: string };
  target?: { dataset: string; split: string };
} {
  const p = PANEL_DATASETS[id];
  if (p.pairs) {
    const chosen = pair ?? p.pairs[0];
    if (!p.pairs.includes(chosen))
      throw new Error(`${p.title} has the pairs ${p.pairs.join(', ')}; got "${chosen}".`);
    const [source, target] = chosen.split('->');
    if (id === 'imdb-amazon')
      return {
        train: { dataset: 'imdb', split: 'train' },
        target: { dataset: 'amazon_polarity', split: amazonPool },
      };
    return { train: { dataset: id, split: source }, target: { dataset: id, split: target } };
  }
  return { train: { dataset: id, split: 'train' }, test: { dataset: id, split: 'test' } };
}

/** The §5 rule of a panel, or a message naming the settings it has. */
export function panelRuleOf(id: PanelDataset['id'], setting: Setting) {
  const rule = panelRule(id, setting);
  if (!rule) {
    const has = Object.keys(PANEL_DATASETS[id].labels).join(', ');
    throw new Error(`${PANEL_DATASETS[id].title} has no ${setting} panel in the benchmark (it has: ${has}).`);
  }
  return rule;
}

/** Label arrays by role, from whatever loads each file (the CLI's --data-dir, the page's cache). */
export async function panelLabels(
  id: PanelDataset['id'],
  labelsOf: (file: { dataset: string; split: string }) => Promise<Int32Array>,
  pair: string | null,
  amazonPool: 'train' | 'test' = 'train',
): Promise<PanelLabels> {
  const f = panelFiles(id, pair, amazonPool);
  return {
    train: await labelsOf(f.train),
    test: f.test ? await labelsOf(f.test) : undefined,
    target: f.target ? await labelsOf(f.target) : undefined,
    k: PANEL_DATASETS[id].k,
  };
}

/**
 * The settings a selection asks of a panel: 'all' (or nothing) = the panel's own; a setting the
 * panel lacks is refused with the ones it has (panelRuleOf's message).
 */
export function panelSettings(id: PanelDataset['id'], requested: readonly Setting[] | 'all'): Setting[] {
  const settings =
    requested === 'all' ? (Object.keys(PANEL_DATASETS[id].labels) as Setting[]) : [...requested];
  for (const s of settings) panelRuleOf(id, s);
  return settings;
}
