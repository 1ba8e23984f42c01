/**
 * Child-process probe for finetuneWebgpu.test.ts: two finetune steps (FixMatch's joint forward,
 * MeanTeacher's deferred teacher statistics) of the reduced torchvision-layout ResNet on fresh CIFAR
 * views, on the backend named by argv[2] through the CLI's initNodeBackend (webgpu: Dawn for Node).
 * Prints one JSON object: per method the weights, shadow and BatchNorm statistics after the steps,
 * and the tensors left behind.
 */
import { readFileSync } from 'node:fs';
import * as tf from '@tensorflow/tfjs';
import { initNodeBackend, type NodeBackend } from '../../../../src/cli/tfNode.ts';
import { labeledPixelStats } from '../../../../src/lib/augment/image/index.ts';
import { resnetConfigOf, resnetNetwork } from '../../../../src/lib/models/backbone/resnet.ts';
import { createMethod } from '../../../../src/lib/models/deep/methods/index.ts';
import { DeepTrainer } from '../../../../src/lib/models/deep/trainer.ts';
import { MT19937 } from '../../../../src/lib/protocol/rng.ts';
import { cifarRenderer, finetuneViews } from '../../../../src/lib/suite/finetuneViews.ts';
import { parseSafetensors } from '../../../../src/lib/weights/safetensors.ts';
import { cyclicLabels, fixedStreams } from '../../../../scripts/bench/stepFixture.ts';
import { sgdHeadConfig } from '../../helpers/sgdHeadConfig.ts';

const backend = await initNodeBackend(process.argv[2] as NodeBackend);
const weights = parseSafetensors(
  readFileSync(new URL('../../../fixtures/backbone/resnet_reduced.safetensors', import.meta.url)),
);
const rng = new MT19937(11);
const nL = 12,
  nU = 24;
const images = Array.from({ length: nL + nU }, () =>
  Uint8Array.from({ length: 32 * 32 * 3 }, () => rng.randint(256)),
);
const stats = labeledPixelStats(images.slice(0, nL).map((rgb) => ({ rgb, width: 32, height: 32 })));
const views = finetuneViews({
  nL,
  nU,
  dim: 32 * 32 * 3,
  locate: (set, i) => ({ file: 'train', row: set === 'L' ? i : nL + i, variant: 'colour' }),
  render: cifarRenderer((_f, row) => images[row], 32, stats),
});
const before = tf.memory().numTensors;
const out: Record<string, unknown> = { backend };
for (const id of ['fixmatch', 'meanteacher'] as const) {
  const net = resnetNetwork(weights, {
    config: resnetConfigOf(weights),
    classes: 5,
    imageSize: 32,
    headHidden: 16,
  });
  const t = new DeepTrainer(
    sgdHeadConfig(net, 2, { batchL: 4, emaDecay: 0.9, checkpointEvery: 0 }),
    createMethod(id, 'rsb', { mu: 1, lambdaU: 1 }),
    { yl: cyclicLabels(nL, 5), k: 5, views },
    fixedStreams(),
  );
  await t.run();
  const flat = (o: Record<string, Float32Array>) => Object.values(o).flatMap((a) => Array.from(a));
  out[id] = {
    params: flat(await t.weights('params')),
    shadow: flat(await t.weights('shadow')),
    buffers: flat(await net.readBuffers()),
  };
  t.dispose();
  net.dispose();
}
out.leaked = tf.memory().numTensors - before;
process.stdout.write(JSON.stringify(out));
