/**
 * Which shard of a plan this process runs: `--shard i/n` by hand, or `--shard auto` from the
 * scheduler that started it, so one job script serves every array task.
 *
 * - Slurm job arrays: SLURM_ARRAY_TASK_ID with SLURM_ARRAY_TASK_MIN / SLURM_ARRAY_TASK_MAX (or
 *   SLURM_ARRAY_TASK_COUNT). `--array=0-7` and `--array=1-8` both give shards 1..8; a strided or
 *   sparse array (`--array=0-14:2`, `1,3,9`) is refused, since its ids do not number the shards.
 * - Kubernetes Indexed Jobs: JOB_COMPLETION_INDEX (0-based) with the count from `--shard-count N`
 *   or RAC_SHARD_COUNT (the Job's `completions`; Kubernetes does not export it to the pod).
 * - RAC_SHARD=i/n is honoured too (any other runner: a CI matrix, GNU parallel).
 */
import { CliError } from './args.ts';

export interface Shard {
  index: number;
  count: number;
  /** Where the numbers came from, for the run record and the progress line. */
  source: 'default' | 'flag' | 'slurm' | 'kubernetes' | 'env';
}

export type Env = Readonly<Record<string, string | undefined>>;

/**
 * The most shards a plan may be cut into: far above any cluster's array size, and short enough
 * that "i/n" fits the record's `env.shard` (24 characters). A bigger count (20 digits read as
 * 1e20) used to run every fit and then fail to write the record.
 */
export const MAX_SHARD_COUNT = 1_000_000;

function tooMany(what: string, text: string): CliError {
  return new CliError(`${what} ${text}: at most ${MAX_SHARD_COUNT} shards.`);
}

export function parseShardText(text: string, what = '--shard'): [number, number] {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  if (!m) throw new CliError(`${what} must look like i/n (e.g. 2/4) or "auto"; got "${text}".`);
  const [i, n] = [Number(m[1]), Number(m[2])];
  if (n < 1 || i < 1 || i > n) throw new CliError(`${what} ${text}: need 1 <= i <= n.`);
  if (n > MAX_SHARD_COUNT) throw tooMany(what, text);
  return [i, n];
}

function integerEnv(env: Env, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  if (!/^\d+$/.test(raw.trim())) throw new CliError(`${name} must be a whole number; got "${raw}".`);
  const n = Number(raw.trim());
  if (!Number.isSafeInteger(n)) throw new CliError(`${name} ${raw}: too large to be an index.`);
  return n;
}

function positiveCount(value: string | undefined, what: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1) {
    throw new CliError(`${what} must be a whole number >= 1; got "${value}".`);
  }
  if (Number(value) > MAX_SHARD_COUNT) throw tooMany(what, value);
  return Number(value);
}

function fromSlurm(env: Env): Shard | null {
  const id = integerEnv(env, 'SLURM_ARRAY_TASK_ID');
  if (id === undefined) return null;
  const min = integerEnv(env, 'SLURM_ARRAY_TASK_MIN') ?? 0;
  const max = integerEnv(env, 'SLURM_ARRAY_TASK_MAX');
  const count = integerEnv(env, 'SLURM_ARRAY_TASK_COUNT') ?? (max === undefined ? undefined : max - min + 1);
  if (count === undefined) {
    throw new CliError(
      '--shard auto: SLURM_ARRAY_TASK_ID is set but neither SLURM_ARRAY_TASK_COUNT nor SLURM_ARRAY_TASK_MAX is.',
    );
  }
  if (count > MAX_SHARD_COUNT) throw tooMany('--shard auto: the Slurm array of', `${count} tasks`);
  if (max !== undefined && max - min + 1 !== count) {
    throw new CliError(
      `--shard auto: the Slurm array ${min}-${max} has ${count} tasks, so its ids do not number the shards ` +
        '(strided or sparse --array). Use a contiguous range such as --array=0-' +
        (count - 1) +
        '.',
    );
  }
  const index = id - min + 1;
  if (index < 1 || index > count) {
    throw new CliError(
      `--shard auto: SLURM_ARRAY_TASK_ID ${id} lies outside the array ${min}..${min + count - 1}.`,
    );
  }
  return { index, count, source: 'slurm' };
}

function fromKubernetes(env: Env, countFlag: string | undefined): Shard | null {
  const index0 = integerEnv(env, 'JOB_COMPLETION_INDEX');
  if (index0 === undefined) return null;
  const count =
    positiveCount(countFlag, '--shard-count') ?? positiveCount(env.RAC_SHARD_COUNT, 'RAC_SHARD_COUNT');
  if (count === undefined) {
    throw new CliError(
      '--shard auto: JOB_COMPLETION_INDEX is set (a Kubernetes Indexed Job) but the shard count is not: ' +
        "pass --shard-count N or set RAC_SHARD_COUNT to the Job's completions.",
    );
  }
  if (index0 >= count) {
    throw new CliError(`--shard auto: JOB_COMPLETION_INDEX ${index0} is not below the shard count ${count}.`);
  }
  return { index: index0 + 1, count, source: 'kubernetes' };
}

/**
 * Resolve `--shard` (undefined, "i/n" or "auto") against the environment of this process. A
 * `--shard-count` is honoured or refused, never ignored: it must agree with the count that
 * --shard i/n, the Slurm array or RAC_SHARD gives, and it means nothing without --shard.
 */
export function resolveShard(text: string | undefined, env: Env, countFlag?: string): Shard {
  const agreed = (shard: Shard, from: string): Shard => {
    const flag = positiveCount(countFlag, '--shard-count');
    if (flag !== undefined && flag !== shard.count)
      throw new CliError(
        `--shard-count ${countFlag} disagrees with ${from} (${shard.count} shards); drop one of them.`,
      );
    return shard;
  };
  if (text === undefined) {
    if (countFlag !== undefined)
      throw new CliError(`--shard-count ${countFlag} needs --shard auto (or --shard i/${countFlag}).`);
    return { index: 1, count: 1, source: 'default' };
  }
  if (text.trim() !== 'auto') {
    const [index, count] = parseShardText(text);
    return agreed({ index, count, source: 'flag' }, `--shard ${text}`);
  }
  const slurm = fromSlurm(env);
  if (slurm) return agreed(slurm, 'the Slurm array');
  const found = fromKubernetes(env, countFlag);
  if (found) return found;
  if (env.RAC_SHARD !== undefined) {
    const [index, count] = parseShardText(env.RAC_SHARD, 'RAC_SHARD');
    return agreed({ index, count, source: 'env' }, `RAC_SHARD=${env.RAC_SHARD}`);
  }
  throw new CliError(
    '--shard auto found no scheduler: set SLURM_ARRAY_TASK_ID (a Slurm job array), JOB_COMPLETION_INDEX ' +
      '(a Kubernetes Indexed Job, with --shard-count) or RAC_SHARD=i/n.',
  );
}
