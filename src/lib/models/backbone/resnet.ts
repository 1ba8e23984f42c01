/**
 * ResNet in torchvision's layout (PROTOCOL-IMAGE-TEXT.md §7.1, §7.3): Bottleneck blocks with the
 * stride on the 3×3 conv, downsample = 1×1 conv + BN, convs without biases, BN ε 1e-5. One config
 * (block counts, base width) builds ResNet-50 ([3, 4, 6, 3], width 64: a 2 048-d feature) and the
 * reduced networks the tests load. Parameter names are torchvision's state-dict keys
 * (`conv1.weight`, `layer1.0.downsample.0.weight`, …); loading is a name lookup through
 * weights/weightMap.ts, with OIHW → HWIO (NHWC activations throughout).
 *
 * Two uses:
 * - `resnetBackbone`: the frozen `features`-tier backbone, eval mode, BN folded into the convs
 *   (fused conv + bias + ReLU), the global-average-pooled layer4 output;
 * - `resnetNetwork`: the `finetune`-tier DeepNetwork, backbone + LAMDA head (`bottleneck`
 *   Linear(d, 256) → ReLU → `fc` Linear(256, C), head.ts's mlpHead), whose training-mode forward
 *   uses batch statistics (biased variance) and updates the running statistics with momentum 0.1
 *   and the unbiased variance, exactly as PyTorch's BatchNorm2d does.
 *
 * @see https://arxiv.org/abs/1512.03385 (He et al., Deep Residual Learning)
 * @see tests/unit/models/backbone/resnet.test.ts (parity with PyTorch, from
 *   scripts/fixtures/make_backbone_fixtures.py)
 * @example
 * const net = resnetBackbone(parseSafetensors(bytes), 32); // ResNet-50 at CIFAR's 32×32
 * const f = net.forward(x); // [n, 32, 32, 3] normalised → [n, 2048]
 */
import * as tf from '@tensorflow/tfjs';
import type { SafetensorsFile } from '../../weights/safetensors.ts';
import { mapWeights, oihwToHwio, type MappedTensor } from '../../weights/weightMap.ts';
import { mlpHead } from '../deep/head.ts';
import type { DeepNetwork, NetworkForwardOptions, ParamSpec } from '../deep/network.ts';
import type { Backbone } from './backbone.ts';

export interface ResNetConfig {
  /** Bottleneck blocks in layer1 … layer4; ResNet-50: [3, 4, 6, 3]. */
  readonly blocks: readonly [number, number, number, number];
  /**
   * conv1's output and layer1's inner width (torchvision: 64). layer s (0-based) has inner width
   * width·2^s and output 4·width·2^s, so the feature is 32·width wide.
   */
  readonly width: number;
}

export const RESNET50: ResNetConfig = Object.freeze({ blocks: [3, 4, 6, 3] as const, width: 64 });

/** torchvision's BatchNorm2d defaults. */
export const BN_EPS = 1e-5;
export const BN_MOMENTUM = 0.1;
const EXPANSION = 4;

/** Checkpoint tensors a ResNet never reads: the ImageNet classifier and BN's step counters. */
export const RESNET_IGNORE = ['fc.*', '*num_batches_tracked'] as const;

interface ConvDef {
  /** Module name: the weight is `${name}.weight`. */
  readonly name: string;
  /** The BatchNorm2d that follows it. */
  readonly bn: string;
  readonly in: number;
  readonly out: number;
  readonly k: number;
  readonly stride: number;
  readonly pad: number;
}

interface BlockDef {
  readonly conv1: ConvDef;
  readonly conv2: ConvDef;
  readonly conv3: ConvDef;
  readonly downsample: ConvDef | null;
}

interface Layout {
  readonly stem: ConvDef;
  readonly blocks: readonly BlockDef[];
  readonly convs: readonly ConvDef[];
  /** Feature width: 4 · 8 · width. */
  readonly dim: number;
}

function checkConfig(cfg: ResNetConfig): void {
  const ok =
    Number.isInteger(cfg.width) &&
    cfg.width >= 1 &&
    cfg.blocks.length === 4 &&
    cfg.blocks.every((b) => Number.isInteger(b) && b >= 1);
  if (!ok)
    throw new RangeError(
      `ResNet: the config must have an integer width >= 1 and 4 integer block counts >= 1; ` +
        `got width ${cfg.width}, blocks ${JSON.stringify(cfg.blocks)}.`,
    );
}

