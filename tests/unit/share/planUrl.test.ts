/**
 * Issue 21, item 12: the URL and the planner are one state. Every planner change writes the plan
 * (a preset by name, a custom plan in full), and what it writes reads back as the same plan.
 */
import { describe, expect, it } from 'vitest';
import {
  formatHash,
  planFromFields,
  planUrlFields,
  readHash,
  withFields,
} from '../../../src/lib/share/urlState.ts';
import { customPlan, presetPlan } from '../../../src/lib/suite/presets.ts';

describe('the plan in the Run page URL', () => {
  it('a custom plan written by the planner reads back as the same plan', () => {
    const plan = {
      ...customPlan({
        datasets: ['wine'],
        settings: ['feature', 'label'],
        labels: [10],
        algorithms: ['lp', 'xgb'],
        seeds: [0, 3],
        tIndices: [0, 2, 5],
      }),
      modelOptions: { lp: { gamma: 5 } },
    };
    const hash = withFields('#/run?v=1&backend=wasm', planUrlFields('custom', plan));
    expect(hash).toContain('backend=wasm');
    expect(hash).toContain('preset=custom');
    expect(planFromFields(readHash(hash).fields)).toEqual(plan);
  });

  it('choosing a preset leaves its name alone in the URL (the custom fields go)', () => {
    const before = formatHash({
      page: 'run',
      fields: {
        backend: 'wasm',
        preset: 'custom',
        ds: ['iris'],
        alg: ['lp'],
        seeds: [0],
        opt: ['lp.gamma=5'],
      },
    });
    const after = withFields(before, planUrlFields('classroom', presetPlan('classroom')));
    expect(after).toBe('#/run?v=1&backend=wasm&preset=classroom');
    expect(planFromFields(readHash(after).fields)?.preset).toBe('classroom');
  });
});
