/**
 * Which run the Results page shows, and where it came from: a permalink (`r=` in the hash), this
 * browser's history (`run=<id>`, IndexedDB via RunStore), an imported file, or the run just
 * finished on the Run page. Every way in is validated (parseRun / decodeRunLink / parseRunFile);
 * errors are kept as plain text for the page, never HTML.
 */
import { decodeAnyRunLink, LinkError } from '../lib/share/permalink.ts';
import { sortCellsByPlan } from '../lib/share/planOrder.ts';
import { importAnyRunFile, ImportError } from '../lib/share/runFile.ts';
import { RunStore, toRunRecord, type StoredCell, type StoredRun } from '../lib/suite/runStore.ts';
import { parseCellResult, parseRun, SchemaError, type RunRecord } from '../lib/suite/schema.ts';
import type { ModalRunRecord } from '../lib/suite/schemaV3.ts';

export type RunSource = 'link' | 'history' | 'file' | 'latest';

export interface ShownRun {
  run: RunRecord;
  source: RunSource;
  /** File name, or the history id. */
  label: string;
}

/** An image/text run (`rsb-run/3`) on the page: from a file, a link, or the one just finished. */
export interface ShownModalRun {
  run: ModalRunRecord;
  source: 'file' | 'latest' | 'history' | 'link';
  label: string;
}

function message(e: unknown): string {
  if (e instanceof LinkError || e instanceof ImportError) return e.message;
  if (e instanceof SchemaError) return `The run is not valid: ${e.message}.`;
  return e instanceof Error ? e.message : String(e);
}

/** Stored cells whose record passes the schema, and the keys of those that do not. */
export function readableCells(cells: readonly StoredCell[]): { cells: StoredCell[]; dropped: string[] } {
  const out: StoredCell[] = [];
  const dropped: string[] = [];
  for (const c of cells) {
    if (c.result === null) {
      out.push(c);
      continue;
    }
    try {
      out.push({ ...c, result: parseCellResult(c.result) });
    } catch {
      dropped.push(c.key);
    }
  }
  return { cells: out, dropped };
}

export class ResultsState {
  shown = $state.raw<ShownRun | null>(null);
  /** Shown instead of `shown` when set; opening any tabular run clears it. */
  shownModal = $state.raw<ShownModalRun | null>(null);
  /** Why the last link could not be opened (shown next to the permalink box). */
  linkError = $state<string | null>(null);
  importError = $state<string | null>(null);
  historyError = $state<string | null>(null);
  /** Why the run a link named (`run=`) could not be opened; kept until another run opens. */
  openError = $state<string | null>(null);
  history = $state.raw<StoredRun[]>([]);
  /** A slow decode (a big link) shows "Opening…". */
  loading = $state(false);

  #store: Promise<RunStore> | null = null;
  #lastPayload = '';

  #openStore(): Promise<RunStore> {
    this.#store ??= RunStore.open();
    return this.#store;
  }

  /**
   * Opens the results of a link payload of either suite (no-op when it is the one already shown).
   * A link that cannot be opened leaves a message in `linkError`.
   */
  openLink(payload: string): void {
    const fromLink = this.shown?.source === 'link' || this.shownModal?.source === 'link';
    if (payload === this.#lastPayload && (fromLink || this.linkError)) return;
    this.#lastPayload = payload;
    try {
      const got = decodeAnyRunLink(payload);
      if (got.kind === 'modal') {
        this.shown = null;
        this.shownModal = { run: got.run, source: 'link', label: 'a shared link' };
      } else {
        this.shownModal = null;
        this.shown = { run: got.run, source: 'link', label: 'a shared link' };
      }
      this.linkError = null;
    } catch (e) {
      this.shown = null;
      // An image/text run opened from a file or just finished stays (only a link's run is replaced).
      if (this.shownModal?.source === 'link') this.shownModal = null;
      this.linkError = message(e);
    }
  }

  /** Opens a run file of either suite; true when it opened. */
  async openFile(file: File): Promise<boolean> {
    this.importError = null;
    try {
      const got = await importAnyRunFile(file);
      if (got.kind === 'modal') {
        this.shown = null;
        this.shownModal = { run: got.run, source: 'file', label: file.name };
      } else {
        this.shownModal = null;
        this.shown = { run: got.run, source: 'file', label: file.name };
      }
      this.linkError = null;
      return true;
    } catch (e) {
      this.importError = message(e);
      return false;
    }
  }

  /** A finished run from the Run page (already made of validated cells). */
  showLatest(run: RunRecord): void {
    if (this.shown?.source === 'latest' && this.shown.run.id === run.id && this.shown.run.cells === run.cells)
      return;
    this.shownModal = null;
    this.shown = { run, source: 'latest', label: run.id };
  }

  /** Saved records of the opened history run that could not be read (left out, not fatal). */
  historyNotice = $state<string | null>(null);

  async loadRecord(id: string): Promise<RunRecord> {
    const store = await this.#openStore();
    const run = await store.getRun(id);
    if (!run)
      throw new Error(
        `No run with id "${id.slice(0, 80)}" in this browser's history (it may have been deleted).`,
      );
    // One unreadable record must not cost the whole run: it is left out, with a notice.
    const { cells, dropped } = readableCells(await store.cells(id));
    this.historyNotice = dropped.length
      ? `${dropped.length} saved result${dropped.length === 1 ? '' : 's'} of this run could not be read and ${dropped.length === 1 ? 'is' : 'are'} left out (${dropped.slice(0, 3).join(', ')}${dropped.length > 3 ? ', …' : ''}). Resume the run on the Run page to compute ${dropped.length === 1 ? 'it' : 'them'} again.`
      : null;
    return sortCellsByPlan(parseRun(toRunRecord(run, cells)));
  }

  async openHistory(id: string): Promise<void> {
    this.historyError = null;
    if (this.shown?.source === 'history' && this.shown.label === id) return;
    this.loading = true;
    try {
      this.shownModal = null;
      this.shown = { run: await this.loadRecord(id), source: 'history', label: id };
      this.openError = null;
    } catch (e) {
      this.historyError = message(e);
      this.openError = message(e);
    } finally {
      this.loading = false;
    }
  }

  async refreshHistory(): Promise<void> {
    try {
      this.history = await (await this.#openStore()).listRuns();
      this.historyError = null;
    } catch (e) {
      this.historyError = `Could not read the saved runs: ${message(e)}`;
    }
  }

  async deleteHistory(id: string): Promise<void> {
    try {
      await (await this.#openStore()).deleteRun(id);
      if (this.shown?.source === 'history' && this.shown.label === id) this.shown = null;
      await this.refreshHistory();
    } catch (e) {
      this.historyError = `Could not delete the run: ${message(e)}`;
    }
  }

  /** An image/text run finished (or running) on this page. */
  showModal(run: ModalRunRecord, source: ShownModalRun['source'] = 'latest'): void {
    this.shown = null;
    this.shownModal = { run, source, label: run.id };
  }

  clear(): void {
    this.shown = null;
    this.shownModal = null;
    this.linkError = null;
    this.#lastPayload = '';
  }
}

export const results = new ResultsState();