/** torchvision's `_make_layer` order, as module definitions. */
function layout(cfg: ResNetConfig): Layout {
  checkConfig(cfg);
  const conv = (name: string, bn: string, cin: number, out: number, k: number, stride: number): ConvDef => ({
    name,
    bn,
    in: cin,
    out,
    k,
    stride,
    pad: (k - 1) >> 1,
  });
  const stem = conv('conv1', 'bn1', 3, cfg.width, 7, 2);
  const blocks: BlockDef[] = [];
  let inplanes = cfg.width;
  cfg.blocks.forEach((count, s) => {
    const planes = cfg.width << s;
    for (let i = 0; i < count; i++) {
      const p = `layer${s + 1}.${i}`;
      const stride = i === 0 && s > 0 ? 2 : 1;
      const out = planes * EXPANSION;
      blocks.push({
        conv1: conv(`${p}.conv1`, `${p}.bn1`, inplanes, planes, 1, 1),
        conv2: conv(`${p}.conv2`, `${p}.bn2`, planes, planes, 3, stride),
        conv3: conv(`${p}.conv3`, `${p}.bn3`, planes, out, 1, 1),
        downsample:
          stride !== 1 || inplanes !== out
            ? conv(`${p}.downsample.0`, `${p}.downsample.1`, inplanes, out, 1, stride)
            : null,
      });
      inplanes = out;
    }
  });
  const convs = [stem];
  for (const b of blocks) convs.push(b.conv1, b.conv2, b.conv3, ...(b.downsample ? [b.downsample] : []));
  return { stem, blocks, convs, dim: inplanes };
}

/**
 * The config a torchvision-layout checkpoint was saved from: conv1's output width and the blocks of
 * each layer (`layer{s}.{i}.conv1.weight`), so that ResNet-50 and the reduced test networks load
 * through one path; loadState then checks every tensor's shape against it.
 */
export function resnetConfigOf(file: SafetensorsFile): ResNetConfig {
  if (!file.names.includes('conv1.weight'))
    throw new Error('ResNet weights: no conv1.weight; is this a torchvision-layout ResNet checkpoint?');
  const width = file.info('conv1.weight').shape[0];
  const blocks = [1, 2, 3, 4].map((s) => {
    let i = 0;
    while (file.names.includes(`layer${s}.${i}.conv1.weight`)) i++;
    return i;
  });
  if (blocks.some((b) => b === 0))
    throw new Error(
      `ResNet weights: layer${blocks.indexOf(0) + 1} has no blocks (no layer${blocks.indexOf(0) + 1}.0.conv1.weight).`,
    );
  const cfg: ResNetConfig = { width, blocks: blocks as [number, number, number, number] };
  checkConfig(cfg);
  return cfg;
}

/**
 * Size and cost of a config at an input side (finetune's budget, suite/finetuneBudget.ts): backbone
 * parameters (conv weights and BN gains and shifts), multiply-adds of one forward (convs only: BN,
 * ReLU and pooling are a few per value), and the values each forward's conv, BN and ReLU outputs
 * hold per image, which training keeps for the backward pass.
 */
export function resnetCost(
  cfg: ResNetConfig,
  imageSize: number,
): { params: number; macs: number; activations: number; dim: number } {
  const L = layout(cfg);
  let params = 0,
    macs = 0,
    activations = imageSize * imageSize * 3;
  const out = (side: number, c: ConvDef) => Math.floor((side + 2 * c.pad - c.k) / c.stride) + 1;
  const conv = (side: number, c: ConvDef, relu: boolean): number => {
    const o = out(side, c);
    params += c.k * c.k * c.in * c.out + 2 * c.out;
    macs += o * o * c.k * c.k * c.in * c.out;
    activations += o * o * c.out * (relu ? 3 : 2);
    return o;
  };
  // Stem, then the 3×3 stride-2 max pool (padding 1).
  let side = Math.floor((conv(imageSize, L.stem, true) + 2 - 3) / 2) + 1;
  activations += side * side * cfg.width;
  for (const b of L.blocks) {
    const s1 = conv(side, b.conv1, true);
    const s2 = conv(s1, b.conv2, true);
    const s3 = conv(s2, b.conv3, false);
    if (b.downsample) conv(side, b.downsample, false);
    activations += s3 * s3 * b.conv3.out * 2; // the sum and its ReLU
    side = s3;
  }
  return { params, macs, activations, dim: L.dim };
}

