/**
 * Child-process probe for webgpuNode.test.ts: starts tfjs on `argv[2]` through the CLI's own
 * initNodeBackend and prints a few results of the kernels the models use (matmul, softmax,
 * cross-entropy gradients, a reduction) as JSON.
 */
import * as tf from '@tensorflow/tfjs';
import { MT19937 } from '../../../src/lib/protocol/rng.ts';
import { initNodeBackend, nodeBackendInfo, type NodeBackend } from '../../../src/cli/tfNode.ts';

const backend = await initNodeBackend(process.argv[2] as NodeBackend);
const rng = new MT19937(7);
const values = (n: number) => Float32Array.from({ length: n }, () => rng.random() * 2 - 1);
const x = tf.tensor2d(values(64 * 16), [64, 16]);
const w = tf.variable(tf.tensor2d(values(16 * 5), [16, 5]));
const labels = tf.oneHot(
  tf.tensor1d(
    Array.from({ length: 64 }, (_, i) => i % 5),
    'int32',
  ),
  5,
);
const loss = () => tf.losses.softmaxCrossEntropy(labels, tf.matMul(x, w)) as tf.Scalar;
const { value, grads } = tf.variableGrads(loss);
const probs = tf.softmax(tf.matMul(x, w));
const out = {
  backend,
  info: nodeBackendInfo(),
  tfBackend: tf.getBackend(),
  loss: (await value.data())[0],
  grad: Array.from(await grads[w.name].data()),
  probs: Array.from(await probs.data()),
  rowSums: Array.from(await probs.sum(1).data()),
};
process.stdout.write(JSON.stringify(out));
process.exit(0);
