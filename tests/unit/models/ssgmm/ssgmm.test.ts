import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { logDensity, singularGaussian } from '../../../../src/lib/linalg/singularGaussian.ts';
import { symEig } from '../../../../src/lib/linalg/symEig.ts';
import { SSGMM } from '../../../../src/lib/models/statistical/ssgmm.ts';
import { AbortError, NotFittedError } from '../../../../src/lib/models/estimator.ts';
import { ParamError } from '../../../../src/lib/models/params.ts';
import { mt } from '../../../../src/lib/protocol/rng.ts';
import type { Matrix } from '../../../../src/lib/types.ts';

const fixtures = JSON.parse(
  readFileSync(fileURLToPath(new URL('../../../fixtures/svm/ssgmm.json', import.meta.url)), 'utf8'),
) as {
  cases: {
    name: string;
    k: number;
    Xl: number[][];
    yl: number[];
    Xu: number[][];
    Xtest: number[][];
    alphaHistory: number[][];
    nIter: number;
    mu: number[][];
    proba_rsb: number[][];
    proba_fixed: number[][];
    nNanRows_rsb: number;
    nNanRows_fixed: number;
  }[];
};

const mat = (rows: number[][], cols = rows[0]?.length ?? 0): Matrix => ({
  data: Float32Array.from(rows.flat()),
  rows: rows.length,
  cols,
});
const ctx = (quirks: 'rsb' | 'fixed' = 'rsb') => ({ rng: mt(0), quirks });

describe('symEig (Jacobi)', () => {
  it('diagonalises a 3×3 matrix: A v = λ v, ascending, orthonormal', () => {
    const a = [4, 1, 2, 1, 3, 0.5, 2, 0.5, 5];
    const { values, vectors } = symEig(a, 3);
    expect(values[0]).toBeLessThanOrEqual(values[1]);
    expect(values[1]).toBeLessThanOrEqual(values[2]);
    expect(values[0] + values[1] + values[2]).toBeCloseTo(12, 12); // trace
    for (let j = 0; j < 3; j++) {
      for (let i = 0; i < 3; i++) {
        let av = 0;
        for (let m = 0; m < 3; m++) av += a[i * 3 + m] * vectors[m * 3 + j];
        expect(av).toBeCloseTo(values[j] * vectors[i * 3 + j], 12);
      }
    }
    let dot01 = 0;
    for (let i = 0; i < 3; i++) dot01 += vectors[i * 3] * vectors[i * 3 + 1];
    expect(dot01).toBeCloseTo(0, 14);
  });

  it('gives the exact eigenvalues of [[2,1],[1,2]]', () => {
    const { values } = symEig([2, 1, 1, 2], 2);
    expect(values[0]).toBeCloseTo(1, 14);
    expect(values[1]).toBeCloseTo(3, 14);
  });
});

describe('logDensity: two whitened coordinates at a time', () => {
  it.each([1, 2, 5, 16])('equals the one-at-a-time sum bit for bit at rank %i', (rank) => {
    const d = 16;
    const rng = mt(rank);
    // A covariance of the given rank: B Bᵀ with B (d × rank).
    const B = Array.from({ length: d * rank }, () => rng.normal());
    const cov = new Float64Array(d * d);
    for (let a = 0; a < d; a++)
      for (let b = 0; b < d; b++)
        for (let r = 0; r < rank; r++) cov[a * d + b] += B[a * rank + r] * B[b * rank + r];
    const mean = Float64Array.from({ length: d }, () => rng.normal());
    const g = singularGaussian(mean, cov, d);
    expect(g.rank).toBe(rank);
    for (let t = 0; t < 20; t++) {
      const x = Float64Array.from({ length: d }, () => rng.normal());
      let maha = 0;
      for (let r = 0; r < g.rank; r++) {
        let s = 0;
        for (let i = 0; i < d; i++) s += g.whiten[r * d + i] * (x[i] - mean[i]);
        maha += s * s;
      }
      const want = -0.5 * (g.rank * Math.log(2 * Math.PI) + g.logPdet + maha);
      expect(logDensity(g, x, 0, false)).toBe(want);
    }
  });
});

