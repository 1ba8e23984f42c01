/**
 * MobileNetV3 in timm's layout (PROTOCOL-IMAGE-TEXT.md §7.1, the `classroom` image backbone):
 * mobilenetv3_small_100 by default, built from timm's own arch_def strings, so the module tree and
 * the state-dict names are timm's (`conv_stem`, `bn1`, `blocks.<stage>.<i>.conv_dw`, `….se.conv_reduce`,
 * `conv_head`, …). Eval mode only, BN folded into the convs. The feature is timm's pre-logits:
 * global average pool of the last (576-channel) block → `conv_head` 1×1 576→1024 with bias →
 * hardswish → 1 024-d.
 *
 * Blocks (timm _efficientnet_blocks.py): `ds` DepthwiseSeparableConv (dw → BN → act → SE → pw →
 * BN), `ir` InvertedResidual (pw → BN → act → dw → BN → act → SE → pwl → BN), `cn` ConvBnAct;
 * a skip where stride is 1 and in = out (ds, ir). SE (se_from_exp): mean → conv_reduce (ReLU) →
 * conv_expand → hard_sigmoid gate, reduced width make_divisible(mid·ratio). Padding is PyTorch's
 * symmetric ((s − 1) + (k − 1)) / 2 (timm pad_type ''), never TensorFlow 'same'.
 *
 * @see https://arxiv.org/abs/1905.02244 (Howard et al., Searching for MobileNetV3)
 * @see tests/unit/models/backbone/mobilenetv3.test.ts (parity with a PyTorch module in timm's layout)
 * @example
 * const net = mobilenetV3Backbone(parseSafetensors(bytes), 224);
 * const f = net.forward(x); // [n, 224, 224, 3] normalised → [n, 1024]
 */
import * as tf from '@tensorflow/tfjs';
import type { SafetensorsFile } from '../../weights/safetensors.ts';
import { mapWeights, oihwToDepthwise, oihwToHwio, transpose2d } from '../../weights/weightMap.ts';
import type { Backbone } from './backbone.ts';
import { MNV3_SMALL_ARCH } from './backboneFlops.ts';
import { foldBatchNorm } from './resnet.ts';

export interface MobileNetV3Config {
  /** timm arch_def: per stage, block strings such as `ir_r2_k5_s1_e6_c40_se0.25`. */
  readonly archDef: readonly (readonly string[])[];
  /** conv_stem's output channels. */
  readonly stem: number;
  /** conv_head's output channels: the feature width. */
  readonly numFeatures: number;
}

/** timm mobilenetv3_small_100 (`_gen_mobilenet_v3`, channel multiplier 1.0). */
export const MOBILENETV3_SMALL_100: MobileNetV3Config = Object.freeze({
  archDef: MNV3_SMALL_ARCH,
  stem: 16,
  numFeatures: 1024,
});

/** Checkpoint tensors the backbone never reads: the ImageNet classifier and BN's step counters. */
export const MOBILENETV3_IGNORE = ['classifier.*', '*num_batches_tracked'] as const;

export interface BlockArgs {
  readonly type: 'ds' | 'ir' | 'cn';
  readonly repeat: number;
  readonly kernel: number;
  readonly stride: number;
  /** Expansion ratio (ir). */
  readonly expand: number;
  readonly out: number;
  /** SE ratio; 0 = no SE. */
  readonly se: number;
  /** `nre` → ReLU; otherwise the model's hardswish. */
  readonly act: 'relu' | 'hard_swish';
}

