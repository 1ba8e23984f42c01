/**
 * The catalogue is the cost model's one source: an entry's `cost` (seconds on the reference machine)
 * is what the executor's ordering and ETA use, through suite/costModel.ts's units and calibration.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  CATALOGUE,
  registerAlgorithmForTest,
  type AlgorithmSpec,
  type CellShape,
} from '../../../src/lib/models/catalogue.ts';
import { SECONDS_PER_UNIT } from '../../../src/lib/models/cost.ts';
import {
  cappedShape,
  catalogueShape,
  cellCost,
  cellShape,
  datasetShape,
  fitCost,
  REFERENCE_MS_PER_UNIT,
} from '../../../src/lib/suite/costModel.ts';
import { RunExecutor, type Lane } from '../../../src/lib/suite/executor.ts';
import { expandPlan, fitCells, type CellSpec } from '../../../src/lib/suite/plan.ts';
import { customPlan } from '../../../src/lib/suite/presets.ts';
import { parseCellResult } from '../../../src/lib/suite/schema.ts';
import { fixtureCell } from './fakeCell.ts';

const seen: CellShape[] = [];
const entry = (id: string, seconds: number): AlgorithmSpec => ({
  ...CATALOGUE.find((a) => a.id === 'lp')!,
  id,
  presets: {},
  color: id === 'slowfit' ? '#123456' : '#654321',
  cost: (s) => {
    seen.push(s);
    return seconds;
  },
});

let unregister: (() => void)[] = [];
afterEach(() => {
  for (const u of unregister) u();
  unregister = [];
  seen.length = 0;
});

class OrderLane implements Lane {
  readonly index = 0;
  readonly resource = 'cpu' as const;
  readonly restartable = false;
  readonly backend = 'wasm';
  ran: string[] = [];
  async run(cell: CellSpec) {
    this.ran.push(cell.algorithm);
    return fixtureCell(cell);
  }
  async restart(): Promise<void> {}
  cancel(): void {}
  async close(): Promise<void> {}
}

describe('catalogue cost → executor', () => {
  it("an entry's cost is the executor's ETA (at the reference calibration) and its ordering", async () => {
    unregister = [
      registerAlgorithmForTest(entry('slowfit', 3)),
      registerAlgorithmForTest(entry('quickfit', 0.01)),
    ];
    const cells = expandPlan(
      customPlan({
        datasets: ['wine'],
        settings: ['feature'],
        labels: [5],
        algorithms: ['quickfit', 'slowfit'],
        seeds: [0],
        tIndices: [0, 1],
      }),
      () => false,
    );
    const lane = new OrderLane();
    const ex = new RunExecutor({
      cells,
      stored: [],
      lanes: [lane],
      compute: () => 'statistical',
      clock: { now: () => 0, after: () => () => {} },
      validate: parseCellResult,
      put: async () => {},
      cost: (c) => cellCost(c, () => 'statistical'),
      msPerUnit: REFERENCE_MS_PER_UNIT,
    });
    // Seconds from the catalogue, plus the fixed 5 ms per fit (2e6 units at the reference).
    const overhead = 2e6 * SECONDS_PER_UNIT;
    expect(ex.snapshot().etaSeconds).toBeCloseTo(2 * (3 + overhead) + 2 * (0.01 + overhead), 6);
    // The formula saw wine's cell shape, graph = L ∪ U.
    expect(seen[0]).toEqual(catalogueShape(cellShape(datasetShape('wine'), 5)));
    expect(seen[0].graph).toBe(seen[0].labeled + seen[0].unlabeled);
    await ex.run();
    expect(lane.ran).toEqual(['slowfit', 'slowfit', 'quickfit', 'quickfit']); // longest first
    expect(fitCells(cells)).toHaveLength(4);
  });

  it('every built-in entry: fitCost is its catalogue cost in units', () => {
    const shape = cellShape(datasetShape('letter'), 10);
    for (const a of CATALOGUE) {
      expect(fitCost(a.id, shape) - 2e6, a.id).toBeCloseTo(
        a.cost(catalogueShape(shape)) / SECONDS_PER_UNIT,
        0,
      );
    }
  });

  it("the estimate follows a plan's §9 caps (graph cap only for graph-pool entries)", () => {
    const caps = { test: { max: 2000 }, unlabeled: { max: 5000 }, graph: { max: 1000 } };
    const letter = cellShape(datasetShape('letter'), 5);
    expect(cappedShape(letter, 'lp', caps)).toEqual({ ...letter, e: 2000, u: 1000 });
    expect(cappedShape(letter, 'xgb', caps)).toEqual({ ...letter, e: 2000, u: 5000 });
    expect(cappedShape(letter, 'lp', undefined)).toBe(letter);
    const cell = { dataset: 'letter', labels: 5, algorithm: 'lp' };
    // LP is quadratic in its graph: capping U from 9 870 to 1 000 rows cuts its cost by far more than 10×.
    expect(cellCost(cell) / cellCost(cell, undefined, undefined, undefined, caps)).toBeGreaterThan(50);
  });
});
