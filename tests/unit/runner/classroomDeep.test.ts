/**
 * Issue 21, item 14: classroom-deep's loop is long enough for the semi-supervised terms to act.
 * At 60 steps Pseudo-Label's mask rate was 0 at every report on wine (no unlabeled row reached its
 * 0.95 confidence threshold), so its curve could not depend on t; the preset's loop now lets the
 * mask rise before the end.
 */
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { describe, expect, it } from 'vitest';
import { getAlgorithm } from '../../../src/lib/models/catalogue.ts';
import { expandPlan, type RunPlanSpec } from '../../../src/lib/suite/plan.ts';
import { presetPlan } from '../../../src/lib/suite/presets.ts';
import { runCell, type RunCellContext } from '../../../src/lib/suite/runCell.ts';
import { loadEmbedded } from '../helpers/datasets.ts';

const wine = await loadEmbedded('wine');
// The backend the CLI and the page's workers train on; without it tfjs falls back to its pure-JS
// cpu kernels, the same steps about 15 times slower.
await tf.setBackend('wasm');

describe('classroom-deep', () => {
  it("lets Pseudo-Label's mask rate leave 0 before its last steps (wine, t = 0)", async () => {
    const preset = presetPlan('classroom-deep');
    const plan: RunPlanSpec = { ...preset, datasets: ['wine'], algorithms: ['pseudolabel'], tIndices: [0] };
    const [cell] = expandPlan(plan, () => false);
    const masks: { step: number; mask: number }[] = [];
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
      onProgress: (_f, _m, e) => {
        const mask = e?.scalars?.maskRate;
        if (e && typeof mask === 'number') masks.push({ step: e.step ?? 0, mask });
      },
    };
    const r = await runCell(wine, 'embedded', cell, plan, getAlgorithm('pseudolabel'), ctx);
    expect(r.outcome.status).toBe('ok');
    const steps = plan.modelOptions!.pseudolabel.steps as number;
    // The unlabeled term acted for part of the loop, not only (or never) at its very end.
    const engaged = masks.filter((m) => m.mask > 0);
    expect(engaged.length, JSON.stringify(masks)).toBeGreaterThan(0);
    expect(engaged[0].step).toBeLessThan(steps);
  }, 180_000);
});

describe('the live training chart of a short loop', () => {
  it('gets about 40 points, not 3 (reports every few steps, never sparser than every 25)', async () => {
    const { progressEveryFor } = await import('../../../src/lib/models/catalogue.ts');
    expect(progressEveryFor(120)).toBe(3);
    expect(Math.floor(120 / progressEveryFor(120))).toBe(40);
    expect(progressEveryFor(60)).toBe(2);
    expect(progressEveryFor(1000)).toBe(25);
    expect(progressEveryFor(100_000)).toBe(25);
    expect(progressEveryFor(10)).toBe(1);
  });
});
