/**
 * Classification heads over a frozen backbone's features (PROTOCOL-IMAGE-TEXT.md §7.1), the
 * networks the `features` and `classroom` tiers train:
 * - `mlpHead`: LAMDA's ResNet50Fc head, `bottleneck` Linear(d, 256) → ReLU → `fc` Linear(256, C),
 *   PyTorch's default init U(±1/√fan_in) for weights and biases;
 * - `robertaHead`: RobertaClassificationHead, dropout → `dense` Linear(d, d) → tanh → dropout →
 *   `out_proj` Linear(d, C), weights N(0, 0.02), zero biases; its dropouts act in training.
 * Parameter names are the checkpoints' (decay group: every name without `bias`, §7.2); Linear
 * weights are stored [in, out]. Initial values come from MT19937(initSeed) in spec order.
 */
import * as tf from '@tensorflow/tfjs';
import { dropout as fusedDropout } from './fused.ts';
import { initParams, type ParamSpec } from './ftTransformer.ts';
import type { DeepNetwork, NetworkForwardOptions } from './network.ts';

function linear(
  name: string,
  fanIn: number,
  fanOut: number,
  init: 'torch-default' | 'normal-0.02',
): ParamSpec[] {
  const bound = 1 / Math.sqrt(fanIn);
  return init === 'torch-default'
    ? [
        { name: `${name}.weight`, shape: [fanIn, fanOut], init: 'uniform', bound, decay: true },
        { name: `${name}.bias`, shape: [fanOut], init: 'uniform', bound, decay: false },
      ]
    : [
        { name: `${name}.weight`, shape: [fanIn, fanOut], init: 'normal', std: 0.02, decay: true },
        { name: `${name}.bias`, shape: [fanOut], init: 'zeros', decay: false },
      ];
}

/** Inverted dropout with the trainer's seeded masks (training forwards only; fused.ts). */
function dropout(x: tf.Tensor2D, rate: number, seed: number): tf.Tensor2D {
  return fusedDropout(x, { rate, seed }) as tf.Tensor2D;
}

/** `bottleneck` d → hidden, ReLU, `fc` hidden → classes (LAMDA ResNet50Fc's head; hidden 256). */
export function mlpHead(inputDim: number, classes: number, hidden = 256): DeepNetwork {
  const specs = [
    ...linear('bottleneck', inputDim, hidden, 'torch-default'),
    ...linear('fc', hidden, classes, 'torch-default'),
  ];
  return {
    id: `head-mlp-${inputDim}-${hidden}-${classes}`,
    inputDim,
    classes,
    specs: () => specs,
    init: (seed) => initParams(specs, seed),
    forward: (P, x) =>
      tf.tidy(() => {
        const h = tf.relu(tf.add(tf.matMul(x, P['bottleneck.weight'] as tf.Tensor2D), P['bottleneck.bias']));
        return tf.add(
          tf.matMul(h as tf.Tensor2D, P['fc.weight'] as tf.Tensor2D),
          P['fc.bias'],
        ) as tf.Tensor2D;
      }),
  };
}

/** RobertaClassificationHead over the `<s>` feature (or MiniLM's mean): dense d → d, tanh, out_proj d → C. */
export function robertaHead(inputDim: number, classes: number, dropoutRate = 0.1): DeepNetwork {
  const specs = [
    ...linear('dense', inputDim, inputDim, 'normal-0.02'),
    ...linear('out_proj', inputDim, classes, 'normal-0.02'),
  ];
  return {
    id: `head-roberta-${inputDim}-${classes}`,
    inputDim,
    classes,
    specs: () => specs,
    init: (seed) => initParams(specs, seed),
    forward: (P, x, opts: NetworkForwardOptions = {}) =>
      tf.tidy(() => {
        const d = opts.dropout;
        const rate = d ? d.ffn || dropoutRate : 0;
        let h = d ? dropout(x, rate, d.seed) : x;
        h = tf.tanh(tf.add(tf.matMul(h, P['dense.weight'] as tf.Tensor2D), P['dense.bias'])) as tf.Tensor2D;
        if (d) h = dropout(h, rate, (d.seed ^ 0x5bd1e995) >>> 0);
        return tf.add(tf.matMul(h, P['out_proj.weight'] as tf.Tensor2D), P['out_proj.bias']) as tf.Tensor2D;
      }),
  };
}
