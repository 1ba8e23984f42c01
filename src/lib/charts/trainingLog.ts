/**
 * The live record of one deep fit: loss terms and free scalars (mask rate, ...) against the
 * optimiser step, as progress events arrive. Memory is bounded whatever the number of steps:
 * past `capacity` points, every other point is dropped and the keep-stride doubles, so a 10 000-
 * step fit and a 200-step fit both keep at most `capacity` evenly spaced points plus the latest.
 *
 * The core has no clock: the caller passes the wall time (ms) of each event, from which the log
 * computes steps per second over a sliding window.
 */

export type { TrainingEvent } from '../models/trainingEvent.ts';
import type { TrainingEvent } from '../models/trainingEvent.ts';

export interface TrainingPoint {
  step: number;
  values: Record<string, number>;
}

export class TrainingLog {
  readonly capacity: number;
  #points: TrainingPoint[] = [];
  #stride = 1;
  #latest: TrainingPoint | null = null;
  #total = 0;
  #times: { step: number; ms: number }[] = [];
  #names = new Set<string>();
  #scalarNames = new Set<string>();
  /** The largest value each scalar took over every event (thinned points included). */
  #maxima = new Map<string, number>();

  constructor(capacity = 400) {
    if (!Number.isInteger(capacity) || capacity < 8)
      throw new RangeError(`capacity must be an integer >= 8; got ${capacity}.`);
    this.capacity = capacity;
  }

  /** Adds one progress event; `ms` is the caller's wall clock (performance.now()). */
  push(event: TrainingEvent, ms: number): void {
    const values: Record<string, number> = {};
    for (const [k, v] of Object.entries(event.losses)) values[k] = v;
    for (const [k, v] of Object.entries(event.scalars ?? {})) values[k] = v;
    for (const k of Object.keys(values)) this.#names.add(k);
    for (const [k, v] of Object.entries(event.scalars ?? {})) {
      this.#scalarNames.add(k);
      this.#maxima.set(k, Math.max(this.#maxima.get(k) ?? -Infinity, v));
    }
    const point = { step: event.step, values };
    this.#latest = point;
    this.#total = event.total;
    if (event.step % this.#stride === 0) {
      this.#points.push(point);
      if (this.#points.length > this.capacity) {
        this.#stride *= 2;
        this.#points = this.#points.filter((p) => p.step % this.#stride === 0);
      }
    }
    this.#times.push({ step: event.step, ms });
    if (this.#times.length > 20) this.#times.shift();
  }

  /** Kept points, plus the latest event when the stride skipped it (the curve reaches "now"). */
  get points(): readonly TrainingPoint[] {
    const last = this.#points[this.#points.length - 1];
    return this.#latest && last !== this.#latest && (!last || this.#latest.step > last.step)
      ? [...this.#points, this.#latest]
      : this.#points;
  }

  get names(): string[] {
    return [...this.#names];
  }

  /** The names that came as free scalars (not loss terms). */
  get scalarNames(): string[] {
    return [...this.#scalarNames];
  }

  get step(): number {
    return this.#latest?.step ?? 0;
  }

  /** The largest value scalar `name` took over every event so far, or null when it never came. */
  maxOf(name: string): number | null {
    return this.#maxima.get(name) ?? null;
  }

  /**
   * True when the fit reports a mask rate and it has been 0 at every event so far: no unlabeled
   * row passed the method's confidence threshold, so its unlabeled term never acted (issue 21,
   * item 14: Pseudo-Label's classroom-deep curves were flat for that reason).
   */
  get maskNeverRose(): boolean {
    const mask = this.scalarNames.find((n) => /mask/i.test(n));
    return mask !== undefined && this.maxOf(mask) === 0;
  }

  get total(): number {
    return this.#total;
  }

  /** Optimiser steps per second over the last events; null until two events are apart in time. */
  get stepsPerSecond(): number | null {
    const t = this.#times;
    if (t.length < 2) return null;
    const dt = t[t.length - 1].ms - t[0].ms;
    const ds = t[t.length - 1].step - t[0].step;
    return dt > 0 && ds > 0 ? (ds * 1000) / dt : null;
  }
}
