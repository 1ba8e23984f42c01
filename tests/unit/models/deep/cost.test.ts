/**
 * The deep cost model (src/lib/models/deep/cost.ts) against the trainer it models: rows per step
 * from each method's μ and views (PROTOCOL.md §9's 64 / 128 / 192 / 960), the network's
 * multiply-adds per token (§9: "≈ 4–5 MFLOP per token forward"), and the measured step times.
 */
import { describe, expect, it } from 'vitest';
import {
  DEEP_STEP_ROWS,
  deepFitMacs,
  deepFitSeconds,
  forwardMacsPerRow,
} from '../../../../src/lib/models/deep/cost.ts';
import {
  DEFAULT_ACTIVATION_BUDGET_BYTES,
  NODE_ACTIVATION_BUDGET_BYTES,
  setActivationBudget,
} from '../../../../src/lib/models/deep/activationBudget.ts';
import { createMethod, DEEP_METHOD_IDS } from '../../../../src/lib/models/deep/methods/index.ts';
import { FT_SIZES } from '../../../../src/lib/models/deep/sizes.ts';

describe('deep cost model', () => {
  it('rows per step: §9 totals, and the labeled + μ·views of each method', () => {
    const total = (id: string) => 64 * (DEEP_STEP_ROWS[id].grad + DEEP_STEP_ROWS[id].noGrad);
    expect(DEEP_METHOD_IDS.map((id) => [id, total(id)])).toEqual([
      ['ftt', 64],
      ['pseudolabel', 128],
      ['pimodel', 192],
      ['meanteacher', 192], // an extra outside §9: labeled + two weak views
      ['ict', 192],
      ['uda', 960],
      ['fixmatch', 960],
      ['flexmatch', 960],
      ['softmatch', 960],
    ]);
    for (const id of DEEP_METHOD_IDS) {
      const m = createMethod(id);
      // Labeled batch + one forward per unlabeled view (ICT: the mixed rows stand in for its one view
      // with the gradient, the shadow forward is the other).
      const views = id === 'ict' ? 2 : m.views.length;
      expect(DEEP_STEP_ROWS[id].grad + DEEP_STEP_ROWS[id].noGrad, id).toBe(1 + m.mu * views);
      expect(DEEP_STEP_ROWS[id].grad, id).toBeGreaterThanOrEqual(1);
    }
  });

  it('rsb: ≈ 2.2–2.5 M multiply-adds per token forward; the tiny network ≈ 100–150× cheaper', () => {
    for (const [d, k] of [
      [4, 3],
      [13, 3],
      [16, 26],
      [54, 7],
    ]) {
      const perToken = forwardMacsPerRow(FT_SIZES.rsb, d, k) / (d + 1);
      expect(perToken).toBeGreaterThan(2.2e6);
      expect(perToken).toBeLessThan(2.5e6);
      const ratio = forwardMacsPerRow(FT_SIZES.rsb, d, k) / forwardMacsPerRow(FT_SIZES.tiny, d, k);
      expect(ratio).toBeGreaterThan(100);
      expect(ratio).toBeLessThan(150);
    }
  });

  it('reproduces the measured rsb step times (npm run bench:deep -- --rounds 3: letter 443 ms / 4.03 s CPU, kept)', () => {
    const step = (id: string) => deepFitSeconds(id, { d: 16, k: 26, test: 0, steps: 1 });
    setActivationBudget(NODE_ACTIVATION_BUDGET_BYTES); // the CLI's, as the bench runs
    try {
      expect(step('ftt')).toBeGreaterThan(0.443 / 1.3);
      expect(step('ftt')).toBeLessThan(0.443 * 1.3);
      expect(step('fixmatch')).toBeGreaterThan(4.03 / 1.3);
      expect(step('fixmatch')).toBeLessThan(4.03 * 1.3);
      const kept = step('fixmatch');
      // Under the default budget the 512-row step recomputes its blocks: one more forward of its
      // gradient rows (8 of its 15 row blocks: 31 → 39 forwards' worth). FT-T's 64 rows fit either way.
      setActivationBudget(DEFAULT_ACTIVATION_BUDGET_BYTES);
      expect(step('fixmatch') / kept).toBeCloseTo(39 / 31, 1);
      expect(step('ftt')).toBeLessThan(0.443 * 1.3);
    } finally {
      setActivationBudget(DEFAULT_ACTIVATION_BUDGET_BYTES);
    }
  });

  it('scales with the batch and the steps; quirks fixed puts MeanTeacher’s student on the tape', () => {
    const s = { d: 4, k: 3, test: 0, steps: 100 };
    expect(deepFitMacs('fixmatch', s, { batchL: 16 }) * 4).toBeCloseTo(deepFitMacs('fixmatch', s), -3);
    expect(deepFitMacs('fixmatch', { ...s, steps: 200 })).toBe(2 * deepFitMacs('fixmatch', s));
    expect(deepFitMacs('meanteacher', s, { quirks: 'fixed' })).toBeGreaterThan(deepFitMacs('meanteacher', s));
  });
});
