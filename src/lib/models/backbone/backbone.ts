/**
 * A frozen backbone (PROTOCOL-IMAGE-TEXT.md §7.1): built from a checkpoint's weight map, it turns a
 * batch of rendered inputs into features in eval mode. The `features` and `classroom` tiers run it
 * once per bank view (bank/extract.ts) and train only a head; ResNet-50, MobileNetV3-small,
 * RoBERTa and MiniLM are backbones of this shape (the image and text suites), and `tinyConvNet`
 * here is the small one the core's tests and the CLI's smoke runs load from a safetensors file.
 */
import * as tf from '@tensorflow/tfjs';
import { mapWeights } from '../../weights/weightMap.ts';
import { oihwToHwio } from '../../weights/weightMap.ts';
import type { SafetensorsFile } from '../../weights/safetensors.ts';

export interface Backbone {
  /** e.g. 'resnet50', 'tiny-conv'. */
  readonly id: string;
  /** The record's `backbone.feature`, e.g. 'r50-gap-2048'. */
  readonly feature: string;
  /** Features per row. */
  readonly dim: number;
  /** Input of one row: [height, width, 3] for images (NHWC, normalised), [tokens] for text. */
  readonly inputShape: readonly number[];
  /** Eval-mode features of a batch [n, ...inputShape] → [n, dim]. */
  forward(x: tf.Tensor): tf.Tensor2D;
  dispose(): void;
}

/**
 * conv1 (3×3, stride 1, 'same', with bias) → ReLU → conv2 (3×3, stride 2) → ReLU → global
 * average pool: a `dim`-wide feature in torchvision's naming and OIHW layout, so it loads through
 * the same safetensors path as ResNet-50.
 */
export function tinyConvNet(file: SafetensorsFile, imageSize: number): Backbone {
  const { weights } = mapWeights(
    file,
    {},
    { expected: ['conv1.weight', 'conv1.bias', 'conv2.weight', 'conv2.bias'] },
  );
  const conv = (name: string) => {
    const w = weights.get(`${name}.weight`)!;
    if (w.shape.length !== 4 || w.shape[2] !== 3 || w.shape[3] !== 3)
      throw new Error(`tiny-conv: ${name}.weight must be [out, in, 3, 3]; got ${JSON.stringify(w.shape)}.`);
    const hwio = oihwToHwio(w.data, w.shape);
    return {
      filter: tf.tensor4d(hwio.data, hwio.shape as [number, number, number, number]),
      bias: tf.tensor1d(weights.get(`${name}.bias`)!.data),
      out: w.shape[0],
      in: w.shape[1],
    };
  };
  const c1 = conv('conv1');
  const c2 = conv('conv2');
  if (c1.in !== 3 || c2.in !== c1.out)
    throw new Error(`tiny-conv: conv1 takes ${c1.in} channels (need 3), conv2 ${c2.in} (need ${c1.out}).`);
  return {
    id: 'tiny-conv',
    feature: `tiny-conv-gap-${c2.out}`,
    dim: c2.out,
    inputShape: [imageSize, imageSize, 3],
    forward: (x) =>
      tf.tidy(() => {
        const h1 = tf.relu(tf.add(tf.conv2d(x as tf.Tensor4D, c1.filter, 1, 'same'), c1.bias));
        const h2 = tf.relu(tf.add(tf.conv2d(h1 as tf.Tensor4D, c2.filter, 2, 'same'), c2.bias));
        return tf.mean(h2, [1, 2]) as tf.Tensor2D;
      }),
    dispose: () => tf.dispose([c1.filter, c1.bias, c2.filter, c2.bias]),
  };
}
