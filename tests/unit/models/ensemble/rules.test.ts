/** Tri-Training's update rule, its vote, Assemble's sampler and the 3-NN helper on fixed scenarios. */
import { describe, expect, it } from 'vitest';
import { weightedSampleWithoutReplacement } from '../../../../src/lib/models/statistical/assemble.ts';
import { knnPredict } from '../../../../src/lib/models/statistical/knn.ts';
import { triTrainingDecision, triTrainingVote } from '../../../../src/lib/models/statistical/triTraining.ts';
import { mt } from '../../../../src/lib/protocol/rng.ts';

describe('triTrainingDecision (PROTOCOL.md §7.1)', () => {
  it('no update unless e < e′ (NaN when the other two never agree)', () => {
    expect(triTrainingDecision(0.6, 0.5, 0, 10)).toEqual({ update: false, lPrime: 0, subsample: null });
    expect(triTrainingDecision(0.5, 0.5, 0, 10).update).toBe(false);
    expect(triTrainingDecision(NaN, 0.5, 0, 10).update).toBe(false);
  });
  it('first round: l′ = ⌊e/(e′−e) + 1⌋, then subsample ⌊e′l′/e − 1⌋ rows', () => {
    // l′ = ⌊0.25 + 1⌋ = 1 < 10; 0.1·10 = 1 ≥ 0.5·1; 1 > 0.25 → keep ⌊5 − 1⌋ = 4 rows.
    expect(triTrainingDecision(0.1, 0.5, 0, 10)).toEqual({ update: true, lPrime: 1, subsample: 4 });
    // l′ = ⌊2/3 + 1⌋ = 1 < 3; 0.6 ≥ 0.5; 1 > 0.667 → ⌊2.5 − 1⌋ = 1 row.
    expect(triTrainingDecision(0.2, 0.5, 0, 3)).toEqual({ update: true, lPrime: 1, subsample: 1 });
    // e = 0: l′ = 1 and 0 < e′ → update with all rows.
    expect(triTrainingDecision(0, 0.5, 0, 5)).toEqual({ update: true, lPrime: 1, subsample: null });
  });
  it('later rounds: update with all of L_i when e|L_i| < e′l′; none when l′ ≥ |L_i|', () => {
    expect(triTrainingDecision(0.1, 0.2, 20, 30)).toEqual({ update: true, lPrime: 20, subsample: null });
    expect(triTrainingDecision(0.1, 0.2, 50, 40)).toEqual({ update: false, lPrime: 50, subsample: null });
    // 0.15·30 = 4.5 ≥ 0.2·20 = 4, and l′ = 20 > 0.15/0.05 = 3 → ⌊0.2·20/0.15 − 1⌋ = 25.
    expect(triTrainingDecision(0.15, 0.2, 20, 30)).toEqual({ update: true, lPrime: 20, subsample: 25 });
    // l′ = 2 ≤ e/(e′−e) = 3 → no update.
    expect(triTrainingDecision(0.15, 0.2, 2, 30)).toEqual({ update: false, lPrime: 2, subsample: null });
  });
});

describe('triTrainingVote', () => {
  it("takes learner 2's row where 2 and 3 agree, learner 1's elsewhere", () => {
    const p1 = Float32Array.from([0.8, 0.1, 0.1, 0.7, 0.2, 0.1]);
    const p2 = Float32Array.from([0.1, 0.6, 0.3, 0.2, 0.5, 0.3]);
    const p3 = Float32Array.from([0.2, 0.7, 0.1, 0.1, 0.2, 0.7]);
    expect(Array.from(triTrainingVote(p1, p2, p3, 2, 3))).toEqual(
      Array.from(Float32Array.from([0.1, 0.6, 0.3, 0.7, 0.2, 0.1])),
    );
  });
});

describe('weightedSampleWithoutReplacement', () => {
  it('draws distinct rows, never a zero weight, deterministically per seed', () => {
    const p = Float64Array.from([0.1, 0, 0.3, 0.2, 0, 0.4]);
    const a = weightedSampleWithoutReplacement(p, 4, mt(7));
    expect(new Set(a).size).toBe(4);
    expect([...a].sort()).toEqual([0, 2, 3, 5]);
    expect(weightedSampleWithoutReplacement(p, 4, mt(7))).toEqual(a);
    expect(() => weightedSampleWithoutReplacement(p, 7, mt(0))).toThrow('cannot take 7 rows from 6');
  });
  it('follows the probabilities for the first draw', () => {
    const p = Float64Array.from([0.7, 0.2, 0.1]);
    const rng = mt(1);
    const counts = [0, 0, 0];
    for (let i = 0; i < 4000; i++) counts[weightedSampleWithoutReplacement(p, 1, rng)[0]]++;
    expect(counts[0] / 4000).toBeCloseTo(0.7, 1);
    expect(counts[2] / 4000).toBeCloseTo(0.1, 1);
  });
});

describe('knnPredict (KNeighborsClassifier(3))', () => {
  it('matches scikit-learn 1.2.1 on a random case', () => {
    // Made with /usr/bin/python3: RandomState(3), X 12×2 normal, y randint(0,3), Q 8×2 normal.
    const X = [
      1.7886284589767456, 0.4365098476409912, 0.09649746865034103, -1.863492727279663, -0.27738821506500244,
      -0.35475897789001465, -0.08274148404598236, -0.6270006895065308, -0.043818168342113495,
      -0.47721803188323975, -1.3138647079467773, 0.8846223950386047, 0.8813180327415466, 1.7095730304718018,
      0.05003364384174347, -0.4046774208545685, -0.5453599691390991, -1.5464773178100586, 0.9823674559593201,
      -1.1010676622390747, -1.1850465536117554, -0.20564989745616913, 1.4861483573913574, 0.23671627044677734,
    ];
    const y = Int32Array.from([1, 0, 2, 1, 1, 2, 0, 0, 2, 0, 0, 1]);
    const Q = [
      -0.370675265789032, 1.0504511594772339, 0.2613125145435333, -0.6945972442626953, -2.0246920585632324,
      0.8459531664848328, -0.47455325722694397, -1.3957655429840088, -1.7327845096588135,
      -0.23322422802448273, -0.3684866726398468, -1.8131661415100098, 0.2545355260372162, 1.0639489889144897,
      -0.9896121621131897, -0.9650511145591736,
    ];
    const pred = knnPredict(
      { data: Float32Array.from(X), rows: 12, cols: 2 },
      y,
      3,
      { data: Float32Array.from(Q), rows: 8, cols: 2 },
      3,
    );
    expect(Array.from(pred)).toEqual([2, 1, 2, 0, 2, 0, 0, 2]);
  });
  it('breaks vote ties toward the lower class and caps neighbours at |L|', () => {
    const train = { data: Float32Array.from([0, 1, 2]), rows: 3, cols: 1 };
    // Neighbours of 1.1: rows 1 (class 2), 2 (class 1), 0 (class 0) → one vote each → class 0.
    expect(
      Array.from(
        knnPredict(
          train,
          Int32Array.from([0, 2, 1]),
          3,
          { data: Float32Array.from([1.1]), rows: 1, cols: 1 },
          3,
        ),
      ),
    ).toEqual([0]);
    expect(
      Array.from(
        knnPredict(
          train,
          Int32Array.from([0, 2, 2]),
          3,
          { data: Float32Array.from([0]), rows: 1, cols: 1 },
          5,
        ),
      ),
    ).toEqual([2]);
  });
});
