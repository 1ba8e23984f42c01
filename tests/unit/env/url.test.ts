import { describe, expect, it } from 'vitest';
import { formatHash, parseHash, withField, withPage } from '../../../src/lib/share/urlState.ts';

describe('url hash', () => {
  it('parses page and backend, defaulting to home', () => {
    expect(parseHash('')).toEqual({ page: 'home', fields: {} });
    expect(parseHash('#/')).toEqual({ page: 'home', fields: {} });
    expect(parseHash('#/about?v=1&backend=wasm')).toEqual({ page: 'about', fields: { backend: 'wasm' } });
    expect(parseHash('#/nowhere')).toEqual({ page: 'home', fields: {} });
    expect(parseHash('#/run?backend=tpu')).toEqual({ page: 'run', fields: { backend: 'auto' } });
  });
  it('writes v=1 first and leaves defaults out', () => {
    expect(formatHash({ page: 'results', fields: { backend: 'webgpu' } })).toBe(
      '#/results?v=1&backend=webgpu',
    );
    expect(formatHash({ page: 'home', fields: { backend: 'auto' } })).toBe('#/');
  });
  it('changes one field or the page and keeps the rest', () => {
    expect(withField('#/learn', 'backend', 'cpu')).toBe('#/learn?v=1&backend=cpu');
    expect(withField('#/learn?v=1&backend=cpu', 'backend', 'auto')).toBe('#/learn');
    expect(withPage('#/learn?v=1&backend=cpu', 'about')).toBe('#/about?v=1&backend=cpu');
  });
});

describe('url hash: plan, view and results fields', () => {
  // Imported lazily so the block above stays as it was.
  it('round-trips a plan through readable keys and back', async () => {
    const { formatHash, planFromFields, planToFields, readHash } =
      await import('../../../src/lib/share/urlState.ts');
    const { classroomPlan } = await import('../../../src/lib/suite/presets.ts');
    const plan = classroomPlan();
    const hash = formatHash({ page: 'run', fields: planToFields(plan) });
    expect(hash).toBe(
      '#/run?v=1&preset=classroom&ds=iris,wine&set=all&labels=5,10&alg=xgb,lp,ls,ssgmm&seeds=0-2&t=all',
    );
    expect(planFromFields(readHash(hash).fields)).toEqual(plan);
    const readme = {
      ...plan,
      mode: 'readme' as const,
      tIndices: [0, 3],
      options: { ...plan.options, scaler: 'labeled' as const },
    };
    const h2 = formatHash({ page: 'run', fields: planToFields(readme) });
    expect(h2).toContain('&t=0,0.6&mode=readme');
    expect(h2).not.toContain('scaler');
    expect(planFromFields(readHash(h2).fields)).toEqual(readme);
    expect(planFromFields(readHash('#/run?backend=cpu').fields)).toBeNull();
  });
  it('falls back to defaults with a notice for invalid values and newer versions', async () => {
    const { readHash } = await import('../../../src/lib/share/urlState.ts');
    const r = readHash('#/results?v=1&seeds=4-1&mode=turbo&alg=lp,<b>&form=code');
    expect(r.fields).toEqual({ seeds: [], mode: 'rsb', alg: [], form: 'code' });
    expect(r.notices).toHaveLength(3);
    expect(r.notices[0]).toMatch(/^Ignored alg="lp,<b>" \(expected names of letters/);
    expect(r.notices[2]).toMatch(/^Ignored mode="turbo" \(expected one of rsb, readme\)/);
    expect(readHash('#/results?v=7&form=code').notices[0]).toMatch(/newer version of RAC Bench \(v=7\)/);
  });
  it('writes the view state and keeps results fields on the Results page only', async () => {
    const { formatHash, readHash, viewFromFields, viewToFields, withPage } =
      await import('../../../src/lib/share/urlState.ts');
    const view = {
      metricForm: 'code' as const,
      pt: { kind: 'beta' as const, alpha: 2, beta: 5 },
      hidden: ['lp'],
      explain: ['auc' as const, 'wa' as const],
      sort: { column: 'auc', dir: 'desc' as const },
    };
    const hash = formatHash({ page: 'results', fields: { ...viewToFields(view), r: '1.abc', ds: ['iris'] } });
    expect(hash).toBe(
      '#/results?v=1&ds=iris&form=code&pt=beta:2,5&hide=lp&explain=auc,wa&sort=auc:desc&r=1.abc',
    );
    expect(viewFromFields(readHash(hash).fields)).toEqual(view);
    expect(withPage(hash, 'run')).toBe('#/run?v=1&ds=iris');
    expect(withPage(hash, 'compare')).toBe(
      '#/compare?v=1&ds=iris&form=code&pt=beta:2,5&hide=lp&explain=auc,wa&sort=auc:desc',
    );
  });
});

describe('url hash: keys of other modules', () => {
  it('withField keeps keys it does not know; withPage drops them', async () => {
    const { withField, withPage } = await import('../../../src/lib/share/urlState.ts');
    expect(withField('#/learn?v=1&toy_seed=7&slider_hide=1', 'backend', 'cpu')).toBe(
      '#/learn?v=1&backend=cpu&toy_seed=7&slider_hide=1',
    );
    expect(withField('#/learn?v=1&backend=cpu&toy_seed=7', 'backend', 'auto')).toBe('#/learn?v=1&toy_seed=7');
    expect(withPage('#/learn?v=1&backend=cpu&toy_seed=7', 'about')).toBe('#/about?v=1&backend=cpu');
  });
});
