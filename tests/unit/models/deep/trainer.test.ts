/**
 * The deep trainer's behaviour beyond numerics (those are in parity.test.ts): flat memory over
 * 200 steps, mid-fit resume to identical weights, dropout rate and scaling, the schedules, the
 * quirks' truncation, and the estimator wrapper (fit / predictProba / abort / leaks).
 */
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import { trainerConfig } from '../../../../src/lib/models/deep/config.ts';
import { createDeepEstimator } from '../../../../src/lib/models/deep/deepEstimator.ts';
import { dropoutMask } from '../../../../src/lib/models/deep/dropout.ts';
import {
  countParams,
  FT_SIZES,
  forward,
  initWeights,
  paramSpecs,
  type FTSize,
} from '../../../../src/lib/models/deep/ftTransformer.ts';
import { softCeRows } from '../../../../src/lib/models/deep/losses.ts';
import { createMethod, type DeepMethodId } from '../../../../src/lib/models/deep/methods/index.ts';
import { DeepTrainer, lrAt, rampAt, type DeepCheckpoint } from '../../../../src/lib/models/deep/trainer.ts';
import { AbortError, NotFittedError } from '../../../../src/lib/models/estimator.ts';
import { MT19937 } from '../../../../src/lib/protocol/rng.ts';
import { cyclicLabels, fixedStreams, normalRows } from '../../../../scripts/bench/stepFixture.ts';

const MICRO: FTSize = { blocks: 2, dToken: 8, heads: 2, ffnHidden: 8 };
const d = 4,
  k = 3;

function data(seed: number) {
  const rng = new MT19937(seed);
  const mk = (rows: number) => normalRows(rng, rows, d);
  const Xl = mk(12),
    Xu = mk(40);
  const yl = cyclicLabels(12, k);
  for (let i = 0; i < 12; i++) Xl.data[i * d] += 2 * yl[i];
  return { Xl, yl, Xu, k };
}

function trainer(id: DeepMethodId, steps: number, extra: Partial<Parameters<typeof trainerConfig>[2]> = {}) {
  const cfg = trainerConfig(d, k, { size: MICRO, steps, batchL: 8, progressEvery: 10, ...extra });
  const streams = fixedStreams();
  return new DeepTrainer(cfg, createMethod(id), data(7), streams);
}

beforeAll(async () => {
  await tf.setBackend('wasm');
});

describe('FT-Transformer', () => {
  it('has ≈ 2.4 M parameters at rsb size (§7.3) and a deterministic init', () => {
    expect(countParams({ ...FT_SIZES.rsb, features: 16, classes: 26 })).toBe(2_393_194);
    expect(countParams({ ...FT_SIZES.rsb, features: 54, classes: 7 })).toBe(2_447_895);
    const s = { ...MICRO, features: d, classes: k };
    const a = initWeights(s, 0),
      b = initWeights(s, 0),
      c = initWeights(s, 1);
    expect(a.get('b1.W1')).toEqual(b.get('b1.W1'));
    expect(a.get('b1.W1')).not.toEqual(c.get('b1.W1'));
    expect(a.get('b1.bq')!.every((x) => x === 0)).toBe(true);
    expect(a.get('b1.ln0.g')!.every((x) => x === 1)).toBe(true);
    expect(paramSpecs(s).some((p) => p.name === 'b0.ln0.g')).toBe(false); // block 0 has no LN0
    const bound = 1 / Math.sqrt(d + 1);
    expect(Math.max(...a.get('b0.Ek')!.map(Math.abs))).toBeLessThanOrEqual(bound);
  });

  it('dropout: rate and inverted scaling; training mode differs from eval, rates 0 equal it', async () => {
    const m = dropoutMask(200_000, 0.2, 42);
    const zeros = m.filter((x) => x === 0).length / m.length;
    expect(zeros).toBeGreaterThan(0.197);
    expect(zeros).toBeLessThan(0.203);
    expect(new Set(m)).toEqual(new Set([0, Math.fround(1 / 0.8)]));
    expect(dropoutMask(1000, 0.1, 3)).toEqual(dropoutMask(1000, 0.1, 3));
    expect(dropoutMask(1000, 0.1, 3)).not.toEqual(dropoutMask(1000, 0.1, 4));
    const mean = m.reduce((s, x) => s + x, 0) / m.length;
    expect(Math.abs(mean - 1)).toBeLessThan(0.01); // E[mask] = 1: activations keep their scale
    const s = { ...MICRO, features: d, classes: k };
    const w = initWeights(s, 0);
    const P = Object.fromEntries(paramSpecs(s).map((p) => [p.name, tf.tensor(w.get(p.name)!, p.shape)]));
    const x = tf.tensor2d(data(1).Xu.data, [40, d]);
    const [ev, tr0, tr] = [
      null,
      { attention: 0, ffn: 0, seed: 1 },
      { attention: 0.2, ffn: 0.1, seed: 1 },
    ].map((dropout) => tf.tidy(() => forward(s, P, x, { dropout })).arraySync() as number[][]);
    expect(tr0).toEqual(ev);
    expect(tr).not.toEqual(ev);
    tf.dispose([x, ...Object.values(P)]);
  });
});

