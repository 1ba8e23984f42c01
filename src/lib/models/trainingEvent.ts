/**
 * A deep fit's training events: what a step report says (step, named losses, scalars), stamped
 * with the sender's clock. The fit emits them (models), the run executor carries them (suite) and
 * the live chart draws them (charts); defined here, below all three, so no layer imports upward.
 */
import type { Progress } from './estimator.ts';

export interface TrainingEvent {
  step: number;
  total: number;
  /** Named loss terms at this step (e.g. { sup: 1.2, unsup: 0.3 }). */
  losses: Readonly<Record<string, number>>;
  /** Free scalars: mask rate, lambda ramp, thresholds, ... (mask rates in [0, 1]). */
  scalars?: Readonly<Record<string, number>>;
}

/** A training event with the wall time (ms, the sender's monotonic clock) at which it happened. */
export interface TimedTrainingEvent extends TrainingEvent {
  ms: number;
}

/** The training event in a progress event (a deep fit's step report); null for other progress. */
export function trainingEventOf(p: Progress, ms: number): TimedTrainingEvent | null {
  if (p.step === undefined || p.total === undefined || !p.losses) return null;
  return {
    step: p.step,
    total: p.total,
    losses: { ...p.losses },
    ...(p.scalars ? { scalars: { ...p.scalars } } : {}),
    ms,
  };
}
