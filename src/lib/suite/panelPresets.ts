/**
 * The image and text presets (PROTOCOL-IMAGE-TEXT.md §10 "Presets", §2 tiers, §7.6 methods): one
 * per modality × tier, each the paper's panels of that modality under that tier.
 *   image-finetune   the *published grid*: ResNet-50 trained whole, seeds 0–2, CIFAR-10/100
 *                    (feature, label), Image-CLEF (6 pairs), VisDA (2 pairs); 8 methods. A GPU
 *                    server's work (the CLI with --shard), never a browser tab's.
 *   image-features   the *browser grid*: the same panels on a frozen ResNet-50's feature bank
 *                    (K_w = K_s = 2); the page's default.
 *   image-classroom  the *classroom grid*: MobileNetV3-small, K_w = 2, K_s = 1, S/10, §10 caps.
 *   text-*           the same for AG News (feature, label) and IMDB → Amazon, on RoBERTa-base
 *                    (finetune, features) or all-MiniLM-L6-v2 (classroom); 7 methods (no ICT:
 *                    mixing token ids is undefined, §7.6); classroom reads Amazon's `test` pool (§7.5).
 * MeanTeacher is an extra outside every preset (§7.6: it has no published row).
 *
 * Ids never collide with the tabular presets (presets.ts; a test checks both lists and aliases).
 * Pure data and functions: no tfjs, so the Run page and `rac-bench estimate` read the same plans.
 */
import { PANEL_DATASETS, type PanelDataset } from '../data/modal/panels.ts';
import type { PanelCaps } from '../protocol/panelSubsample.ts';
import { CLASSROOM_CAPS } from '../protocol/panelSubsample.ts';
import { T_GRID, type Setting } from '../types.ts';
import type { PanelMethod, PanelPlan } from './panelPlan.ts';
import type { Tier } from './schemaV3.ts';

export const PANEL_PRESET_IDS = [
  'image-classroom',
  'image-features',
  'image-finetune',
  'text-classroom',
  'text-features',
  'text-finetune',
] as const;
export type PanelPresetId = (typeof PANEL_PRESET_IDS)[number];

export const isPanelPresetId = (id: string): id is PanelPresetId =>
  (PANEL_PRESET_IDS as readonly string[]).includes(id);

/**
 * A preset's plan: PanelPlan's fields with any tier (finetune included) and the pairs of the
 * distribution panels ("i->p"; the record's `plan.pairs`).
 */
export type PanelPresetPlan = Omit<PanelPlan, 'tier'> & {
  tier: Tier;
  /** distribution panels: the pairs run, as `source->target` (every pair of each dataset). */
  pairs: string[];
  /** imdb-amazon's target pool (§5.2): `train` in finetune and features, `test` in classroom. */
  amazonPool?: 'train' | 'test';
};

export interface PanelPreset {
  id: PanelPresetId;
  modality: 'image' | 'text';
  tier: Tier;
  title: string;
  /** The backbone (registry.ts id) whose features the head trains on; finetune trains it whole. */
  backbone: string;
  /** Bank views (§2): finetune draws fresh augmentations and has none. */
  views: { Kw: number; Ks: number } | null;
  plan: PanelPresetPlan;
}

/** §7.6: the 8 image methods (Supervised and 7 SSL methods) in the published files' order. */
export const IMAGE_PRESET_METHODS: readonly PanelMethod[] = [
  'supervised',
  'pseudolabel',
  'pimodel',
  'ict',
  'uda',
  'fixmatch',
  'flexmatch',
  'softmatch',
];
/** §7.6: the text presets omit ICT (mixing token ids is undefined). */
export const TEXT_PRESET_METHODS: readonly PanelMethod[] = IMAGE_PRESET_METHODS.filter((m) => m !== 'ict');

/** The paper's panels of each modality (§9: 6 image panels, 3 text panels). */
const MODALITY_DATASETS: Readonly<Record<'image' | 'text', readonly PanelDataset['id'][]>> = {
  image: ['cifar10', 'cifar100', 'image-clef', 'visda'],
  text: ['ag_news', 'imdb-amazon'],
};

/** The published seeds (§9: seeds 0–2, population std over them). */
export const PRESET_SEEDS: readonly number[] = [0, 1, 2];