/** Feature width of a config (2 048 for ResNet-50). */
export function resnetDim(cfg: ResNetConfig = RESNET50): number {
  return cfg.width * 8 * EXPANSION;
}

/**
 * The checkpoint's tensors a config reads, torchvision names → shapes (OIHW convs, and per BN
 * weight, bias, running_mean, running_var), in state-dict order.
 */
export function resnetStateShapes(cfg: ResNetConfig = RESNET50): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const c of layout(cfg).convs) {
    out.set(`${c.name}.weight`, [c.out, c.in, c.k, c.k]);
    for (const t of ['weight', 'bias', 'running_mean', 'running_var']) out.set(`${c.bn}.${t}`, [c.out]);
  }
  return out;
}

/** Reads and checks a checkpoint: every expected name with its shape, nothing else but the ignored. */
function loadState(file: SafetensorsFile, cfg: ResNetConfig): Map<string, MappedTensor> {
  return mapWeights(file, { ignore: RESNET_IGNORE }, { expected: resnetStateShapes(cfg) }).weights;
}

/** `resnet50` for torchvision's, e.g. `resnet-w4-2111` for a reduced config. */
function resnetId(cfg: ResNetConfig): string {
  const is50 = cfg.width === 64 && cfg.blocks.join() === RESNET50.blocks.join();
  return is50 ? 'resnet50' : `resnet-w${cfg.width}-${cfg.blocks.join('')}`;
}

/**
 * A conv followed by an eval-mode BN as one conv with bias: filter·s and β − μ·s with
 * s = γ / √(σ² + ε), per output channel (computed in float64). `weight` is HWIO with the output
 * channel innermost, as from oihwToHwio, or a depthwise filter [kh, kw, C, 1].
 */
export function foldBatchNorm(
  weight: Float32Array,
  bn: { weight: Float32Array; bias: Float32Array; mean: Float32Array; variance: Float32Array },
  eps = BN_EPS,
): { filter: Float32Array; bias: Float32Array } {
  const C = bn.weight.length;
  const scale = Float64Array.from(bn.weight, (g, c) => g / Math.sqrt(bn.variance[c] + eps));
  const filter = Float32Array.from(weight, (w, i) => w * scale[i % C]);
  const bias = Float32Array.from(scale, (s, c) => bn.bias[c] - bn.mean[c] * s);
  return { filter, bias };
}

// ---------------------------------------------------------------------------------------------
// Frozen backbone (features tier)

interface FoldedConv {
  readonly filter: tf.Tensor4D;
  readonly bias: tf.Tensor1D;
  readonly stride: number;
  readonly pad: number;
}

/**
 * The frozen ResNet of the `features` tier: eval mode with the checkpoint's running statistics,
 * BN folded into each conv, output the global-average-pooled layer4 (ResNet-50: 2 048-d,
 * feature `r50-gap-2048`). Input [n, imageSize, imageSize, 3], normalised (§6.2).
 */