describe('schedules and losses', () => {
  it('r(it) = clamp(it/(w·S), 0, 1); cosine 7/16 for readme; constant for rsb', () => {
    expect(rampAt(0, 1000, 0.4)).toBe(0);
    expect(rampAt(200, 1000, 0.4)).toBe(0.5);
    expect(rampAt(999, 1000, 0.4)).toBe(1);
    expect(rampAt(0, 1000, null)).toBe(1);
    const readme = trainerConfig(d, k, { mode: 'readme' });
    expect(readme.steps).toBe(10_000);
    expect(lrAt(readme, 0)).toBe(5e-4);
    expect(lrAt(readme, 5000)).toBeCloseTo(5e-4 * Math.cos((Math.PI * 7) / 32), 15);
    expect(lrAt(trainerConfig(d, k), 700)).toBe(1e-4);
  });

  it("quirks 'rsb' truncates soft targets: only entries exactly 1.0 survive", async () => {
    const logits = tf.tensor2d([
      [1, 2, 3],
      [0, 0, 5],
    ]);
    const target = tf.tensor2d([
      [0.3, 0.7, 0],
      [0, 0, 1],
    ]);
    const rsb = await softCeRows(logits, target, 'rsb').array();
    const fixed = await softCeRows(logits, target, 'fixed').array();
    expect(Math.abs(rsb[0])).toBe(0);
    const ls = (await tf.logSoftmax(logits).array()) as number[][];
    expect(rsb[1]).toBeCloseTo(-ls[1][2], 6);
    expect(fixed[0]).toBeCloseTo(-(0.3 * ls[0][0] + 0.7 * ls[0][1]), 6);
    tf.dispose([logits, target]);
  });
});

describe('trainer', () => {
  it.each(['fixmatch', 'flexmatch', 'softmatch'] as DeepMethodId[])(
    '%s: memory stays flat over 200 steps (tensors and bytes)',
    async (id) => {
      const t = trainer(id, 200, { batchL: 4 });
      const seen: { step: number; n: number; bytes: number }[] = [];
      await t.run({
        onProgress: (r) => {
          const m = tf.memory();
          seen.push({ step: r.step, n: m.numTensors, bytes: m.numBytes });
        },
      });
      expect(seen.length).toBe(20);
      const first = seen[1],
        last = seen[seen.length - 1];
      expect(last.n).toBe(first.n);
      expect(last.bytes).toBeLessThanOrEqual(first.bytes);
      t.dispose();
    },
  );

  it.each(['flexmatch', 'ict', 'softmatch'] as DeepMethodId[])(
    '%s: a fit resumed from a mid-way checkpoint ends with identical weights and shadow',
    async (id) => {
      const full = trainer(id, 24, { checkpointEvery: 8 });
      const ckpts: DeepCheckpoint[] = [];
      await full.run({
        onCheckpoint: (c) => {
          ckpts.push(c);
        },
      });
      expect(ckpts.map((c) => c.step)).toEqual([8, 16]);
      const want = [await full.weights('params'), await full.weights('shadow')];
      full.dispose();

      const resumed = trainer(id, 24);
      resumed.restore(ckpts[0]);
      expect(resumed.currentStep).toBe(8);
      await resumed.run();
      expect(await resumed.weights('params')).toEqual(want[0]);
      expect(await resumed.weights('shadow')).toEqual(want[1]);
      // A fresh fit without the checkpoint would not match: the state mattered.
      const fresh = trainer(id, 16);
      await fresh.run();
      expect(await fresh.weights('params')).not.toEqual(want[0]);
      resumed.dispose();
      fresh.dispose();
    },
  );
});

describe('createDeepEstimator', () => {
  it('fits, predicts probabilities with the shadow, reports, aborts, and frees every tensor', async () => {
    const before = tf.memory().numTensors;
    const { Xl, yl, Xu } = data(3);
    const est = createDeepEstimator('fixmatch', { size: MICRO, steps: 6, batchL: 8, progressEvery: 2 });
    await expect(est.predictProba(Xl)).rejects.toBeInstanceOf(NotFittedError);
    const fractions: number[] = [];
    await est.fit(Xl, yl, Xu, k, { rng: new MT19937(0), onProgress: (p) => fractions.push(p.fraction) });
    expect(fractions).toEqual([2 / 6, 4 / 6, 1]);
    const p = await est.predictProba(Xu);
    expect(p.length).toBe(40 * k);
    for (let i = 0; i < 40; i++) expect(p[i * k] + p[i * k + 1] + p[i * k + 2]).toBeCloseTo(1, 5);
    expect(est.info()).toMatchObject({
      steps: 6,
      size: 'custom',
      init_seed: 0,
      quirks: 'rsb',
      backend: 'wasm',
    });
    // attention's batched products ran on the SIMD kernel (batchMatMul.ts), not tfjs's loop
    expect(est.info().wasmSimdProducts).toBeGreaterThan(0);
    expect(est.hyper).toMatchObject({
      optimizer: 'adam',
      lr: 1e-4,
      mu: 7,
      threshold: 0.95,
      temperature: 0.5,
      blocks: 2,
    });

    const ac = new AbortController();
    const est2 = createDeepEstimator('pimodel', { size: MICRO, steps: 50, batchL: 8, progressEvery: 1 });
    const run = est2.fit(Xl, yl, Xu, k, {
      rng: new MT19937(0),
      signal: ac.signal,
      onProgress: (q) => {
        if (q.fraction >= 0.1) ac.abort();
      },
    });
    await expect(run).rejects.toBeInstanceOf(AbortError);
    est.dispose();
    est2.dispose();
    expect(tf.memory().numTensors).toBe(before);
  });
});
