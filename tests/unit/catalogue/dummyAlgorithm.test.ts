/**
 * Adding an algorithm = its estimator + one catalogue entry. This test registers a dummy algorithm
 * with one option (through the test-only hook) and follows it through every place that reads the
 * catalogue: a custom plan, the selector groups, the CLI's run command (with `--option`), the
 * record (algorithm.options, protocol.overrides), the URL and a permalink, and a chart legend.
 * Nothing else is edited for it.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../../src/cli/runCommand.ts';
import { racChart } from '../../../src/lib/charts/racChart.ts';
import { algorithmColor } from '../../../src/lib/charts/palette.ts';
import { BaseEstimator } from '../../../src/lib/models/baseEstimator.ts';
import {
  algorithmGroups,
  algorithmLabel,
  isBaselineAlgorithm,
  registerAlgorithmForTest,
  type AlgorithmSpec,
} from '../../../src/lib/models/catalogue.ts';
import type { LiveFitContext } from '../../../src/lib/models/estimator.ts';
import { interval, type ConstraintTable } from '../../../src/lib/models/params.ts';
import { decodeRunLink, encodeRunLink } from '../../../src/lib/share/permalink.ts';
import { formatHash, planFromFields, planToFields, readHash } from '../../../src/lib/share/urlState.ts';
import { panelCurves } from '../../../src/lib/suite/curves.ts';
import { customPlan, validatePlan } from '../../../src/lib/suite/presets.ts';
import { parseRun, type RunRecord } from '../../../src/lib/suite/schema.ts';
import type { Matrix } from '../../../src/lib/types.ts';
import { shimDocument } from '../charts/fixtures.ts';

interface DummyParams {
  /** Weight of the class prior against the nearest class mean. */
  strength: number;
}

/** Nearest class mean, with a prior: a tiny but real estimator on the BaseEstimator shell. */
class NearestMean extends BaseEstimator<DummyParams> {
  readonly name = 'dummy';
  readonly className = 'NearestMean';
  protected readonly constraints: ConstraintTable = { strength: interval(0, 10) };
  private means: Float64Array | null = null;
  private k = 0;
  constructor(params: Partial<DummyParams> = {}) {
    super({ strength: 1 }, params);
  }
  protected async fitImpl(
    Xl: Matrix,
    yl: Int32Array,
    _Xu: Matrix,
    k: number,
    ctx: LiveFitContext,
  ): Promise<void> {
    const d = Xl.cols;
    const sums = new Float64Array(k * d);
    const counts = new Float64Array(k);
    for (let i = 0; i < Xl.rows; i++) {
      counts[yl[i]]++;
      for (let j = 0; j < d; j++) sums[yl[i] * d + j] += Xl.data[i * d + j];
      await ctx.tick();
    }
    for (let c = 0; c < k; c++) for (let j = 0; j < d; j++) sums[c * d + j] /= Math.max(1, counts[c]);
    this.means = sums;
    this.k = k;
    this.lastInfo = { nIter: Xl.rows };
  }
  protected async predictImpl(X: Matrix): Promise<Float32Array> {
    const { k } = this;
    const d = X.cols;
    const out = new Float32Array(X.rows * k);
    for (let i = 0; i < X.rows; i++) {
      let s = 0;
      for (let c = 0; c < k; c++) {
        let d2 = 0;
        for (let j = 0; j < d; j++) d2 += (X.data[i * d + j] - this.means![c * d + j]) ** 2;
        out[i * k + c] = Math.exp(-d2 / (1 + this.params.strength));
        s += out[i * k + c];
      }
      for (let c = 0; c < k; c++) out[i * k + c] = s > 0 ? out[i * k + c] / s : 1 / k;
    }
    return out;
  }
  protected release(): void {
    this.means = null;
  }
}

const DUMMY: AlgorithmSpec = {
  id: 'dummy',
  title: 'Nearest class mean (test dummy)',
  label: 'Dummy',
  family: 'statistical',
  role: 'ssl',
  compute: 'statistical',
  suite: 'statistical',
  presets: {},
  fast: true,
  color: '#b5479b',
  options: {
    strength: { constraint: interval(0, 10), default: { rsb: 1, readme: 1 }, doc: 'Prior weight.' },
  },
  cost: (s) => 1e-7 * s.labeled * s.d,
  async create({ options }) {
    return new NearestMean(options);
  },
};

let unregister: () => void;
beforeAll(() => {
  unregister = registerAlgorithmForTest(DUMMY);
});
afterAll(() => unregister());