const TIER_BACKBONE: Readonly<Record<'image' | 'text', Record<Tier, string>>> = {
  image: { finetune: 'resnet50', features: 'resnet50', classroom: 'mnv3-small' },
  text: { finetune: 'roberta-base', features: 'roberta-base', classroom: 'minilm-l6' },
};

const TIER_WORDS: Readonly<Record<Tier, string>> = {
  finetune: 'finetune: the whole network trained, a GPU server’s work (CLI, --shard)',
  features: 'features: frozen backbone, heads on a feature bank',
  classroom: 'classroom: small backbone, S/10, capped pools',
};

function buildPreset(id: PanelPresetId): PanelPreset {
  const [modality, tier] = id.split('-') as ['image' | 'text', Tier];
  const datasets = [...MODALITY_DATASETS[modality]];
  const settings = [...new Set(datasets.flatMap((d) => Object.keys(PANEL_DATASETS[d].labels) as Setting[]))];
  const pairs = datasets.flatMap((d) => [...(PANEL_DATASETS[d].pairs ?? [])]);
  const backbone = TIER_BACKBONE[modality][tier];
  const caps: PanelCaps | undefined = tier === 'classroom' ? { ...CLASSROOM_CAPS } : undefined;
  const plan: PanelPresetPlan = {
    datasets,
    settings,
    algorithms: [...(modality === 'image' ? IMAGE_PRESET_METHODS : TEXT_PRESET_METHODS)],
    seeds: [...PRESET_SEEDS],
    tIndices: T_GRID.map((_, i) => i),
    tier,
    quirks: 'rsb',
    pairs,
    ...(caps ? { caps } : {}),
    ...(modality === 'text' ? { amazonPool: tier === 'classroom' ? 'test' : 'train' } : {}),
  };
  const panels = datasets.map((d) => PANEL_DATASETS[d].title).join(', ');
  return {
    id,
    modality,
    tier,
    title: `${modality === 'image' ? 'Images' : 'Text'} · ${TIER_WORDS[tier]} (${panels}; ${plan.algorithms.length} methods; seeds 0–2)`,
    backbone,
    views: tier === 'finetune' ? null : { Kw: 2, Ks: tier === 'classroom' ? 1 : 2 },
    plan,
  };
}

export const PANEL_PRESETS: Readonly<Record<PanelPresetId, PanelPreset>> = Object.freeze(
  Object.fromEntries(PANEL_PRESET_IDS.map((id) => [id, buildPreset(id)])) as Record<
    PanelPresetId,
    PanelPreset
  >,
);

/** A preset by id, or a message naming the known ones. */
export function panelPreset(id: string): PanelPreset {
  if (!isPanelPresetId(id))
    throw new Error(`Unknown image/text preset "${id}". Known: ${PANEL_PRESET_IDS.join(', ')}.`);
  return PANEL_PRESETS[id];
}

/** A fresh copy of a preset's plan (callers may edit it). */
export function panelPresetPlan(id: PanelPresetId): PanelPresetPlan {
  return structuredClone(PANEL_PRESETS[id].plan) as PanelPresetPlan;
}

/** The presets of one modality, in tier order (classroom, features, finetune). */
export const panelPresetsOf = (modality: 'image' | 'text'): PanelPreset[] =>
  PANEL_PRESET_IDS.map((id) => PANEL_PRESETS[id]).filter((p) => p.modality === modality);

/**
 * One panel of a preset as a plan the page's runner takes (tier features or classroom): the
 * preset's methods, seeds and caps on that dataset; null for finetune (not run in a page).
 */
export function presetPanelPlan(id: PanelPresetId, dataset: PanelDataset['id']): PanelPlan | null {
  const p = PANEL_PRESETS[id].plan;
  if (p.tier === 'finetune') return null;
  if (!p.datasets.includes(dataset)) return null;
  const settings = p.settings.filter((s) => PANEL_DATASETS[dataset].labels[s] !== undefined);
  return {
    datasets: [dataset],
    settings,
    algorithms: [...p.algorithms],
    seeds: [...p.seeds],
    tIndices: [...p.tIndices],
    tier: p.tier,
    quirks: p.quirks,
    ...(p.caps ? { caps: { ...p.caps } } : {}),
  };
}
