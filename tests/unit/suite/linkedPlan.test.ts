import { describe, expect, it } from 'vitest';
import { planChoiceFromLink } from '../../../src/lib/suite/linkedPlan.ts';
import { formatHash, parseHash, planFromFields, planToFields } from '../../../src/lib/share/urlState.ts';
import { classroomDeepPlan, classroomPlan, customPlan } from '../../../src/lib/suite/presets.ts';

describe('a plan from a link', () => {
  it('recognises an unchanged preset', () => {
    const c = planChoiceFromLink(classroomPlan());
    expect(c.preset).toBe('classroom');
    expect(c.notices).toEqual([]);
  });
  it('takes a link that names only a preset as that preset', () => {
    const empty = {
      ...classroomPlan(),
      datasets: [],
      settings: [],
      labels: [],
      algorithms: [],
      seeds: [],
      tIndices: [],
    };
    const c = planChoiceFromLink(empty);
    expect(c.preset).toBe('classroom');
    expect(c.selection.datasets).toEqual(classroomPlan().datasets);
  });
  it('turns an edited preset into a custom selection with the same lists', () => {
    const plan = { ...classroomPlan(), seeds: [0] };
    const c = planChoiceFromLink(plan);
    expect(c.preset).toBe('custom');
    expect(customPlan(c.selection).seeds).toEqual([0]);
    expect(customPlan(c.selection).datasets).toEqual(plan.datasets);
  });
  it('keeps the protocol mode of a custom plan', () => {
    const plan = customPlan({ ...classroomPlan(), seeds: [0, 1, 2] }, 'readme');
    const c = planChoiceFromLink(plan);
    expect(c.mode).toBe('readme');
    expect(c.notices).toEqual([]);
    expect(customPlan(c.selection, c.mode)).toEqual(plan);
  });
  it('says what the browser runner will not take over', () => {
    const plan = {
      ...classroomPlan(),
      seeds: [0],
      quirks: 'fixed' as const,
      options: { ...classroomPlan().options, t0Stream: 'shared' as const },
    };
    const c = planChoiceFromLink(plan);
    expect(c.notices[0]).toMatch(/quirks "fixed".*the runner uses mode "rsb" with quirks "rsb"/);
    expect(c.notices[1]).toMatch(/t0Stream differ/);
  });
  it('keeps classroom-deep a preset with its own model options, and custom with other ones', () => {
    const plan = classroomDeepPlan();
    const same = planChoiceFromLink(JSON.parse(JSON.stringify(plan)));
    expect(same.preset).toBe('classroom-deep');
    expect(same.modelOptions).toBeUndefined(); // the preset brings them
    // Through the URL ("Re-run this plan"): the options travel as opt items and come back typed.
    const viaUrl = planFromFields(parseHash(formatHash({ page: 'run', fields: planToFields(plan) })).fields)!;
    expect(viaUrl.modelOptions).toEqual(plan.modelOptions);
    expect(planChoiceFromLink(viaUrl).preset).toBe('classroom-deep');
    const onlyNamed = planChoiceFromLink({
      ...plan,
      modelOptions: undefined,
      datasets: [],
      settings: [],
      labels: [],
      algorithms: [],
      seeds: [],
      tIndices: [],
    });
    expect(onlyNamed.preset).toBe('classroom-deep');
    const edited = { ...plan, modelOptions: { ...plan.modelOptions, fixmatch: { size: 'tiny', steps: 5 } } };
    const c = planChoiceFromLink(edited);
    expect(c.preset).toBe('custom');
    expect(c.modelOptions?.fixmatch).toEqual({ size: 'tiny', steps: 5 });
  });
});
