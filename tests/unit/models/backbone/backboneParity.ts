/**
 * The PyTorch parity checks of the image backbones, shared by the CI suite (reduced networks,
 * tests/fixtures/backbone/) and the gated full-size run (RAC_FULL_PARITY=1, /tmp/rac-backbone-full),
 * both written by scripts/fixtures/make_backbone_fixtures.py.
 *
 * Error measure per tensor: max |tfjs − torch| / max |torch| (relative to the tensor's scale; the
 * oracle runs in float64 from the same float32 weights).
 */
import { readFileSync } from 'node:fs';
import * as tf from '@tensorflow/tfjs';
import {
  resnetBackbone,
  resnetNetwork,
  type ResNetConfig,
} from '../../../../src/lib/models/backbone/resnet.ts';
import {
  mobilenetV3Backbone,
  type MobileNetV3Config,
} from '../../../../src/lib/models/backbone/mobilenetv3.ts';
import { parseSafetensors, type SafetensorsFile } from '../../../../src/lib/weights/safetensors.ts';
import { oihwToHwio, transpose2d } from '../../../../src/lib/weights/weightMap.ts';

export interface ResNetMeta {
  width: number;
  blocks: [number, number, number, number];
  classes: number;
  head_hidden: number;
  init_seed: number;
  lr: number;
  momentum: number;
  weight_decay: number;
  steps: number;
  dim: number;
  params: string[];
  decay: string[];
  buffers: string[];
}

export interface Mnv3Meta {
  arch_def: string[][];
  stem: number;
  num_features: number;
}

export const readSafetensors = (path: string | URL): SafetensorsFile =>
  parseSafetensors(new Uint8Array(readFileSync(path)));

export function relErr(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Infinity;
  let num = 0,
    den = 0;
  for (let i = 0; i < a.length; i++) {
    num = Math.max(num, Math.abs(a[i] - b[i]));
    den = Math.max(den, Math.abs(b[i]));
  }
  if (Number.isNaN(num)) return Infinity;
  return den === 0 ? num : num / den;
}

/**
 * The update itself (θ3 − θ0), which the parameters' own scale could hide: the largest error
 * relative to the largest reference update, after allowing 4 float32 ulps of the weight (both
 * sides store float32; as tests/unit/models/deep/parityCheck.ts does).
 */
export function updateErr(got: Float32Array, want: Float32Array, theta0: Float32Array): number {
  let num = 0,
    den = 0;
  for (let i = 0; i < want.length; i++) {
    num = Math.max(num, Math.abs(got[i] - want[i]) - 4 * 2 ** -23 * Math.abs(want[i]));
    den = Math.max(den, Math.abs(want[i] - theta0[i]));
  }
  if (Number.isNaN(num) || got.length !== want.length) return Infinity;
  return den === 0 ? num : num / den;
}

export const resnetConfig = (m: ResNetMeta): ResNetConfig => ({ width: m.width, blocks: m.blocks });

/** A golden input [n, h, w, 3] as a tensor. */
function input(golden: SafetensorsFile, name: string): tf.Tensor4D {
  return tf.tensor4d(golden.float32(name), golden.info(name).shape as [number, number, number, number]);
}

/** PyTorch's layout of a parameter → the network's (conv OIHW → HWIO, Linear [out, in] → [in, out]). */
function toNetworkLayout(golden: SafetensorsFile, name: string): Float32Array {
  const shape = golden.info(name).shape;
  const data = golden.float32(name);
  if (shape.length === 4) return oihwToHwio(data, shape).data;
  if (shape.length === 2) return transpose2d(data, shape).data;
  return data;
}

/** Mean cross-entropy with hard labels (F.cross_entropy), in plain ops so that tfjs differentiates it. */
function crossEntropy(logits: tf.Tensor2D, labels: tf.Tensor1D, k: number): tf.Scalar {
  return tf.neg(tf.mean(tf.sum(tf.mul(tf.oneHot(labels, k), tf.logSoftmax(logits)), 1))) as tf.Scalar;
}

/** A variable that owns `t`'s data (tf.variable leaves its source alive). */
function variableFrom(t: tf.Tensor, trainable: boolean): tf.Variable {
  const v = tf.variable(t, trainable);
  t.dispose();
  return v;
}

async function read(t: tf.Tensor): Promise<Float32Array> {
  const a = (await t.data()) as Float32Array;
  t.dispose();
  return a;
}

export interface ParityOptions {
  convGrad?: 'auto' | 'native' | 'ops';
  /** Skip the training checks (eval only). */
  evalOnly?: boolean;
}

/**
 * Every ResNet check: frozen-backbone features, network eval logits, one training forward (logits,
 * running statistics, gradients), three SGD steps (parameters, their update, running statistics,
 * eval logits). Returns name → relative error; leaves no tensor behind.
 */
