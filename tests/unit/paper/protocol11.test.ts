/** Spec 1.1.0 options: model-stream offsets (§3.5), per-dataset t0 stream, SSGMM's rsb default, versions. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { planFromFlags } from '../../../src/cli/runCommand.ts';
import { isBaselineAlgorithm } from '../../../src/lib/models/catalogue.ts';
import { classHalves } from '../../../src/lib/protocol/distribution.ts';
import { modelStream, modelStreamOffsetKind } from '../../../src/lib/protocol/modelStream.ts';
import { mt } from '../../../src/lib/protocol/rng.ts';
import { compareRuns } from '../../../src/lib/share/compare.ts';
import { mergeRuns } from '../../../src/lib/suite/merge.ts';
import { defaultPlanOptions, t0StreamFor } from '../../../src/lib/suite/plan.ts';
import { presetPlan, resolvePresetId, tabularStatisticalPlan } from '../../../src/lib/suite/presets.ts';
import { parseRun, type RunRecord } from '../../../src/lib/suite/schema.ts';
import { loadEmbedded } from '../helpers/datasets.ts';

const paper = { modelStreamOffset: 'paper' as const, t0Stream: 'per-class' as const };

describe('model-stream provenance (PROTOCOL.md §3.5)', () => {
  it('offsets exactly the published runs named by the spec', () => {
    const kind = (
      ds: string,
      setting: 'distribution' | 'feature' | 'label',
      labels: number,
      tIndex: number,
      t0Stream: 'per-class' | 'shared' = 'per-class',
    ) => modelStreamOffsetKind(ds, { setting, labels, tIndex }, { modelStreamOffset: 'paper', t0Stream });
    expect(kind('iris', 'distribution', 5, 0, 'shared')).toBe('distribution-t0-shared');
    expect(kind('iris', 'distribution', 5, 0)).toBeNull();
    expect(kind('iris', 'distribution', 5, 1, 'shared')).toBeNull();
    expect(kind('iris', 'feature', 5, 1)).toBe('feature-permutation');
    expect(kind('iris', 'feature', 10, 1)).toBeNull();
    expect(kind('wine', 'feature', 5, 5)).toBe('feature-permutation');
    expect(kind('wine', 'feature', 10, 3)).toBe('feature-permutation');
    expect(kind('wine', 'feature', 10, 0)).toBeNull();
    expect(kind('letter', 'feature', 5, 2)).toBeNull(); // unverified: none
    expect(kind('iris', 'label', 5, 2)).toBeNull();
    expect(
      modelStreamOffsetKind(
        'iris',
        { setting: 'feature', labels: 5, tIndex: 2 },
        { ...paper, modelStreamOffset: 'none' },
      ),
    ).toBeNull();
  });

  it('replays the split draws on a generator seeded with the run seed', async () => {
    const iris = await loadEmbedded('iris');
    const wine = await loadEmbedded('wine');
    const a = mt(3);
    for (const { near } of classHalves(iris)) a.permutation(near.length);
    expect(
      modelStream(
        iris,
        { setting: 'distribution', labels: 5, tIndex: 0, seed: 3 },
        { ...paper, t0Stream: 'shared' },
      ).randint(1 << 30),
    ).toBe(a.randint(1 << 30));
    const b = mt(4);
    b.permutation(wine.d);
    expect(
      modelStream(wine, { setting: 'feature', labels: 10, tIndex: 2, seed: 4 }, paper).randint(1 << 30),
    ).toBe(b.randint(1 << 30));
    expect(
      modelStream(wine, { setting: 'label', labels: 10, tIndex: 2, seed: 4 }, paper).randint(1 << 30),
    ).toBe(mt(4).randint(1 << 30));
  });
});

describe('options under spec 1.1.0', () => {
  it("rsb defaults: SSGMM 'ignore', offsets 'paper'; readme keeps 'zero' and no offset", () => {
    expect(defaultPlanOptions('rsb')).toMatchObject({
      ssgmmSupport: 'ignore',
      modelStreamOffset: 'paper',
      t0Stream: 'per-class',
    });
    expect(defaultPlanOptions('readme')).toMatchObject({ ssgmmSupport: 'zero', modelStreamOffset: 'none' });
  });

  it("the paper preset streams iris's t0 subsets from one shared generator, every other dataset per class", () => {
    const plan = tabularStatisticalPlan();
    expect(t0StreamFor(plan.options, 'iris')).toBe('shared');
    expect(t0StreamFor(plan.options, 'wine')).toBe('per-class');
    expect(t0StreamFor(plan.options, 'letter')).toBe('per-class');
  });

  it('the paper plan round-trips through the URL (t0ds=iris:shared)', async () => {
    const { formatHash, planFromFields, planToFields, readHash } =
      await import('../../../src/lib/share/urlState.ts');
    const plan = tabularStatisticalPlan();
    const hash = formatHash({ page: 'run', fields: planToFields(plan) });
    expect(hash).toContain('t0ds=iris:shared');
    expect(hash).not.toContain('offset=');
    expect(planFromFields(readHash(hash).fields)).toEqual(plan);
    const none = {
      ...plan,
      options: { ...plan.options, modelStreamOffset: 'none' as const, ssgmmSupport: 'zero' as const },
    };
    expect(planFromFields(readHash(formatHash({ page: 'run', fields: planToFields(none) })).fields)).toEqual(
      none,
    );
  });

  it('rac-bench run --preset gives the browser preset plan; given flags narrow it; unknown presets are named', () => {
    expect(resolvePresetId('paper')).toBe('tabular-statistical');
    expect(planFromFlags({ preset: 'paper' })).toEqual(presetPlan('tabular-statistical'));
    expect(planFromFlags({ preset: 'classroom' })).toEqual(presetPlan('classroom'));
    expect(planFromFlags({ preset: 'paper', dataset: 'iris,wine' })).toEqual({
      ...presetPlan('tabular-statistical'),
      datasets: ['iris', 'wine'],
    });
    expect(planFromFlags({ preset: 'custom', dataset: 'iris', algorithms: 'lp' })).toMatchObject({
      preset: 'custom',
      datasets: ['iris'],
      algorithms: ['lp'],
    });
    expect(() => planFromFlags({ preset: 'papers' })).toThrow(
      'Unknown preset "papers". Known presets: classroom, tabular-statistical, classroom-deep, tabular-deep, custom, paper (= tabular-statistical).',
    );
    expect(() => planFromFlags({ preset: 'paper', protocol: 'readme' })).toThrow(
      /--preset paper runs protocol "rsb"/,
    );
  });
});

describe('protocol versions', () => {
  const run = parseRun(JSON.parse(readFileSync('tests/fixtures/runs/classroom.json', 'utf8')));
  const at = (r: RunRecord, version: string): RunRecord => ({
    ...r,
    cells: r.cells.map((c) => ({ ...c, protocol: { ...c.protocol, version } })),
  });

  it('a 1.0.0 record still opens', () => {
    expect(run.cells[0].protocol.version).toBe('1.0.0');
    expect(run.cells[0].protocol.options).not.toHaveProperty('modelStreamOffset');
  });

  it('compare and merge refuse to pool 1.0.0 with 1.1.0, in one sentence', () => {
    const newer = at(run, '1.1.0');
    const cmp = compareRuns(
      [
        { name: 'A', run },
        { name: 'B', run: newer },
      ],
      { form: 'code', isBaseline: isBaselineAlgorithm },
    );
    expect(cmp.included.map((x) => x.name)).toEqual(['A']);
    expect(cmp.refused[0].reason).toBe(
      'Run B was made under protocol 1.1.0, but run A under protocol 1.0.0; results of different protocol versions are not compared or pooled (re-run one of them with this version of RAC Bench).',
    );
    expect(() => mergeRuns([run, newer])).toThrow(
      'Run 2 was made under protocol 1.1.0, but run 1 under protocol 1.0.0',
    );
    expect(mergeRuns([newer, newer]).cells.length).toBe(run.cells.length);
  });
});