export function resnetBackbone(
  file: SafetensorsFile,
  imageSize: number,
  cfg: ResNetConfig = RESNET50,
): Backbone {
  const L = layout(cfg);
  const w = loadState(file, cfg);
  const get = (n: string) => w.get(n)!.data;
  const fold = (c: ConvDef): FoldedConv => {
    const hwio = oihwToHwio(get(`${c.name}.weight`), [c.out, c.in, c.k, c.k]);
    const f = foldBatchNorm(hwio.data, {
      weight: get(`${c.bn}.weight`),
      bias: get(`${c.bn}.bias`),
      mean: get(`${c.bn}.running_mean`),
      variance: get(`${c.bn}.running_var`),
    });
    return {
      filter: tf.tensor4d(f.filter, [c.k, c.k, c.in, c.out]),
      bias: tf.tensor1d(f.bias),
      stride: c.stride,
      pad: c.pad,
    };
  };
  const stem = fold(L.stem);
  const blocks = L.blocks.map((b) => ({
    conv1: fold(b.conv1),
    conv2: fold(b.conv2),
    conv3: fold(b.conv3),
    downsample: b.downsample ? fold(b.downsample) : null,
  }));
  const run = (x: tf.Tensor4D, c: FoldedConv, activation: 'relu' | 'linear') =>
    tf.fused.conv2d({ x, filter: c.filter, strides: c.stride, pad: c.pad, bias: c.bias, activation });
  const id = resnetId(cfg);
  let disposed = false;
  return {
    id,
    feature: id === 'resnet50' ? 'r50-gap-2048' : `${id}-gap-${L.dim}`,
    dim: L.dim,
    inputShape: [imageSize, imageSize, 3],
    forward: (x) =>
      tf.tidy(() => {
        let h = tf.maxPool(run(x as tf.Tensor4D, stem, 'relu'), 3, 2, 1);
        for (const b of blocks) {
          const y = run(run(run(h, b.conv1, 'relu'), b.conv2, 'relu'), b.conv3, 'linear');
          h = tf.relu(tf.add(y, b.downsample ? run(h, b.downsample, 'linear') : h)) as tf.Tensor4D;
        }
        return tf.mean(h, [1, 2]) as tf.Tensor2D;
      }),
    dispose: () => {
      if (disposed) return;
      disposed = true;
      for (const c of [stem, ...blocks.flatMap((b) => [b.conv1, b.conv2, b.conv3, b.downsample])])
        if (c) tf.dispose([c.filter, c.bias]);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Trainable network (finetune tier)

/**
 * `training` (network.ts): BatchNorm in training mode (PyTorch's `model.train()`), normalising with
 * the batch statistics and updating the running statistics. Default `!noGrad`: a forward that takes
 * gradients is the student's training forward, a no-grad forward a prediction; teacher forwards
 * that run in training mode (MeanTeacher, ICT; §7.3) pass `training: true`.
 */
export type ResNetForwardOptions = NetworkForwardOptions;

export interface ResNetNetworkOptions {
  /** Default ResNet-50. */
  config?: ResNetConfig;
  /** Head outputs C (§7.1). */
  classes: number;
  /** Input side: 32 for CIFAR (never resized), 224 otherwise. */
  imageSize: number;
  /** The head's bottleneck width (LAMDA: 256). */
  headHidden?: number;
  /**
   * How conv gradients are taken: 'native' (the backend's Conv2DBackpropInput and
   * Conv2DBackpropFilter), 'ops' (from forward convs and matrix products, conv2dOpsGrad below),
   * 'auto' (native where the backend has a Conv2DBackpropFilter kernel; tfjs-wasm has none).
   * Default 'auto'.
   */
  convGrad?: 'auto' | 'native' | 'ops';
}

export interface ResNetNetwork extends DeepNetwork {
  readonly config: ResNetConfig;
  /** Feature width before the head (2 048). */
  readonly dim: number;
  /** Input rows are [imageSize·imageSize·3] NHWC (inputDim), or [n, h, w, 3] tensors. */
  forward(P: Record<string, tf.Tensor>, x: tf.Tensor, opts?: ResNetForwardOptions): tf.Tensor2D;
  /**
   * BN running statistics by torchvision name (`bn1.running_mean`, `layer1.0.bn1.running_var`, …):
   * the live buffers, which every training-mode forward updates whatever parameters it is given
   * (weights or the EMA shadow, §7.2–7.3).
   */
  readonly buffers: ReadonlyMap<string, tf.Variable>;
  /** BN_MOMENTUM (0.1). */
  readonly bufferMomentum: number;
  /** Host copies of the buffers (checkpoints, Bn_Controller's save). */
  readBuffers(): Promise<Record<string, Float32Array>>;
  /** Sets the buffers (a checkpoint's, or Bn_Controller's restore). */
  writeBuffers(values: Record<string, Float32Array>): void;
  /** Sets the buffers back to the checkpoint's. */
  resetBuffers(): void;
  dispose(): void;
}

/**
 * The decay group of §7.2 (LAMDA's init_optimizer): every parameter whose name contains neither
 * `bias` nor `bn`. So conv weights, downsample BN gains (`downsample.1.weight`), `bottleneck.weight`
 * and `fc.weight` decay; `bn*` gains and shifts, the downsample BN shift and every bias do not.
 */
export function inDecayGroup(name: string): boolean {
  return !name.includes('bias') && !name.includes('bn');
}

/**
 * The `finetune` network: the checkpoint's backbone + the LAMDA head, as a trainer DeepNetwork.
 * Parameters: conv weights HWIO, BN gains and shifts [C], head weights [in, out]; `init(seed)`
 * gives the checkpoint's backbone and mlpHead's init for the head (the same head the features tier
 * starts from with that seed). The specs' `init` fields are torchvision's from-scratch init
 * (kaiming-normal fan-out convs, BN γ = 1, β = 0), which the checkpoint replaces.
 */
export function resnetNetwork(file: SafetensorsFile, opts: ResNetNetworkOptions): ResNetNetwork {
  const cfg = opts.config ?? RESNET50;
  const L = layout(cfg);
  const state = loadState(file, cfg);
  const head = mlpHead(L.dim, opts.classes, opts.headHidden ?? 256);
  const side = opts.imageSize;

  const specs: ParamSpec[] = [];
  for (const c of L.convs) {
    const w = `${c.name}.weight`;
    const std = Math.sqrt(2 / (c.out * c.k * c.k));
    specs.push({ name: w, shape: [c.k, c.k, c.in, c.out], init: 'normal', std, decay: inDecayGroup(w) });
    for (const [t, init] of [
      ['weight', 'ones'],
      ['bias', 'zeros'],
    ] as const) {
      const n = `${c.bn}.${t}`;
      specs.push({ name: n, shape: [c.out], init, decay: inDecayGroup(n) });
    }
  }
  const headSpecs = head.specs();
  for (const s of headSpecs)
    if (s.decay !== inDecayGroup(s.name))
      throw new Error(`resnetNetwork: the head's ${s.name} decay flag disagrees with §7.2's rule.`);
  specs.push(...headSpecs);

  const buffers = new Map<string, tf.Variable>();
  const initialBuffer = (n: string) => state.get(n)!.data;
  for (const c of L.convs)
    for (const kind of ['running_mean', 'running_var']) {
      const n = `${c.bn}.${kind}`;
      const t = tf.tensor1d(initialBuffer(n).slice());
      // tf.variable keeps its source tensor alive: free it.
      buffers.set(n, tf.variable(t, false));
      t.dispose();
    }

  const useOps = () => {
    const mode = opts.convGrad ?? 'auto';
    if (mode === 'auto') return !tf.getKernel('Conv2DBackpropFilter', tf.getBackend());
    return mode === 'ops';
  };

  let disposed = false;
  const net: ResNetNetwork = {
    id: `${resnetId(cfg)}-${head.id}`,
    config: cfg,
    dim: L.dim,
    inputDim: side * side * 3,
    classes: opts.classes,
    buffers,
    bufferMomentum: BN_MOMENTUM,
    specs: () => specs,
    init: (seed) => {
      const out = new Map<string, Float32Array>();
      for (const c of L.convs) {
        out.set(
          `${c.name}.weight`,
          oihwToHwio(state.get(`${c.name}.weight`)!.data, [c.out, c.in, c.k, c.k]).data,
        );
        for (const t of ['weight', 'bias']) out.set(`${c.bn}.${t}`, state.get(`${c.bn}.${t}`)!.data.slice());
      }
      for (const [k, v] of head.init(seed)) out.set(k, v);
      return out;
    },
    forward: (P, x, o: ResNetForwardOptions = {}) =>
      tf.tidy(() => {
        const training = o.training ?? !o.noGrad;
        const conv = useOps() ? conv2dOpsGrad : conv2dNative;
        const x4 = (x.rank === 4 ? x : tf.reshape(x, [x.shape[0], side, side, 3])) as tf.Tensor4D;
        const convBn = (h: tf.Tensor4D, c: ConvDef) =>
          batchNorm(
            conv(h, P[`${c.name}.weight`] as tf.Tensor4D, c.stride, c.pad),
            P,
            buffers,
            c.bn,
            training,
          );
        let h = tf.maxPool(tf.relu(convBn(x4, L.stem)), 3, 2, 1);
        for (const b of L.blocks) {
          const y = convBn(tf.relu(convBn(tf.relu(convBn(h, b.conv1)), b.conv2)), b.conv3);
          h = tf.relu(tf.add(y, b.downsample ? convBn(h, b.downsample) : h)) as tf.Tensor4D;
        }
        return head.forward(P, tf.mean(h, [1, 2]) as tf.Tensor2D);
      }),
    readBuffers: async () => {
      const out: Record<string, Float32Array> = {};
      for (const [k, v] of buffers) out[k] = (await v.data()) as Float32Array;
      return out;
    },
    writeBuffers: (values) => {
      for (const [k, v] of buffers) {
        const a = values[k];
        if (!a || a.length !== v.size)
          throw new Error(`resnetNetwork: buffer ${k} needs ${v.size} values; got ${a ? a.length : 'none'}.`);
        tf.tidy(() => v.assign(tf.tensor1d(a)));
      }
    },
    resetBuffers: () => {
      for (const [k, v] of buffers) tf.tidy(() => v.assign(tf.tensor1d(initialBuffer(k).slice())));
    },
    dispose: () => {
      if (disposed) return;
      disposed = true;
      for (const v of buffers.values()) v.dispose();
    },
  };
  return net;
}

/**
 * BatchNorm2d over NHWC. Eval: the running statistics. Training: the batch's mean and biased
 * variance normalise (gradients flow through both), and the running statistics move by momentum
 * 0.1 towards the mean and the unbiased variance (× n/(n−1), n = N·H·W), as PyTorch does.
 */
function batchNorm(
  x: tf.Tensor4D,
  P: Record<string, tf.Tensor>,
  buffers: ReadonlyMap<string, tf.Variable>,
  bn: string,
  training: boolean,
): tf.Tensor4D {
  const gamma = P[`${bn}.weight`] as tf.Tensor1D;
  const beta = P[`${bn}.bias`] as tf.Tensor1D;
  const runMean = buffers.get(`${bn}.running_mean`)!;
  const runVar = buffers.get(`${bn}.running_var`)!;
  if (!training) return tf.batchNorm(x, runMean as tf.Tensor1D, runVar as tf.Tensor1D, beta, gamma, BN_EPS);
  const { mean, variance } = tf.moments(x, [0, 1, 2]);
  const n = x.shape[0] * x.shape[1] * x.shape[2];
  if (n < 2)
    throw new RangeError(
      `ResNet ${bn}: training-mode BatchNorm needs more than 1 value per channel; got input shape ${JSON.stringify(x.shape)}.`,
    );
  // The update is a side effect outside the gradient: the tape never reads the buffers back.
  runMean.assign(tf.add(tf.mul(runMean, 1 - BN_MOMENTUM), tf.mul(mean, BN_MOMENTUM)) as tf.Tensor1D);
  runVar.assign(
    tf.add(tf.mul(runVar, 1 - BN_MOMENTUM), tf.mul(variance, (BN_MOMENTUM * n) / (n - 1))) as tf.Tensor1D,
  );
  return tf.batchNorm(x, mean as tf.Tensor1D, variance as tf.Tensor1D, beta, gamma, BN_EPS);
}

function conv2dNative(x: tf.Tensor4D, w: tf.Tensor4D, stride: number, pad: number): tf.Tensor4D {
  return tf.conv2d(x, w, stride, pad);
}

/**
 * conv2d whose gradients are built from forward ops, for backends without fast backward kernels:
 * tfjs-wasm has no Conv2DBackpropFilter, and its Conv2DBackpropInput is a scalar loop ≈ 10–20×
 * slower than its (XNNPACK) forward conv.
 */
function conv2dOpsGrad(x: tf.Tensor4D, w: tf.Tensor4D, stride: number, pad: number): tf.Tensor4D {
  // customGrad passes the inputs, then the save function, through one rest parameter.
  const f = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const [xs, ws, save] = args as [tf.Tensor4D, tf.Tensor4D, tf.GradSaveFunc];
    save([xs, ws]);
    return {
      value: tf.conv2d(xs, ws, stride, pad),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const [xi, wi] = saved as [tf.Tensor4D, tf.Tensor4D];
        const g = dy as tf.Tensor4D;
        return [
          conv2dInputGrad(g, wi, xi.shape, stride, pad),
          conv2dFilterGrad(xi, g, wi.shape[0], stride, pad),
        ];
      },
    };
  });
  return f(x, w) as tf.Tensor4D;
}

