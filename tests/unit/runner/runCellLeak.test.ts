/**
 * A fit that leaves tensors behind fails its cell with a TensorLeak reason (it used to pass with
 * a console warning); a clean fit on the same harness stays ok, and a backend that cannot count
 * (a GPU device going away) skips the check instead of failing the cell.
 */
import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { BaseEstimator } from '../../../src/lib/models/baseEstimator.ts';
import { integerIn } from '../../../src/lib/models/params.ts';
import type { AlgorithmSpec } from '../../../src/lib/models/catalogue.ts';
import type { LiveFitContext } from '../../../src/lib/models/estimator.ts';
import { expandPlan } from '../../../src/lib/suite/plan.ts';
import { customPlan } from '../../../src/lib/suite/presets.ts';
import { runCell, type RunCellContext } from '../../../src/lib/suite/runCell.ts';
import { parseCellResult } from '../../../src/lib/suite/schema.ts';
import type { Matrix } from '../../../src/lib/types.ts';
import { loadEmbedded } from '../helpers/datasets.ts';

class Uniform extends BaseEstimator<{ leak: number }> {
  readonly name = 'uniform';
  readonly className = 'Uniform';
  protected readonly constraints = { leak: integerIn(0) };
  private k = 0;
  constructor(params: Partial<{ leak: number }>) {
    super({ leak: 0 }, params);
  }
  protected async fitImpl(
    _Xl: Matrix,
    _yl: Int32Array,
    _Xu: Matrix,
    k: number,
    _ctx: LiveFitContext,
  ): Promise<void> {
    this.k = k;
    for (let i = 0; i < this.params.leak; i++) tf.zeros([2, 2]); // never disposed: the bug under test
  }
  protected async predictImpl(X: Matrix): Promise<Float32Array> {
    return new Float32Array(X.rows * this.k).fill(1 / this.k);
  }
  protected release(): void {}
}

const entry = (leak: number): AlgorithmSpec =>
  ({
    id: 'uniform',
    family: 'statistical',
    options: {},
    create: async () => new Uniform({ leak }),
  }) as unknown as AlgorithmSpec;

async function oneCell(leak: number, liveTensors: () => number) {
  const ds = await loadEmbedded('iris');
  const plan = customPlan({
    datasets: ['iris'],
    settings: ['distribution'],
    labels: [5],
    algorithms: ['uniform'],
    seeds: [0],
    tIndices: [0],
  });
  const [cell] = expandPlan(plan, () => false);
  const ctx: RunCellContext = {
    now: () => 0,
    isoTime: () => '2026-01-01T00:00:00.000Z',
    env: {
      backend: 'cpu',
      float_precision: 'float32',
      tfjs_version: tf.version.tfjs,
      app_version: 'test',
      device: 'test',
    },
    liveTensors,
  };
  return parseCellResult(await runCell(ds, 'embedded', cell, plan, entry(leak), ctx));
}

describe('runCell and tensor leaks', () => {
  it('fails a cell whose fit leaks, with a clear reason', async () => {
    const r = await oneCell(3, () => tf.memory().numTensors);
    expect(r.outcome.status).toBe('failed');
    expect(r.outcome.accuracy).toBeNull();
    expect(r.outcome.reason).toMatch(
      /^TensorLeak: uniform left 3 tensors allocated after fit, predict and dispose/,
    );
    tf.disposeVariables();
  });

  it('keeps a clean fit ok, and skips the check when the backend cannot count', async () => {
    expect((await oneCell(0, () => tf.memory().numTensors)).outcome.status).toBe('ok');
    const broken = () => {
      throw new Error("The highest priority backend 'webgpu' has not yet been initialized.");
    };
    expect((await oneCell(2, broken)).outcome.status).toBe('ok');
  });
});
