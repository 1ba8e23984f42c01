import { describe, expect, it } from 'vitest';
import { makeToy } from '../../../src/lib/toy/generate.ts';
import { driftCount, unlabeledAt } from '../../../src/lib/toy/drift.ts';
import { SETTINGS } from '../../../src/lib/types.ts';

describe('makeToy', () => {
  it('matches numpy RandomState(1) for the first two labeled moons', () => {
    // /usr/bin/python3: rs = RandomState(1); a = pi*rs.random_sample();
    //   (cos a + 0.12*rs.standard_normal(), sin a + 0.12*rs.standard_normal()), then class 1: (1 − cos a, 0.5 − sin a) + noise.
    const toy = makeToy({ shape: 'moons', seed: 1 });
    expect(toy.labeledXY[0]).toBeCloseTo(0.16147985398956505, 14);
    expect(toy.labeledXY[1]).toBeCloseTo(0.9123488142227818, 14);
    expect(toy.labeledXY[2]).toBeCloseTo(-0.021598674416535957, 14);
    expect(toy.labeledXY[3]).toBeCloseTo(0.08520505896332983, 14);
    expect(Array.from(toy.labeledY.slice(0, 4))).toEqual([0, 1, 0, 1]);
  });

  it('is deterministic per seed and differs across seeds', () => {
    for (const shape of ['moons', 'blobs'] as const) {
      const a = makeToy({ shape, seed: 7 });
      const b = makeToy({ shape, seed: 7 });
      const c = makeToy({ shape, seed: 8 });
      for (const key of ['labeledXY', 'baseXY', 'unseenXY', 'maskCol', 'order'] as const) {
        expect(Array.from(a[key])).toEqual(Array.from(b[key]));
      }
      expect(Array.from(a.baseXY)).not.toEqual(Array.from(c.baseXY));
      expect(a.bounds).toEqual(b.bounds);
    }
  });

  it('has the requested sizes and balanced classes', () => {
    const moons = makeToy({ shape: 'moons', seed: 3, labeledPerClass: 5, unlabeled: 101 });
    expect(moons.k).toBe(2);
    expect(moons.labeledXY.length).toBe(2 * 10);
    expect(moons.labeledY.filter((y) => y === 0).length).toBe(5);
    expect(moons.baseXY.length).toBe(2 * 101);
    expect(moons.baseY.filter((y) => y === 1).length).toBe(50);
    expect(moons.unseenXY.length).toBe(2 * 101);
    expect([...moons.order].sort((x, y) => x - y)).toEqual(Array.from({ length: 101 }, (_, i) => i));
    expect(moons.maskCol.every((c) => c === 0 || c === 1)).toBe(true);
    const blobs = makeToy({ shape: 'blobs', seed: 3 });
    expect(blobs.k).toBe(3);
    expect(blobs.labeledY.length).toBe(12);
    expect(blobs.baseY.length).toBe(180);
  });

  it('uses the labeled mean as the fill value and a square view holding every point', () => {
    const toy = makeToy({ seed: 2 });
    const n = toy.labeledY.length;
    let mx = 0;
    for (let i = 0; i < n; i++) mx += toy.labeledXY[2 * i];
    expect(toy.labeledMean[0]).toBeCloseTo(mx / n, 12);
    const { x0, x1, y0, y1 } = toy.bounds;
    expect(x1 - x0).toBeCloseTo(y1 - y0, 12);
    for (const setting of SETTINGS) {
      const u = unlabeledAt(toy, setting, 1);
      for (let i = 0; i < u.xy.length; i += 2) {
        expect(u.xy[i]).toBeGreaterThan(x0);
        expect(u.xy[i]).toBeLessThan(x1);
        expect(u.xy[i + 1]).toBeGreaterThan(y0);
        expect(u.xy[i + 1]).toBeLessThan(y1);
      }
    }
  });

  it('rejects bad options with the value in the message', () => {
    expect(() => makeToy({ shape: 'spiral' as never })).toThrow(
      /'shape' must be one of moons, blobs; got "spiral"/,
    );
    expect(() => makeToy({ unlabeled: 0 })).toThrow(/'unlabeled' must be an integer >= 1; got 0/);
    expect(() => makeToy({ seed: -1 })).toThrow(/seed must be an integer/);
  });
});

describe('unlabeledAt', () => {
  const toy = makeToy({ shape: 'moons', seed: 5, unlabeled: 50 });

  it('leaves every point in place at t = 0, in every setting', () => {
    for (const setting of SETTINGS) {
      const u = unlabeledAt(toy, setting, 0);
      expect(Array.from(u.xy)).toEqual(Array.from(toy.baseXY));
      expect(Array.from(u.y)).toEqual(Array.from(toy.baseY));
      expect(u.nDrifted).toBe(0);
    }
  });

  it('distribution: at t the whole cloud is moved by t·shift', () => {
    for (const t of [0.4, 1]) {
      const u = unlabeledAt(toy, 'distribution', t);
      expect(u.nDrifted).toBe(50);
      for (let i = 0; i < 50; i++) {
        expect(u.xy[2 * i] - toy.baseXY[2 * i]).toBeCloseTo(t * toy.shift[0], 12);
        expect(u.xy[2 * i + 1] - toy.baseXY[2 * i + 1]).toBeCloseTo(t * toy.shift[1], 12);
      }
      expect(Array.from(u.y)).toEqual(Array.from(toy.baseY));
    }
  });

  it('feature: at t = 1 every point has its masked coordinate at the labeled mean, the other unchanged', () => {
    const u = unlabeledAt(toy, 'feature', 1);
    expect(u.nDrifted).toBe(50);
    for (let i = 0; i < 50; i++) {
      const c = toy.maskCol[i];
      expect(u.xy[2 * i + c]).toBe(toy.labeledMean[c]);
      expect(u.xy[2 * i + 1 - c]).toBe(toy.baseXY[2 * i + 1 - c]);
    }
  });

  it('label: at t = 1 every point is its unseen-class twin, with class k', () => {
    const u = unlabeledAt(toy, 'label', 1);
    expect(Array.from(u.xy)).toEqual(Array.from(toy.unseenXY));
    expect(u.y.every((y) => y === toy.k)).toBe(true);
  });

  it('feature and label: round(t·n) points drift, nested as t grows', () => {
    expect([0, 0.2, 0.4, 0.6, 0.8, 1].map((t) => driftCount(t, 50))).toEqual([0, 10, 20, 30, 40, 50]);
    for (const setting of ['feature', 'label'] as const) {
      let prev = unlabeledAt(toy, setting, 0).drifted;
      for (const t of [0.13, 0.4, 0.6, 0.99]) {
        const u = unlabeledAt(toy, setting, t);
        expect(u.nDrifted).toBe(Math.round(t * 50));
        expect(u.drifted.reduce((s, x) => s + x, 0)).toBe(u.nDrifted);
        for (let i = 0; i < 50; i++) if (prev[i]) expect(u.drifted[i]).toBe(1);
        prev = u.drifted;
      }
    }
    // Exactly the first round(t·n) points of the drift order.
    const u = unlabeledAt(toy, 'label', 0.2);
    const expected = Array.from(toy.order.slice(0, 10)).sort((a, b) => a - b);
    expect(Array.from(u.drifted).flatMap((d, i) => (d ? [i] : []))).toEqual(expected);
  });

  it('rejects t outside [0, 1]', () => {
    expect(() => unlabeledAt(toy, 'feature', 1.2)).toThrow('unlabeledAt: t must be in [0, 1]; got 1.2.');
    expect(() => unlabeledAt(toy, 'label', Number.NaN)).toThrow(/got NaN/);
  });
});
