/**
 * The generator of one augmented view of one row (PROTOCOL-IMAGE-TEXT.md §7.4): an MT19937 seeded
 * with the high 32 bits of SplitMix64((bankSeed << 40) | (row << 8) | (kindId << 4) | k), so every
 * (row, kind, k) view is drawn the same wherever and in whatever order a bank is extracted (a
 * resumed extraction, another worker, the CLI on a GPU server), independently of every other view.
 */
import { MT19937 } from '../protocol/rng.ts';

export type ViewKind = 'weak' | 'strong';
export const VIEW_KIND_ID: Readonly<Record<ViewKind, number>> = { weak: 1, strong: 2 };

const MASK64 = (1n << 64n) - 1n;

/**
 * SplitMix64 (Steele, Lea & Flood 2014) seeded with `x`: its first output. The state is advanced by
 * the golden-ratio increment before mixing, as in Vigna's reference `next()`.
 */
export function splitMix64(x: bigint): bigint {
  let z = (x + 0x9e3779b97f4a7c15n) & MASK64;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64;
  return z ^ (z >> 31n);
}

/** The uint32 seed of view (row, kind, k) in bank `bankSeed`. */
export function viewSeed(bankSeed: number, row: number, kind: ViewKind, k: number): number {
  if (!Number.isInteger(row) || row < 0 || row >= 2 ** 32)
    throw new RangeError(`viewSeed: row ${row} is not a uint32.`);
  if (!Number.isInteger(k) || k < 0 || k > 15)
    throw new RangeError(`viewSeed: view index ${k} is not in 0..15.`);
  if (!Number.isInteger(bankSeed) || bankSeed < 0 || bankSeed >= 2 ** 24)
    throw new RangeError(`viewSeed: bankSeed ${bankSeed} is not in 0..2^24-1.`);
  const x = (BigInt(bankSeed) << 40n) | (BigInt(row) << 8n) | (BigInt(VIEW_KIND_ID[kind]) << 4n) | BigInt(k);
  return Number(splitMix64(x) >> 32n);
}

/** The view's generator (draws: u = nextU32()/2³², integers by P§3.2). */
export function viewRng(bankSeed: number, row: number, kind: ViewKind, k: number): MT19937 {
  return new MT19937(viewSeed(bankSeed, row, kind, k));
}
