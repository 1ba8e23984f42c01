/**
 * Issue 21, item 10: a deep fit shows progress from its first step. The trainer reports its losses
 * every 25 steps, so on a slow backend the page showed 0 % (and the watchdog heard nothing) for
 * minutes; each step now moves the fit's fraction and says its step.
 */
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { describe, expect, it } from 'vitest';
import { getAlgorithm } from '../../../src/lib/models/catalogue.ts';
import { expandPlan, type RunPlanSpec } from '../../../src/lib/suite/plan.ts';
import { customPlan } from '../../../src/lib/suite/presets.ts';
import { runCell, stepTicker, type RunCellContext } from '../../../src/lib/suite/runCell.ts';
import { loadEmbedded } from '../helpers/datasets.ts';

const iris = await loadEmbedded('iris');
// The backend the CLI and the page's workers train on; without it tfjs falls back to its pure-JS
// cpu kernels, the same steps about 15 times slower.
await tf.setBackend('wasm');

describe('progress of a deep fit', () => {
  it('is reported from the first step, before the trainer’s first loss report', async () => {
    // 200 steps: the trainer reports its losses every 5 (catalogue progressEveryFor).
    const steps = 200;
    const plan: RunPlanSpec = {
      ...customPlan({
        datasets: ['iris'],
        settings: ['label'],
        labels: [5],
        algorithms: ['ftt'],
        seeds: [0],
        tIndices: [0],
      }),
      modelOptions: { ftt: { size: 'tiny', steps, batchL: 8 } },
    };
    const [cell] = expandPlan(plan, () => false);
    const seen: { fraction: number; message?: string; typed: boolean }[] = [];
    const ctx: RunCellContext = {
      now: () => 0,
      isoTime: () => '2026-11-26T00:00:00.000Z',
      env: {
        backend: 'wasm',
        float_precision: 'float32',
        tfjs_version: 'x',
        app_version: 'x',
        device: 'test',
      },
      onProgress: (fraction, message, event) => seen.push({ fraction, message, typed: Boolean(event) }),
    };
    const result = await runCell(iris, 'embedded', cell, plan, getAlgorithm('ftt'), ctx);
    expect(result.outcome.status).toBe('ok');
    expect(seen[0]).toEqual({ fraction: 1 / steps, message: `step 1 of ${steps}`, typed: false });
    const firstTyped = seen.findIndex((s) => s.typed);
    expect(firstTyped).toBe(4); // steps 1–4 were shown before the report at step 5
    expect(seen.slice(0, 4).map((s) => s.message)).toEqual([1, 2, 3, 4].map((i) => `step ${i} of ${steps}`));
    // Fractions only move forward; the last step's typed report says done.
    const fractions = seen.map((s) => s.fraction);
    expect(fractions).toEqual([...fractions].sort((a, b) => a - b));
    expect(seen[seen.length - 1]).toMatchObject({ fraction: 1, typed: true });
  }, 120_000);

  it('is not invented for statistical fits, nor without a listener', () => {
    const noop = () => {};
    expect(stepTicker(getAlgorithm('lp'), { steps: 10 }, noop)).toBeUndefined();
    expect(stepTicker(getAlgorithm('fixmatch'), { steps: 10 }, undefined)).toBeUndefined();
    expect(stepTicker(getAlgorithm('fixmatch'), {}, noop)).toBeUndefined();
    const calls: string[] = [];
    const tick = stepTicker(getAlgorithm('fixmatch'), { steps: 3 }, (_f, m) => calls.push(m ?? ''))!;
    tick();
    tick();
    tick();
    expect(calls).toEqual(['step 1 of 3', 'step 2 of 3']);
  });
});
