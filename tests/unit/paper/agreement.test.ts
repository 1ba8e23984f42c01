/**
 * The reproduction rule (issue 21, item 6), with worked numbers: a point agrees when
 * |Δ| ≤ 2·√(s_pub²/n_pub + s_ours²/n_ours) + 1e-6 (s² = σ²·n/(n−1)); a curve leans when a
 * two-sided exact sign test rejects at 5 %; a panel is reproduced when every point agrees and no
 * curve leans.
 */
import { describe, expect, it } from 'vitest';
import {
  agreementTolerance,
  AGREEMENT_FLOOR,
  reproduction,
  signTest,
} from '../../../src/lib/published/agreement.ts';
import {
  comparePanel,
  comparisonHeadline,
  comparisonSummary,
  loadPublished,
  publishedSeries,
} from '../../../src/lib/published/reference.ts';

const series = (mean: (number | null)[], std: (number | null)[]) => ({ mean, std, defects: [] });

describe('agreement tolerance', () => {
  it('is 2 standard errors of the difference of two means, from population stds', () => {
    // σ_pub 0.02 over 5 seeds: 0.02²/4 = 1e-4; σ_ours 0.03 over 3: 0.03²/2 = 4.5e-4.
    const tol = agreementTolerance({ publishedStd: 0.02, nPublished: 5, oursStd: 0.03, nOurs: 3 });
    expect(tol).toBeCloseTo(2 * Math.sqrt(1e-4 + 4.5e-4) + 1e-6, 15);
    expect(tol).toBeCloseTo(0.0469052, 7);
  });

  it('borrows the published spread for one seed of ours (it has none of its own)', () => {
    // s_pub² = 0.02²·5/4 = 5e-4 stands in for s_ours² over n_ours = 1.
    const tol = agreementTolerance({ publishedStd: 0.02, nPublished: 5, oursStd: 0, nOurs: 1 });
    expect(tol).toBeCloseTo(2 * Math.sqrt(1e-4 + 5e-4) + 1e-6, 15);
  });

  it('is the floor 1e-6 when both stds are 0: equal as printed agrees, a visible gap does not', () => {
    expect(agreementTolerance({ publishedStd: 0, nPublished: 5, oursStd: 0, nOurs: 5 })).toBe(
      AGREEMENT_FLOOR,
    );
    const r = reproduction(
      { mean: [0.9, 0.9000005, 0.91, NaN, NaN, NaN], std: [0, 0, 0, 0, 0, 0], seeds: [0, 1, 2, 3, 4] },
      series([0.9, 0.9, 0.9, null, null, null], [0, 0, 0, null, null, null]),
      [0, 1, 2, 3, 4],
    );
    expect(r.detail.map((d) => d.agrees)).toEqual([true, true, false]);
  });
});

describe('sign test', () => {
  it('rejects 6 of 6 on one side at 5 % (p = 2/64), never 5 of 5 (p = 2/32)', () => {
    expect(signTest([-1, -1, -1, -1, -1, -1].map((x) => x * 0.1))).toEqual({
      above: 0,
      below: 6,
      p: 0.03125,
      leans: true,
    });
    expect(signTest([0.1, 0.1, 0.1, 0.1, 0.1])).toMatchObject({ p: 0.0625, leans: false });
    // 5 above, 1 below: 2·(1 + 6)/64.
    expect(signTest([0.1, 0.1, 0.1, 0.1, 0.1, -0.1]).p).toBeCloseTo(0.21875, 15);
    // Ties (|Δ| within the floor) are dropped, as the test prescribes.
    expect(signTest([0, 5e-7, -0.1])).toMatchObject({ above: 0, below: 1, p: 1, leans: false });
    expect(signTest([])).toMatchObject({ p: 1, leans: false });
  });

  it('counts a baseline once: its curve is one fit drawn flat', () => {
    const ref = series([0.9, 0.9, 0.9, 0.9, 0.9, 0.9], [0.05, 0.05, 0.05, 0.05, 0.05, 0.05]);
    const flat = { mean: Array(6).fill(0.88), std: Array(6).fill(0.05), seeds: [0, 1, 2] };
    expect(reproduction(flat, ref, [0, 1, 2, 3, 4]).sign.leans).toBe(true);
    expect(reproduction({ ...flat, baseline: true }, ref, [0, 1, 2, 3, 4]).sign).toMatchObject({
      below: 1,
      leans: false,
    });
  });
});

