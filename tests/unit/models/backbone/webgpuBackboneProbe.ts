/**
 * Child-process probe for webgpuBackbone.test.ts: the backbone parity checks of backboneParity.ts
 * (the reduced ResNet and MobileNetV3-small fixtures of tests/fixtures/backbone) on the backend named
 * by argv[2] through the CLI's initNodeBackend (webgpu: Dawn for Node). Prints one JSON object:
 * the backend tfjs ended on, the errors per check, and the tensors left behind.
 */
import { readFileSync } from 'node:fs';
import * as tf from '@tensorflow/tfjs';
import { initNodeBackend, type NodeBackend } from '../../../../src/cli/tfNode.ts';
import {
  mnv3Config,
  mnv3Parity,
  readSafetensors,
  resnetParity,
  type Mnv3Meta,
  type ResNetMeta,
} from './backboneParity.ts';

const DIR = new URL('../../../fixtures/backbone/', import.meta.url);
const meta = JSON.parse(readFileSync(new URL('backbone.json', DIR), 'utf8')) as {
  resnet: ResNetMeta;
  mnv3: Mnv3Meta;
};

const backend = await initNodeBackend(process.argv[2] as NodeBackend);
const before = tf.memory().numTensors;
const t0 = performance.now();
const resnet = await resnetParity(
  readSafetensors(new URL('resnet_reduced.safetensors', DIR)),
  readSafetensors(new URL('resnet_reduced.golden.safetensors', DIR)),
  meta.resnet,
);
const t1 = performance.now();
const mnv3 = await mnv3Parity(
  readSafetensors(new URL('mnv3_reduced.safetensors', DIR)),
  readSafetensors(new URL('mnv3_reduced.golden.safetensors', DIR)),
  mnv3Config(meta.mnv3),
);
const t2 = performance.now();
process.stdout.write(
  JSON.stringify({
    backend,
    tfBackend: tf.getBackend(),
    resnet,
    mnv3,
    leaked: tf.memory().numTensors - before,
    seconds: { resnet: (t1 - t0) / 1000, mnv3: (t2 - t1) / 1000 },
  }),
);
process.exit(0);