/** timm's _decode_block_str, for the options MobileNetV3 uses (others are refused by name). */
export function decodeBlock(s: string): BlockArgs {
  const [type, ...ops] = s.split('_');
  if (type !== 'ds' && type !== 'ir' && type !== 'cn')
    throw new Error(`MobileNetV3: block '${s}' has type '${type}'; expected ds, ir or cn.`);
  const v: Record<string, number> = { r: 1, k: 3, s: 1, e: 1, se: 0 };
  let act: BlockArgs['act'] = 'hard_swish';
  for (const op of ops) {
    if (op === 'nre') {
      act = 'relu';
      continue;
    }
    const m = /^([a-z]+)(\d.*)$/.exec(op);
    if (!m || !['r', 'k', 's', 'e', 'c', 'se'].includes(m[1]) || !Number.isFinite(Number(m[2])))
      throw new Error(`MobileNetV3: block '${s}' has option '${op}'; expected r, k, s, e, c, se or nre.`);
    v[m[1]] = Number(m[2]);
  }
  if (v.c === undefined) throw new Error(`MobileNetV3: block '${s}' has no output channels (c).`);
  return { type, repeat: v.r, kernel: v.k, stride: v.s, expand: v.e, out: v.c, se: v.se, act };
}

/** timm.layers.make_divisible: round to a multiple of `divisor`, never more than 10 % down. */
export function makeDivisible(v: number, divisor = 8, roundLimit = 0.9): number {
  const nv = Math.max(divisor, Math.floor((v + divisor / 2) / divisor) * divisor);
  return nv < roundLimit * v ? nv + divisor : nv;
}

interface ConvDef {
  readonly name: string;
  readonly bn: string;
  readonly in: number;
  readonly out: number;
  readonly k: number;
  readonly stride: number;
  readonly depthwise: boolean;
}

interface SeDef {
  readonly name: string;
  readonly chs: number;
  readonly rd: number;
}

interface BlockDef {
  readonly args: BlockArgs;
  /** In execution order; the act follows each conv but the last of ds and ir, and follows cn's. */
  readonly convs: readonly ConvDef[];
  readonly se: SeDef | null;
  readonly skip: boolean;
}

function layout(cfg: MobileNetV3Config): { stem: ConvDef; blocks: BlockDef[]; last: number } {
  const conv = (name: string, bn: string, cin: number, out: number, k: number, stride = 1): ConvDef => ({
    name,
    bn,
    in: cin,
    out,
    k,
    stride,
    depthwise: false,
  });
  const dw = (name: string, bn: string, chs: number, k: number, stride: number): ConvDef => ({
    ...conv(name, bn, chs, chs, k, stride),
    depthwise: true,
  });
  const stem = conv('conv_stem', 'bn1', 3, cfg.stem, 3, 2);
  const blocks: BlockDef[] = [];
  let cin = cfg.stem;
  cfg.archDef.forEach((stage, si) => {
    let i = 0;
    for (const s of stage) {
      const a = decodeBlock(s);
      for (let r = 0; r < a.repeat; r++, i++) {
        const p = `blocks.${si}.${i}`;
        const args = { ...a, stride: r === 0 ? a.stride : 1 };
        const k = a.kernel;
        let convs: ConvDef[];
        let mid = cin;
        if (a.type === 'ds') {
          convs = [
            dw(`${p}.conv_dw`, `${p}.bn1`, cin, k, args.stride),
            conv(`${p}.conv_pw`, `${p}.bn2`, cin, a.out, 1),
          ];
        } else if (a.type === 'ir') {
          mid = makeDivisible(cin * a.expand);
          convs = [
            conv(`${p}.conv_pw`, `${p}.bn1`, cin, mid, 1),
            dw(`${p}.conv_dw`, `${p}.bn2`, mid, k, args.stride),
            conv(`${p}.conv_pwl`, `${p}.bn3`, mid, a.out, 1),
          ];
        } else {
          convs = [conv(`${p}.conv`, `${p}.bn1`, cin, a.out, k, args.stride)];
        }
        const se =
          a.type !== 'cn' && a.se > 0 ? { name: `${p}.se`, chs: mid, rd: makeDivisible(mid * a.se) } : null;
        blocks.push({ args, convs, se, skip: a.type !== 'cn' && args.stride === 1 && cin === a.out });
        cin = a.out;
      }
    }
  });
  return { stem, blocks, last: cin };
}

