/**
 * The trainer with a network that keeps BatchNorm running statistics (the finetune tier, §7.3),
 * on the reduced torchvision-layout ResNet of tests/fixtures/backbone and fresh CIFAR views
 * (suite/finetuneViews.ts). The BatchNorm arithmetic itself is PyTorch-checked in
 * tests/unit/models/backbone/resnet.test.ts; here the oracle is that network driven by hand in
 * PyTorch's order:
 * - FixMatch: one training forward of concat(L_weak, U_weak, U_strong) updates the statistics;
 * - PseudoLabel: the labeled forward does, the unlabeled one is undone (Bn_Controller);
 * - MeanTeacher: the labeled forward, then the shadow's teacher forward (training mode), in that
 *   order, though the trainer runs the teacher first; the current weights' forward is undone;
 * - a fit checkpointed after 2 of 4 steps and resumed on a fresh network ends bit for bit where an
 *   uninterrupted one does (weights, shadow, statistics); a checkpoint without statistics is refused;
 * - prediction (eval mode) reads the statistics without changing them; views are reproducible.
 */
import { readFileSync } from 'node:fs';
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { labeledPixelStats } from '../../../../src/lib/augment/image/index.ts';
import {
  resnetConfigOf,
  resnetNetwork,
  type ResNetNetwork,
} from '../../../../src/lib/models/backbone/resnet.ts';
import { createMethod, type DeepMethodId } from '../../../../src/lib/models/deep/methods/index.ts';
import {
  DeepTrainer,
  type DeepCheckpoint,
  type TrainerConfig,
} from '../../../../src/lib/models/deep/trainer.ts';
import { MT19937 } from '../../../../src/lib/protocol/rng.ts';
import { cifarRenderer, finetuneViews } from '../../../../src/lib/suite/finetuneViews.ts';
import { parseSafetensors } from '../../../../src/lib/weights/safetensors.ts';
import { cyclicLabels, fixedStreams } from '../../../../scripts/bench/stepFixture.ts';
import { sgdHeadConfig } from '../../helpers/sgdHeadConfig.ts';

const weights = parseSafetensors(
  readFileSync(new URL('../../../fixtures/backbone/resnet_reduced.safetensors', import.meta.url)),
);
const config = resnetConfigOf(weights);
const K = 5;
const nL = 20,
  nU = 40;
const rng = new MT19937(11);
const images = Array.from({ length: nL + nU }, () =>
  Uint8Array.from({ length: 32 * 32 * 3 }, () => rng.randint(256)),
);
const yl = cyclicLabels(nL, K);
const stats = labeledPixelStats(images.slice(0, nL).map((rgb) => ({ rgb, width: 32, height: 32 })));
const views = finetuneViews({
  nL,
  nU,
  dim: 32 * 32 * 3,
  locate: (set, i) => ({ file: 'train', row: set === 'L' ? i : nL + i, variant: 'colour' }),
  render: cifarRenderer((_file, row) => images[row], 32, stats),
});

const net = () => resnetNetwork(weights, { config, classes: K, imageSize: 32, headHidden: 16 });
const method = (id: DeepMethodId) => createMethod(id, 'rsb', id === 'ftt' ? {} : { mu: 1, lambdaU: 1 });
const cfg = (network: ResNetNetwork, steps: number): TrainerConfig =>
  sgdHeadConfig(network, steps, { batchL: 4, emaDecay: 0.9, checkpointEvery: 2 });
const trainer = (id: DeepMethodId, network: ResNetNetwork, steps = 4) =>
  new DeepTrainer(cfg(network, steps), method(id), { yl, k: K, views }, fixedStreams());

/** max |a − b| / max |b| over every buffer. */
function relDiff(a: Record<string, Float32Array>, b: Record<string, Float32Array>): number {
  let worst = 0;
  for (const k of Object.keys(b)) {
    let num = 0,
      den = 1e-12;
    for (let i = 0; i < b[k].length; i++) {
      num = Math.max(num, Math.abs(a[k][i] - b[k][i]));
      den = Math.max(den, Math.abs(b[k][i]));
    }
    worst = Math.max(worst, num / den);
  }
  return worst;
}

beforeAll(async () => {
  await tf.setBackend('cpu');
});