describe('a dummy algorithm registered in the catalogue only', () => {
  it('is kept by custom plans (catalogue order) and by the selector groups', () => {
    const plan = customPlan({
      datasets: ['iris'],
      settings: ['label'],
      labels: [5],
      algorithms: ['dummy', 'lp'],
      seeds: [0],
    });
    expect(plan.algorithms).toEqual(['lp', 'dummy']);
    expect(
      customPlan({ datasets: ['iris'], settings: ['label'], labels: [5], algorithms: ['dummy'], seeds: [0] })
        .algorithms,
    ).toEqual(['dummy']);
    expect(validatePlan(plan)).toEqual([]);
    expect(algorithmGroups().statistical).toContain('dummy');
    expect(algorithmGroups().fast).toContain('dummy');
    expect(algorithmGroups().deep).not.toContain('dummy');
  });

  let run: RunRecord;
  it('runs from the CLI with --option, and its record carries the option and the override', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'rsb-dummy-')), 'run.json');
    const code = await runCommand([
      '--dataset',
      'iris',
      '--setting',
      'distribution',
      '--labels',
      '5',
      '--algorithms',
      'dummy,xgb',
      '--seeds',
      '0-1',
      '--t',
      '0,1',
      '--out',
      out,
      '--quiet',
      '--option',
      'dummy.strength=2.5',
    ]);
    expect(code).toBe(0);
    run = parseRun(JSON.parse(readFileSync(out, 'utf8')));
    expect(run.schema).toBe('rsb-run/2');
    expect(run.plan.modelOptions).toEqual({ dummy: { strength: 2.5 } });
    const cells = run.cells.filter((c) => c.algorithm.name === 'dummy');
    expect(cells).toHaveLength(4);
    for (const c of cells) {
      expect(c.outcome.status).toBe('ok');
      expect(c.outcome.accuracy).toBeGreaterThan(0.5);
      expect(c.algorithm.options).toEqual({ strength: 2.5 });
      expect(c.algorithm.hyper).toEqual({ strength: 2.5 });
      expect(c.protocol.overrides).toEqual({ 'dummy.strength': 2.5 });
      expect(c.protocol.preset).toBe('custom');
    }
    // The other algorithm of the same run has no override of its own.
    expect(run.cells.find((c) => c.algorithm.name === 'xgb')!.protocol.overrides).toEqual({});
  });

  it('refuses a bad option value with the catalogue schema message', async () => {
    await expect(
      runCommand([
        '--dataset',
        'iris',
        '--algorithms',
        'dummy',
        '--out',
        '/dev/null',
        '--option',
        'dummy.strength=11',
      ]),
    ).rejects.toThrow(
      "The 'strength' parameter of dummy must be a number in the range [0, 10]. Got 11 instead.",
    );
    await expect(
      runCommand([
        '--dataset',
        'iris',
        '--algorithms',
        'dummy',
        '--out',
        '/dev/null',
        '--option',
        'dummy.speed=1',
      ]),
    ).rejects.toThrow("'speed' is not an option of dummy. Options: strength.");
  });

  it('travels in the URL and in a permalink', async () => {
    const hash = formatHash({ page: 'run', fields: planToFields(run.plan) });
    expect(hash).toContain('opt=dummy.strength:2.5');
    expect(hash).toContain('alg=dummy,xgb');
    const back = planFromFields(readHash(hash).fields)!;
    expect(back.modelOptions).toEqual({ dummy: { strength: 2.5 } });
    expect(back.algorithms).toEqual(run.plan.algorithms);
    const decoded = decodeRunLink(await encodeRunLink(run));
    expect(decoded.plan.modelOptions).toEqual({ dummy: { strength: 2.5 } });
    expect(decoded.cells.filter((c) => c.algorithm.name === 'dummy').map((c) => c.algorithm.options)).toEqual(
      run.cells.filter((c) => c.algorithm.name === 'dummy').map((c) => c.algorithm.options),
    );
  });

  it('appears in a chart legend with its label and its colour', () => {
    const curves = panelCurves(run.cells, { isBaseline: isBaselineAlgorithm });
    const svg = racChart(curves, { document: shimDocument(), label: algorithmLabel });
    const item = svg.querySelector('.legend-item[data-algorithm="dummy"]')!;
    expect(item).not.toBeNull();
    expect(item.querySelector('text')!.textContent).toBe('Dummy');
    expect(item.querySelector('line')!.getAttribute('stroke')).toBe('#b5479b');
    expect(algorithmColor('dummy')).toBe('#b5479b');
  });
});
