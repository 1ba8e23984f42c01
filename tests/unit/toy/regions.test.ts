import { describe, expect, it } from 'vitest';
import { gridPoints, lpRegions, toyRegions } from '../../../src/lib/toy/regions.ts';
import { makeToy } from '../../../src/lib/toy/generate.ts';
import { unlabeledAt } from '../../../src/lib/toy/drift.ts';

describe('gridPoints', () => {
  it('puts cell centres row-major from the top-left', () => {
    const g = gridPoints({ x0: 0, x1: 4, y0: 0, y1: 4 }, 4);
    expect(g.rows).toBe(16);
    expect(Array.from(g.data.slice(0, 4))).toEqual([0.5, 3.5, 1.5, 3.5]);
    expect(Array.from(g.data.slice(30, 32))).toEqual([3.5, 0.5]);
  });
});

describe('lpRegions', () => {
  it('splits a two-cluster toy into a left class-0 half and a right class-1 half', async () => {
    // Labeled: one point per cluster; unlabeled: a 5×5 lattice around each centre (x = ∓1).
    const labeledXY = Float64Array.from([-1, 0, 1, 0]);
    const labeledY = Int32Array.from([0, 1]);
    const u: number[] = [];
    for (const cx of [-1, 1])
      for (let a = -2; a <= 2; a++) for (let b = -2; b <= 2; b++) u.push(cx + 0.1 * a, 0.1 * b);
    const bounds = { x0: -2, x1: 2, y0: -2, y1: 2 };
    const grid = await lpRegions(labeledXY, labeledY, Float64Array.from(u), 2, bounds, { res: 8, gamma: 5 });
    expect(grid.converged).toBe(true);
    for (let r = 0; r < 8; r++) {
      for (let c = 0; c < 8; c++) {
        expect(grid.cls[r * 8 + c]).toBe(c < 4 ? 0 : 1);
        expect(grid.confidence[r * 8 + c]).toBeGreaterThanOrEqual(0.5);
      }
    }
    // Next to a cluster centre the model is sure; on the midline it is not.
    expect(grid.confidence[3 * 8 + 1]).toBeGreaterThan(0.99);
    expect(grid.confidence[3 * 8 + 3]).toBeLessThan(grid.confidence[3 * 8 + 1]);
  });

  it('rejects a bad grid size', async () => {
    await expect(
      lpRegions(
        Float64Array.from([0, 0]),
        Int32Array.from([0]),
        Float64Array.from([1, 1]),
        1,
        { x0: 0, x1: 1, y0: 0, y1: 1 },
        { res: 1 },
      ),
    ).rejects.toThrow("lpRegions: 'res' must be an integer in [2, 256]; got 1.");
  });
});

describe('toyRegions', () => {
  it('the regions follow the unlabeled points: distribution shift moves the boundary, label adds no new class', async () => {
    const toy = makeToy({ shape: 'moons', seed: 1, unlabeled: 80 });
    const at0 = await toyRegions(toy, 'distribution', 0, { res: 16 });
    const at1 = await toyRegions(toy, 'distribution', 1, { res: 16 });
    const changed = at0.cls.reduce((s, c, i) => s + (c !== at1.cls[i] ? 1 : 0), 0);
    expect(changed).toBeGreaterThan(10);
    const lab = await toyRegions(toy, 'label', 1, { res: 16 });
    expect(lab.cls.every((c) => c < toy.k)).toBe(true);
    // Deterministic: the same toy and t give the same picture.
    const again = await toyRegions(toy, 'distribution', 1, { res: 16 });
    expect(Array.from(again.cls)).toEqual(Array.from(at1.cls));
    expect(unlabeledAt(toy, 'distribution', 1).nDrifted).toBe(80);
  });
});
