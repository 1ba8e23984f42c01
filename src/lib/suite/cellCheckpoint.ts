/**
 * Checkpoints of a running deep fit, as the run executor keeps them (issue 20, item 4): the
 * trainer's own checkpoint (weights, optimiser slots, EMA shadow, stream positions, method state;
 * deep/trainer.ts) wrapped with the cell it belongs to and a fingerprint of everything the fit
 * depends on, so a closed tab, a recycled worker or a killed CLI resumes the fit mid-way and ends
 * with the same weights and record, and a checkpoint of anything else is never resumed from.
 *
 * Where they live is the caller's (a CheckpointStore): IndexedDB in the browser (runStore.ts), a
 * file beside the journal in the CLI (src/cli/checkpointFile.ts). One record per running cell,
 * replaced at each save and deleted when the cell's record is stored. Pure: no clock, no storage.
 */
import type { DeepCheckpoint } from '../models/deep/trainer.ts';
import { canonicalJson } from './canonicalJson.ts';

export const CELL_CHECKPOINT_FORMAT = 'rac-cell-checkpoint/1';

/**
 * When a running deep fit saves: after `everyMs` of training since the fit started (or resumed)
 * or since its last save, or every `everySteps` steps; null = never (a resume still uses one).
 */
export type CheckpointPolicy = { everyMs: number } | { everySteps: number } | null;

/**
 * Every 30 s of training: a checkpoint costs one read-back of the weights, shadow and slots (38.3 MB
 * at the rsb size on letter) and one write — measured 0.24 s read-back + 0.32 s encode and hash for
 * the CLI's file on a loaded 2-core VM (wasm), so about 2 % of the fit at most; a fit stopped at a
 * random moment loses 15 s of work on average. A fit shorter than 30 s never saves (it is as cheap
 * to run again as to resume).
 */
export const DEFAULT_CHECKPOINT_POLICY: CheckpointPolicy = { everyMs: 30_000 };

/** The largest checkpoint a store keeps (bounded storage); a larger one is skipped with a notice. */
export const MAX_CHECKPOINT_BYTES = 512 * 1024 * 1024;

/** What a fit's result depends on: a checkpoint resumes only a fit whose fingerprint is the same. */
export interface CheckpointFingerprint {
  algorithm: string;
  dataset: { id: string; sha256: string; N: number; d: number; k: number };
  /** The split (its indices' hash) and the rows the fit saw (after §9 caps). */
  split: { indices_sha256: string; n_labeled: number; n_unlabeled: number; n_test: number };
  subsample: unknown;
  data: { nL: number; nU: number; d: number; k: number };
  /** Resolved model options (size, steps, batch, lr, EMA, method parameters). */
  options: Record<string, unknown>;
  init_seed: number;
  protocol: { mode: string; version: string; quirks: string; options: unknown };
  /** Numerics differ across backends and builds: a checkpoint resumes on the same ones. */
  env: { backend: string; tfjs_version: string; app_version: string };
}

export interface CellCheckpoint {
  format: typeof CELL_CHECKPOINT_FORMAT;
  /** The plan cell (CellSpec.key). */
  key: string;
  fingerprint: CheckpointFingerprint;
  /** Steps done (the step the fit resumes at) of `steps`. */
  step: number;
  steps: number;
  /** The policy it was saved under, in words (recorded with it). */
  policy: string;
  savedAt: string;
  /** Bytes of its arrays (what storage holds, give or take the header). */
  bytes: number;
  deep: DeepCheckpoint;
}

/** Where an executor keeps its runs' checkpoints: one per cell key, replaced at each save. */
export interface CheckpointStore {
  load(key: string): Promise<CellCheckpoint | null>;
  save(c: CellCheckpoint): Promise<void>;
  remove(keys: readonly string[]): Promise<void>;
}

/**
 * What a lane (and runCell) gets for one deep fit: the checkpoint to resume from (not yet checked
 * against the cell: runCell does that, it alone knows the data), when to save, where to save, and
 * where to say why a checkpoint was not used or saved.
 */
export interface CheckpointChannel {
  resumeFrom: CellCheckpoint | null;
  policy: CheckpointPolicy;
  save(c: CellCheckpoint): Promise<void>;
  notice(text: string): void;
}

/** The policy in words: 'every 30 s of training', 'every 100 steps', 'off'. */
export function describePolicy(p: CheckpointPolicy): string {
  if (p === null) return 'off';
  if ('everySteps' in p) return `every ${p.everySteps} step${p.everySteps === 1 ? '' : 's'}`;
  const s = p.everyMs / 1000;
  return s >= 120 && s % 60 === 0 ? `every ${s / 60} min of training` : `every ${s} s of training`;
}

/**
 * `--checkpoint-every`: '30s', '5m', '100' (steps), '0' or 'off'. Throws with the first problem.
 */
