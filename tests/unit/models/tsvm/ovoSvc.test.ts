/**
 * One-vs-one prediction with the kernel values shared across pairs (predictOvoSvc) against the
 * direct vote, pair by pair through svcDecision: identical labels on a many-class problem whose
 * pairs share support vectors (every training row of class c sits in k − 1 pairs).
 */
import { describe, expect, it } from 'vitest';
import { fitOvoSvc, predictOvoSvc } from '../../../../src/lib/models/statistical/svm/ovoSvc.ts';
import { svcDecision } from '../../../../src/lib/models/statistical/svm/svc.ts';
import { mt } from '../../../../src/lib/protocol/rng.ts';
import type { Matrix } from '../../../../src/lib/types.ts';

const centresRng = mt(0);
const CENTRES = Array.from({ length: 7 }, () => Array.from({ length: 5 }, () => centresRng.normal() * 1.5));

function blobs(k: number, perClass: number, d: number, seed: number): { X: Matrix; y: Int32Array } {
  const rng = mt(seed);
  const centres = CENTRES;
  const data = new Float32Array(k * perClass * d);
  const y = new Int32Array(k * perClass);
  for (let i = 0; i < k * perClass; i++) {
    y[i] = i % k;
    for (let f = 0; f < d; f++) data[i * d + f] = centres[y[i]][f] + rng.normal();
  }
  return { X: { data, rows: k * perClass, cols: d }, y };
}

describe('predictOvoSvc', () => {
  it('shares kernel values across pairs and votes exactly as the pair-by-pair decisions', () => {
    const k = 7;
    const train = blobs(k, 12, 5, 1);
    const test = blobs(k, 30, 5, 2);
    const m = fitOvoSvc(train.X, train.y, { gamma: 'auto' });
    expect(m.pairs).toHaveLength((k * (k - 1)) / 2);
    // every pair's support vectors map to distinct rows of svX, far fewer than the pairs' total
    const total = m.pairs.reduce((s, p) => s + p.svSlot.length, 0);
    expect(m.svX.length / m.d).toBeLessThan(total / 2);
    for (const p of m.pairs)
      p.svSlot.forEach((slot, v) =>
        expect(Array.from(m.svX.subarray(slot * m.d, (slot + 1) * m.d))).toEqual(
          Array.from(p.model.svX.subarray(v * m.d, (v + 1) * m.d)),
        ),
      );
    const n = test.X.rows;
    const votes = new Int32Array(n * k);
    for (const { a, b, model } of m.pairs) {
      const dec = svcDecision(model, test.X.data, n);
      for (let r = 0; r < n; r++) votes[r * k + (-dec[r] > 0 ? a : b)]++;
    }
    const direct = Int32Array.from({ length: n }, (_, r) => {
      let best = 0;
      for (let c = 1; c < k; c++) if (votes[r * k + c] > votes[r * k + best]) best = c;
      return m.classes[best];
    });
    expect(Array.from(predictOvoSvc(m, test.X))).toEqual(Array.from(direct));
    const acc = direct.reduce((s, c, r) => s + (c === test.y[r] ? 1 : 0), 0) / n;
    expect(acc).toBeGreaterThan(0.5); // a real classifier, not a constant vote
  });
});
