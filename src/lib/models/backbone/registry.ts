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
  /** Tiers that use it: whose banks it makes, and `finetune` where it is trained whole. */
  tiers: readonly ('finetune' | 'features' | 'classroom')[];
  /** The record's `backbone.feature` (suite/schemaV3.ts BACKBONE_FEATURES; a test keeps them in step). */
  feature:
    | 'tiny-conv-gap'
    | 'tiny-resnet-gap'
    | 'tiny-roberta-s'
    | 'r50-gap-2048'
    | 'mnv3s-prelogits-1024'
    | 'roberta-s-768'
    | 'minilm-mean-384';
  /** Published weights: `https://huggingface.co/{repo}/resolve/main/{file}`; null: a file the user picks. */
  weights: { repo: string; file: string; bytes: number } | null;
  /** Text backbones: the tokenizer.json beside the weights (null: a file the user picks). */
  tokenizer?: { repo: string; file: string } | null;
  /** Text backbones: tokens per row (§6.5: 256; classroom 128) and the word that stands for a dropped one (§6.7). */
  maxLength?: number;
  padWord?: '<pad>' | '[PAD]';
  /** Text backbones: attention heads (weight shapes do not tell them; the real checkpoints have 12). */
  heads?: number;
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
  'tiny-resnet': {
    id: 'tiny-resnet',
    title: 'Reduced-width ResNet (your .safetensors file in torchvision layout; tests and smoke runs)',
    modality: 'image',
    tiers: ['finetune', 'features'],
    feature: 'tiny-resnet-gap',
    weights: null,
  },
  resnet50: {
    id: 'resnet50',
    title: 'ResNet-50 (torchvision IMAGENET1K_V1 via timm/resnet50.tv_in1k, ≈ 102 MB)',
    modality: 'image',
    tiers: ['finetune', 'features'],
    feature: 'r50-gap-2048',
    weights: { repo: 'timm/resnet50.tv_in1k', file: 'model.safetensors', bytes: 102_000_000 },
  },
  'mnv3-small': {
    id: 'mnv3-small',
    title: 'MobileNetV3-small 1.0 (timm/mobilenetv3_small_100.lamb_in1k, ≈ 10 MB)',
    modality: 'image',
    tiers: ['classroom'],
    feature: 'mnv3s-prelogits-1024',
    weights: { repo: 'timm/mobilenetv3_small_100.lamb_in1k', file: 'model.safetensors', bytes: 10_200_000 },
  },
  'tiny-roberta': {
    id: 'tiny-roberta',
    title: 'Tiny RoBERTa-layout encoder (your .safetensors and tokenizer.json files)',
    modality: 'text',
    tiers: ['finetune', 'features', 'classroom'],
    feature: 'tiny-roberta-s',
    weights: null,
    tokenizer: null,
    maxLength: 32,
    padWord: '<pad>',
    heads: 4,
  },
  'roberta-base': {
    id: 'roberta-base',
    title: 'RoBERTa-base (FacebookAI/roberta-base, ≈ 499 MB)',
    modality: 'text',
    tiers: ['finetune', 'features'],
    feature: 'roberta-s-768',
    weights: { repo: 'FacebookAI/roberta-base', file: 'model.safetensors', bytes: 498_818_054 },
    tokenizer: { repo: 'FacebookAI/roberta-base', file: 'tokenizer.json' },
    maxLength: 256,
    padWord: '<pad>',
  },
  'minilm-l6': {
    id: 'minilm-l6',
    title: 'all-MiniLM-L6-v2 (sentence-transformers, ≈ 91 MB)',
    modality: 'text',
    tiers: ['classroom'],
    feature: 'minilm-mean-384',
    weights: { repo: 'sentence-transformers/all-MiniLM-L6-v2', file: 'model.safetensors', bytes: 90_868_376 },
    tokenizer: { repo: 'sentence-transformers/all-MiniLM-L6-v2', file: 'tokenizer.json' },
    maxLength: 128,
    padWord: '[PAD]',
  },
};

export function backboneEntry(id: string): BackboneEntry {
  const e = BACKBONES[id];
  if (!e) throw new Error(`Unknown backbone "${id}" (known: ${Object.keys(BACKBONES).join(', ')}).`);
  return e;
}

export const backboneWeightsUrl = (w: { repo: string; file: string }): string =>
  `https://huggingface.co/${w.repo}/resolve/main/${w.file}`;

/** The entry whose banks carry this feature (a bank file names its feature, not its backbone). */
export function backboneByFeature(feature: string): BackboneEntry {
  const e = Object.values(BACKBONES).find((b) => b.feature === feature);
  if (!e) throw new Error(`No backbone gives the feature "${feature}".`);
  return e;
}
