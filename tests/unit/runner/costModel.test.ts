/** The cost model: formulas scale with the cell's shape, the estimate adds fits up, calibration is positive. */
import { describe, expect, it } from 'vitest';
import {
  calibrate,
  cellCost,
  cellShape,
  datasetShape,
  estimatePlan,
  fitCost,
} from '../../../src/lib/suite/costModel.ts';

describe('cost model', () => {
  it('graph methods grow quadratically with the graph, and letter costs far more than iris', () => {
    const small = fitCost('lp', { l: 10, u: 100, e: 100, k: 3, d: 4, steps: 0 });
    const big = fitCost('lp', { l: 10, u: 1000, e: 100, k: 3, d: 4, steps: 0 });
    expect(big / small).toBeGreaterThan(20);
    expect(
      cellCost({ dataset: 'letter', labels: 5, algorithm: 'lp' }) /
        cellCost({ dataset: 'iris', labels: 5, algorithm: 'lp' }),
    ).toBeGreaterThan(1000);
    expect(cellShape(datasetShape('letter'), 5)).toEqual({
      l: 130,
      u: 9870,
      e: 10000,
      k: 26,
      d: 16,
      steps: 0,
    });
  });

  it('the plan estimate is the summed cost over the lanes, never below the longest fit', () => {
    const one = estimatePlan([{ dataset: 'wine', labels: 5, algorithm: 'tsvm' }], 4, 1e-6);
    const ten = estimatePlan([{ dataset: 'wine', labels: 5, algorithm: 'tsvm', count: 10 }], 2, 1e-6);
    expect(one.seconds).toBeCloseTo(one.longestFitSeconds, 12);
    expect(ten.seconds).toBeCloseTo((10 * one.longestFitSeconds) / 2, 9);
  });

  it('calibration measures this device', () => {
    let t = 0;
    const { msPerUnit, benchMs } = calibrate(() => (t += 7), 2); // each timed run "takes" 7 ms
    expect(benchMs).toBe(7);
    expect(msPerUnit).toBeGreaterThan(0);
  });
});