export async function resnetParity(
  weights: SafetensorsFile,
  golden: SafetensorsFile,
  meta: ResNetMeta,
  opts: ParityOptions = {},
): Promise<Record<string, number>> {
  const errors: Record<string, number> = {};
  const cfg = resnetConfig(meta);
  const xEval = input(golden, 'x.eval');
  const xTrain = input(golden, 'x.train');
  const yTrain = tf.tensor1d(golden.raw('y.train') as Int32Array, 'int32');
  const backbone = resnetBackbone(weights, xEval.shape[1], cfg);
  const net = resnetNetwork(weights, {
    config: cfg,
    classes: meta.classes,
    imageSize: xTrain.shape[1],
    headHidden: meta.head_hidden,
    convGrad: opts.convGrad,
  });
  const params = new Map<string, tf.Variable>();
  try {
    errors['eval.features'] = relErr(await read(backbone.forward(xEval)), golden.float32('eval.features'));

    const init = net.init(meta.init_seed);
    for (const s of net.specs())
      params.set(s.name, variableFrom(tf.tensor(init.get(s.name)!, s.shape), true));
    const P = Object.fromEntries(params) as Record<string, tf.Tensor>;
    errors['eval.logits'] = relErr(
      await read(net.forward(P, xEval, { training: false, noGrad: true })),
      golden.float32('eval.logits'),
    );
    if (opts.evalOnly) return errors;

    const vars = [...params.values()];
    const step = (keepLogits: boolean) => {
      let logits: tf.Tensor | null = null;
      const { value, grads } = tf.variableGrads(() => {
        const z = net.forward(P, xTrain, { training: true });
        if (keepLogits) logits = tf.keep(z.clone());
        return crossEntropy(z, yTrain, meta.classes);
      }, vars);
      value.dispose();
      const byName: Record<string, tf.Tensor> = {};
      for (const [name, v] of params) byName[name] = grads[v.name];
      return { byName, logits: logits as tf.Tensor | null };
    };

    // One training forward and its gradients.
    const first = step(true);
    errors['train.logits'] = relErr(await read(first.logits!), golden.float32('train.logits'));
    const buffers = await net.readBuffers();
    for (const b of meta.buffers)
      errors[`train.running.${b}`] = relErr(buffers[b], golden.float32(`train.running.${b}`));
    for (const name of meta.params)
      errors[`grad.${name}`] = relErr(
        await read(first.byName[name]),
        toNetworkLayout(golden, `grad.${name}`),
      );

    // Three SGD steps from the initial weights and running statistics (torch.optim.SGD).
    net.resetBuffers();
    for (const s of net.specs())
      tf.tidy(() => params.get(s.name)!.assign(tf.tensor(init.get(s.name)!, s.shape)));
    // torch.optim.SGD written out (dampening 0, no Nesterov; the first step's buffer is g itself,
    // which 0.9·0 + g equals): the specs' decay flags pick the coupled-L2 group.
    const decay = new Set(
      net
        .specs()
        .filter((s) => s.decay)
        .map((s) => s.name),
    );
    const bufs = new Map([...params].map(([n, v]) => [n, variableFrom(tf.zerosLike(v), false)]));
    for (let it = 0; it < meta.steps; it++) {
      const { byName } = step(false);
      tf.tidy(() => {
        for (const [name, theta] of params) {
          const g = decay.has(name) ? tf.add(byName[name], tf.mul(theta, meta.weight_decay)) : byName[name];
          const buf = bufs.get(name)!;
          buf.assign(tf.add(tf.mul(buf, meta.momentum), g));
          theta.assign(tf.sub(theta, tf.mul(buf, meta.lr)));
        }
      });
      tf.dispose(Object.values(byName));
    }
    for (const b of bufs.values()) b.dispose();
    for (const name of meta.params) {
      const got = (await params.get(name)!.data()) as Float32Array;
      const want = toNetworkLayout(golden, `sgd3.${name}`);
      errors[`sgd3.${name}`] = relErr(got, want);
      errors[`sgd3.update.${name}`] = updateErr(got, want, init.get(name)!);
    }
    const after = await net.readBuffers();
    for (const b of meta.buffers)
      errors[`sgd3.running.${b}`] = relErr(after[b], golden.float32(`sgd3.running.${b}`));
    errors['sgd3.eval.logits'] = relErr(
      await read(net.forward(P, xEval, { training: false, noGrad: true })),
      golden.float32('sgd3.eval.logits'),
    );
    return errors;
  } finally {
    for (const v of params.values()) v.dispose();
    tf.dispose([xEval, xTrain, yTrain]);
    backbone.dispose();
    net.dispose();
  }
}

export async function mnv3Parity(
  weights: SafetensorsFile,
  golden: SafetensorsFile,
  cfg: MobileNetV3Config,
): Promise<Record<string, number>> {
  const x = input(golden, 'x.eval');
  const net = mobilenetV3Backbone(weights, x.shape[1], cfg);
  try {
    return { 'eval.features': relErr(await read(net.forward(x)), golden.float32('eval.features')) };
  } finally {
    x.dispose();
    net.dispose();
  }
}

export const mnv3Config = (m: Mnv3Meta): MobileNetV3Config => ({
  archDef: m.arch_def,
  stem: m.stem,
  numFeatures: m.num_features,
});

/** The worst `n` entries, for failure messages. */
export const worst = (errors: Record<string, number>, n = 6): string =>
  JSON.stringify(
    Object.entries(errors)
      .sort((a, b) => b[1] - a[1])
      .slice(0, n),
  );

/** The largest error per kind of check (eval, train, train.running, grad, sgd3, sgd3.update, sgd3.running). */
export function summary(errors: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, e] of Object.entries(errors)) {
    const parts = k.split('.');
    const g = ['running', 'update'].includes(parts[1]) ? `${parts[0]}.${parts[1]}` : parts[0];
    out[g] = Math.max(out[g] ?? 0, e);
  }
  return out;
}
