/**
 * How a deep fit's training events travel from the worker to the Run page (see
 * docs/ARCHITECTURE.md, "Live training view"):
 *   1. the fit's typed progress (FitContext: step, total, named losses, scalars) becomes a
 *      `TimedTrainingEvent` stamped with the worker's clock (`trainingEventOf`);
 *   2. the worker gathers events between two throttled progress posts in a bounded
 *      `TrainingBatch`, and sends them along with the post;
 *   3. the page keeps one bounded `TrainingLog` per lane in `LiveTraining`: a lane's next fit
 *      replaces it, a finished fit's log stays (marked finished) until then, a stopped or
 *      restarted lane drops it.
 * Pure: the clock is the caller's, so Node tests pin every rule down.
 */
import type { TimedTrainingEvent } from '../models/trainingEvent.ts';
import { TrainingLog } from './trainingLog.ts';

export { trainingEventOf, type TimedTrainingEvent } from '../models/trainingEvent.ts';

/**
 * The events between two progress posts. Bounded: when more than `capacity` pile up (a fast fit
 * on a slow channel), every other one is dropped, always keeping the newest.
 */
export class TrainingBatch {
  readonly capacity: number;
  #events: TimedTrainingEvent[] = [];

  constructor(capacity = 32) {
    if (!Number.isInteger(capacity) || capacity < 2)
      throw new RangeError(`capacity must be an integer >= 2; got ${capacity}.`);
    this.capacity = capacity;
  }

  push(e: TimedTrainingEvent): void {
    this.#events.push(e);
    if (this.#events.length > this.capacity)
      this.#events = this.#events.filter((_, i, a) => i % 2 === 1 || i === a.length - 1);
  }

  get size(): number {
    return this.#events.length;
  }

  /** The gathered events (oldest first), emptying the batch; undefined when there are none. */
  take(): TimedTrainingEvent[] | undefined {
    if (this.#events.length === 0) return undefined;
    const out = this.#events;
    this.#events = [];
    return out;
  }
}

/** One lane's training log as the page shows it. */
export interface LiveFitState {
  lane: number;
  /** The plan cell key of the fit. */
  cell: string;
  log: TrainingLog;
  /** False once the lane moved on (the log is the lane's last finished fit). */
  running: boolean;
  /** Order of the fits' first events: the highest is the most recent fit. */
  order: number;
  /** Bumped on every change, so a view knows to redraw. */
  version: number;
}

/** A fit as the Run page shows it: the log, and the backend its worker runs on and why. */
export interface LiveFitView extends LiveFitState {
  backend: string | null;
  backendReason: string | null;
}

export type LanePhaseLike = 'starting' | 'idle' | 'busy' | 'restarting' | 'stopped' | 'error';

/**
 * The page's live training logs: at most one per lane (so memory is bounded by lanes × the
 * log's capacity, whatever the number of cells or steps).
 */
export class LiveTraining {
  readonly capacity: number;
  #fits = new Map<number, LiveFitState>();
  #order = 0;
  #changed = false;
  /** Per lane, the cell it works on now (from its busy view); absent when idle or stopped. */
  #busy = new Map<number, string>();

  constructor(capacity = 400) {
    this.capacity = capacity;
  }

  /**
   * Events of `cell` on `lane` (the lane's busy view of `cell` came first). A new cell starts a
   * new log; events of a cell the lane has left, whose log is gone, are dropped.
   */
  add(lane: number, cell: string, events: readonly TimedTrainingEvent[]): void {
    if (events.length === 0) return;
    let fit = this.#fits.get(lane);
    if (fit?.cell !== cell && this.#busy.get(lane) !== cell) return;
    if (!fit || fit.cell !== cell) {
      fit = {
        lane,
        cell,
        log: new TrainingLog(this.capacity),
        running: true,
        order: ++this.#order,
        version: 0,
      };
      this.#fits.set(lane, fit);
    }
    // A late post of a finished fit (progress and results travel on separate channels) adds its
    // points but does not make the fit "running" again.
    for (const e of events) fit.log.push(e, e.ms);
    fit.version++;
    this.#changed = true;
  }

  /**
   * A lane's state changed. Its fit is finished once the lane works on another cell or is idle
   * (the log stays, as the lane's last fit, until its next deep fit); a lane that stops or is
   * restarted drops its log.
   */
  lane(index: number, phase: LanePhaseLike, cell: string | null): void {
    if (phase === 'busy' && cell !== null) this.#busy.set(index, cell);
    else this.#busy.delete(index);
    const fit = this.#fits.get(index);
    if (!fit) return;
    if (phase === 'stopped' || phase === 'restarting' || phase === 'starting' || phase === 'error') {
      // A stopped or replaced worker posts nothing more; a retry of the same cell starts afresh.
      this.#fits.delete(index);
      this.#changed = true;
    } else if (fit.running && (phase !== 'busy' || cell !== fit.cell)) {
      fit.running = false;
      fit.version++;
      this.#changed = true;
    }
  }

  clear(): void {
    if (this.#fits.size) this.#changed = true;
    this.#fits.clear();
    this.#busy.clear();
  }

  /** True once since the last call when anything changed (the owner's flush reads it). */
  takeChanged(): boolean {
    const c = this.#changed;
    this.#changed = false;
    return c;
  }

  /** The lanes' fits, most recent first. */
  get fits(): LiveFitState[] {
    return [...this.#fits.values()].sort((a, b) => b.order - a.order);
  }
}
