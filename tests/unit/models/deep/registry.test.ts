/**
 * One record per deep method (methods/registry.ts): its defaults are what the method's loss runs
 * with in each protocol mode, its step rows are the cost model's, and its loss parameters are
 * catalogue options that reach the fit (`fixmatch.threshold=0.5`), checked by their constraints.
 */
import { describe, expect, it } from 'vitest';
import {
  defaultModelOptions,
  getAlgorithm,
  resolveModelOptions,
} from '../../../../src/lib/models/catalogue.ts';
import { DEEP_STEP_ROWS } from '../../../../src/lib/models/deep/cost.ts';
import {
  createMethod,
  DEEP_METHOD_IDS,
  DEEP_METHODS,
  methodDefaults,
} from '../../../../src/lib/models/deep/methods/index.ts';

describe('deep method records', () => {
  it("each record's defaults are its method's hyperparameters, in both modes; step rows feed the cost model", () => {
    for (const id of DEEP_METHOD_IDS)
      for (const mode of ['rsb', 'readme'] as const) {
        const hyper = createMethod(id, mode).hyper;
        for (const [k, v] of Object.entries(methodDefaults(id, mode)))
          expect(hyper[k], `${id} ${mode} ${k}`).toBe(v);
      }
    expect(methodDefaults('pimodel', 'rsb').lambdaU).toBe(10);
    expect(methodDefaults('pimodel', 'readme').lambdaU).toBe(1);
    for (const id of DEEP_METHOD_IDS) expect(DEEP_STEP_ROWS[id]).toEqual(DEEP_METHODS[id].steps);
    // The record's views are the method's: the page refuses strong-view methods on a bank without them.
    for (const id of DEEP_METHOD_IDS) expect(createMethod(id).views, id).toEqual(DEEP_METHODS[id].views);
  });

  it('loss parameters are catalogue options that reach the method, within their constraints', async () => {
    const fm = getAlgorithm('fixmatch');
    expect(Object.keys(fm.options)).toEqual(
      expect.arrayContaining(['size', 'steps', 'threshold', 'temperature', 'lambdaU']),
    );
    expect(Object.keys(fm.options)).not.toContain('mu'); // the cost model counts μ's rows
    expect(defaultModelOptions(fm, 'rsb').threshold).toBe(0.95);
    const options = resolveModelOptions(fm, 'rsb', { threshold: 0.5, size: 'tiny' });
    const est = await fm.create({ mode: 'rsb', options });
    expect((est as unknown as { hyper: Record<string, unknown> }).hyper).toMatchObject({ threshold: 0.5 });
    est.dispose();
    expect(() => resolveModelOptions(fm, 'rsb', { threshold: 1.5 })).toThrow(/threshold/);
    expect(Object.keys(getAlgorithm('ftt').options)).not.toContain('threshold');
  });
});