describe('reproduced panels', () => {
  it('wine · label · 10: SSGMM 11 points low at every t agrees point by point but leans: not reproduced', async () => {
    // The audit's case: the old rule called it "24/24 within noise".
    const table = await loadPublished();
    const key = { dataset: 'wine', setting: 'label' as const, labels: 10 };
    const curve = (algorithm: string, shift: number) => {
      const s = publishedSeries(table, { ...key, algorithm })!;
      return {
        ...key,
        algorithm,
        mean: s.mean.map((m) => m! + shift),
        std: s.std.map((x) => x!),
        nSeeds: [3, 3, 3, 3, 3, 3],
        seeds: [0, 1, 2],
        protocol: { mode: 'rsb', options: {}, overrides: {} },
      };
    };
    const tsvm = curve('tsvm', 0);
    tsvm.mean = tsvm.mean.map((m, i) => m + [0.004, -0.004, 0.003, -0.002, 0.001, -0.001][i]);
    const pc = comparePanel([curve('ssgmm', -0.11), tsvm], table)!;
    expect(pc.total).toMatchObject({ points: 12, agree: 12, exact: null });
    expect(pc.verdict).toBe('not-reproduced');
    expect(comparisonHeadline(pc)).toBe('✗ Not reproduced');
    expect(comparisonSummary(pc, (id) => id.toUpperCase())).toBe(
      '12/12 points agree · SSGMM lies below at 6 of 6 points (sign test p = 0.031) · 3 seeds vs the ' +
        "original's 5 · exact equality not checked (other seeds than the original’s) · mean Δ −5.49 pp",
    );
    // Without the lean, the same panel is reproduced.
    const ok = comparePanel([curve('ssgmm', 0), tsvm], table)!;
    expect(ok.verdict).toBe('reproduced');
  });

  it('a point 3 standard errors off is not reproduced, and says how many agree', async () => {
    const table = await loadPublished();
    const key = { dataset: 'wine', setting: 'label' as const, labels: 10, algorithm: 'lp' };
    const s = publishedSeries(table, key)!;
    // t = 0.4: σ 0.0166 over 5 seeds both sides: SE of Δ = 0.0166·√(2/4) ≈ 0.0117; 0.04 is 3.4 SE.
    const mean = s.mean.map((m, i) => m! + (i === 2 ? 0.04 : i % 2 ? 0.001 : -0.001));
    const pc = comparePanel([{ ...key, mean, std: s.std.map((x) => x!), seeds: [0, 1, 2, 3, 4] }], table)!;
    expect(pc.verdict).toBe('not-reproduced');
    expect(pc.total!.agree).toBe(5);
    expect(pc.total!.detail[2]).toMatchObject({ agrees: false, nOurs: 5, nPublished: 5 });
    expect(pc.total!.detail[2].tolerance).toBeCloseTo(2 * Math.sqrt((2 * s.std[2]! ** 2) / 4) + 1e-6, 12);
  });

  it('readme mode and overrides are compared with a caveat, never without', async () => {
    const table = await loadPublished();
    const key = { dataset: 'wine', setting: 'feature' as const, labels: 5, algorithm: 'ssgmm' };
    const s = publishedSeries(table, key)!;
    const c = { ...key, mean: s.mean.map((m) => m!), std: s.std.map((x) => x!), seeds: [0, 1, 2, 3, 4] };
    const readme = comparePanel(
      [{ ...c, protocol: { mode: 'readme', overrides: { 'lp.gamma': 5 } } }],
      table,
    )!;
    expect(readme.verdict).toBe('reproduced');
    expect(comparisonSummary(readme)).toBe(
      "6/6 points agree · no one-sided lean · 5 seeds vs the original's 5 · 6 exactly equal · mean Δ ±0.00 pp · " +
        'caveat: this run is in readme mode, not the rsb code path behind the published numbers · ' +
        'caveat: this run has overrides (lp.gamma), not the published protocol',
    );
  });
});
