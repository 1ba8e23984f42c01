/**
 * Feature setting (PROTOCOL.md §5.3): U comes from the target half; a growing share of its
 * features is replaced by the raw labeled mean (the masks are applied in buildCellData).
 */
import type { Dataset } from '../types.ts';
import { append, classRows, labeledTotal, pick, type CellSplit } from './cellSplit.ts';
import type { ProtocolOptions } from './options.ts';
import { mt } from './rng.ts';
import { stratifiedSplit } from './stratifiedSplit.ts';

/** rsb: ⌈t·d⌉ columns, the same for every unlabeled row; U is the whole target half at every t. */
export function featureRsb(
  ds: Dataset,
  labels: number,
  t: number,
  seed: number,
  options: ProtocolOptions,
): CellSplit {
  const all = stratifiedSplit(ds.y, 0.5, seed, options);
  const src = all.first;
  const tgt = all.second;
  const ySrc = src.map((r) => ds.y[r]);
  const { first, second } = stratifiedSplit(ySrc, labeledTotal('feature', labels, ds.k), seed, options);
  const maskedColumns = mt(seed)
    .permutation(ds.d)
    .slice(0, Math.ceil(ds.d * t));
  return {
    labeled: pick(src, first),
    test: pick(src, second),
    unlabeled: tgt,
    maskedColumns,
    nUnlabeledOod: 0,
    numClasses: ds.k,
  };
}

/** readme: per-class halves, `labels` labeled rows per class, ⌊d·i/5⌋ random features masked per unlabeled row. */
export function featureReadme(ds: Dataset, labels: number, tIndex: number, seed: number): CellSplit {
  const rng = mt(seed);
  const labeled: number[] = [];
  const test: number[] = [];
  const unlabeled: number[] = [];
  classRows(ds.y, ds.k).forEach((rows, c) => {
    const P = rng.permutation(rows.length);
    const h = Math.ceil(rows.length / 2);
    const src = pick(rows, P.slice(0, h));
    if (src.length <= labels) {
      throw new Error(
        `feature/readme: class ${c} has ${src.length} rows in its source half; expected more than labels=${labels}.`,
      );
    }
    append(labeled, src.slice(0, labels));
    append(test, src.slice(labels));
    append(unlabeled, pick(rows, P.slice(h)));
  });
  const q = Math.floor((ds.d * tIndex) / 5);
  // Every row draws a full permutation at every t, so the masks nest across t.
  const rowMasks = unlabeled.map(() => rng.permutation(ds.d).slice(0, q));
  return { labeled, test, unlabeled, rowMasks, nUnlabeledOod: 0, numClasses: ds.k };
}
