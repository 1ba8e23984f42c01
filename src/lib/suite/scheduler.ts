/**
 * The run scheduler: which fit to hand out next, what is in flight, what is done, and how fast.
 * Pure bookkeeping (no workers, no storage, no clock: callers pass `now` in ms), so the pool's
 * rules — skip finished keys, retry a crashed cell once, count derived baseline cells, ETA —
 * are pinned down by Node tests.
 *
 * Units: a *cell* is one key of the plan (what the progress bar counts); a *fit* is one unit of
 * work for a worker. A baseline's t = 0 fit also finishes its derived t > 0 cells.
 */
import { fitCells, type CellSpec } from './plan.ts';

export interface SchedulerOptions {
  /** Tries per fit after a crash (worker death, GPU device lost): 2 = one retry. */
  maxAttempts?: number;
  /**
   * Work units of a fit (costModel.ts). Given, fits are handed out longest first (so a long fit
   * does not start last and hold the run's tail) and the ETA weighs what is left by cost; left
   * out, every fit costs 1 and fits go in plan order.
   */
  cost?: (cell: CellSpec) => number;
  /** Milliseconds per work unit on this device (the calibration), for the ETA before any fit ends. */
  msPerUnit?: number;
  /** Lanes working in parallel (for the ETA before any fit ends). */
  lanes?: number;
  /** Keys among `finished` whose records are failures (so a resumed run keeps its failure count). */
  failed?: Iterable<string>;
}

export interface InFlight {
  cell: CellSpec;
  worker: number;
  attempt: number;
  startedAt: number;
  /** The fit's own progress, 0–1 (its steps or iterations), as its lane last reported it. */
  fraction: number;
}

export interface ProgressSnapshot {
  /** Cells of the plan finished (ok, skipped or failed), including those finished before a resume. */
  done: number;
  total: number;
  failed: number;
  fitsDone: number;
  fitsTotal: number;
  inFlight: number;
  /** Cells per minute over this session (cells finished before a resume do not count). */
  cellsPerMinute: number | null;
  /**
   * Seconds left: the work still to do at this session's rate, where work done counts finished
   * fits and the reported part of the fits in flight, so a long fit moves the ETA as it goes and
   * one that stalls makes it grow (never frozen). Before any work is reported, the device
   * calibration less the time spent, and null ("not known") once that is used up or without one.
   * Failed and skipped fits leave the remaining cost and never count as work done, so fits that
   * fail at once do not make the rate look fast.
   */
  etaSeconds: number | null;
  elapsedSeconds: number;
  /** Work units of the plan's fits, and of those finished (including resumed ones). */
  costTotal: number;
  costDone: number;
}

/** What the pool should do after a crash: run the cell again, or record it as failed. */
export type CrashDecision = 'retry' | 'give-up';

export class Scheduler {
  readonly total: number;
  readonly fitsTotal: number;
  readonly #maxAttempts: number;
  /** Fits waiting, in plan order; retries go to the front. */
  readonly #queue: CellSpec[] = [];
  readonly #inFlight = new Map<string, InFlight>();
  readonly #attempts = new Map<string, number>();
  /** Plan cells that ride on a fit: fit key → derived cells. */
  readonly #derived = new Map<string, CellSpec[]>();
  readonly #done = new Set<string>();
  readonly #allKeys: Set<string>;
  readonly #orphans: CellSpec[] = [];
  #failed = 0;
  #fitsDone = 0;
  #sessionCells = 0;
  #startedAt: number | null = null;
  readonly #cost: (cell: CellSpec) => number;
  readonly #msPerUnit: number | null;
  readonly #lanes: number;
  readonly #fitCost = new Map<string, number>();
  #costTotal = 0;
  #costDone = 0;
  #sessionCost = 0;