export function parseCheckpointPolicy(text: string): CheckpointPolicy {
  const t = text.trim().toLowerCase();
  if (t === 'off' || t === '0' || t === 'none') return null;
  const m = /^(\d+(?:\.\d+)?)\s*(s|m|min|steps?)?$/.exec(t);
  if (!m)
    throw new RangeError(
      `'${text}' is not a checkpoint interval: give seconds ('30s'), minutes ('5m'), steps ('100') or 'off'.`,
    );
  const n = Number(m[1]);
  const unit = m[2] ?? 'steps';
  if (unit.startsWith('step')) {
    if (!Number.isInteger(n) || n < 1)
      throw new RangeError(`'${text}': a step interval must be a whole number ≥ 1 (or 'off').`);
    return { everySteps: n };
  }
  const ms = n * (unit === 's' ? 1000 : 60_000);
  if (!(ms >= 1000)) throw new RangeError(`'${text}': a time interval must be at least 1 s (or 'off').`);
  return { everyMs: ms };
}

/**
 * The trainer's `checkpointDue(step)` for a policy: by steps, or by time since the fit (re)started
 * or last saved. `saved()` restarts the time window (call it once a save returns).
 */
export function checkpointClock(
  p: CheckpointPolicy,
  now: () => number,
): { due(step: number): boolean; saved(): void } {
  let last = now();
  return {
    due: (step) => {
      if (p === null) return false;
      if ('everySteps' in p) return step % p.everySteps === 0;
      return now() - last >= p.everyMs;
    },
    saved: () => {
      last = now();
    },
  };
}

/** Bytes of the typed arrays in a value (a checkpoint's size as stored). */
export function arrayBytes(x: unknown): number {
  if (ArrayBuffer.isView(x)) return x.byteLength;
  if (Array.isArray(x)) return x.reduce((s: number, v) => s + arrayBytes(v), 0);
  if (x && typeof x === 'object')
    return Object.values(x as Record<string, unknown>).reduce((s: number, v) => s + arrayBytes(v), 0);
  return 0;
}

/** The first path where two JSON-like values differ ('options.steps'), or null when equal. */
export function firstDifference(a: unknown, b: unknown, path = ''): string | null {
  if (canonicalJson(a) === canonicalJson(b)) return null;
  const plain = (v: unknown) => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (plain(a) && plain(b)) {
    const ao = a as Record<string, unknown>,
      bo = b as Record<string, unknown>;
    for (const k of [...new Set([...Object.keys(ao), ...Object.keys(bo)])].sort()) {
      const d = firstDifference(ao[k], bo[k], path ? `${path}.${k}` : k);
      if (d !== null) return d;
    }
  }
  return path || '(the whole fingerprint)';
}

function valueAt(x: unknown, path: string): string {
  let v: unknown = x;
  for (const p of path.split('.'))
    v = v && typeof v === 'object' ? (v as Record<string, unknown>)[p] : undefined;
  const s = v === undefined ? 'absent' : JSON.stringify(v);
  return s.length > 80 ? `${s.slice(0, 77)}…` : s;
}

/**
 * Why `c` cannot resume the fit of cell `key` with fingerprint `fp` and `steps` steps, in one
 * sentence, or null when it can. Checks what storage may have damaged or another fit may have
 * left: the format, the cell, every field of the fingerprint, the step range and the trainer's own
 * format and method (deep/trainer.ts checks the tensors' sizes when it restores).
 */
export function checkpointProblem(
  c: CellCheckpoint,
  key: string,
  fp: CheckpointFingerprint,
  steps: number,
): string | null {
  if (!c || typeof c !== 'object' || c.format !== CELL_CHECKPOINT_FORMAT)
    return `it is not a ${CELL_CHECKPOINT_FORMAT} record`;
  if (c.key !== key) return `it belongs to cell ${String(c.key)}`;
  const diff = firstDifference(c.fingerprint, fp);
  if (diff !== null)
    return `its ${diff} is ${valueAt(c.fingerprint, diff)}, this fit's is ${valueAt(fp, diff)}`;
  if (c.steps !== steps) return `it was saved for a ${c.steps}-step fit, this one has ${steps}`;
  if (!Number.isInteger(c.step) || c.step < 1 || c.step >= steps)
    return `its step ${String(c.step)} is outside 1…${steps - 1}`;
  const d = c.deep as Partial<DeepCheckpoint> | undefined;
  if (!d || d.format !== 'rac-deep-checkpoint/1')
    return 'its trainer state is missing or of an unknown format';
  if (d.method !== fp.algorithm) return `its trainer state is for ${String(d.method)}, not ${fp.algorithm}`;
  if (d.step !== c.step) return `its trainer state is at step ${String(d.step)}, its header says ${c.step}`;
  return null;
}

/** The sentence a store's failure becomes (quota, full disk), for the notice that turns saving off. */
export function saveFailureText(key: string, bytes: number, e: unknown): string {
  const name = (e as { name?: string; code?: string } | null)?.name ?? '';
  const code = (e as { code?: string } | null)?.code ?? '';
  const message = e instanceof Error ? e.message : String(e);
  const why =
    name === 'QuotaExceededError' || /quota/i.test(message)
      ? "the browser's storage quota for this site is full"
      : code === 'ENOSPC' || /ENOSPC|no space/i.test(message)
        ? 'the disk is full'
        : `${name ? `${name}: ` : ''}${message}`;
  return (
    `Checkpoints are off for the rest of this run: saving ${key}'s checkpoint (${megabytes(bytes)}) failed ` +
    `(${why}). The run goes on; a fit interrupted from now on starts again from its first step.`
  );
}

export function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(bytes < 10 * 1024 * 1024 ? 1 : 0)} MB`;
}
