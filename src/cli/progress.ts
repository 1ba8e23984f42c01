/**
 * What `rac-bench run` says while it works (issue 21, item 15): a fit in words ("wine ·
 * distribution · 5 labels · SSGMM · t 1.0 · seed 0: 0.933") instead of its key; by default one
 * progress bar with the ETA (redrawn in place on a terminal, a line per 5 % when piped), one line
 * per fit only with `--verbose`. Failed fits are always said, one line each.
 */
import { findAlgorithm } from '../lib/models/catalogue.ts';
import type { ExecutedCell } from '../lib/suite/executor.ts';
import { formatDuration, type ProgressSnapshot } from '../lib/suite/scheduler.ts';
import { T_GRID } from '../lib/types.ts';

/** A plan cell key (`dataset|setting|labels|algorithm|tIndex|seed`) in words. */
export function fitWords(key: string): string {
  const [dataset, setting, labels, algorithm, tIndex, seed] = key.split('|');
  if (seed === undefined) return key;
  const t = T_GRID[Number(tIndex)];
  const label = findAlgorithm(algorithm)?.label ?? algorithm;
  return `${dataset} · ${setting} · ${labels} labels · ${label} · t ${t === undefined ? tIndex : t.toFixed(1)} · seed ${seed}`;
}

/** A stored fit in words with its accuracy, or why it has none. */
export function fitLine(c: ExecutedCell): string {
  const acc = c.result?.outcome.accuracy;
  if (c.status === 'ok' && typeof acc === 'number') return `${fitWords(c.key)}: ${acc.toFixed(3)}`;
  const why = c.error ?? c.result?.outcome.reason ?? '';
  return `${fitWords(c.key)}: ${c.status}${why ? ` (${why.length > 200 ? `${why.slice(0, 200)}…` : why})` : ''}`;
}

/** The share of the plan's work done, 0–1 (by cost; every cell when the plan has no cost). */
export function workFraction(s: ProgressSnapshot): number {
  if (s.costTotal > 0) return Math.min(1, s.costDone / s.costTotal);
  return s.total > 0 ? s.done / s.total : 1;
}

/** "[##########··········] 50.0 % · 180/360 fits · ETA 3 min 05 s" */
export function progressBar(s: ProgressSnapshot, width = 20): string {
  const f = workFraction(s);
  const full = Math.round(f * width);
  const bar = `${'#'.repeat(full)}${'·'.repeat(width - full)}`;
  const failed = s.failed ? ` (${s.failed} failed)` : '';
  return `[${bar}] ${(100 * f).toFixed(1)} % · ${s.fitsDone}/${s.fitsTotal} fits${failed} · ETA ${formatDuration(s.etaSeconds)}`;
}

export interface ProgressOut {
  write(text: string): unknown;
  isTTY?: boolean;
}

/** Prints the run's progress: a bar by default, a line per fit when verbose. */
export class ProgressReporter {
  #lastStep = -1;
  #drawn = false;
  #timer: ReturnType<typeof setInterval> | null = null;

  constructor(
    readonly out: ProgressOut,
    readonly verbose: boolean,
    readonly snapshot: () => ProgressSnapshot,
  ) {
    // On a terminal the bar is redrawn every second, so its ETA moves while a long fit runs.
    if (!verbose && out.isTTY) {
      this.#timer = setInterval(() => this.#draw(this.snapshot()), 1000);
      this.#timer.unref?.();
    }
  }

  /** A batch of fits was stored. */
  stored(batch: readonly ExecutedCell[]): void {
    const own = batch[0];
    if (!own) return;
    const s = this.snapshot();
    if (this.verbose) {
      this.out.write(`${fitLine(own)} · ${s.done}/${s.total} cells · ETA ${formatDuration(s.etaSeconds)}\n`);
      return;
    }
    if (own.status === 'failed') this.#line(fitLine(own));
    this.#draw(s);
  }

  /** A line of its own (a notice, a failure), above the bar. */
  note(text: string): void {
    this.#line(text);
  }

  /** The run ended: the bar's last state stays on its own line. */
  finish(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    if (this.verbose) return;
    if (this.out.isTTY) {
      if (this.#drawn) this.out.write('\n');
    } else if (this.#lastStep < 20) {
      this.out.write(`${progressBar(this.snapshot())}\n`);
    }
    this.#drawn = false;
  }

  #line(text: string): void {
    if (this.out.isTTY && this.#drawn) this.out.write('\r\x1b[K');
    this.out.write(`${text}\n`);
    if (this.out.isTTY && this.#drawn) this.out.write(progressBar(this.snapshot()));
  }

  #draw(s: ProgressSnapshot): void {
    if (this.verbose) return;
    if (this.out.isTTY) {
      this.out.write(`\r\x1b[K${progressBar(s)}`);
      this.#drawn = true;
      return;
    }
    // Piped (a log file, CI): one line per 5 % of the work, so the log stays short.
    const step = Math.floor(workFraction(s) * 20);
    if (step === this.#lastStep) return;
    this.#lastStep = step;
    this.out.write(`${progressBar(s)}\n`);
  }
}
