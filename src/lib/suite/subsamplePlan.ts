/**
 * A plan's §9 subsampling (PROTOCOL.md §9) as text and as overrides: the CLI's
 * `--subsample test=2000,unlabeled=5000,graph=3000,seed=1`, the URL's `sub=test:2000,…` and the
 * planner all go through `parseSubsample` / `formatSubsample`; `subsampleProblems` says what is wrong
 * in plain words; `subsampleOverrides` is what a cell adds to `protocol.overrides` (so it is never `paper`).
 */
import {
  hasSubsample,
  SUBSAMPLE_POOLS,
  SUBSAMPLE_SEED_OFFSET,
  type SubsamplePoolName,
  type SubsampleSpec,
} from '../protocol/subsample.ts';

/** The largest cap accepted (far above any dataset the benchmark runs: covertype has 581 012 rows). */
export const MAX_SUBSAMPLE = 1_000_000_000;
const MAX_SEED = 0xffffffff;

export class SubsampleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SubsampleError';
  }
}

const isPool = (s: string): s is SubsamplePoolName => (SUBSAMPLE_POOLS as readonly string[]).includes(s);

function integer(text: string, what: string, min: number, max: number): number {
  const t = text.trim();
  if (!/^\d+$/.test(t) || Number(t) < min || Number(t) > max) {
    throw new SubsampleError(`${what} must be an integer from ${min} to ${max}; got "${t.slice(0, 20)}".`);
  }
  return Number(t);
}

/**
 * Parses `test=2000,unlabeled=5000,graph=3000[,seed=S][,test.seed=S]` (`:` may stand for `=`, as in
 * the URL). `seed=S` applies to every pool given; `POOL.seed=S` to one. Throws a SubsampleError that
 * names the problem. The empty text is no subsampling (undefined).
 */
export function parseSubsample(text: string): SubsampleSpec | undefined {
  const items = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (items.length > 8) throw new SubsampleError('Subsample: expected at most 8 items.');
  const spec: SubsampleSpec = {};
  const seeds: Partial<Record<SubsamplePoolName, number>> = {};
  let allSeed: number | undefined;
  for (const item of items) {
    const m = /^([A-Za-z.]+)\s*[=:]\s*(.*)$/.exec(item);
    if (!m)
      throw new SubsampleError(
        `Subsample item "${item.slice(0, 40)}" must look like pool=max (e.g. test=2000) or seed=N.`,
      );
    const [, key, value] = m;
    if (key === 'seed') {
      allSeed = integer(value, 'Subsample seed', 0, MAX_SEED - SUBSAMPLE_SEED_OFFSET);
      continue;
    }
    const [pool, sub] = key.split('.', 2);
    if (!isPool(pool) || (sub !== undefined && sub !== 'seed') || key.split('.').length > 2) {
      throw new SubsampleError(
        `Subsample: unknown pool "${key.slice(0, 40)}"; pools are ${SUBSAMPLE_POOLS.join(', ')} (and seed).`,
      );
    }
    if (sub === 'seed')
      seeds[pool] = integer(value, `Subsample ${pool}.seed`, 0, MAX_SEED - SUBSAMPLE_SEED_OFFSET);
    else spec[pool] = { max: integer(value, `Subsample ${pool} (the most rows kept)`, 1, MAX_SUBSAMPLE) };
  }
  for (const pool of SUBSAMPLE_POOLS) {
    const seed = seeds[pool] ?? allSeed;
    if (seeds[pool] !== undefined && !spec[pool])
      throw new SubsampleError(
        `Subsample: ${pool}.seed is given but ${pool} has no max (e.g. ${pool}=2000).`,
      );
    if (spec[pool] && seed) spec[pool] = { ...spec[pool], seed };
  }
  if (allSeed !== undefined && !hasSubsample(spec))
    throw new SubsampleError('Subsample: seed is given but no pool is capped (e.g. test=2000).');
  return normalizeSubsample(spec);
}

/** The spec with pools in §9 order, seed 0 left out, empty = undefined (so a plan without caps stays equal to before). */
export function normalizeSubsample(spec: SubsampleSpec | undefined | null): SubsampleSpec | undefined {
  if (!hasSubsample(spec)) return undefined;
  const out: SubsampleSpec = {};
  for (const pool of SUBSAMPLE_POOLS) {
    const cap = spec[pool];
    if (cap) out[pool] = cap.seed ? { max: cap.max, seed: cap.seed } : { max: cap.max };
  }
  return out;
}