  /**
   * @param cells    every cell of the plan (expandPlan)
   * @param finished keys already stored (a resumed run skips them)
   */
  constructor(cells: readonly CellSpec[], finished: Iterable<string> = [], opts: SchedulerOptions = {}) {
    this.#maxAttempts = opts.maxAttempts ?? 2;
    if (!Number.isInteger(this.#maxAttempts) || this.#maxAttempts < 1) {
      throw new RangeError(`Scheduler: maxAttempts must be an integer >= 1; got ${opts.maxAttempts}.`);
    }
    this.#allKeys = new Set(cells.map((c) => c.key));
    this.total = this.#allKeys.size;
    for (const c of cells) {
      if (c.derivedFromKey === null) continue;
      const list = this.#derived.get(c.derivedFromKey) ?? [];
      list.push(c);
      this.#derived.set(c.derivedFromKey, list);
    }
    const fits = fitCells(cells);
    this.fitsTotal = fits.length;
    const finishedSet = new Set(finished);
    for (const k of finishedSet) if (this.#allKeys.has(k)) this.#done.add(k);
    for (const k of opts.failed ?? []) if (this.#done.has(k)) this.#failed++;
    this.#cost = opts.cost ?? (() => 1);
    this.#msPerUnit = opts.msPerUnit ?? null;
    this.#lanes = Math.max(1, opts.lanes ?? 1);
    for (const f of fits) {
      const units = this.#cost(f);
      this.#fitCost.set(f.key, units);
      this.#costTotal += units;
    }
    if (opts.cost) {
      // Longest first; a stable sort keeps plan order among equal costs.
      fits.sort((a, b) => this.#fitCost.get(b.key)! - this.#fitCost.get(a.key)!);
    }
    for (const f of fits) {
      const derived = this.#derived.get(f.key) ?? [];
      // A plan without t = 0 has no record of the fit itself: it counts as done once all its cells are.
      const fitStored = this.#allKeys.has(f.key)
        ? finishedSet.has(f.key)
        : derived.every((c) => finishedSet.has(c.key));
      if (!fitStored) {
        this.#queue.push(f);
        continue;
      }
      this.#fitsDone++;
      this.#costDone += this.#fitCost.get(f.key)!;
      for (const d of derived) if (!finishedSet.has(d.key)) this.#orphans.push(d);
    }
  }

  /**
   * Derived cells whose t = 0 record is stored but which are not (the tab closed between the two
   * writes). The pool fills them from the stored record without a new fit.
   */
  orphans(): CellSpec[] {
    return [...this.#orphans];
  }

  /**
   * The next fit to run, or null when none is waiting (some may still be in flight).
   * `accepts` limits what this lane may take (resource lanes: GPU work on the GPU lane).
   */
  next(worker: number, now: number, accepts?: (cell: CellSpec) => boolean): CellSpec | null {
    const i = accepts ? this.#queue.findIndex(accepts) : 0;
    if (i < 0) return null;
    const [cell] = this.#queue.splice(i, 1);
    if (!cell) return null;
    this.#startedAt ??= now;
    const attempt = (this.#attempts.get(cell.key) ?? 0) + 1;
    this.#attempts.set(cell.key, attempt);
    this.#inFlight.set(cell.key, { cell, worker, attempt, startedAt: now, fraction: 0 });
    return cell;
  }

  /**
   * The fit `key` reported its own progress (0–1). Ignored for a fit not in flight (a late post);
   * never goes back (a fit's reports only move forward).
   */
  progress(key: string, fraction: number): void {
    const f = this.#inFlight.get(key);
    if (!f || !Number.isFinite(fraction)) return;
    f.fraction = Math.max(f.fraction, Math.min(1, Math.max(0, fraction)));
  }

  /** Derived baseline cells (t > 0) that the fit `key` completes and that are not stored yet. */
  derivedPending(key: string): CellSpec[] {
    return (this.#derived.get(key) ?? []).filter((c) => !this.#done.has(c.key));
  }

  /**
   * A fit finished and its record, with the records of its derived cells, is stored: the fit
   * leaves the in-flight set, and it and its derived cells count as done.
   */
  complete(key: string, failed = false): void {
    if (!this.#inFlight.delete(key)) throw new Error(`Scheduler.complete: cell "${key}" is not in flight.`);
    this.#fitsDone++;
    const units = this.#fitCost.get(key) ?? 0;
    if (failed) {
      // A failed fit did not do its work (it may have failed at once): its cost leaves the plan
      // instead of counting as work done, which would make the rate look fast and the ETA 0 s.
      this.#costTotal -= units;
    } else {
      this.#costDone += units;
      this.#sessionCost += units;
    }
    this.markDone(key, failed);
    for (const d of this.#derived.get(key) ?? []) this.markDone(d.key, failed);
  }

  /** A plan cell's record was stored. Idempotent; keys outside the plan are ignored. */
  markDone(key: string, failed = false): void {
    if (this.#done.has(key) || !this.#allKeys.has(key)) return;
    this.#done.add(key);
    this.#sessionCells++;
    if (failed) this.#failed++;
  }

  /**
   * The worker running `key` died (crash, GPU device lost). With tries left the cell stays in
   * flight with its attempt count raised, and the caller runs it again on a fresh worker;
   * otherwise ('give-up') the caller records it as failed and calls `complete`.
   */
  crashed(key: string): CrashDecision {
    const f = this.#inFlight.get(key);
    if (!f) throw new Error(`Scheduler.crashed: cell "${key}" is not in flight.`);
    if (f.attempt >= this.#maxAttempts) return 'give-up';
    f.attempt++;
    f.fraction = 0; // the retry starts over
    this.#attempts.set(key, f.attempt);
    return 'retry';
  }

  /** A cancelled fit: back to the queue without using up a try. */
  release(key: string): void {
    const f = this.#inFlight.get(key);
    if (!f) return;
    this.#inFlight.delete(key);
    this.#attempts.set(key, f.attempt - 1);
    this.#queue.unshift(f.cell);
  }

  /**
   * Takes every waiting fit that matches out of the queue and counts it, with its derived cells,
   * as finished and failed (a dataset that cannot load fails its cells once, not per cell).
   * Returns the fits taken; the caller stores their records. Their cost leaves the ETA.
   */
  failQueued(match: (cell: CellSpec) => boolean): CellSpec[] {
    const taken = this.#queue.filter(match);
    if (taken.length === 0) return [];
    const keep = this.#queue.filter((c) => !match(c));
    this.#queue.length = 0;
    this.#queue.push(...keep);
    for (const f of taken) {
      this.#fitsDone++;
      this.#costTotal -= this.#fitCost.get(f.key) ?? 0;
      this.markDone(f.key, true);
      for (const d of this.#derived.get(f.key) ?? []) this.markDone(d.key, true);
    }
    return taken;
  }

  /** Work units of a fit of the plan (0 for keys outside it). */
  costOf(key: string): number {
    return this.#fitCost.get(key) ?? 0;
  }

  /** Waiting fits (for checks before they run). */
  queued(): readonly CellSpec[] {
    return this.#queue;
  }

  attempt(key: string): number {
    return this.#attempts.get(key) ?? 0;
  }

  isPlanKey(key: string): boolean {
    return this.#allKeys.has(key);
  }

  isDone(key: string): boolean {
    return this.#done.has(key);
  }

  get finished(): boolean {
    return this.#queue.length === 0 && this.#inFlight.size === 0;
  }

  get pending(): number {
    return this.#queue.length;
  }

  inFlight(): InFlight[] {
    return [...this.#inFlight.values()];
  }

  snapshot(now: number): ProgressSnapshot {
    const elapsedMs = this.#startedAt === null ? 0 : Math.max(0, now - this.#startedAt);
    return {
      done: this.#done.size,
      total: this.total,
      failed: this.#failed,
      fitsDone: this.#fitsDone,
      fitsTotal: this.fitsTotal,
      inFlight: this.#inFlight.size,
      cellsPerMinute: throughputPerMinute(this.#sessionCells, elapsedMs),
      etaSeconds: this.#eta(elapsedMs),
      elapsedSeconds: elapsedMs / 1000,
      costTotal: this.#costTotal,
      costDone: this.#costDone,
    };
  }

  #eta(elapsedMs: number): number | null {
    // The reported part of the fits in flight is work done too (a fit of an hour is not 0 % of
    // its work for that hour).
    let inFlightDone = 0;
    for (const f of this.#inFlight.values())
      inFlightDone += (this.#fitCost.get(f.cell.key) ?? 0) * f.fraction;
    // Sums of large and small costs added and removed in different orders leave rounding dust.
    const raw = this.#costTotal - this.#costDone - inFlightDone;
    const remaining = raw > 1e-9 * this.#costTotal ? raw : 0;
    const observed = etaSeconds(this.#sessionCost + inFlightDone, remaining, elapsedMs);
    if (observed !== null || this.#msPerUnit === null) return observed;
    // Nothing measured yet: the calibration's estimate less the time already spent; once that is
    // used up the estimate was wrong, and the honest answer is "not known yet", not a frozen number.
    const left = (remaining * this.#msPerUnit) / this.#lanes / 1000 - elapsedMs / 1000;
    return left > 0 ? left : null;
  }
}

/** Items per minute, or null before anything finished or any time passed. */
export function throughputPerMinute(items: number, elapsedMs: number): number | null {
  if (items <= 0 || elapsedMs <= 0) return null;
  return (items / elapsedMs) * 60_000;
}

/**
 * Seconds left at the session's mean rate: remaining fits × elapsed / fits done. The rate already
 * includes the pool's parallelism, so no division by the worker count.
 */
export function etaSeconds(
  fitsDoneThisSession: number,
  fitsRemaining: number,
  elapsedMs: number,
): number | null {
  if (fitsRemaining <= 0) return 0;
  if (fitsDoneThisSession <= 0 || elapsedMs <= 0) return null;
  return (fitsRemaining * elapsedMs) / fitsDoneThisSession / 1000;
}

/** "1 h 02 min", "3 min 05 s", "42 s". */
export function formatDuration(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) return '–';
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`;
}

/** Workers to start: one per logical core, at least 1 and at most 4 (letter's dense graphs take ~1 GB each). */
export function defaultWorkerCount(hardwareConcurrency: number | undefined): number {
  const n = Number.isFinite(hardwareConcurrency) ? Math.floor(hardwareConcurrency as number) : 2;
  return Math.min(4, Math.max(1, n));
}
