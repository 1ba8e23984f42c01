/**
 * The Run page's image/text runs: the panel worker (workers/panel.worker.ts), its progress, the
 * records as they arrive, and the unfinished runs this browser can resume. One run at a time;
 * the worker stores every record itself, so a closed tab loses at most the cell in flight and the
 * bank rows since its last save.
 */
import { proxy, wrap, type Remote } from 'comlink';
import type { PanelRunEvent, PanelRunRequest, PanelWorkerApi } from '../../workers/panel.worker.ts';
import { RunStore, type StoredModalRun } from '../lib/suite/runStore.ts';
import type { ModalCellResult, ModalRunRecord } from '../lib/suite/schemaV3.ts';
import { backend } from './backend.svelte.ts';
import { results } from './results.svelte.ts';

export interface PanelProgress {
  stage: string;
  download: { text: string; loaded: number; total: number | null } | null;
  bank: { text: string; done: number; total: number; etaSeconds: number | null } | null;
  /** The finetune cell in training: its steps done of S. */
  step: { text: string; done: number; total: number; etaSeconds: number | null } | null;
  cells: { done: number; total: number };
  backend: { name: string; reason: string } | null;
}

const idle = (): PanelProgress => ({
  stage: '',
  download: null,
  bank: null,
  step: null,
  cells: { done: 0, total: 0 },
  backend: null,
});

export class PanelRunState {
  busy = $state(false);
  progress = $state<PanelProgress>(idle());
  /** Records of the run in progress (or just finished), in the order they finished. */
  cells = $state.raw<ModalCellResult[]>([]);
  record = $state.raw<ModalRunRecord | null>(null);
  error = $state<string | null>(null);
  unfinished = $state.raw<{ run: StoredModalRun; done: number }[]>([]);

  #worker: Worker | null = null;
  #api: Remote<PanelWorkerApi> | null = null;

  #start(): Remote<PanelWorkerApi> {
    if (!this.#api) {
      this.#worker = new Worker(new URL('../../workers/panel.worker.ts', import.meta.url), {
        type: 'module',
        name: 'panel',
      });
      this.#api = wrap<PanelWorkerApi>(this.#worker);
    }
    return this.#api;
  }

  /** Keeps weights the user picked in this browser; the run names them by key. */
  async keepWeights(file: File, kind: 'weights' | 'tokenizer' = 'weights'): Promise<string> {
    return this.#start().keepWeights(new Uint8Array(await file.arrayBuffer()), kind);
  }

  async run(request: Omit<PanelRunRequest, 'backend'>, resumeId: string | null = null): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    this.error = null;
    this.record = null;
    this.cells = [];
    this.progress = idle();
    const api = this.#start();
    try {
      const record = await api.run(
        { ...request, backend: backend.pref },
        resumeId,
        proxy((e: PanelRunEvent) => this.#on(e)),
      );
      this.record = record;
      this.cells = record.cells;
      results.showModal(record, 'latest');
    } catch (e) {
      this.error = e instanceof Error ? e.message : String(e);
    } finally {
      this.busy = false;
      this.progress = { ...this.progress, stage: '', download: null };
      await this.refreshUnfinished();
    }
  }

  #on(e: PanelRunEvent): void {
    const p = this.progress;
    if (e.kind === 'stage') this.progress = { ...p, stage: e.text };
    else if (e.kind === 'backend') this.progress = { ...p, backend: { name: e.backend, reason: e.reason } };
    else if (e.kind === 'download') this.progress = { ...p, download: e };
    else if (e.kind === 'bank') this.progress = { ...p, download: null, bank: e };
    else if (e.kind === 'step') this.progress = { ...p, download: null, step: e };
    else {
      this.cells = [...this.cells, e.cell];
      this.progress = { ...p, download: null, cells: { done: e.done, total: e.total } };
    }
  }

  /** Stops at the next batch; the records and bank rows so far stay. */
  async stop(): Promise<void> {
    await this.#api?.cancel();
  }

  async refreshUnfinished(): Promise<void> {
    try {
      const store = await RunStore.open();
      try {
        const runs = (await store.listModalRuns()).filter((r) => r.status !== 'done');
        this.unfinished = await Promise.all(
          runs.map(async (run) => ({ run, done: (await store.modalCells(run.id)).length })),
        );
      } finally {
        store.close();
      }
    } catch {
      this.unfinished = [];
    }
  }

  async resume(id: string): Promise<void> {
    const run = this.unfinished.find((u) => u.run.id === id)?.run;
    if (!run) return;
    await this.run(run.request as Omit<PanelRunRequest, 'backend'>, id);
  }

  async discard(id: string): Promise<void> {
    const store = await RunStore.open();
    try {
      await store.deleteModalRun(id);
    } finally {
      store.close();
    }
    await this.refreshUnfinished();
  }
}

export const panelRun = new PanelRunState();
