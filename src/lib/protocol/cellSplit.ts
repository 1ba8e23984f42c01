/** The split of one cell: pools of dataset row ids plus what the setting does to U (PROTOCOL.md §5). */
import type { ProtocolMode, Setting } from '../types.ts';
import type { ProtocolOptions } from './options.ts';

export interface SplitRequest {
  setting: Setting;
  /** The labels tag (5 or 10 in the suites): a total in rsb (§5.1), rows per class in readme. */
  labels: number;
  /** Index into T_GRID, 0..5. */
  tIndex: number;
  seed: number;
  mode: ProtocolMode;
  options?: Partial<ProtocolOptions>;
}

export interface CellSplit {
  /** Dataset row ids, in produced order. */
  labeled: number[];
  test: number[];
  unlabeled: number[];
  /** feature/rsb: the shared masked columns, in drawn order. */
  maskedColumns?: number[];
  /** feature/readme: the masked columns of each unlabeled row, in drawn order. */
  rowMasks?: number[][];
  /** label: kept original class ids, ascending; model class j = keptClasses[j]. */
  keptClasses?: number[];
  /** label: number of OOD rows in U; they are the last ones (in the split; a §9 subsample keeps its drawn order). 0 elsewhere. */
  nUnlabeledOod: number;
  /** k, or m in `label`. */
  numClasses: number;
}

/** Rows of each class 0..k−1, ascending ids. */
export function classRows(y: ArrayLike<number>, k: number): number[][] {
  const rows: number[][] = Array.from({ length: k }, () => []);
  for (let i = 0; i < y.length; i++) rows[y[i]].push(i);
  return rows;
}

/** Values of `list` at the given positions. */
export function pick<T>(list: readonly T[], positions: readonly number[]): T[] {
  return positions.map((p) => list[p]);
}

/** rsb labeled total (§5.1): k·labels, or ⌊labels·(k+1)/2⌋ in `label`. */
export function labeledTotal(setting: Setting, labels: number, k: number): number {
  return setting === 'label' ? Math.floor((labels * (k + 1)) / 2) : k * labels;
}

/** m = (k+1)//2, the kept classes in `label`. */
export function keptCount(k: number): number {
  return Math.floor((k + 1) / 2);
}

/** target.push(...items) without the engine's argument-count limit (covertype pools hold ~10^5 rows). */
export function append(target: number[], ...lists: readonly (readonly number[])[]): void {
  for (const items of lists) for (let i = 0; i < items.length; i++) target.push(items[i]);
}
