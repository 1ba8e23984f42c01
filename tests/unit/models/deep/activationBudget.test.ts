/**
 * The activation budget (activationBudget.ts) only trades memory for time: a step that keeps its
 * block caches and one that recomputes each block in the backward pass end in bit-identical
 * weights, so each environment may pick its own budget. 'auto' follows the budget in force.
 */
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  activationBudget,
  DEFAULT_ACTIVATION_BUDGET_BYTES,
  NODE_ACTIVATION_BUDGET_BYTES,
  pageActivationBudget,
  setActivationBudget,
} from '../../../../src/lib/models/deep/activationBudget.ts';
import { trainerConfig } from '../../../../src/lib/models/deep/config.ts';
import { blockCacheBytes, type FTSize } from '../../../../src/lib/models/deep/ftTransformer.ts';
import { createMethod, type DeepMethodId } from '../../../../src/lib/models/deep/methods/index.ts';
import { DeepTrainer } from '../../../../src/lib/models/deep/trainer.ts';
import { MT19937 } from '../../../../src/lib/protocol/rng.ts';
import { cyclicLabels, fixedStreams, normalRows } from '../../../../scripts/bench/stepFixture.ts';

const SIZE: FTSize = { blocks: 3, dToken: 16, heads: 2, ffnHidden: 12 };
const d = 5,
  k = 4;

function data() {
  const rng = new MT19937(3);
  const Xl = normalRows(rng, 24, d),
    Xu = normalRows(rng, 96, d);
  const yl = cyclicLabels(24, k);
  for (let i = 0; i < 24; i++) Xl.data[i * d] += 2 * yl[i];
  return { Xl, yl, Xu, k };
}

async function fit(id: DeepMethodId, recompute: boolean | 'auto', steps = 4) {
  const cfg = trainerConfig(d, k, { size: SIZE, steps: 50, batchL: 8, progressEvery: 1000 });
  // Set on the config itself: 'auto' is what the tiers use at rsb size, and trainerConfig's
  // option takes only true or false (at a custom size its default is false).
  const tr = new DeepTrainer({ ...cfg, recompute }, createMethod(id), data(), fixedStreams());
  await tr.run({}, steps);
  const out = {
    params: await tr.weights('params'),
    shadow: await tr.weights('shadow'),
    recomputed: tr.recomputedSteps,
  };
  tr.dispose();
  return out;
}

beforeAll(async () => {
  await tf.setBackend('wasm');
});
afterEach(() => setActivationBudget(DEFAULT_ACTIVATION_BUDGET_BYTES));

describe('activation budget', () => {
  it.each(['ftt', 'fixmatch', 'meanteacher', 'ict'] as const)(
    '%s: recomputing the blocks gives bit-identical weights and shadow after 4 steps',
    async (id) => {
      const n0 = tf.memory().numTensors;
      const kept = await fit(id, false);
      const again = await fit(id, true);
      expect(kept.recomputed).toBe(0);
      expect(again.recomputed).toBe(4);
      expect(Object.keys(again.params)).toEqual(Object.keys(kept.params));
      for (const name of Object.keys(kept.params)) {
        expect(again.params[name], name).toEqual(kept.params[name]);
        expect(again.shadow[name], name).toEqual(kept.shadow[name]);
      }
      // The comparison can fail: the weights moved, and differently per step count.
      const fewer = await fit(id, false, 3);
      expect(fewer.params['b0.W1']).not.toEqual(kept.params['b0.W1']);
      expect(tf.memory().numTensors).toBe(n0);
    },
  );

  it("'auto' recomputes exactly when a step's block caches exceed the budget in force", async () => {
    const shape = { ...SIZE, features: d, classes: k };
    // FixMatch's gradient forward: 8 labeled + 7·8 strong rows.
    const bytes = blockCacheBytes(shape, 8 + 7 * 8);
    setActivationBudget(bytes - 1);
    expect((await fit('fixmatch', 'auto', 2)).recomputed).toBe(2);
    setActivationBudget(bytes);
    expect((await fit('fixmatch', 'auto', 2)).recomputed).toBe(0);
  });

  it('budgets: the CLI 1 GiB, a page worker a share of the declared memory, never below the default', () => {
    expect(activationBudget()).toBe(DEFAULT_ACTIVATION_BUDGET_BYTES);
    expect(DEFAULT_ACTIVATION_BUDGET_BYTES).toBe(384 * 2 ** 20);
    expect(NODE_ACTIVATION_BUDGET_BYTES).toBe(2 ** 30);
    expect(pageActivationBudget(8)).toBe(2 ** 30);
    expect(pageActivationBudget(16)).toBe(2 ** 30); // Chrome reports at most 8; another browser might not
    expect(pageActivationBudget(4)).toBe(512 * 2 ** 20);
    expect(pageActivationBudget(2)).toBe(DEFAULT_ACTIVATION_BUDGET_BYTES);
    expect(pageActivationBudget(0.5)).toBe(DEFAULT_ACTIVATION_BUDGET_BYTES);
    expect(pageActivationBudget(undefined)).toBe(DEFAULT_ACTIVATION_BUDGET_BYTES);
    expect(pageActivationBudget(Number.NaN)).toBe(DEFAULT_ACTIVATION_BUDGET_BYTES);
    expect(() => setActivationBudget(-1)).toThrow(/non-negative/);
    // letter FixMatch at rsb size (512 gradient rows × 17 tokens): kept by the CLI, recomputed by default.
    const letter = blockCacheBytes({ blocks: 8, dToken: 192, heads: 8, ffnHidden: 256, features: 16 }, 512);
    expect(letter).toBeGreaterThan(DEFAULT_ACTIVATION_BUDGET_BYTES);
    expect(letter).toBeLessThan(NODE_ACTIVATION_BUDGET_BYTES);
  });
});
