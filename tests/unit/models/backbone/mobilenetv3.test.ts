/**
 * MobileNetV3 (src/lib/models/backbone/mobilenetv3.ts) against a PyTorch module in timm's layout
 * (tests/fixtures/backbone/, from scripts/fixtures/make_backbone_fixtures.py): a reduced arch_def
 * with every block kind and option of mobilenetv3_small_100 (ds + SE + ReLU at stride 2, ir without
 * SE, ir with the fractional expansion 3.67, ir + SE + hardswish with and without skip, cn), random
 * weights, SE biases and BN statistics. Eval pre-logits features within 1e-4 relative
 * (max |a − b| / max |b|) on cpu and wasm, with no tensor left behind. Also: the default config
 * gives exactly timm mobilenetv3_small_100's state-dict names and shapes (conv_head 1024×576×1×1),
 * timm's arch-string decoding and make_divisible rounding, and classifier.* is ignored.
 */
import { readFileSync } from 'node:fs';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  decodeBlock,
  makeDivisible,
  MOBILENETV3_SMALL_100,
  mobilenetV3Backbone,
  mobilenetV3StateShapes,
} from '../../../../src/lib/models/backbone/mobilenetv3.ts';
import { parseSafetensors } from '../../../../src/lib/weights/safetensors.ts';
import { writeSafetensors } from '../../weights/helpers.ts';
import { mnv3Config, mnv3Parity, readSafetensors, worst, type Mnv3Meta } from './backboneParity.ts';

const DIR = new URL('../../../fixtures/backbone/', import.meta.url);
const meta = JSON.parse(readFileSync(new URL('backbone.json', DIR), 'utf8')) as {
  mnv3: Mnv3Meta;
  mnv3_small_100_state: [string, number[]][];
};
const weights = readSafetensors(new URL('mnv3_reduced.safetensors', DIR));
const golden = readSafetensors(new URL('mnv3_reduced.golden.safetensors', DIR));
const TOL = 1e-4;

describe('MobileNetV3 layout', () => {
  beforeAll(async () => {
    expect(await tf.setBackend('cpu')).toBe(true);
  });

  it("gives mobilenetv3_small_100 exactly timm's state-dict names and shapes (classifier aside)", () => {
    const want = meta.mnv3_small_100_state.filter(([n]) => !n.startsWith('classifier.'));
    expect([...mobilenetV3StateShapes(MOBILENETV3_SMALL_100)]).toEqual(want);
    expect(mobilenetV3StateShapes().get('conv_head.weight')).toEqual([1024, 576, 1, 1]);
  });

  it("decodes timm's block strings and rounds as make_divisible", () => {
    expect(decodeBlock('ir_r2_k5_s1_e6_c40_se0.25')).toEqual({
      type: 'ir',
      repeat: 2,
      kernel: 5,
      stride: 1,
      expand: 6,
      out: 40,
      se: 0.25,
      act: 'hard_swish',
    });
    expect(decodeBlock('ds_r1_k3_s2_e1_c16_se0.25_nre')).toMatchObject({ type: 'ds', act: 'relu', se: 0.25 });
    expect(() => decodeBlock('er_r1_k3_s1_e4_c24')).toThrow(/type 'er'/);
    expect(() => decodeBlock('ir_r1_k3_s1_e4_c24_noskip')).toThrow(/option 'noskip'/);
    // 24·3.67 = 88.08 → 88; SE of 16 → 8 (min divisor); 120·0.25 = 30 → 32; 36 → 40; 4 → 8.
    expect([88.08, 4, 30, 36, 72, 144].map((v) => makeDivisible(v))).toEqual([88, 8, 32, 40, 72, 144]);
  });

  it('builds mobilenetv3_small_100 from a checkpoint of its shapes: feature mnv3s-prelogits-1024 at 224×224', async () => {
    const tensors = Object.fromEntries(
      [...mobilenetV3StateShapes(), ['classifier.weight', [1000, 1024]] as [string, number[]]].map(
        ([n, shape]) => [
          n,
          {
            dtype: 'F32' as const,
            shape,
            data: new Float32Array(shape.reduce((a, b) => a * b, 1)).fill(0.01),
          },
        ],
      ),
    );
    const net = mobilenetV3Backbone(parseSafetensors(writeSafetensors(tensors)), 224);
    expect([net.id, net.feature, net.dim, net.inputShape]).toEqual([
      'mnv3-small',
      'mnv3s-prelogits-1024',
      1024,
      [224, 224, 3],
    ]);
    const before = tf.memory().numTensors;
    const f = tf.tidy(() => net.forward(tf.ones([1, 224, 224, 3])));
    expect(f.shape).toEqual([1, 1024]);
    expect(Array.from(await f.data()).every(Number.isFinite)).toBe(true);
    f.dispose();
    expect(tf.memory().numTensors).toBe(before);
    net.dispose();
  });
});

describe.each(['cpu', 'wasm'] as const)('MobileNetV3 parity with PyTorch on %s', (backend) => {
  it('matches the eval pre-logits features', async () => {
    expect(await tf.setBackend(backend)).toBe(true);
    const before = tf.memory().numTensors;
    const errors = await mnv3Parity(weights, golden, mnv3Config(meta.mnv3));
    expect(errors['eval.features'], `worst: ${worst(errors)}`).toBeLessThanOrEqual(TOL);
    expect(tf.memory().numTensors).toBe(before);
  });
});
