/** The URL's `sub=` (PROTOCOL.md §9 caps): round trip, hostile values, and a linked plan stays custom. */
import { describe, expect, it } from 'vitest';
import { formatHash, planFromFields, planToFields, readHash } from '../../../src/lib/share/urlState.ts';
import { planChoiceFromLink } from '../../../src/lib/suite/linkedPlan.ts';
import { classroomPlan, presetPlan } from '../../../src/lib/suite/presets.ts';

describe('url sub=', () => {
  it('round-trips a plan with caps (and model options) through readable keys', () => {
    const plan = {
      ...classroomPlan(),
      preset: 'custom',
      subsample: { test: { max: 2000 }, unlabeled: { max: 5000 }, graph: { max: 300, seed: 4 } },
      modelOptions: { lp: { gamma: 5 } },
    };
    const hash = formatHash({ page: 'run', fields: planToFields(plan) });
    expect(hash).toContain('&opt=lp.gamma:5&sub=test:2000,unlabeled:5000,graph:300,graph.seed:4');
    expect(planFromFields(readHash(hash).fields)).toEqual(plan);
    // Without caps nothing is written, and the plan reads back without a subsample field.
    const plain = formatHash({ page: 'run', fields: planToFields(classroomPlan()) });
    expect(plain).not.toContain('sub=');
    expect(planFromFields(readHash(plain).fields)).not.toHaveProperty('subsample');
  });

  it.each([
    ['test:0', /the most rows kept\) must be an integer from 1/],
    ['test:-5', /must be an integer from 1 to 1000000000; got "-5"/],
    ['bogus:10', /unknown pool "bogus"/],
    ['test:99999999999999999999', /must be an integer from 1 to 1000000000/],
    ['seed:1', /no pool is capped/],
    ['%3Cscript%3E', /must look like pool=max/],
    [Array.from({ length: 20 }, () => 'test:1').join(','), /at most 8 items/],
  ])('a hostile sub=%s gives a notice, not a crash, and no caps', (raw, message) => {
    const r = readHash(`#/run?v=1&ds=iris&alg=lp&sub=${raw}`);
    expect(r.notices).toHaveLength(1);
    expect(r.notices[0]).toMatch(/^Ignored sub=/);
    expect(r.notices[0]).toMatch(message);
    expect(planFromFields(r.fields)).not.toHaveProperty('subsample');
  });

  it('a linked preset with caps opens as a custom plan that keeps them', () => {
    const linked = { ...presetPlan('classroom'), subsample: { test: { max: 20 } } };
    const choice = planChoiceFromLink(linked);
    expect(choice.preset).toBe('custom');
    expect(choice.subsample).toEqual({ test: { max: 20 } });
    expect(planChoiceFromLink(presetPlan('classroom')).preset).toBe('classroom');
  });
});
