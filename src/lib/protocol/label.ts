/**
 * Label setting (PROTOCOL.md §5.4): only m = (k+1)//2 classes are labeled; U mixes rows of the
 * kept classes (in-distribution) with rows of the dropped classes (OOD, placed last).
 */
import type { Dataset } from '../types.ts';
import { append, classRows, keptCount, labeledTotal, pick, type CellSplit } from './cellSplit.ts';
import type { ProtocolOptions } from './options.ts';
import { mt } from './rng.ts';
import { stratifiedSplit } from './stratifiedSplit.ts';

/** rsb pool sizes: double arithmetic, truncation (1−0.8 = 0.19999999999999996). */
export function labelPoolSizesRsb(nI: number, nO: number, t: number): { nIn: number; nOut: number } {
  const nu = t === 0 ? nI : t === 1 ? nO : Math.min(nI / (1 - t), nO / t);
  return { nIn: Math.trunc(nu * (1 - t)), nOut: Math.trunc(nu * t) };
}

/** readme pool sizes: exact integers. */
export function labelPoolSizesReadme(nI: number, nO: number, i: number): { nIn: number; nOut: number } {
  if (i === 0) return { nIn: nI, nOut: 0 };
  if (i === 5) return { nIn: 0, nOut: nO };
  return nI * i <= nO * (5 - i)
    ? { nIn: nI, nOut: Math.floor((nI * i) / (5 - i)) }
    : { nIn: Math.floor((nO * (5 - i)) / i), nOut: nO };
}

/** rsb: kept classes are the ids below k/2 (already 0..m−1). */
export function labelRsb(
  ds: Dataset,
  labels: number,
  t: number,
  seed: number,
  options: ProtocolOptions,
): CellSplit {
  const { y, k } = ds;
  const half = k / 2;
  const all = stratifiedSplit(y, 0.5, seed, options);
  const S = all.first.filter((r) => y[r] < half);
  const { first, second } = stratifiedSplit(
    S.map((r) => y[r]),
    labeledTotal('label', labels, k),
    seed,
    options,
  );
  const I = all.second.filter((r) => y[r] < half);
  const O = all.second.filter((r) => y[r] >= half);
  const { nIn, nOut } = labelPoolSizesRsb(I.length, O.length, t);
  const uIn = stratifiedSplit(
    I.map((r) => y[r]),
    nIn,
    seed,
    options,
  ).first;
  const uOut = stratifiedSplit(
    O.map((r) => y[r]),
    nOut,
    seed,
    options,
  ).first;
  const m = keptCount(k);
  return {
    labeled: pick(S, first),
    test: pick(S, second),
    unlabeled: [...pick(I, uIn), ...pick(O, uOut)],
    keptClasses: Array.from({ length: m }, (_, j) => j),
    nUnlabeledOod: uOut.length,
    numClasses: m,
  };
}

/** readme: a random kept set (first draw of the stream), `labels` rows per kept class, exact integer pool sizes. */
export function labelReadme(ds: Dataset, labels: number, tIndex: number, seed: number): CellSplit {
  const { y, k } = ds;
  const m = keptCount(k);
  const rng = mt(seed);
  const keptClasses = rng
    .permutation(k)
    .slice(0, m)
    .sort((a, b) => a - b);
  const kept = new Set(keptClasses);
  const labeled: number[] = [];
  const test: number[] = [];
  const I: number[] = [];
  const O: number[] = [];
  classRows(y, k).forEach((rows, c) => {
    const P = rng.permutation(rows.length);
    const h = Math.ceil(rows.length / 2);
    const src = pick(rows, P.slice(0, h));
    const tgt = pick(rows, P.slice(h));
    if (kept.has(c)) {
      if (src.length <= labels) {
        throw new Error(
          `label/readme: class ${c} has ${src.length} rows in its source half; expected more than labels=${labels}.`,
        );
      }
      append(labeled, src.slice(0, labels));
      append(test, src.slice(labels));
      append(I, tgt);
    } else {
      append(O, tgt); // dropped classes' source rows are unused
    }
  });
  const { nIn, nOut } = labelPoolSizesReadme(I.length, O.length, tIndex);
  const PI = rng.permutation(I.length);
  const PO = rng.permutation(O.length);
  return {
    labeled,
    test,
    unlabeled: [...pick(I, PI.slice(0, nIn)), ...pick(O, PO.slice(0, nOut))],
    keptClasses,
    nUnlabeledOod: nOut,
    numClasses: m,
  };
}