/** `test=2000,unlabeled=5000,seed=1` (one `seed=` when every pool shares it, else `POOL.seed=`). */
export function formatSubsample(spec: SubsampleSpec | undefined, sep: '=' | ':' = '='): string {
  const s = normalizeSubsample(spec);
  if (!s) return '';
  const pools = SUBSAMPLE_POOLS.filter((p) => s[p]);
  const seeds = new Set(pools.map((p) => s[p]!.seed ?? 0));
  const items = pools.map((p) => `${p}${sep}${s[p]!.max}`);
  if (seeds.size === 1) {
    const [seed] = seeds;
    if (seed) items.push(`seed${sep}${seed}`);
  } else {
    for (const p of pools) if (s[p]!.seed) items.push(`${p}.seed${sep}${s[p]!.seed}`);
  }
  return items.join(',');
}

/**
 * What is wrong with a plan's subsampling, in plain sentences (empty = fine). `seeds` are the plan's
 * run seeds: seed' = seed + 1 000 003 + the cap's seed must stay a 32-bit seed.
 */
export function subsampleProblems(spec: SubsampleSpec | undefined, seeds: readonly number[] = []): string[] {
  if (spec === undefined) return [];
  if (spec === null || typeof spec !== 'object' || Array.isArray(spec))
    return ['Subsample must be an object of pools ({ test: { max: 2000 } }).'];
  const problems: string[] = [];
  const top = seeds.reduce((a, b) => Math.max(a, b), 0);
  for (const key of Object.keys(spec)) {
    if (!isPool(key)) {
      problems.push(
        `Subsample: unknown pool "${key.slice(0, 40)}"; pools are ${SUBSAMPLE_POOLS.join(', ')}.`,
      );
      continue;
    }
    const cap = spec[key] as unknown;
    if (cap === undefined) continue;
    const { max, seed = 0 } = (cap ?? {}) as { max?: unknown; seed?: unknown };
    if (typeof max !== 'number' || !Number.isInteger(max) || max < 1 || max > MAX_SUBSAMPLE)
      problems.push(
        `Subsample ${key}: the most rows kept must be an integer from 1 to ${MAX_SUBSAMPLE}; got ${JSON.stringify(max)}.`,
      );
    if (typeof seed !== 'number' || !Number.isInteger(seed) || seed < 0)
      problems.push(`Subsample ${key}: seed must be an integer ≥ 0; got ${JSON.stringify(seed)}.`);
    else if (top + SUBSAMPLE_SEED_OFFSET + seed > MAX_SEED)
      problems.push(
        `Subsample ${key}: seed' = run seed + ${SUBSAMPLE_SEED_OFFSET} + ${seed} exceeds ${MAX_SEED} for seed ${top}; use a smaller seed.`,
      );
  }
  return problems;
}

/**
 * `protocol.overrides` entries of a plan's caps: `subsample.<pool>.max` (and `.seed` when not 0). Every
 * cell of the plan carries all of them (the plan deviates, so no cell of it is `paper`), also a cell the
 * `graph` cap does not touch; the record's `subsample` list says which pools were applied to the cell.
 */
export function subsampleOverrides(spec: SubsampleSpec | undefined): Record<string, number> {
  const s = normalizeSubsample(spec);
  if (!s) return {};
  const out: Record<string, number> = {};
  for (const pool of SUBSAMPLE_POOLS) {
    if (!s[pool]) continue;
    out[`subsample.${pool}.max`] = s[pool].max;
    if (s[pool].seed) out[`subsample.${pool}.seed`] = s[pool].seed;
  }
  return out;
}

/** One line for people: "test ≤ 2 000, unlabeled ≤ 5 000 rows (seed +1)". */
export function describeSubsample(spec: SubsampleSpec | undefined): string {
  const s = normalizeSubsample(spec);
  if (!s) return '';
  const nf = new Intl.NumberFormat('en');
  const parts = SUBSAMPLE_POOLS.filter((p) => s[p]).map(
    (p) => `${p} ≤ ${nf.format(s[p]!.max)}${s[p]!.seed ? ` (seed +${s[p]!.seed})` : ''}`,
  );
  return parts.join(', ');
}
