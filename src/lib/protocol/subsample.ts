/**
 * Explicit, seeded pool subsampling (PROTOCOL.md §9): first(split(y_pool, max, seed')) with
 * seed' = run seed + 1 000 003, stratified by the pool's true labels (OOD rows included), applied
 * after the split and before scaling. Off unless a plan asks for it; never part of `paper`.
 */
import type { CellSplit } from './cellSplit.ts';
import { stratifiedSplit, type TakeZero } from './stratifiedSplit.ts';

export const SUBSAMPLE_SEED_OFFSET = 1_000_003;

/** The pools §9 names: E, U, and the unlabeled rows the graph methods (LP, LS, TSVM, SSGMM) see. */
export const SUBSAMPLE_POOLS = ['test', 'unlabeled', 'graph'] as const;
export type SubsamplePoolName = (typeof SUBSAMPLE_POOLS)[number];

/** One pool's cap: keep at most `max` rows; `seed` is added to seed' (default 0: §9's seed' exactly). */
export interface PoolCap {
  max: number;
  seed?: number;
}

/** A plan's subsampling: a cap per pool; a pool left out is not subsampled. */
export type SubsampleSpec = Partial<Record<SubsamplePoolName, PoolCap>>;

/** §10 `subsample[]`: what one pool of one cell went through. */
export interface SubsampleRecord {
  pool: SubsamplePoolName;
  n_before: number;
  n_after: number;
  method: 'stratified-split';
  /** seed' as drawn with. */
  seed: number;
}

/** The seed a subsample of a run with `seed` uses (recorded as seed'); `offset` = the cap's own seed. */
export function subsampleSeed(seed: number, offset = 0): number {
  return seed + SUBSAMPLE_SEED_OFFSET + offset;
}

/**
 * Positions (into the pool) of the rows kept: first(split(yPool, max, seed')). A pool no larger
 * than `max` comes back whole, in its own order (the split's take-all rule draws nothing). A max
 * below the pool's class count keeps one row per class (§3.4 'one-per-class'): a cap never empties a pool.
 */
export function subsamplePositions(yPool: ArrayLike<number>, max: number, seedPrime: number): number[] {
  if (!Number.isInteger(max) || max < 1)
    throw new RangeError(`subsample: max must be an integer >= 1; got ${max}.`);
  return stratifiedSplit(yPool, max, seedPrime, { takeZero: 'one-per-class' }).first;
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

/** True when the spec caps at least one pool. */
export function hasSubsample(spec: SubsampleSpec | undefined | null): spec is SubsampleSpec {
  return !!spec && SUBSAMPLE_POOLS.some((p) => spec[p] !== undefined);
}

/** The pools of `spec` that apply to a cell: `graph` only for an algorithm fed the graph pool. */
export function appliedPools(spec: SubsampleSpec, graphPool: boolean): SubsamplePoolName[] {
  return SUBSAMPLE_POOLS.filter((p) => spec[p] !== undefined && (p !== 'graph' || graphPool));
}

/**
 * One cell's split after §9: E capped by `test`, U by `unlabeled`, then (for an algorithm fed the
 * graph pool) the remaining U by `graph`. L is never subsampled. Each pool is stratified by the true
 * labels of its rows (`y`, the dataset's labels: OOD rows keep their own class) and keeps the split's
 * drawn order; feature/readme row masks follow their rows. Every applied pool is recorded, also when
 * the cap is at or above the pool's size (n_after = n_before).
 */
export function subsampleSplit(
  y: ArrayLike<number>,
  split: CellSplit,
  spec: SubsampleSpec,
  runSeed: number,
  graphPool: boolean,
): { split: CellSplit; records: SubsampleRecord[] } {
  const records: SubsampleRecord[] = [];
  const draw = (pool: SubsamplePoolName, rows: readonly number[]): number[] | null => {
    const cap = spec[pool];
    if (!cap || (pool === 'graph' && !graphPool)) return null;
    const seed = subsampleSeed(runSeed, cap.seed ?? 0);
    const positions = subsamplePositions(
      rows.map((r) => y[r]),
      cap.max,
      seed,
    );
    records.push({
      pool,
      n_before: rows.length,
      n_after: positions.length,
      method: 'stratified-split',
      seed,
    });
    return positions;
  };
  const test = draw('test', split.test);
  let unlabeledPos: number[] = split.unlabeled.map((_, i) => i);
  for (const pool of ['unlabeled', 'graph'] as const) {
    const kept = draw(
      pool,
      unlabeledPos.map((p) => split.unlabeled[p]),
    );
    if (kept) unlabeledPos = kept.map((p) => unlabeledPos[p]);
  }
  // OOD rows are the last nUnlabeledOod of U before; count those kept (the kept order is the draw's).
  const firstOod = split.unlabeled.length - split.nUnlabeledOod;
  const out: CellSplit = {
    ...split,
    test: test ? test.map((p) => split.test[p]) : split.test,
    unlabeled: unlabeledPos.map((p) => split.unlabeled[p]),
    nUnlabeledOod: unlabeledPos.filter((p) => p >= firstOod).length,
    ...(split.rowMasks ? { rowMasks: unlabeledPos.map((p) => split.rowMasks![p]) } : {}),
  };
  return { split: out, records };
}
