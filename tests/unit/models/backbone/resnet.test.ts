/**
 * ResNet (src/lib/models/backbone/resnet.ts) against torchvision (tests/fixtures/backbone/, from
 * scripts/fixtures/make_backbone_fixtures.py): a reduced network (base width 4, blocks [2, 1, 1, 1],
 * so identity and downsample blocks both occur) with random weights and randomised BN statistics.
 * Within 1e-4 relative (max |a − b| / max |b| per tensor), on cpu with tfjs's conv gradients, on cpu
 * with the forward-op conv gradients (conv2dOpsGrad) and on wasm (which has no Conv2DBackpropFilter
 * and takes the forward-op ones):
 * - the frozen backbone's eval features (BN folded) and the network's eval logits (BN unfolded);
 * - one training-mode forward: logits, every BN running statistic after it (momentum 0.1, unbiased
 *   variance), the gradient of mean CE wrt every parameter;
 * - 3 torch.optim.SGD steps (momentum 0.9, coupled decay 5e-4 on §7.2's group): parameters, their
 *   update θ3 − θ0, running statistics, eval logits after;
 * and no tensor left behind. Also: ResNet-50's state-dict names and shapes are torchvision's, the
 * decay group is §7.2's, the checkpoint's fc.* and num_batches_tracked are ignored and a missing or
 * misshapen tensor is refused by name, and the forward-op input and filter gradients equal tfjs's own
 * on strided, padded, odd-sized and 1×1 convs.
 */
import { readFileSync } from 'node:fs';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  conv2dFilterGrad,
  conv2dInputGrad,
  RESNET50,
  resnetBackbone,
  resnetDim,
  resnetNetwork,
  resnetStateShapes,
} from '../../../../src/lib/models/backbone/resnet.ts';
import { parseSafetensors } from '../../../../src/lib/weights/safetensors.ts';
import { WeightMapError } from '../../../../src/lib/weights/weightMap.ts';
import { writeSafetensors } from '../../weights/helpers.ts';
import { readSafetensors, resnetConfig, resnetParity, worst, type ResNetMeta } from './backboneParity.ts';

const DIR = new URL('../../../fixtures/backbone/', import.meta.url);
const meta = JSON.parse(readFileSync(new URL('backbone.json', DIR), 'utf8')) as {
  resnet: ResNetMeta;
  resnet50_state: [string, number[]][];
};
const weights = readSafetensors(new URL('resnet_reduced.safetensors', DIR));
const golden = readSafetensors(new URL('resnet_reduced.golden.safetensors', DIR));
const TOL = 1e-4;

describe('ResNet layout', () => {
  beforeAll(async () => {
    expect(await tf.setBackend('cpu')).toBe(true);
  });

  it("gives ResNet-50 exactly torchvision's state-dict names and shapes (fc.* aside)", () => {
    const want = meta.resnet50_state.filter(([n]) => !n.startsWith('fc.'));
    expect([...resnetStateShapes(RESNET50)]).toEqual(want);
    expect(resnetDim(RESNET50)).toBe(2048);
  });

  it("puts §7.2's decay group in the specs and keeps the checkpoint's names", () => {
    const net = resnetNetwork(weights, {
      config: resnetConfig(meta.resnet),
      classes: 5,
      imageSize: 32,
      headHidden: 16,
    });
    const specs = net.specs();
    expect(specs.map((s) => s.name)).toEqual(meta.resnet.params);
    expect(specs.filter((s) => s.decay).map((s) => s.name)).toEqual(meta.resnet.decay);
    expect(specs.find((s) => s.name.endsWith('downsample.1.weight'))?.decay).toBe(true);
    expect(specs.find((s) => s.name === 'layer1.0.bn1.weight')?.decay).toBe(false);
    expect([...net.buffers.keys()]).toEqual(meta.resnet.buffers);
    expect(net.dim).toBe(meta.resnet.dim);
    net.dispose();
  });

  it('refuses a checkpoint that lacks a tensor or has a wrong shape, naming it', () => {
    const tensors = Object.fromEntries(
      weights.names
        .filter((n) => n !== 'layer2.0.conv2.weight')
        .map((n) => {
          const i = weights.info(n);
          return [n, { dtype: i.dtype, shape: [...i.shape], data: weights.raw(n) as ArrayLike<number> }];
        }),
    );
    const cfg = resnetConfig(meta.resnet);
    const missing = parseSafetensors(writeSafetensors(tensors));
    expect(() => resnetBackbone(missing, 32, cfg)).toThrow(WeightMapError);
    expect(() => resnetBackbone(missing, 32, cfg)).toThrow(/layer2\.0\.conv2\.weight/);
    expect(() => resnetBackbone(weights, 32, { ...cfg, width: 8 })).toThrow(/has shape .* expects/);
  });

  it('takes conv gradients from forward ops as the native kernels do (strides, pads, odd sizes, 1×1)', async () => {
    const before = tf.memory().numTensors;
    for (const [k, stride, pad, size] of [
      [3, 1, 1, 9],
      [3, 2, 1, 9],
      [3, 2, 1, 8],
      [7, 2, 3, 13],
      [7, 2, 3, 12],
      [1, 2, 0, 7],
      [1, 1, 0, 5],
    ]) {
      const errs = tf.tidy(() => {
        const x = tf.randomNormal([2, size, size, 3], 0, 1, 'float32', 1) as tf.Tensor4D;
        const w = tf.randomNormal([k, k, 3, 4], 0, 1, 'float32', 2) as tf.Tensor4D;
        const y = tf.conv2d(x, w, stride, pad);
        const dy = tf.randomNormal(y.shape, 0, 1, 'float32', 3) as tf.Tensor4D;
        const [dxNative, dwNative] = tf.grads((a: tf.Tensor, b: tf.Tensor) =>
          tf.sum(tf.mul(tf.conv2d(a as tf.Tensor4D, b as tf.Tensor4D, stride, pad), dy)),
        )([x, w]);
        const rel = (a: tf.Tensor, b: tf.Tensor) => tf.div(tf.max(tf.abs(tf.sub(a, b))), tf.max(tf.abs(b)));
        return tf.stack([
          rel(conv2dInputGrad(dy, w, x.shape, stride, pad), dxNative),
          rel(conv2dFilterGrad(x, dy, k, stride, pad), dwNative),
        ]);
      });
      const [ex, ew] = await errs.data();
      errs.dispose();
      expect(ex, `dx: k ${k} stride ${stride} pad ${pad} size ${size}`).toBeLessThan(1e-5);
      expect(ew, `dW: k ${k} stride ${stride} pad ${pad} size ${size}`).toBeLessThan(1e-5);
    }
    expect(tf.memory().numTensors).toBe(before);
  });
});

describe.each([
  ['cpu', 'native'],
  ['cpu', 'ops'],
  ['wasm', 'auto'],
] as const)('ResNet parity with PyTorch on %s (conv gradients: %s)', (backend, convGrad) => {
  it('matches eval features and logits, a training forward, its gradients and 3 SGD steps', async () => {
    expect(await tf.setBackend(backend)).toBe(true);
    const before = tf.memory().numTensors;
    const errors = await resnetParity(weights, golden, meta.resnet, { convGrad });
    const bad = Object.entries(errors).filter(([, e]) => !(e <= TOL));
    expect(bad, `worst: ${worst(errors)}`).toEqual([]);
    // features, 3 logits, per buffer 2, per parameter grad + value + update.
    expect(Object.keys(errors).length).toBe(
      4 + 2 * meta.resnet.buffers.length + 3 * meta.resnet.params.length,
    );
    expect(tf.memory().numTensors).toBe(before);
  });
});
