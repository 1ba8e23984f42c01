/**
 * Caps on an image/text cell's pools (PROTOCOL-IMAGE-TEXT.md §10, PROTOCOL.md §9 rules 1–4): after
 * the split, E is capped by `test`, and U by `unlabeled`, shared between U_in and U_out in
 * proportion (max_in = ⌊max·|U_in|/|U|⌋, max_out = max − max_in) so that t keeps its meaning; each
 * part is first(split(y_part, max_part, seed')) with seed' = run seed + 1 000 003 (+ the cap's own
 * seed), stratified by the rows' true labels, and recorded. L is never capped.
 */
import type { PanelLabels, PanelSplit, PoolFile } from './panelSplit.ts';
import { subsamplePositions, subsampleSeed, type PoolCap } from './subsample.ts';

export interface PanelCaps {
  test?: PoolCap;
  unlabeled?: PoolCap;
}

/** §10's classroom defaults. */
export const CLASSROOM_CAPS: Readonly<PanelCaps> = { unlabeled: { max: 1_000 }, test: { max: 500 } };

export interface PanelSubsampleRecord {
  pool: 'test' | 'unlabeled_in' | 'unlabeled_out';
  n_before: number;
  n_after: number;
  method: 'stratified-split';
  seed: number;
}

/** The labels of a pool file: `source` rows are the `train` file's (panelSplit.ts). */
export function labelsOfFile(labels: PanelLabels, file: PoolFile): ArrayLike<number> {
  const y = file === 'test' ? labels.test : file === 'target' ? labels.target : labels.train;
  if (!y) throw new Error(`The panel has no labels for its ${file} file.`);
  return y;
}

export function capPanelSplit(
  split: PanelSplit,
  labels: PanelLabels,
  caps: PanelCaps,
  runSeed: number,
): { split: PanelSplit; records: PanelSubsampleRecord[] } {
  const records: PanelSubsampleRecord[] = [];
  const keep = (
    pool: PanelSubsampleRecord['pool'],
    rows: readonly number[],
    file: PoolFile,
    max: number,
    cap: PoolCap,
  ): number[] => {
    const seed = subsampleSeed(runSeed, cap.seed ?? 0);
    // An empty part stays empty; a non-empty one keeps at least one row (a cap never empties a
    // pool, P§9), so a part whose share rounds to 0 keeps one.
    const kept = rows.length
      ? subsamplePositions(
          rows.map((r) => labelsOfFile(labels, file)[r]),
          Math.max(1, max),
          seed,
        ).map((p) => rows[p])
      : [];
    records.push({ pool, n_before: rows.length, n_after: kept.length, method: 'stratified-split', seed });
    return kept;
  };
  let out = split;
  if (caps.test) out = { ...out, test: keep('test', split.test, split.testFrom, caps.test.max, caps.test) };
  if (caps.unlabeled) {
    const { max } = caps.unlabeled;
    const nIn = split.unlabeledIn.length;
    const n = nIn + split.unlabeledOut.length;
    const maxIn = n ? Math.floor((max * nIn) / n) : 0;
    out = {
      ...out,
      unlabeledIn: keep('unlabeled_in', split.unlabeledIn, split.inFrom, maxIn, caps.unlabeled),
      unlabeledOut: keep('unlabeled_out', split.unlabeledOut, split.outFrom, max - maxIn, caps.unlabeled),
    };
  }
  return { split: out, records };
}
