/**
 * The page's view of the tfjs backend: the user's preference (localStorage + URL hash), and the
 * probe worker's report and self-check. The worker starts lazily, after first paint.
 */
import { proxy, wrap, type Remote } from 'comlink';
import type { ProbeApi } from '../../workers/probe.worker.ts';
import { parseBackendPref, type BackendPref, type BackendReport } from '../lib/env/device.ts';
import type { SelfCheckResult } from '../lib/env/selfCheck.ts';
import { parseHash, withField } from '../lib/share/urlState.ts';

const STORAGE_KEY = 'rac-bench.backend';

export type ProbeStatus = 'idle' | 'starting' | 'checking' | 'ready' | 'error';

function readStoredPref(): BackendPref | null {
  try {
    const raw = localStorage.getItem(STORAGE_KEY);
    return raw === null ? null : parseBackendPref(raw);
  } catch {
    return null; // storage blocked (private mode, sandboxed iframe)
  }
}

function storePref(pref: BackendPref): void {
  try {
    localStorage.setItem(STORAGE_KEY, pref);
  } catch {
    /* not persisted; the URL still carries it */
  }
}

export class BackendState {
  /** What the user asked for. */
  pref = $state<BackendPref>('auto');
  /** What the worker runs on, and why. Replaced whole. */
  report = $state.raw<BackendReport | null>(null);
  check = $state.raw<SelfCheckResult | null>(null);
  status = $state<ProbeStatus>('idle');
  error = $state<string | null>(null);

  #remote: Remote<ProbeApi> | null = null;
  /** Newest request wins: results of older ones are dropped. */
  #seq = 0;

  /** Read the preference: the URL hash wins over localStorage; default 'auto'. */
  loadPref(): void {
    this.pref = parseHash(location.hash).fields.backend ?? readStoredPref() ?? 'auto';
  }

  /** Start the probe worker with the current preference (idempotent). */
  start(): void {
    if (this.#remote) return;
    const worker = new Worker(new URL('../../workers/probe.worker.ts', import.meta.url), {
      type: 'module',
      name: 'probe',
    });
    worker.addEventListener('error', (e) => {
      this.status = 'error';
      this.error = `The probe worker failed: ${e.message || 'unknown error'}`;
    });
    this.#remote = wrap<ProbeApi>(worker);
    void this.#init();
  }

  /** Change the preference: persist it, put it in the URL, re-initialise the worker. */
  setPref(pref: BackendPref): void {
    this.pref = pref;
    storePref(pref);
    const hash = withField(location.hash, 'backend', pref);
    if (hash !== location.hash) history.replaceState(null, '', hash);
    if (this.#remote) void this.#init();
  }

  /** Follow a hand-edited URL. */
  syncFromHash(): void {
    const fromHash = parseHash(location.hash).fields.backend;
    if (fromHash && fromHash !== this.pref) this.setPref(fromHash);
  }

  /** Test hook: make the worker lose its WebGPU device. */
  async simulateDeviceLost(): Promise<boolean> {
    return this.#remote ? this.#remote.simulateDeviceLost() : false;
  }

  async #init(): Promise<void> {
    const remote = this.#remote;
    if (!remote) return;
    const seq = ++this.#seq;
    this.status = 'starting';
    this.error = null;
    this.check = null;
    try {
      const report = await remote.init(
        this.pref,
        proxy((r: BackendReport) => this.#changed(r)),
      );
      if (seq !== this.#seq) return;
      this.report = report;
      await this.#selfCheck(seq);
    } catch (e) {
      if (seq !== this.#seq) return;
      this.status = 'error';
      this.error = e instanceof Error ? e.message : String(e);
    }
  }

  /** The worker moved to another backend on its own (device lost). */
  #changed(report: BackendReport): void {
    const seq = ++this.#seq;
    this.report = report;
    this.check = null;
    void this.#selfCheck(seq).catch((e) => {
      this.status = 'error';
      this.error = e instanceof Error ? e.message : String(e);
    });
  }

  async #selfCheck(seq: number): Promise<void> {
    if (!this.#remote) return;
    this.status = 'checking';
    const check = await this.#remote.selfCheck();
    if (seq !== this.#seq) return;
    this.check = check;
    this.status = 'ready';
  }
}

export const backend = new BackendState();
