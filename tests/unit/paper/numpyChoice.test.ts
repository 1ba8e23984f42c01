/**
 * Assemble's resampling = numpy's legacy RandomState.choice(n, k, replace=False, p) (LAMDA-SSL's
 * Assemble), indices, order and stream use. Goldens from Debian's numpy 1.24:
 *   rs = RandomState(seed); p = rs.random_sample(n); p = (p + 1e-8) / (p + 1e-8).sum()
 *   np.random.seed(seed + 100); idx = np.random.choice(n, k, False, p=p.tolist()); next = np.random.randint(1 << 30)
 */
import { describe, expect, it } from 'vitest';
import {
  numpyPairwiseSum,
  weightedSampleWithoutReplacement,
} from '../../../src/lib/models/statistical/assemble.ts';
import { mt } from '../../../src/lib/protocol/rng.ts';

const GOLD: { seed: number; n: number; k: number; idx: number[]; next: number }[] = [
  { seed: 7, n: 10, k: 4, idx: [1, 6, 4, 2], next: 391966374 },
  {
    seed: 1,
    n: 50,
    k: 20,
    idx: [28, 31, 1, 11, 35, 41, 19, 43, 37, 12, 29, 21, 39, 46, 15, 7, 32, 17, 34, 24],
    next: 208239488,
  },
  {
    seed: 3,
    n: 200,
    k: 150,
    idx: [
      92, 36, 34, 166, 121, 95, 165, 65, 42, 88, 189, 140, 125, 138, 1, 71, 76, 101, 177, 154, 131, 83, 151,
      122, 21, 25, 85, 13, 33, 73, 90, 54, 156, 111, 4, 145, 118, 123, 172, 19, 150, 108, 72, 97, 46, 98, 79,
      31, 37, 115, 28, 143, 5, 62, 180, 60, 45, 176, 194, 57, 188, 7, 61, 126, 147, 183, 103, 96, 171, 32, 2,
      146, 55, 68, 191, 190, 161, 11, 167, 48, 184, 193, 30, 152, 192, 155, 109, 116, 52, 175, 20, 185, 58,
      102, 14, 178, 82, 198, 94, 170, 27, 81, 160, 0, 22, 80, 24, 56, 148, 136, 144, 41, 29, 133, 87, 124, 93,
      43, 164, 110, 113, 77, 91, 18, 127, 44, 84, 39, 174, 63, 26, 50, 59, 40, 129, 197, 173, 89, 69, 74, 49,
      142, 70, 132, 107, 78, 3, 153, 135, 117,
    ],
    next: 142701957,
  },
];

describe("numpy's choice(replace=False, p)", () => {
  for (const g of GOLD) {
    it(`seed ${g.seed}: ${g.k} of ${g.n}`, () => {
      const src = mt(g.seed);
      const raw = Float64Array.from({ length: g.n }, () => src.random() + 1e-8);
      const sum = raw.reduce((a, b) => a + b, 0);
      const p = raw.map((v) => v / sum);
      const rng = mt(g.seed + 100);
      expect(Array.from(weightedSampleWithoutReplacement(p, g.k, rng))).toEqual(g.idx);
      expect(rng.randint(1 << 30)).toBe(g.next);
    });
  }
});

describe("numpy's pairwise float64 sum", () => {
  // /usr/bin/python3: a = RandomState(n).random_sample(n) * 1e-3 + 1e-8; repr(float(a.sum()))
  const GOLD: [number, number][] = [
    [5, 0.0027065167293392933],
    [8, 0.004319047607966843],
    [13, 0.00737165076115014],
    [100, 0.04723767917192545],
    [128, 0.0676858515400463],
    [129, 0.0542622503972901],
    [300, 0.1500315720124213],
    [1000, 0.489825310643374],
  ];
  it.each(GOLD)('n = %i', (n, sum) => {
    const rng = mt(n);
    const a = Float64Array.from({ length: n }, () => rng.random() * 1e-3 + 1e-8);
    expect(numpyPairwiseSum(a)).toBe(sum);
  });
});