describe('DeepTrainer with BatchNorm running statistics (finetune)', () => {
  /** Drives a reference network by hand: `forwards` lists the inputs of each training forward, in order. */
  async function compare(id: DeepMethodId, forwards: (xl: tf.Tensor2D, u: tf.Tensor2D[]) => tf.Tensor2D[]) {
    const n = net();
    const t = trainer(id, n);
    const m = method(id);
    const draw = {
      idxL: Int32Array.from([0, 3, 5, 9]),
      idxU: Int32Array.from([1, 2, 30, 39]),
      noise: views.draw(4, 4, m.labeledView, m.views, new MT19937(9)),
    };
    const before = tf.memory().numTensors;
    t.trainStep(0, draw);
    expect(tf.memory().numTensors).toBe(before);
    const ref = net();
    const P0 = tf.tidy(() => {
      const init = ref.init(0);
      return Object.fromEntries(ref.specs().map((s) => [s.name, tf.tensor(init.get(s.name)!, s.shape)]));
    });
    const xl = views.labeled(draw.idxL, draw.noise[0]);
    const u = m.views.map((v, j) => views.unlabeled(draw.idxU, v, draw.noise[1 + j]));
    tf.tidy(() => {
      for (const x of forwards(xl, u)) ref.forward(P0, x, { training: true });
    });
    const got = await n.readBuffers();
    const want = await ref.readBuffers();
    const untouched = await net().readBuffers();
    tf.dispose([xl, ...u, ...Object.values(P0)]);
    t.dispose();
    n.dispose();
    ref.dispose();
    return { got, want, untouched };
  }

  it('FixMatch: the joint forward of L, U_weak and U_strong updates the statistics once, over 3B rows', async () => {
    const { got, want, untouched } = await compare('fixmatch', (xl, u) => [tf.concat([xl, ...u], 0)]);
    expect(relDiff(got, want)).toBeLessThan(1e-6);
    expect(relDiff(got, untouched)).toBeGreaterThan(1e-3);
  });

  it('PseudoLabel: only the labeled forward updates the statistics (the unlabeled one is undone)', async () => {
    const { got, want, untouched } = await compare('pseudolabel', (xl) => [xl]);
    expect(relDiff(got, want)).toBeLessThan(1e-6);
    expect(relDiff(got, untouched)).toBeGreaterThan(1e-3);
  });

  it("MeanTeacher: the labeled forward, then the shadow's training-mode teacher forward, in PyTorch's order", async () => {
    // At step 0 the shadow equals the weights, so the teacher forward is the network on U_weak[0].
    const { got, want } = await compare('meanteacher', (xl, u) => [xl, u[0]]);
    expect(relDiff(got, want)).toBeLessThan(1e-5);
    // The other order gives other statistics: the test can tell them apart.
    const swapped = await compare('meanteacher', (xl, u) => [u[0], xl]);
    expect(relDiff(got, swapped.want)).toBeGreaterThan(1e-4);
  });

  it('resumes a checkpointed fit on a fresh network to the same weights, shadow and statistics', async () => {
    for (const id of ['fixmatch', 'meanteacher'] as const) {
      const a = net();
      const ta = trainer(id, a);
      await ta.run();
      const full = {
        params: await ta.weights('params'),
        shadow: await ta.weights('shadow'),
        bn: await a.readBuffers(),
      };
      ta.dispose();
      a.dispose();

      const b = net();
      const tb = trainer(id, b);
      let saved: DeepCheckpoint | null = null;
      await tb.run({ onCheckpoint: (c) => void (saved ??= c) }, 2);
      tb.dispose();
      b.dispose();
      expect(saved!.step).toBe(2);
      expect(Object.keys(saved!.buffers ?? {})).toEqual([...net().buffers.keys()]);

      const c = net();
      const tc = trainer(id, c);
      tc.restore(saved!);
      await tc.run();
      expect(await tc.weights('params'), id).toEqual(full.params);
      expect(await tc.weights('shadow'), id).toEqual(full.shadow);
      expect(await c.readBuffers(), id).toEqual(full.bn);
      const { buffers: _dropped, ...withoutStats } = saved!;
      expect(() => tc.restore(withoutStats as DeepCheckpoint)).toThrow(/no running statistics/);
      tc.dispose();
      c.dispose();
    }
  });

  it('predicts in eval mode without touching the statistics; views are reproducible per seed', async () => {
    const n = net();
    const t = trainer('ftt', n, 2);
    await t.run();
    const before = await n.readBuffers();
    const render = cifarRenderer((_f, row) => images[row], 32, stats);
    const logits = await t.predictRows(
      7,
      (r0, r1) => {
        const out = new Float32Array((r1 - r0) * 3072);
        for (let r = r0; r < r1; r++)
          out.set(render('train', nL + r, 'colour', 'clean', null), (r - r0) * 3072);
        return out;
      },
      3,
    );
    expect(logits).toHaveLength(7 * K);
    expect(logits.every(Number.isFinite)).toBe(true);
    expect(await n.readBuffers()).toEqual(before);
    t.dispose();
    n.dispose();

    // The feature panel's grey rows (§5.3): R copied into G and B before the labeled statistics.
    const grey = render('train', 0, 'grey', 'clean', null);
    for (let p = 0; p < 32 * 32; p += 97) {
      const level = (c: number) => (grey[3 * p + c] * stats.std[c] + stats.mean[c]) * 255;
      expect(level(1)).toBeCloseTo(images[0][3 * p], 3);
      expect(level(2)).toBeCloseTo(images[0][3 * p], 3);
    }

    const seeds = views.draw(3, 3, 'weak', ['weak', 'strong'], new MT19937(5));
    const again = views.draw(3, 3, 'weak', ['weak', 'strong'], new MT19937(5));
    expect(seeds).toEqual(again);
    const idx = Int32Array.from([0, 1, 2]);
    const [w1, w2, s1] = [
      views.unlabeled(idx, 'weak', seeds[1]),
      views.unlabeled(idx, 'weak', again[1]),
      views.unlabeled(idx, 'strong', seeds[2]),
    ];
    expect(await w1.data()).toEqual(await w2.data());
    expect(await w1.data()).not.toEqual(await s1.data());
    tf.dispose([w1, w2, s1]);
  });
});
