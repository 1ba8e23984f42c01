/**
 * A deep fit's typed progress (what the live training view draws): one event every
 * `progressEvery` steps and at the last step, no more (the trainer reads its loss scalars back
 * only then), carrying step, total, the loss terms and the mask rate exactly as the trainer
 * reported them; the supervised baseline reports its one loss and no mask.
 */
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDeepEstimator } from '../../../../src/lib/models/deep/deepEstimator.ts';
import type { StepReport } from '../../../../src/lib/models/deep/trainer.ts';
import type { Progress } from '../../../../src/lib/models/estimator.ts';
import { trainingEventOf } from '../../../../src/lib/charts/trainingFeed.ts';
import { MT19937 } from '../../../../src/lib/protocol/rng.ts';
import type { Matrix } from '../../../../src/lib/types.ts';

const MICRO = { blocks: 1, dToken: 8, heads: 2, ffnHidden: 8 };
const d = 4,
  k = 3;

function data() {
  const rng = new MT19937(11);
  const mk = (rows: number): Matrix => ({
    rows,
    cols: d,
    data: Float32Array.from({ length: rows * d }, () => rng.normal()),
  });
  const yl = Int32Array.from({ length: 12 }, (_, i) => i % k);
  return { Xl: mk(12), yl, Xu: mk(30) };
}

beforeAll(async () => {
  await tf.setBackend('wasm');
});

describe('deep fit progress events', () => {
  it('FixMatch: step, total, supervised/unsupervised losses and the mask rate every N steps', async () => {
    const { Xl, yl, Xu } = data();
    const est = createDeepEstimator('fixmatch', { size: MICRO, steps: 10, batchL: 8, progressEvery: 4 });
    const events: Progress[] = [];
    const reports: StepReport[] = [];
    await est.fit(Xl, yl, Xu, k, {
      rng: new MT19937(0),
      onProgress: (p) => events.push(p),
      onDeepProgress: (r: StepReport) => reports.push(r),
    });
    est.dispose();
    expect(events.map((e) => e.step)).toEqual([4, 8, 10]);
    expect(reports.map((r) => r.step)).toEqual([4, 8, 10]);
    events.forEach((e, i) => {
      const r = reports[i];
      expect(e).toMatchObject({ fraction: r.step / 10, total: 10 });
      expect(e.losses).toEqual({ supervised: r.lossS, unsupervised: r.lossU });
      expect(e.scalars).toEqual({ 'mask rate': r.maskRate });
      expect(Number.isFinite(r.lossS) && r.lossS > 0).toBe(true);
      expect(r.maskRate).toBeGreaterThanOrEqual(0);
      expect(r.maskRate).toBeLessThanOrEqual(1);
      expect(trainingEventOf(e, 0)).not.toBeNull();
    });
  });

  it('the supervised baseline reports its one loss, no mask rate', async () => {
    const { Xl, yl, Xu } = data();
    const est = createDeepEstimator('ftt', { size: MICRO, steps: 6, batchL: 8, progressEvery: 3 });
    const events: Progress[] = [];
    await est.fit(Xl, yl, Xu, k, { rng: new MT19937(0), onProgress: (p) => events.push(p) });
    est.dispose();
    expect(events.map((e) => [e.step, e.total])).toEqual([
      [3, 6],
      [6, 6],
    ]);
    for (const e of events) {
      expect(Object.keys(e.losses!)).toEqual(['supervised']);
      expect(e.scalars).toBeUndefined();
      expect(e.message).toMatch(/^step \d\/6 loss \d/);
    }
  });
});