/**
 * ∂L/∂x of a conv (filter [k, k, I, O], stride s, symmetric pad p) as a forward conv: dy dilated
 * by s (s − 1 zeros between entries), padded k − 1 − p before and k − 1 − p + r after (r: the rows
 * the forward's floor dropped), convolved at stride 1 with the filter rotated 180° and its I and O
 * swapped.
 */
export function conv2dInputGrad(
  dy: tf.Tensor4D,
  w: tf.Tensor4D,
  xShape: readonly number[],
  stride: number,
  pad: number,
): tf.Tensor4D {
  return tf.tidy(() => {
    const [N, H, W] = xShape;
    const [, Ho, Wo, O] = dy.shape;
    const k = w.shape[0];
    let d: tf.Tensor4D = dy;
    if (stride > 1) {
      const z = tf.pad(tf.reshape(dy, [N * Ho, 1, Wo, 1, O]), [
        [0, 0],
        [0, stride - 1],
        [0, 0],
        [0, stride - 1],
        [0, 0],
      ]);
      d = tf.slice(
        tf.reshape(z, [N, Ho * stride, Wo * stride, O]),
        [0, 0, 0, 0],
        [N, (Ho - 1) * stride + 1, (Wo - 1) * stride + 1, O],
      ) as tf.Tensor4D;
    }
    const before = k - 1 - pad;
    const afterH = H + k - 1 - before - d.shape[1];
    const afterW = W + k - 1 - before - d.shape[2];
    const padded = tf.pad(d, [
      [0, 0],
      [before, afterH],
      [before, afterW],
      [0, 0],
    ]);
    return tf.conv2d(padded, rotateFilter(w), 1, 'valid');
  });
}

