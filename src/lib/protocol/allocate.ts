/**
 * Proportional allocation of n draws over classes: scikit-learn's `_approximate_mode`
 * (sklearn/utils/__init__.py, 1.2.1), PROTOCOL.md §3.3. Operation order and tie handling are
 * part of the contract: they decide which class gets the extra rows and how many values the
 * generator consumes.
 */
import type { MT19937 } from './rng.ts';

export function allocate(counts: readonly number[], n: number, rng: MT19937): number[] {
  const C = counts.length;
  // No draws to allocate: numpy gives zeros without drawing (and we avoid 0/0 when the pool is empty).
  if (n === 0) return new Array<number>(C).fill(0);
  let tot = 0;
  for (let c = 0; c < C; c++) tot += counts[c];
  const cont = new Array<number>(C);
  const a = new Array<number>(C);
  let floorSum = 0;
  for (let c = 0; c < C; c++) {
    cont[c] = (counts[c] / tot) * n; // exactly counts / total * n, as numpy evaluates it
    a[c] = Math.floor(cont[c]);
    floorSum += a[c];
  }
  let need = n - floorSum;
  if (need > 0) {
    const rem = cont.map((v, c) => v - a[c]);
    // Distinct remainders, descending; ties are exact equality (np.unique + reverse).
    const values = Array.from(new Set(rem)).sort((x, y) => y - x);
    for (const v of values) {
      const members: number[] = [];
      for (let c = 0; c < C; c++) if (rem[c] === v) members.push(c);
      const take = Math.min(members.length, need);
      // rng.choice(members, take, replace=False) == permutation(|members|)[:take], drawn even when all are taken.
      const P = rng.permutation(members.length);
      for (let q = 0; q < take; q++) a[members[P[q]]] += 1;
      need -= take;
      if (need === 0) break;
    }
  }
  return a;
}
