/** The catalogue's own contract: ids, colours, option schemas and defaults, costs, presets. */
import { describe, expect, it } from 'vitest';
import { contrast } from '../../../src/lib/charts/palette.ts';
import {
  algorithmGroups,
  CATALOGUE,
  defaultModelOptions,
  getAlgorithm,
  parseOptionAssignment,
  presetAlgorithms,
  resolveModelOptions,
} from '../../../src/lib/models/catalogue.ts';
import { validateParams } from '../../../src/lib/models/params.ts';
import { GBDTClassifier } from '../../../src/lib/models/statistical/gbdt.ts';
import { LabelPropagation, LP_README_PARAMS } from '../../../src/lib/models/statistical/labelPropagation.ts';
import { LabelSpreading, LS_README_PARAMS } from '../../../src/lib/models/statistical/labelSpreading.ts';
import { SSGMM } from '../../../src/lib/models/statistical/ssgmm.ts';
import { TSVM } from '../../../src/lib/models/statistical/tsvm.ts';
import { TriTraining } from '../../../src/lib/models/statistical/triTraining.ts';
import { Assemble } from '../../../src/lib/models/statistical/assemble.ts';
import type { Estimator } from '../../../src/lib/models/estimator.ts';
import { createDeepEstimator } from '../../../src/lib/models/deep/deepEstimator.ts';
import { DEEP_METHOD_IDS } from '../../../src/lib/models/deep/methods/index.ts';

const LIGHT = '#ffffff';
const DARK = '#171b23';

