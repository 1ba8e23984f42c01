/**
 * The frozen backbones a feature bank can be made with (PROTOCOL-IMAGE-TEXT.md §4.5, §7.1): where
 * their weights are published, which tiers use them and the record's `backbone.feature`. No tfjs
 * here (the Run page lists them); build.ts makes the network. Adding a backbone is one entry here
 * plus its network and one line in build.ts.
 */

export interface BackboneEntry {
  id: string;
  title: string;
  modality: 'image' | 'text';
  /** Tiers whose banks it makes. */
  tiers: readonly ('features' | 'classroom')[];
  /** The record's `backbone.feature`. */
  feature: 'tiny-conv-gap' | 'r50-gap-2048' | 'mnv3s-prelogits-1024' | 'roberta-s-768' | 'minilm-mean-384';
  /** Published weights: `https://huggingface.co/{repo}/resolve/main/{file}`; null: a file the user picks. */
  weights: { repo: string; file: string; bytes: number } | null;
}

export const BACKBONES: Readonly<Record<string, BackboneEntry>> = {
  'tiny-conv': {
    id: 'tiny-conv',
    title: 'Tiny conv net (your .safetensors file: conv1, conv2 in torchvision layout)',
    modality: 'image',
    tiers: ['features', 'classroom'],
    feature: 'tiny-conv-gap',
    weights: null,
  },
};

export function backboneEntry(id: string): BackboneEntry {
  const e = BACKBONES[id];
  if (!e) throw new Error(`Unknown backbone "${id}" (known: ${Object.keys(BACKBONES).join(', ')}).`);
  return e;
}

export const backboneWeightsUrl = (w: NonNullable<BackboneEntry['weights']>): string =>
  `https://huggingface.co/${w.repo}/resolve/main/${w.file}`;