/** The checkpoint's tensors a config reads, timm names → shapes (OIHW convs), in state-dict order. */
export function mobilenetV3StateShapes(
  cfg: MobileNetV3Config = MOBILENETV3_SMALL_100,
): Map<string, number[]> {
  const L = layout(cfg);
  const out = new Map<string, number[]>();
  const conv = (c: ConvDef) => {
    out.set(`${c.name}.weight`, [c.out, c.depthwise ? 1 : c.in, c.k, c.k]);
    for (const t of ['weight', 'bias', 'running_mean', 'running_var']) out.set(`${c.bn}.${t}`, [c.out]);
  };
  conv(L.stem);
  for (const b of L.blocks) {
    // timm registers the SE module between the dw conv's BN and the projection.
    b.convs.forEach((c, i) => {
      if (b.se && i === b.convs.length - 1) {
        out.set(`${b.se.name}.conv_reduce.weight`, [b.se.rd, b.se.chs, 1, 1]);
        out.set(`${b.se.name}.conv_reduce.bias`, [b.se.rd]);
        out.set(`${b.se.name}.conv_expand.weight`, [b.se.chs, b.se.rd, 1, 1]);
        out.set(`${b.se.name}.conv_expand.bias`, [b.se.chs]);
      }
      conv(c);
    });
  }
  out.set('conv_head.weight', [cfg.numFeatures, L.last, 1, 1]);
  out.set('conv_head.bias', [cfg.numFeatures]);
  return out;
}

interface FoldedConv {
  readonly filter: tf.Tensor4D;
  readonly bias: tf.Tensor1D;
  readonly stride: number;
  readonly pad: number;
  readonly depthwise: boolean;
}

/** hardswish(x) = x · relu6(x + 3) / 6 (torch.nn.Hardswish). */
function hardSwish(x: tf.Tensor): tf.Tensor {
  return tf.mul(x, tf.div(tf.relu6(tf.add(x, 3)), 6));
}

/** hard_sigmoid(x) = relu6(x + 3) / 6 (torch.nn.Hardsigmoid, timm's SE gate). */
function hardSigmoid(x: tf.Tensor): tf.Tensor {
  return tf.div(tf.relu6(tf.add(x, 3)), 6);
}

/**
 * The frozen MobileNetV3 of the `classroom` tier (feature `mnv3s-prelogits-1024` for small_100).
 * Input [n, imageSize, imageSize, 3], normalised (§6.2).
 */