describe('catalogue', () => {
  it('has unique lower-case ids and distinct colours with 3:1 contrast on both themes', () => {
    const ids = CATALOGUE.map((a) => a.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z][a-z0-9]*$/);
    const colours = CATALOGUE.map((a) => a.color);
    expect(new Set(colours).size).toBe(colours.length);
    for (const a of CATALOGUE) {
      expect(contrast(a.color, LIGHT), a.id).toBeGreaterThanOrEqual(3);
      expect(contrast(a.color, DARK), a.id).toBeGreaterThanOrEqual(3);
    }
  });

  it('every option default satisfies its own schema, in both modes', () => {
    for (const a of CATALOGUE) {
      for (const mode of ['rsb', 'readme'] as const) {
        const table = Object.fromEntries(Object.entries(a.options).map(([k, o]) => [k, o.constraint]));
        expect(() => validateParams(a.id, table, defaultModelOptions(a, mode))).not.toThrow();
      }
    }
  });

  it('the default options build exactly the estimators the runner built before the catalogue', async () => {
    const before: Record<string, { rsb: Estimator; readme: Estimator }> = {
      xgb: { rsb: new GBDTClassifier(), readme: new GBDTClassifier() },
      ssgmm: { rsb: new SSGMM({ ssgmmSupport: 'zero' }), readme: new SSGMM({ ssgmmSupport: 'zero' }) },
      tsvm: { rsb: new TSVM(), readme: new TSVM() },
      lp: { rsb: new LabelPropagation(), readme: new LabelPropagation(LP_README_PARAMS) },
      ls: { rsb: new LabelSpreading(), readme: new LabelSpreading(LS_README_PARAMS) },
      tritraining: { rsb: new TriTraining(), readme: new TriTraining() },
      assemble: { rsb: new Assemble(), readme: new Assemble() },
    };
    // The seven statistical entries (later entries have no "before").
    for (const a of CATALOGUE.filter((x) => x.id in before)) {
      for (const mode of ['rsb', 'readme'] as const) {
        const options = resolveModelOptions(a, mode, undefined, { ssgmmSupport: 'zero' });
        const m = await a.create({ mode, options });
        // Same values in the same key order: the record's `hyper` is unchanged.
        expect(JSON.stringify(m.hyper), `${a.id} ${mode}`).toBe(JSON.stringify(before[a.id][mode].hyper));
      }
    }
  });

  it('a protocol-bound option takes the protocol option; plan values override', () => {
    const ssgmm = getAlgorithm('ssgmm');
    expect(resolveModelOptions(ssgmm, 'rsb', undefined, { ssgmmSupport: 'ignore' }).support).toBe('ignore');
    expect(resolveModelOptions(getAlgorithm('lp'), 'readme', { gamma: 5 }, {})).toEqual({
      gamma: 5,
      maxIter: 1000,
      tol: 1e-3,
    });
    expect(() => resolveModelOptions(getAlgorithm('lp'), 'rsb', { gamma: -1 }, {})).toThrow(
      "The 'gamma' parameter of lp must be a number in the range [0, inf). Got -1 instead.",
    );
  });

  it('parses option assignments typed by their schema', () => {
    expect(parseOptionAssignment('lp.gamma=5')).toEqual({ algorithm: 'lp', option: 'gamma', value: 5 });
    expect(parseOptionAssignment('ssgmm.support=ignore')).toEqual({
      algorithm: 'ssgmm',
      option: 'support',
      value: 'ignore',
    });
    expect(() => parseOptionAssignment('lp.gamma')).toThrow(/must look like algorithm.option=value/);
    expect(() => parseOptionAssignment('nope.x=1')).toThrow(/unknown algorithm "nope"/);
    expect(() => parseOptionAssignment('lp.gamma=abc')).toThrow(/'gamma' parameter of lp must be a number/);
    expect(() => parseOptionAssignment('xgb.maxDepth=2.5')).toThrow(/must be an integer/);
  });

  it('costs are finite, positive and grow with the cell', () => {
    const small = { labeled: 15, unlabeled: 60, test: 60, graph: 75, d: 4, k: 3, steps: 0 };
    const big = { labeled: 260, unlabeled: 5000, test: 5000, graph: 5260, d: 16, k: 26, steps: 0 };
    for (const a of CATALOGUE) {
      const [s, b] = [a.cost(small), a.cost(big)];
      expect(Number.isFinite(s) && s > 0, a.id).toBe(true);
      expect(b, a.id).toBeGreaterThan(s);
    }
  });

  it('presets and groups come from the entries; the paper grid keeps its order', () => {
    expect(presetAlgorithms('tabular-statistical')).toEqual([
      'xgb',
      'ssgmm',
      'tsvm',
      'lp',
      'ls',
      'tritraining',
      'assemble',
    ]);
    expect(presetAlgorithms('classroom')).toEqual(['xgb', 'lp', 'ls', 'ssgmm']);
    const groups = algorithmGroups();
    expect(Object.keys(groups).sort()).toEqual(['baselines', 'deep', 'fast', 'statistical']);
    expect(groups.fast).toEqual(['xgb', 'ssgmm', 'lp', 'ls']);
  });

  it('has the nine deep entries: the deep group, ftt the suite baseline, the two deep presets', () => {
    const groups = algorithmGroups();
    expect(groups.deep).toEqual([...DEEP_METHOD_IDS]);
    expect(groups.baselines).toEqual(['xgb', 'ftt']);
    expect(getAlgorithm('ftt')).toMatchObject({ family: 'baseline', suite: 'deep' });
    for (const id of DEEP_METHOD_IDS.slice(1)) expect(getAlgorithm(id).family).toBe('deep');
    expect(presetAlgorithms('classroom-deep')).toEqual(['ftt', 'pseudolabel', 'meanteacher', 'fixmatch']);
    expect(presetAlgorithms('tabular-deep')).not.toContain('meanteacher');
    expect(presetAlgorithms('tabular-deep')).toHaveLength(8);
  });

  it('deep defaults build the estimator createDeepEstimator builds (rsb size; 1 000 / 10 000 steps)', async () => {
    for (const id of DEEP_METHOD_IDS) {
      for (const mode of ['rsb', 'readme'] as const) {
        const a = getAlgorithm(id);
        const m = await a.create({ mode, options: resolveModelOptions(a, mode, undefined, {}) });
        expect(JSON.stringify(m.hyper), `${id} ${mode}`).toBe(
          JSON.stringify(createDeepEstimator(id, { mode }).hyper),
        );
        expect(m.hyper).toMatchObject({ size: 'rsb', steps: mode === 'rsb' ? 1000 : 10_000 });
      }
    }
    const tiny = await getAlgorithm('fixmatch').create({
      mode: 'rsb',
      options: resolveModelOptions(getAlgorithm('fixmatch'), 'rsb', { size: 'tiny', steps: 50, lr: 1e-3 }),
    });
    expect(tiny.hyper).toMatchObject({ size: 'tiny', blocks: 2, steps: 50, lr: 1e-3, mu: 7 });
  });

  it('deep costs follow the options: linear in steps, the tiny network far cheaper, FixMatch > FT-T', () => {
    const iris = { labeled: 15, unlabeled: 60, test: 75, graph: 75, d: 4, k: 3, steps: 0 };
    const fm = getAlgorithm('fixmatch');
    const rsb = fm.cost(iris, { size: 'rsb', steps: 1000 });
    expect(fm.cost(iris, { size: 'rsb', steps: 2000 }) / rsb).toBeCloseTo(2, 1);
    expect(rsb / fm.cost(iris, { size: 'tiny', steps: 1000 })).toBeGreaterThan(20);
    expect(rsb / getAlgorithm('ftt').cost(iris, { size: 'rsb', steps: 1000 })).toBeGreaterThan(5);
  });
});

describe('role and compute', () => {
  it('are separate facts: the FT-Transformer is a baseline that runs as deep work', () => {
    const ftt = getAlgorithm('ftt');
    expect([ftt.role, ftt.compute, ftt.family]).toEqual(['baseline', 'deep', 'baseline']);
    const xgb = getAlgorithm('xgb');
    expect([xgb.role, xgb.compute]).toEqual(['baseline', 'statistical']);
    for (const a of CATALOGUE) {
      expect(a.compute, a.id).toBe(a.suite);
      expect(a.family, a.id).toBe(a.role === 'baseline' ? 'baseline' : a.compute);
    }
  });
});
