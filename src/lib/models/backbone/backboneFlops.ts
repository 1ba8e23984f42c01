/**
 * Multiply-accumulates (MACs) of one forward pass of each real backbone, counted from its layer
 * shapes (PROTOCOL-IMAGE-TEXT.md §7.1, §10): the pre-start estimate's backbone cost. No tfjs: the
 * Run page and `rac-bench estimate` both read it.
 *
 * Convention: MACs of the convolutions and matrix products only (bias adds, BatchNorm, activations,
 * pooling and softmax are not counted), as torchvision's published `_ops` (ResNet-50
 * IMAGENET1K_V1: 4.089 at 224 px, which are GMACs with its 1000-way fc; our feature stops before
 * the fc). One MAC is two FLOPs. tests/fixtures/flops/count_flops.py counts the same quantities
 * independently on PyTorch modules, and the unit test pins these functions to its output.
 */

/** torch.nn.Conv2d output size. */
const outSize = (n: number, k: number, s: number, p: number): number => Math.floor((n + 2 * p - k) / s) + 1;

/**
 * ResNet-50 in torchvision's layout (stride on the 3×3 conv of a bottleneck; a 1×1 downsample where
 * the shape changes) up to layer4's global average pool, at `size` × `size` px (CIFAR 32, else 224).
 */
export function resnet50Macs(size: number): number {
  let h = outSize(size, 7, 2, 3); // conv1 7×7/2, 3 → 64
  let macs = h * h * 64 * 3 * 49;
  h = outSize(h, 3, 2, 1); // maxpool 3×3/2
  let cin = 64;
  const stages: [blocks: number, planes: number, stride: number][] = [
    [3, 64, 1],
    [4, 128, 2],
    [6, 256, 2],
    [3, 512, 2],
  ];
  for (const [blocks, planes, stride] of stages) {
    for (let b = 0; b < blocks; b++) {
      const s = b === 0 ? stride : 1;
      const hOut = outSize(h, 3, s, 1);
      macs += h * h * planes * cin; // conv1 1×1
      macs += hOut * hOut * planes * planes * 9; // conv2 3×3/s
      macs += hOut * hOut * planes * 4 * planes; // conv3 1×1
      if (b === 0) macs += hOut * hOut * planes * 4 * cin; // downsample 1×1/s
      cin = planes * 4;
      h = hOut;
    }
  }
  return macs;
}

/** timm.layers.make_divisible (mobilenetv3.ts has the same; repeated here to keep tfjs out). */
function makeDivisible(v: number, divisor = 8): number {
  const nv = Math.max(divisor, Math.floor((v + divisor / 2) / divisor) * divisor);
  return nv < 0.9 * v ? nv + divisor : nv;
}

/**
 * timm mobilenetv3_small_100's arch_def: the one table, here without tfjs so that the cost model
 * stays light; mobilenetv3.ts's MOBILENETV3_SMALL_100 builds the network from it.
 */
export const MNV3_SMALL_ARCH: readonly (readonly string[])[] = [
  ['ds_r1_k3_s2_e1_c16_se0.25_nre'],
  ['ir_r1_k3_s2_e4.5_c24_nre', 'ir_r1_k3_s1_e3.67_c24_nre'],
  ['ir_r1_k5_s2_e4_c40_se0.25', 'ir_r2_k5_s1_e6_c40_se0.25'],
  ['ir_r2_k5_s1_e3_c48_se0.25'],
  ['ir_r3_k5_s2_e6_c96_se0.25'],
  ['cn_r1_k1_s1_c576'],
];

/**
 * MobileNetV3-small 1.0 (timm layout) up to its 1 024-d pre-logits: conv_stem 3×3/2 3→16, the
 * blocks (ds: dw → SE → pw; ir: pw → dw → SE → pwl; cn: 1×1), global pool, conv_head 576→1024.
 * SE convs act on the pooled vector (C·rd MACs each way).
 */
