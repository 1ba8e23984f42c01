import { describe, expect, it } from 'vitest';
import {
  DEFAULT_OPTIONS,
  defaultOptions,
  labelPoolSizesRsb,
  makeSplit,
  stratifiedSplit,
  subsamplePool,
  type SplitRequest,
} from '../../../src/lib/protocol/index.ts';
import { loadEmbedded } from '../helpers/datasets.ts';

const ok: SplitRequest = { setting: 'feature', labels: 5, tIndex: 1, seed: 0, mode: 'rsb' };

describe('makeSplit requests', () => {
  it.each([
    [{ labels: 0 }, /labels must be a positive integer; got 0/],
    [{ labels: 2.5 }, /labels must be a positive integer; got 2.5/],
    [{ tIndex: 6 }, /tIndex must be an integer in 0..5; got 6/],
    [{ tIndex: -1 }, /tIndex must be an integer in 0..5; got -1/],
    [{ tIndex: 0.2 }, /tIndex must be an integer in 0..5; got 0.2/],
    [{ seed: -1 }, /seed must be an integer in 0..2\^32-1; got -1/],
    [{ seed: 2 ** 32 }, /seed must be an integer in 0..2\^32-1; got 4294967296/],
    [{ setting: 'covariate' }, /setting must be one of 'distribution', 'feature', 'label'; got "covariate"/],
    [{ mode: 'paper' }, /mode must be 'rsb' or 'readme'; got "paper"/],
    [{ options: { scaler: 'robust' } }, /option 'scaler' must be one of 'split', 'labeled'; got "robust"/],
    [
      { mode: 'readme', setting: 'distribution', labels: 25 },
      /class 0 has 25 rows in its source half; expected more than labels=25/,
    ],
  ])('rejects %j', async (patch, message) => {
    const iris = await loadEmbedded('iris');
    expect(() => makeSplit(iris, { ...ok, ...patch } as SplitRequest)).toThrow(message);
  });

  it('accepts the largest seed', async () => {
    const iris = await loadEmbedded('iris');
    expect(makeSplit(iris, { ...ok, seed: 2 ** 32 - 1 }).labeled).toHaveLength(15);
  });

  it('has the documented option defaults per mode', () => {
    expect(DEFAULT_OPTIONS).toEqual({ takeZero: 'one-per-class', t0Stream: 'per-class', scaler: 'split' });
    expect(defaultOptions('rsb')).toEqual(DEFAULT_OPTIONS);
    expect(defaultOptions('readme')).toEqual({
      takeZero: 'one-per-class',
      t0Stream: 'per-class',
      scaler: 'labeled',
    });
  });

  it('label pool sizes use truncating double arithmetic (1−0.8 = 0.19999999999999996)', () => {
    expect(labelPoolSizesRsb(50, 25, 0.8)).toEqual({ nIn: 6, nOut: 25 });
    expect(labelPoolSizesRsb(65, 24, 0.2)).toEqual({ nIn: 65, nOut: 16 });
  });

  it("takeZero 'empty' leaves the degenerate label pools empty (iris t=0 and t=1)", async () => {
    const iris = await loadEmbedded('iris');
    const at = (tIndex: number, takeZero: 'one-per-class' | 'empty') =>
      makeSplit(iris, { setting: 'label', labels: 5, tIndex, seed: 0, mode: 'rsb', options: { takeZero } });
    expect([at(0, 'one-per-class').nUnlabeledOod, at(0, 'empty').nUnlabeledOod]).toEqual([1, 0]);
    expect(at(5, 'one-per-class').unlabeled).toHaveLength(27);
    expect(at(5, 'empty').unlabeled).toHaveLength(25);
  });
});

describe('subsamplePool (§9)', () => {
  const y = Array.from({ length: 40 }, (_, i) => (i < 10 ? 0 : i < 30 ? 1 : 2));
  const rowIds = y.map((_, i) => 1000 + i);

  it('keeps first(split(y_pool, max, seed + 1 000 003)) mapped to row ids', () => {
    const kept = subsamplePool(y, rowIds, 8, 3);
    expect(kept).toEqual(stratifiedSplit(y, 8, 1_000_006).first.map((p) => 1000 + p));
    const perClass = [0, 0, 0];
    for (const r of kept) perClass[y[r - 1000]]++;
    expect(perClass).toEqual([2, 4, 2]);
    expect(subsamplePool(y, rowIds, 8, 3)).toEqual(kept);
    expect(subsamplePool(y, rowIds, 8, 4)).not.toEqual(kept);
  });

  it('returns a pool no larger than max whole, in its own order', () => {
    expect(subsamplePool(y, rowIds, 40, 0)).toEqual(rowIds);
    expect(subsamplePool(y, rowIds, 100, 0)).toEqual(rowIds);
  });

  it('rejects a bad max or mismatched lengths', () => {
    expect(() => subsamplePool(y, rowIds, 0, 0)).toThrow(/max must be an integer >= 1; got 0/);
    expect(() => subsamplePool(y, rowIds.slice(1), 5, 0)).toThrow(/expected the same length/);
  });
});
