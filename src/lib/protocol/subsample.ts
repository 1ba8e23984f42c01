/** Explicit, seeded pool subsampling (PROTOCOL.md §9): first(split(y_pool, max, seed + 1 000 003)). */
import { stratifiedSplit, type TakeZero } from './stratifiedSplit.ts';

export const SUBSAMPLE_SEED_OFFSET = 1_000_003;

/** The seed a subsample of a run with `seed` uses (recorded as seed'). */
export function subsampleSeed(seed: number): number {
  return seed + SUBSAMPLE_SEED_OFFSET;
}

/**
 * Keeps at most `max` rows of a pool, stratified by the pool's true labels (OOD rows included).
 * `yPool[i]` is the label of dataset row `rowIds[i]`; returns dataset row ids. A pool no larger
 * than `max` comes back whole, in its own order.
 */
export function subsamplePool(
  yPool: ArrayLike<number>,
  rowIds: readonly number[],
  max: number,
  seed: number,
  takeZero: TakeZero = 'one-per-class',
): number[] {
  if (yPool.length !== rowIds.length) {
    throw new Error(
      `subsamplePool: yPool has ${yPool.length} labels but rowIds has ${rowIds.length} rows; expected the same length.`,
    );
  }
  if (!Number.isInteger(max) || max < 1)
    throw new RangeError(`subsamplePool: max must be an integer >= 1; got ${max}.`);
  const { first } = stratifiedSplit(yPool, max, subsampleSeed(seed), { takeZero });
  return first.map((p) => rowIds[p]);
}
