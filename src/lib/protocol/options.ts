/** Protocol options (PROTOCOL.md §2, §3.4, §3.5, §6). Every result records the effective values. */
import type { ProtocolMode } from '../types.ts';
import type { TakeZero } from './stratifiedSplit.ts';

export interface ProtocolOptions {
  /** §3.4: a split request below one row per class is raised to one per class, or gives an empty part. */
  takeZero: TakeZero;
  /** §3.5: distribution t=0 near-half subsets draw from a fresh generator per class, or one shared across classes. */
  t0Stream: 'per-class' | 'shared';
  /** §6: U gets its own scaler (`split`, rsb) or the labeled scaler (`labeled`, readme). */
  scaler: 'split' | 'labeled';
}

/** The `rsb` defaults. */
export const DEFAULT_OPTIONS: ProtocolOptions = Object.freeze({
  takeZero: 'one-per-class',
  t0Stream: 'per-class',
  scaler: 'split',
});

const README_OPTIONS: ProtocolOptions = Object.freeze({ ...DEFAULT_OPTIONS, scaler: 'labeled' });

/** Defaults per mode: `readme` differs only in the scaler (where the README is silent it uses the rsb value). */
export function defaultOptions(mode: ProtocolMode): ProtocolOptions {
  return { ...(mode === 'readme' ? README_OPTIONS : DEFAULT_OPTIONS) };
}

const ALLOWED: { [K in keyof ProtocolOptions]: readonly ProtocolOptions[K][] } = {
  takeZero: ['one-per-class', 'empty'],
  t0Stream: ['per-class', 'shared'],
  scaler: ['split', 'labeled'],
};

/** Merges overrides over the mode's defaults and checks every value. */
export function resolveOptions(mode: ProtocolMode, options?: Partial<ProtocolOptions>): ProtocolOptions {
  const merged = { ...defaultOptions(mode), ...(options ?? {}) };
  for (const key of Object.keys(merged) as (keyof ProtocolOptions)[]) {
    const allowed = ALLOWED[key] as readonly string[] | undefined;
    if (!allowed)
      throw new Error(
        `Unknown protocol option '${String(key)}'; expected one of ${Object.keys(ALLOWED).join(', ')}.`,
      );
    if (!allowed.includes(merged[key])) {
      throw new Error(
        `The protocol option '${key}' must be one of ${allowed.map((v) => `'${v}'`).join(', ')}; got ${JSON.stringify(merged[key])}.`,
      );
    }
  }
  return merged;
}
