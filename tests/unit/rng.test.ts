import { describe, expect, it } from 'vitest';
import { MT19937 } from '../../src/lib/protocol/rng.ts';

describe('MT19937 (numpy legacy RandomState)', () => {
  it('matches the PROTOCOL.md §3.1 test vectors', () => {
    const r = new MT19937(0);
    expect([r.nextU32(), r.nextU32(), r.nextU32(), r.nextU32(), r.nextU32()]).toEqual([
      2357136044, 2546248239, 3071714933, 3626093760, 2588848963,
    ]);
    expect(new MT19937(5489).nextU32()).toBe(3499211612);
  });
  it('permutes like numpy (PROTOCOL.md §3.2)', () => {
    expect(new MT19937(0).permutation(10)).toEqual([2, 8, 4, 9, 1, 6, 7, 3, 0, 5]);
    expect(new MT19937(1).permutation(10)).toEqual([2, 9, 6, 4, 0, 3, 1, 7, 8, 5]);
  });
  it('random() matches numpy random_sample and rejects bad seeds', () => {
    // numpy: np.random.RandomState(0).random_sample(2) -> [0.5488135039273248, 0.7151893663724195]
    const r = new MT19937(0);
    expect(r.random()).toBe(0.5488135039273248);
    expect(r.random()).toBe(0.7151893663724195);
    expect(() => new MT19937(-1)).toThrow(/seed/);
    expect(() => new MT19937(1.5)).toThrow(/seed/);
  });
  it('normal() matches numpy legacy standard_normal', () => {
    // numpy: np.random.RandomState(0).standard_normal(3)
    const r = new MT19937(0);
    expect(r.normal()).toBeCloseTo(1.764052345967664, 14);
    expect(r.normal()).toBeCloseTo(0.4001572083672233, 14);
    expect(r.normal()).toBeCloseTo(0.9787379841057392, 14);
  });
});