/**
 * The filter rotated 180° with I and O swapped, [k, k, I, O] → [k, k, O, I]. Rotating both spatial
 * axes reverses the flattened k·k axis, done as a product with the exchange matrix (exact: each
 * output is 1·w + 0·…): tfjs-wasm's Reverse kernel is a scalar loop, its 2-D matMul XNNPACK.
 */
function rotateFilter(w: tf.Tensor4D): tf.Tensor4D {
  const [k, , I, O] = w.shape;
  const kk = k * k;
  const exchange = tf.tensor2d(
    Float32Array.from({ length: kk * kk }, (_, i) => (i % kk === kk - 1 - Math.floor(i / kk) ? 1 : 0)),
    [kk, kk],
  );
  const flipped = tf.matMul(exchange, tf.reshape(w, [kk, I * O]) as tf.Tensor2D);
  return tf.reshape(tf.transpose(tf.reshape(flipped, [kk, I, O]), [0, 2, 1]), [k, k, O, I]) as tf.Tensor4D;
}

/**
 * ∂L/∂W[kh, kw, i, o] = Σ_{n, y, x} xp[n, y·s + kh, x·s + kw, i] · dy[n, y, x, o], xp = x padded:
 * a stride-1 conv of xpᵀ [I, Hp, Wp, N] by dyᵀ [Ho, Wo, N, O] with dilation s, cropped to k×k,
 * whose output is [I, k, k, O]. 1×1 convs too: as a matrix product, xᵀ·dy, tfjs-wasm takes it
 * either to its scalar loop (transposeA) or, with xᵀ made explicit, to an XNNPACK operator cached
 * on dy's id, and that path broke the wasm 3-step parity (resnet.test.ts) though each product was
 * right; the conv has neither problem.
 */
