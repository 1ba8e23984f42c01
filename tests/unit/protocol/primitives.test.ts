import { describe, expect, it } from 'vitest';
import { allocate, stratifiedSplit } from '../../../src/lib/protocol/index.ts';
import { mt } from '../../../src/lib/protocol/rng.ts';
import { readFixture, type FixtureHeader } from './fixtureFiles.ts';

interface Primitives {
  header: FixtureHeader;
  allocate: { counts: number[]; n: number; seed: number; a: number[] }[];
  split: {
    y: number[];
    size: number;
    seed: number;
    first: number[];
    second: number[];
    firstEmpty: number[];
    secondEmpty: number[];
  }[];
}

const fx = readFixture<Primitives>('primitives.json');

describe('allocate (§3.3, sklearn _approximate_mode)', () => {
  it('matches the sklearn docstring vectors', () => {
    expect(allocate([4, 2], 3, mt(0))).toEqual([2, 1]);
    expect(allocate([5, 2], 4, mt(0))).toEqual([3, 1]);
    expect(allocate([2, 2, 2, 1], 2, mt(0))).toEqual([0, 1, 1, 0]);
    expect(allocate([2, 2, 2, 1], 2, mt(42))).toEqual([1, 1, 0, 0]);
  });

  it('gives wine half split 29/36/24 for every seed (59/178·89 = 29.499999999999996 is no tie)', () => {
    expect((59 / 178) * 89).toBe(29.499999999999996);
    for (let seed = 0; seed < 20; seed++) expect(allocate([59, 71, 48], 89, mt(seed))).toEqual([29, 36, 24]);
  });

  it('draws a tie permutation even when every tied class is taken', () => {
    // [3,1,1] over 4: cont 2.4, 0.8, 0.8 -> need 2, tie group {1,2} of 2, both taken: permutation(2) still draws.
    const used = mt(7);
    expect(allocate([3, 1, 1], 4, used)).toEqual([2, 1, 1]);
    const fresh = mt(7);
    fresh.permutation(2);
    expect(used.nextU32()).toBe(fresh.nextU32());
  });

  it(`matches numpy ${fx.header.numpy} / sklearn ${fx.header.sklearn} on ${fx.allocate.length} vectors`, () => {
    for (const v of fx.allocate) expect(allocate(v.counts, v.n, mt(v.seed)), JSON.stringify(v)).toEqual(v.a);
  });
});

describe('stratifiedSplit (§3.4)', () => {
  it('reproduces the protocol test vector', () => {
    const y = [0, 0, 0, 1, 1, 1, 1, 2, 2, 2];
    expect(stratifiedSplit(y, 4, 0)).toEqual({ first: [7, 2, 6, 5], second: [4, 0, 3, 9, 8, 1] });
    expect(stratifiedSplit(y, 4, 1)).toEqual({ first: [7, 4, 0, 5], second: [6, 2, 8, 3, 9, 1] });
  });

  it(`matches the Python reference on ${fx.split.length} pools, both takeZero rules`, () => {
    let checked = 0;
    for (const v of fx.split) {
      const a = stratifiedSplit(v.y, v.size, v.seed, { takeZero: 'one-per-class' });
      expect(a, JSON.stringify(v)).toEqual({ first: v.first, second: v.second });
      const b = stratifiedSplit(v.y, v.size, v.seed, { takeZero: 'empty' });
      expect(b, JSON.stringify(v)).toEqual({ first: v.firstEmpty, second: v.secondEmpty });
      checked += 2;
    }
    console.log(`stratifiedSplit: ${checked} splits equal to the Python reference`);
  });

  it('takes all without drawing, in identity order', () => {
    expect(stratifiedSplit([2, 0, 1, 0], 4, 3)).toEqual({ first: [0, 1, 2, 3], second: [] });
    expect(stratifiedSplit([2, 0, 1, 0], 9, 3)).toEqual({ first: [0, 1, 2, 3], second: [] });
  });

  it('raises a zero request to one row per class, or returns an empty first part', () => {
    const y = [0, 0, 1, 1, 1, 1];
    const one = stratifiedSplit(y, 0, 5);
    expect(one.first.map((p) => y[p]).sort()).toEqual([0, 1]);
    expect(one.second).toHaveLength(4);
    expect(stratifiedSplit(y, 0, 5, { takeZero: 'empty' })).toEqual({
      first: [],
      second: [0, 1, 2, 3, 4, 5],
    });
  });

  it('does not throw for single-row classes', () => {
    const y = [0, 1, 1, 1, 2, 2, 2, 2];
    const { first, second } = stratifiedSplit(y, 0.5, 0);
    expect(first).toHaveLength(4);
    expect([...first, ...second].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it('rejects sizes that are neither a fraction in (0, 1) nor a count', () => {
    expect(() => stratifiedSplit([0, 1], 1.5, 0)).toThrow(/fraction in \(0, 1\) or an integer count/);
    expect(() => stratifiedSplit([0, 1], -1, 0)).toThrow(/got -1/);
  });
});