export function mobilenetV3Backbone(
  file: SafetensorsFile,
  imageSize: number,
  cfg: MobileNetV3Config = MOBILENETV3_SMALL_100,
): Backbone {
  const L = layout(cfg);
  const w = mapWeights(
    file,
    { ignore: MOBILENETV3_IGNORE },
    { expected: mobilenetV3StateShapes(cfg) },
  ).weights;
  const get = (n: string) => w.get(n)!.data;
  const owned: tf.Tensor[] = [];
  const keep = <T extends tf.Tensor>(t: T): T => {
    owned.push(t);
    return t;
  };
  const fold = (c: ConvDef): FoldedConv => {
    const shape = [c.out, c.depthwise ? 1 : c.in, c.k, c.k];
    const layoutW = c.depthwise
      ? oihwToDepthwise(get(`${c.name}.weight`), shape)
      : oihwToHwio(get(`${c.name}.weight`), shape);
    const f = foldBatchNorm(layoutW.data, {
      weight: get(`${c.bn}.weight`),
      bias: get(`${c.bn}.bias`),
      mean: get(`${c.bn}.running_mean`),
      variance: get(`${c.bn}.running_var`),
    });
    return {
      filter: keep(tf.tensor4d(f.filter, layoutW.shape as [number, number, number, number])),
      bias: keep(tf.tensor1d(f.bias)),
      stride: c.stride,
      pad: (c.stride - 1 + c.k - 1) >> 1,
      depthwise: c.depthwise,
    };
  };
  const dense = (name: string, cin: number, cout: number) => ({
    w: keep(tf.tensor2d(transpose2d(get(`${name}.weight`), [cout, cin]).data, [cin, cout])),
    b: keep(tf.tensor1d(get(`${name}.bias`))),
  });
  const stem = fold(L.stem);
  const blocks = L.blocks.map((b) => ({
    ...b,
    folded: b.convs.map(fold),
    seW: b.se
      ? {
          reduce: dense(`${b.se.name}.conv_reduce`, b.se.chs, b.se.rd),
          expand: dense(`${b.se.name}.conv_expand`, b.se.rd, b.se.chs),
        }
      : null,
  }));
  const head = dense('conv_head', L.last, cfg.numFeatures);

  const run = (x: tf.Tensor4D, c: FoldedConv, act: BlockArgs['act'] | 'linear'): tf.Tensor4D => {
    const fused = act === 'relu' ? 'relu' : 'linear';
    const y = c.depthwise
      ? tf.fused.depthwiseConv2d({
          x,
          filter: c.filter,
          strides: c.stride,
          pad: c.pad,
          bias: c.bias,
          activation: fused,
        })
      : tf.fused.conv2d({
          x,
          filter: c.filter,
          strides: c.stride,
          pad: c.pad,
          bias: c.bias,
          activation: fused,
        });
    return (act === 'hard_swish' ? hardSwish(y) : y) as tf.Tensor4D;
  };
  const se = (x: tf.Tensor4D, s: NonNullable<(typeof blocks)[number]['seW']>): tf.Tensor4D => {
    const [n, , , c] = x.shape;
    const pooled = tf.mean(x, [1, 2]) as tf.Tensor2D;
    const r = tf.relu(tf.add(tf.matMul(pooled, s.reduce.w), s.reduce.b)) as tf.Tensor2D;
    const gate = hardSigmoid(tf.add(tf.matMul(r, s.expand.w), s.expand.b));
    return tf.mul(x, tf.reshape(gate, [n, 1, 1, c]));
  };
  const isSmall100 =
    cfg.stem === MOBILENETV3_SMALL_100.stem &&
    cfg.numFeatures === MOBILENETV3_SMALL_100.numFeatures &&
    JSON.stringify(cfg.archDef) === JSON.stringify(MOBILENETV3_SMALL_100.archDef);
  const name = isSmall100 ? 'mnv3-small' : `mnv3-${L.blocks.length}b`;
  let disposed = false;
  return {
    id: name,
    feature: name === 'mnv3-small' ? 'mnv3s-prelogits-1024' : `${name}-prelogits-${cfg.numFeatures}`,
    dim: cfg.numFeatures,
    inputShape: [imageSize, imageSize, 3],
    forward: (x) =>
      tf.tidy(() => {
        let h = run(x as tf.Tensor4D, stem, 'hard_swish');
        for (const b of blocks) {
          const act = b.args.act;
          const f = b.folded;
          let y: tf.Tensor4D;
          if (b.args.type === 'cn') y = run(h, f[0], act);
          else {
            // ds: [dw, pw]; ir: [pw, dw, pwl]. Every conv but the projection is followed by act.
            y = h;
            for (let i = 0; i < f.length - 1; i++) y = run(y, f[i], act);
            if (b.seW) y = se(y, b.seW);
            y = run(y, f[f.length - 1], 'linear');
          }
          h = b.skip ? (tf.add(y, h) as tf.Tensor4D) : y;
        }
        const pooled = tf.mean(h, [1, 2]) as tf.Tensor2D;
        return hardSwish(tf.add(tf.matMul(pooled, head.w), head.b)) as tf.Tensor2D;
      }),
    dispose: () => {
      if (disposed) return;
      disposed = true;
      tf.dispose(owned);
    },
  };
}