describe('singularGaussian', () => {
  it('matches the closed-form 2-D density for a regular covariance', () => {
    const g = singularGaussian(Float64Array.from([1, -1]), [2, 0.5, 0.5, 1], 2);
    const det = 2 * 1 - 0.25;
    const x = [2, 0];
    const dx = [1, 1];
    // inverse of [[2,.5],[.5,1]] = [[1,-.5],[-.5,2]]/det
    const maha = (dx[0] * dx[0] * 1 - 2 * 0.5 * dx[0] * dx[1] + 2 * dx[1] * dx[1]) / det;
    const expected = -0.5 * (2 * Math.log(2 * Math.PI) + Math.log(det) + maha);
    expect(g.rank).toBe(2);
    expect(logDensity(g, x, 0, true)).toBeCloseTo(expected, 12);
  });

  it('two points in 3-D: rank 1, density on the line, 0 off it (support test), finite when ignored', () => {
    // MLE covariance of (0,0,0) and (2,2,2): mean (1,1,1), Σ = 1·(1,1,1)(1,1,1)ᵀ, eigenvalue 3.
    const g = singularGaussian(Float64Array.from([1, 1, 1]), [1, 1, 1, 1, 1, 1, 1, 1, 1], 3);
    expect(g.rank).toBe(1);
    expect(g.logPdet).toBeCloseTo(Math.log(3), 12);
    // On the line at distance t·sqrt(3) from μ: maha = 3t²/3 = t².
    const t = 0.5;
    const on = [1 + t, 1 + t, 1 + t];
    expect(logDensity(g, on, 0, true)).toBeCloseTo(-0.5 * (Math.log(2 * Math.PI) + Math.log(3) + t * t), 12);
    const off = [1.5, 1.5, 1.6];
    expect(logDensity(g, off, 0, true)).toBe(-Infinity);
    expect(Number.isFinite(logDensity(g, off, 0, false))).toBe(true);
  });

  it('an all-zero covariance (one labeled row) has no support at all', () => {
    const g = singularGaussian(Float64Array.from([0, 0]), [0, 0, 0, 0], 2);
    expect(g.rank).toBe(0);
    expect(logDensity(g, [0, 0], 0, true)).toBe(-Infinity);
  });
});

describe('SSGMM against the numpy/scipy reference (tests/fixtures/svm/ssgmm.json)', () => {
  for (const c of fixtures.cases) {
    it(`${c.name}: α per EM iteration, iteration count, μ and probabilities`, async () => {
      const Xl = mat(c.Xl);
      const Xu = mat(c.Xu);
      const Xt = mat(c.Xtest);
      const yl = Int32Array.from(c.yl);
      for (const quirks of ['rsb', 'fixed'] as const) {
        const fractions: number[] = [];
        const m = new SSGMM();
        await m.fit(Xl, yl, Xu, c.k, { ...ctx(quirks), onProgress: (p) => fractions.push(p.fraction) });
        const info = m.info();
        expect(info.nIter).toBe(c.nIter);
        expect(fractions.length).toBe(c.nIter + 1); // one per EM iteration, then 1
        expect(fractions[fractions.length - 1]).toBe(1);
        expect(info.converged).toBe(true);
        const alpha = info.alpha as number[];
        const last = c.alphaHistory[c.alphaHistory.length - 1];
        for (let j = 0; j < c.k; j++) expect(alpha[j]).toBeCloseTo(last[j], 8);
        const p = await m.predictProba(Xt);
        const ref = quirks === 'rsb' ? c.proba_rsb : c.proba_fixed;
        for (let i = 0; i < ref.length; i++) {
          for (let j = 0; j < c.k; j++) expect(p[i * c.k + j]).toBeCloseTo(ref[i][j], 5);
        }
        expect(m.info().nNanRows).toBe(quirks === 'rsb' ? c.nNanRows_rsb : c.nNanRows_fixed);
      }
    });

    it(`${c.name}: the first EM iterations match to 1e-10 (maxIter cut)`, async () => {
      for (let it = 1; it <= Math.min(3, c.nIter); it++) {
        const m = new SSGMM({ maxIter: it });
        await m.fit(mat(c.Xl), Int32Array.from(c.yl), mat(c.Xu), c.k, ctx());
        const a = m.info().alpha as number[];
        for (let j = 0; j < c.k; j++) expect(Math.abs(a[j] - c.alphaHistory[it - 1][j])).toBeLessThan(1e-10);
        if (it < c.nIter) {
          expect(m.info().converged).toBe(false);
          expect(m.info().warnings).toEqual([`SSGMM did not converge in maxIter=${it} EM iterations.`]);
        }
      }
    });
  }
});