export function mobilenetV3SmallMacs(size: number): number {
  let h = outSize(size, 3, 2, 1);
  let macs = h * h * 16 * 3 * 9;
  let cin = 16;
  for (const stage of MNV3_SMALL_ARCH) {
    for (const block of stage) {
      const o: Record<string, number> = { r: 1, k: 3, s: 1, e: 1, se: 0 };
      const [type, ...ops] = block.split('_');
      for (const op of ops) {
        const m = /^([a-z]+)(\d.*)$/.exec(op);
        if (m) o[m[1]] = Number(m[2]);
      }
      for (let r = 0; r < o.r; r++) {
        const s = r === 0 ? o.s : 1;
        const pad = Math.floor((s - 1 + (o.k - 1)) / 2);
        const hOut = outSize(h, o.k, s, pad);
        const se = (chs: number) => (o.se > 0 ? 2 * chs * makeDivisible(chs * o.se) : 0);
        if (type === 'ds') {
          macs += hOut * hOut * cin * o.k * o.k + se(cin) + hOut * hOut * cin * o.c;
        } else if (type === 'ir') {
          const mid = makeDivisible(cin * o.e);
          macs += h * h * cin * mid + hOut * hOut * mid * o.k * o.k + se(mid) + hOut * hOut * mid * o.c;
        } else {
          macs += hOut * hOut * cin * o.c * o.k * o.k;
        }
        cin = o.c;
        h = hOut;
      }
    }
  }
  return macs + cin * 1024; // conv_head on the pooled 576-vector
}

/** A post-LayerNorm transformer encoder's shapes (RoBERTa-base, all-MiniLM-L6-v2). */
export interface EncoderShape {
  layers: number;
  hidden: number;
  intermediate: number;
}

export const ROBERTA_BASE_SHAPE: EncoderShape = { layers: 12, hidden: 768, intermediate: 3072 };
export const MINILM_L6_SHAPE: EncoderShape = { layers: 6, hidden: 384, intermediate: 1536 };

/**
 * One sequence of `tokens` tokens through the encoder: per layer Q, K, V, O (4·d² per token), the
 * feed-forward (2·d·d_ff per token) and the two attention products (QKᵀ and AV: 2·L²·d). The
 * embeddings are lookups (no MACs). RoBERTa-base at 256 tokens: 22.95 GMAC = 45.9 GFLOP (§10: ≈ 46).
 */
export function encoderMacs(shape: EncoderShape, tokens: number): number {
  const { layers, hidden: d, intermediate: ff } = shape;
  return layers * (tokens * (4 * d * d + 2 * d * ff) + 2 * tokens * tokens * d);
}

/** The feature a backbone gives (the head's input width). */
export const BACKBONE_FEATURE_DIM: Readonly<Record<string, number>> = {
  resnet50: 2048,
  'mnv3-small': 1024,
  'roberta-base': 768,
  'minilm-l6': 384,
};

/**
 * MACs of one forward pass of a registry backbone on one input (an image of `size` px, or a text of
 * `tokens` tokens); null for a backbone whose shapes come from the user's file (tiny-*).
 */
export function backboneMacs(id: string, input: { size?: number; tokens?: number }): number | null {
  switch (id) {
    case 'resnet50':
      return resnet50Macs(input.size ?? 224);
    case 'mnv3-small':
      return mobilenetV3SmallMacs(input.size ?? 224);
    case 'roberta-base':
      return encoderMacs(ROBERTA_BASE_SHAPE, input.tokens ?? 256);
    case 'minilm-l6':
      return encoderMacs(MINILM_L6_SHAPE, input.tokens ?? 128);
    default:
      return null;
  }
}

/**
 * MACs of one forward of the trained head on one row (§7.1): the LAMDA head d→256→C on images,
 * RobertaClassificationHead d→d→C on text.
 */
export function headMacs(modality: 'image' | 'text', featureDim: number, classes: number): number {
  return modality === 'image'
    ? featureDim * 256 + 256 * classes
    : featureDim * featureDim + featureDim * classes;
}
