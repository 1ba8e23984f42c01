/**
 * What the live training view relies on (docs/ARCHITECTURE.md, "Live training view"): a deep
 * fit reports typed progress every `progressEvery` steps and at the last step, no more often (the
 * trainer reads its loss scalars back only then), with step, total, the loss terms and the mask
 * rate exactly as the trainer computed them; each such event is a training event for the page.
 */
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import { trainingEventOf } from '../../../../src/lib/charts/trainingFeed.ts';
import type { DeepFitContext } from '../../../../src/lib/models/deep/context.ts';
import { createDeepEstimator } from '../../../../src/lib/models/deep/deepEstimator.ts';
import type { StepReport } from '../../../../src/lib/models/deep/trainer.ts';
import type { Progress } from '../../../../src/lib/models/estimator.ts';
import { MT19937 } from '../../../../src/lib/protocol/rng.ts';
import { cyclicLabels, normalRows } from '../../../../scripts/bench/stepFixture.ts';

const d = 4,
  k = 3;

function data() {
  const rng = new MT19937(11);
  const mk = (rows: number) => normalRows(rng, rows, d);
  const yl = cyclicLabels(12, k);
  return { Xl: mk(12), yl, Xu: mk(30) };
}

beforeAll(async () => {
  await tf.setBackend('wasm');
});

describe('deep fit progress → training events', () => {
  it('FixMatch: one event per progressEvery steps and at the end, with the trainer’s losses and mask rate', async () => {
    const { Xl, yl, Xu } = data();
    const est = createDeepEstimator('fixmatch', { size: 'tiny', steps: 10, batchL: 4, progressEvery: 4 });
    const events: Progress[] = [];
    const reports: StepReport[] = [];
    const ctx: DeepFitContext = {
      rng: new MT19937(0),
      onProgress: (p) => events.push(p),
      onDeepProgress: (r) => reports.push(r),
    };
    await est.fit(Xl, yl, Xu, k, ctx);
    est.dispose();
    expect(reports.map((r) => r.step)).toEqual([4, 8, 10]);
    expect(events.map((e) => e.step)).toEqual([4, 8, 10]);
    events.forEach((e, i) => {
      const r = reports[i];
      const te = trainingEventOf(e, 1000 + i)!;
      expect(te).not.toBeNull();
      expect(te).toMatchObject({ step: r.step, total: 10, ms: 1000 + i });
      expect(te.losses).toMatchObject({ supervised: r.lossS, unsupervised: r.lossU });
      expect(te.scalars).toMatchObject({ maskRate: r.maskRate });
      expect(Number.isFinite(r.lossS) && r.lossS > 0).toBe(true);
      expect(r.maskRate).toBeGreaterThanOrEqual(0);
      expect(r.maskRate).toBeLessThanOrEqual(1);
    });
  });

  it('FT-Transformer (supervised only): no unsupervised loss and no mask rate to draw as flat zero lines', async () => {
    const { Xl, yl, Xu } = data();
    const est = createDeepEstimator('ftt', { size: 'tiny', steps: 4, batchL: 4, progressEvery: 2 });
    const events: Progress[] = [];
    await est.fit(Xl, yl, Xu, k, { rng: new MT19937(0), onProgress: (p) => events.push(p) });
    est.dispose();
    expect(events.map((e) => e.step)).toEqual([2, 4]);
    for (const e of events) {
      expect(Object.keys(e.losses ?? {})).toEqual(['supervised', 'total']);
      expect(Object.keys(e.scalars ?? {})).toEqual(['lr']);
    }
  });
});