describe('SSGMM behaviour', () => {
  const blobs = fixtures.cases[0];

  it('blobs-2d: the far test row is degenerate; rsb gives a uniform row (class 0), fixed a real one', async () => {
    const m = new SSGMM();
    await m.fit(mat(blobs.Xl), Int32Array.from(blobs.yl), mat(blobs.Xu), 2, ctx('rsb'));
    const far = mat([[40, -40]]);
    const p = await m.predictProba(far);
    expect(Array.from(p)).toEqual([0.5, 0.5]);
    expect(m.info().nNanRows).toBe(1);
    const f = new SSGMM();
    await f.fit(mat(blobs.Xl), Int32Array.from(blobs.yl), mat(blobs.Xu), 2, ctx('fixed'));
    const q = await f.predictProba(far);
    expect(q[0] + q[1]).toBeCloseTo(1, 6);
    expect(Math.max(q[0], q[1])).toBeGreaterThan(0.99); // decided by log-densities, not a tie
    expect(f.info().nNanRows).toBe(1);
  });

  it('is deterministic: two fits give bit-identical probabilities', async () => {
    const c = fixtures.cases[1];
    const run = async () => {
      const m = new SSGMM();
      await m.fit(mat(c.Xl), Int32Array.from(c.yl), mat(c.Xu), 3, ctx());
      return m.predictProba(mat(c.Xtest));
    };
    expect(Array.from(await run())).toEqual(Array.from(await run()));
  });

  it('a class without labeled rows is absent: α 0, probability 0, never NaN', async () => {
    const c = fixtures.cases[0];
    const m = new SSGMM();
    await m.fit(mat(c.Xl), Int32Array.from(c.yl), mat(c.Xu), 3, ctx());
    const info = m.info();
    expect(info.absentClasses).toEqual([2]);
    expect((info.alpha as number[])[2]).toBe(0);
    const p = await m.predictProba(mat(c.Xtest));
    for (let i = 0; i < c.Xtest.length; i++) {
      expect(p[i * 3 + 2]).toBe(0);
      expect(p[i * 3] + p[i * 3 + 1]).toBeCloseTo(1, 6);
    }
    // Same 2-class fit otherwise (same EM path).
    expect(info.nIter).toBe(c.nIter);
  });

  it("ssgmmSupport 'ignore' changes the singular fit and is recorded", async () => {
    const c = fixtures.cases[2];
    const m = new SSGMM({ ssgmmSupport: 'ignore' });
    await m.fit(mat(c.Xl), Int32Array.from(c.yl), mat(c.Xu), 3, ctx());
    expect(m.info().ssgmmSupport).toBe('ignore');
    expect(m.hyper).toEqual({ tol: 1e-5, maxIter: 300, ssgmmSupport: 'ignore' });
    // With the support test off the first E-step is no longer the uniform α/k rule.
    const one = new SSGMM({ ssgmmSupport: 'ignore', maxIter: 1 });
    await one.fit(mat(c.Xl), Int32Array.from(c.yl), mat(c.Xu), 3, ctx());
    expect((one.info().alpha as number[])[0]).not.toBeCloseTo(c.alphaHistory[0][0], 6);
  });

  it('validates params at fit time with sklearn-style messages', async () => {
    const m = new SSGMM({ ssgmmSupport: 'drop' as never });
    await expect(m.fit(mat(blobs.Xl), Int32Array.from(blobs.yl), mat(blobs.Xu), 2, ctx())).rejects.toThrow(
      new ParamError(
        `The 'ssgmmSupport' parameter of SSGMM must be one of {"zero", "ignore"}. Got "drop" instead.`,
      ),
    );
    await expect(
      new SSGMM({ maxIter: 0 }).fit(mat(blobs.Xl), Int32Array.from(blobs.yl), mat(blobs.Xu), 2, ctx()),
    ).rejects.toThrow(ParamError);
  });

  it('throws NotFittedError before fit and AbortError when aborted', async () => {
    await expect(new SSGMM().predictProba(mat(blobs.Xtest))).rejects.toThrow(NotFittedError);
    const ac = new AbortController();
    ac.abort();
    await expect(
      new SSGMM().fit(mat(blobs.Xl), Int32Array.from(blobs.yl), mat(blobs.Xu), 2, {
        ...ctx(),
        signal: ac.signal,
      }),
    ).rejects.toThrow(AbortError);
  });
});