export function conv2dFilterGrad(
  x: tf.Tensor4D,
  dy: tf.Tensor4D,
  k: number,
  stride: number,
  pad: number,
): tf.Tensor4D {
  return tf.tidy(() => {
    const [N, H, W, I] = x.shape;
    const [, Ho, Wo, O] = dy.shape;
    const xp =
      pad > 0
        ? tf.pad(x, [
            [0, 0],
            [pad, pad],
            [pad, pad],
            [0, 0],
          ])
        : x;
    const Hp = H + 2 * pad;
    const Wp = W + 2 * pad;
    // Rows and columns past the last window position never meet a filter tap.
    const used = tf.slice(
      xp,
      [0, 0, 0, 0],
      [N, Math.min(Hp, (Ho - 1) * stride + k), Math.min(Wp, (Wo - 1) * stride + k), I],
    );
    const g = tf.conv2d(
      tf.transpose(used, [3, 1, 2, 0]) as tf.Tensor4D,
      tf.transpose(dy, [1, 2, 0, 3]) as tf.Tensor4D,
      1,
      'valid',
      'NHWC',
      stride,
    );
    return tf.transpose(tf.slice(g, [0, 0, 0, 0], [I, k, k, O]), [1, 2, 0, 3]) as tf.Tensor4D;
  });
}
