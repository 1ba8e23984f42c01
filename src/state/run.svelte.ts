/**
 * The Run page's state: the plan being chosen, the run in progress (a BenchPool over the
 * RunStore), and runs that can be resumed. Lives outside the page, so a run keeps going when
 * the user looks at another page. UI updates are batched: at most one flush per FLUSH_MS.
 */
import { BenchPool, CheckpointHold, FitHold, type WorkerView } from '../../workers/pool.ts';
import type { CheckpointPolicy } from '../lib/suite/cellCheckpoint.ts';
import { LiveTraining, type LiveFitView } from '../lib/charts/trainingFeed.ts';
import type { BackendReport } from '../lib/env/device.ts';
import { isBaselineAlgorithm } from '../lib/models/catalogue.ts';
import type { RunPlanSpec } from '../lib/suite/plan.ts';
import type { ProtocolMode } from '../lib/types.ts';
import {
  classroomPlan,
  customPlan,
  planSize,
  presetPlan,
  selectionOf,
  validatePlan,
  type CustomSelection,
  type PresetId,
} from '../lib/suite/presets.ts';
import {
  resumedCells,
  RunStore,
  storedRunProblem,
  type ResumableRun,
  type StoredCell,
  type StoredRun,
} from '../lib/suite/runStore.ts';
import { defaultWorkerCount, type ProgressSnapshot } from '../lib/suite/scheduler.ts';
import type { CellResult, RunEnv } from '../lib/suite/schema.ts';
import { estimatePlanTime } from '../lib/suite/planEstimate.ts';
import { backend } from './backend.svelte.ts';
import { calibration } from './calibration.svelte.ts';

/** ≤ 4 progress updates per second, however fast cells finish. */
const FLUSH_MS = 250;
/**
 * New records reach the charts at most once a second: each release rescores and redraws the
 * panels it touched (ResultsView scores incrementally), so fewer releases mean less main-thread work.
 */
const RESULTS_MS = 1000;
/** Between two slices of records (one panel each): about one frame. */
const SLICE_MS = 16;

/** The RAC panel a record belongs to (dataset × setting × labels). */
const panelOf = (c: CellResult) => `${c.dataset.id}|${c.setting}|${c.labels}`;
export const MAX_WORKERS = 8;

export type RunPhase =
  'idle' | 'starting' | 'running' | 'cancelling' | 'done' | 'cancelled' | 'paused' | 'error';

function errText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function newRunId(): string {
  const rand =
    typeof crypto.randomUUID === 'function' ? crypto.randomUUID().slice(0, 8) : String(performance.now());
  return `run-${new Date().toISOString().replace(/[:.]/g, '-')}-${rand}`;
}

function browserEnv(workers: number): RunEnv {
  const a = backend.report?.adapter;
  return {
    runtime: 'browser',
    user_agent: navigator.userAgent,
    backends: [],
    adapter: a
      ? { vendor: a.vendor, architecture: a.architecture, device: a.device, description: a.description }
      : null,
    hardware_concurrency: Math.max(1, navigator.hardwareConcurrency || workers),
  };
}

/** A run left running or paused; `elsewhere` while another tab holds its lock (executes it now). */
export interface ResumableEntry extends ResumableRun {
  elsewhere: boolean;
}

/** The Web Lock a tab holds while it executes a run; released when the run stops or the tab closes. */
export const runLockName = (id: string) => `rac-run-${id}`;

function webLocks(): LockManager | null {
  return typeof navigator !== 'undefined' && navigator.locks ? navigator.locks : null;
}

/**
 * Takes the run's lock if no other tab holds it: resolves with its release function, or null when
 * another tab has it. Without the Web Locks API every run counts as free (one tab, as before).
 */
function tryLockRun(id: string): Promise<(() => void) | null> {
  const locks = webLocks();
  if (!locks) return Promise.resolve(() => {});
  return new Promise((resolve, reject) => {
    locks
      .request(runLockName(id), { ifAvailable: true }, (lock) => {
        if (!lock) {
          resolve(null);
          return undefined;
        }
        return new Promise<void>((release) => resolve(release));
      })
      .catch(reject);
  });
}

/** Names of the run locks held now, by any tab of this origin. */
async function heldRunLocks(): Promise<Set<string>> {
  const locks = webLocks();
  if (!locks) return new Set();
  const { held = [] } = await locks.query();
  return new Set(held.flatMap((l) => (l.name ? [l.name] : [])));
}

export const ELSEWHERE_TEXT = 'This run is running in another tab.';

/** A plan estimated over this long asks before it starts (issue 21, item 11). */
export const CONFIRM_OVER_SECONDS = 24 * 3600;

export class RunState {
  preset = $state<PresetId>('classroom');
  selection = $state<CustomSelection>(selectionOf(classroomPlan()));
  workers = $state(
    defaultWorkerCount(typeof navigator === 'undefined' ? undefined : navigator.hardwareConcurrency),
  );

  phase = $state<RunPhase>('idle');
  /** The run shown (running, finished, or loaded for resume). Replaced whole. */
  run = $state.raw<StoredRun | null>(null);
  progress = $state.raw<ProgressSnapshot | null>(null);
  workerViews = $state.raw<WorkerView[]>([]);
  /** Records of the shown run (stored cells that have one), replaced whole at each flush. */
  results = $state.raw<CellResult[]>([]);
  resumable = $state.raw<ResumableEntry[]>([]);
  error = $state<string | null>(null);
  /**
   * What the run wants the user to know, in plain words: a dataset that could not load (its
   * cells are not run), saved records dropped on resume, a pause. Replaced whole.
   */
  notices = $state.raw<string[]>([]);
  /** Cells of the shown run stored without a record (not run, crashed twice), with the reason. */
  failures = $state.raw<{ key: string; reason: string }[]>([]);
  /** Datasets of the shown run that could not load → the reason (their cells are "not run"). */
  unavailable = $state.raw<Record<string, string>>({});
  /** Workers replaced after a crash or a lost GPU device, in this session of the shown run. */
  restarts = $state(0);
  /** Cells already saved when the shown run was (re)started: the count before the first snapshot. */
  savedAtStart = $state(0);
  /** Seconds from Start (or Resume) to the last cell, for the finished run. */
  wallSeconds = $state<number | null>(null);
  /**
   * The deep fits training now (one per worker at most; a worker's last finished fit until its
   * next one), most recent first, with the backend each worker runs on and why. Replaced whole
   * at each flush; empty when no run is going.
   */
  training = $state.raw<LiveFitView[]>([]);

  /** Protocol mode of a custom plan (presets are `rsb`, the paper's code path). */
  mode = $state<ProtocolMode>('rsb');
  /** Model options of a custom plan (a link or the planner's Options; the catalogue's defaults when undefined). */
  modelOptions = $state.raw<RunPlanSpec['modelOptions']>(undefined);
  /** PROTOCOL.md §9 caps of a custom plan (a link or the planner's Subsample group); undefined = none. */
  subsample = $state.raw<RunPlanSpec['subsample']>(undefined);
  /**
   * Values typed into the planner that are not valid yet (key → message, e.g. 'lp.gamma'): the plan
   * keeps its last valid value, and the run cannot start while any is here.
   */
  inputProblems = $state.raw<Record<string, string>>({});
  readonly plan: RunPlanSpec = $derived(
    this.preset === 'custom'
      ? {
          ...customPlan(this.selection, this.mode),
          ...(this.modelOptions ? { modelOptions: this.modelOptions } : {}),
          ...(this.subsample ? { subsample: this.subsample } : {}),
        }
      : presetPlan(this.preset),
  );
  readonly size = $derived(planSize(this.plan, isBaselineAlgorithm));
  readonly problems = $derived([
    ...validatePlan(this.plan),
    // Pending inputs belong to the custom plan's Options and Subsample groups.
    ...(this.preset === 'custom' ? Object.values(this.inputProblems) : []),
  ]);
  readonly busy = $derived(
    this.phase === 'starting' || this.phase === 'running' || this.phase === 'cancelling',
  );
  /**
   * The plan's time on this device before Start (the CLI's `rac-bench estimate` formula at this
   * page's saved calibration), on the chosen workers; null before the calibration or for a plan
   * that cannot start.
   */
  readonly estimate = $derived(
    calibration.value && this.problems.length === 0
      ? estimatePlanTime(this.plan, calibration.value.msPerUnit, this.workers)
      : null,
  );
  /**
   * Set when Start was pressed on a plan estimated over CONFIRM_OVER_SECONDS: the page asks, and
   * `start({ confirmed: true })` runs it. Null otherwise.
   */
  confirmLong = $state<number | null>(null);

  #store: Promise<RunStore> | null = null;
  #pool: BenchPool | null = null;
  /** Test hook: a shorter watchdog (the default waits minutes before declaring a fit hung). */
  #watchdog: { factor: number; minMs: number } | undefined = undefined;
  /** Test hook (holdAfter/release): holds runs after a number of fits. */
  readonly #hold = new FitHold();
  /** Test hooks (holdAtCheckpoint, setCheckpointPolicy): a deep fit held once its checkpoint is stored. */
  readonly #checkpointHold = new CheckpointHold();
  #checkpointPolicy: CheckpointPolicy | undefined = undefined;
  #pendingResults: CellResult[] = [];
  #lastRelease = -Infinity;
  #sliceTimer: ReturnType<typeof setTimeout> | null = null;
  #pendingViews = new Map<number, WorkerView>();
  #views: WorkerView[] = [];
  #live = new LiveTraining();
  /** Each worker's backend report (from its init), for the training view. */
  #laneBackends = new Map<number, BackendReport>();
  #timer: ReturnType<typeof setInterval> | null = null;
  /** Releases this tab's lock on the run it executes. */
  #unlock: (() => void) | null = null;
  /** Runs held by another tab whose release this tab waits for (to offer Resume then). */
  #watching = new Set<string>();

  async #openStore(): Promise<RunStore> {
    const open = this.#store ? await this.#store : null;
    if (open && !open.gone) return open;
    // First use, or the browser's storage was cleared under the last connection: open it afresh.
    this.#store = RunStore.open();
    return this.#store;
  }

  /** Pick a preset; the planner's checkboxes follow it (custom keeps the last selection). */
  choosePreset(id: PresetId): void {
    this.confirmLong = null;
    this.preset = id;
    if (id !== 'custom') this.selection = selectionOf(presetPlan(id));
  }

  /** Looks for runs left running or paused (e.g. by a reload). */
  async refreshResumable(): Promise<void> {
    try {
      const store = await this.#openStore();
      const list = await store.resumable();
      const held = await heldRunLocks();
      // The run this tab is executing is not "left behind".
      this.resumable = list
        .filter((r) => !(this.busy && r.run.id === this.run?.id))
        .map((r) => ({ ...r, elsewhere: held.has(runLockName(r.run.id)) }));
      for (const r of this.resumable) if (r.elsewhere) this.#watch(r.run.id);
    } catch (e) {
      this.error = `Could not read saved runs: ${errText(e)}`;
    }
  }

  /** When the tab running `id` stops or closes, its lock is free: list the runs again. */
  #watch(id: string): void {
    const locks = webLocks();
    if (!locks || this.#watching.has(id)) return;
    this.#watching.add(id);
    // Waits in the lock's queue; granted (and let go at once) when the other tab releases it.
    void locks
      .request(runLockName(id), async () => {})
      .catch(() => {})
      .then(() => {
        this.#watching.delete(id);
        void this.refreshResumable();
      });
  }

  async #lock(id: string): Promise<boolean> {
    const unlock = await tryLockRun(id);
    if (!unlock) return false;
    this.#unlock = unlock;
    return true;
  }

  #releaseLock(): void {
    this.#unlock?.();
    this.#unlock = null;
  }

  async start(opts: { confirmed?: boolean } = {}): Promise<void> {
    if (this.busy || this.problems.length) return;
    const seconds = this.estimate?.wallSeconds ?? 0;
    if (!opts.confirmed && seconds > CONFIRM_OVER_SECONDS) {
      this.confirmLong = seconds;
      return;
    }
    this.confirmLong = null;
    const now = new Date().toISOString();
    const run: StoredRun = {
      id: newRunId(),
      plan: $state.snapshot(this.plan) as RunPlanSpec,
      status: 'running',
      created_at: now,
      finished_at: null,
      env: browserEnv(this.workers),
      workers: this.workers,
      total: this.size.cells,
    };
    this.#reset(run);
    try {
      // A fresh id: always free. Taken before the run is stored, so no other tab ever sees it unlocked.
      if (!(await this.#lock(run.id))) throw new Error(ELSEWHERE_TEXT);
      const store = await this.#openStore();
      await store.putRun(run);
      await this.#execute(run);
    } catch (e) {
      this.#fail(e);
    }
  }

  async resume(id: string): Promise<void> {
    if (this.busy) return;
    if (!(await this.#lock(id))) {
      this.error = ELSEWHERE_TEXT;
      await this.refreshResumable();
      return;
    }
    try {
      const store = await this.#openStore();
      const run = await store.getRun(id);
      if (!run) throw new Error(`No saved run with id "${id}".`);
      // The stored plan is an input like any other: a damaged one is refused, not run.
      const problem = storedRunProblem(run);
      if (problem) throw new Error(`The saved run ${id} cannot be resumed. ${problem}`);
      const sorted = resumedCells(await store.cells(id));
      // Set in the same tick as the run, so the count shown never starts below what is saved.
      this.#reset(run, sorted.kept.length);
      // Failures as stored; records the pool repairs (runs again) are not among them.
      this.failures = sorted.failures;
      this.resumable = this.resumable.filter((r) => r.run.id !== id);
      // Through the slicer: a resumed run may hold every panel at once. Only records that pass
      // the schema reach the charts; the pool drops the others and runs them again.
      this.#pendingResults = sorted.kept.flatMap((c) => (c.result ? [c.result] : []));
      this.#releaseResults(true);
      await store.setStatus(id, 'running');
      await this.#execute({ ...run, status: 'running' });
    } catch (e) {
      this.#fail(e);
    }
  }

  async discard(id: string): Promise<void> {
    if ((await heldRunLocks()).has(runLockName(id)) && this.run?.id !== id) {
      this.error = ELSEWHERE_TEXT;
      return;
    }
    const store = await this.#openStore();
    await store.deleteRun(id);
    this.resumable = this.resumable.filter((r) => r.run.id !== id);
  }

  cancel(): void {
    if (!this.#pool || this.phase !== 'running') return;
    this.phase = 'cancelling';
    this.#pool.cancel();
  }

  #reset(run: StoredRun, saved = 0): void {
    this.run = run;
    this.savedAtStart = saved;
    this.restarts = 0;
    this.phase = 'starting';
    this.error = null;
    this.notices = [];
    this.unavailable = {};
    this.failures = [];
    this.results = [];
    this.progress = null;
    this.workerViews = [];
    this.wallSeconds = null;
    this.#pendingResults = [];
    this.#lastRelease = -Infinity;
    if (this.#sliceTimer) clearTimeout(this.#sliceTimer);
    this.#sliceTimer = null;
    this.#pendingViews.clear();
    this.#views = [];
    this.#live.clear();
    this.#laneBackends.clear();
    this.training = [];
  }

  async #execute(run: StoredRun): Promise<void> {
    const store = await this.#openStore();
    const pool = new BenchPool({
      size: run.workers,
      backend: backend.pref,
      store,
      watchdog: this.#watchdog,
      gate: this.#hold,
      checkpointHold: this.#checkpointHold,
      checkpointPolicy: this.#checkpointPolicy,
      baseUrl: new URL('./', document.baseURI).href,
      msPerUnit: calibration.value?.msPerUnit,
    });
    this.#pool = pool;
    const t0 = performance.now();
    this.phase = 'running';
    this.#timer = setInterval(() => this.#flush(), FLUSH_MS);
    try {
      const outcome = await pool.run(run, {
        onStored: (cells: StoredCell[]) => {
          for (const c of cells) if (c.result) this.#pendingResults.push(c.result);
          const missing = cells
            .filter((c) => !c.result)
            .map((c) => ({ key: c.key, reason: c.error ?? 'failed' }));
          if (missing.length) this.failures = this.failures.concat(missing);
        },
        onWorker: (view) => {
          this.#pendingViews.set(view.index, view);
          // In order, not batched: a lane's next cell must close its last fit before new events land.
          this.#live.lane(view.index, view.phase, view.cell);
        },
        onBackend: (index, report) => this.#laneBackends.set(index, report),
        onTraining: (index, cell, events) => this.#live.add(index, cell, events),
        onNotice: (text) => {
          this.notices = [...this.notices, text];
        },
      });
      if (outcome.unavailable) this.unavailable = outcome.unavailable;
      const finishedAt = outcome.status === 'done' ? new Date().toISOString() : null;
      const final: StoredRun = {
        ...run,
        status: outcome.status,
        finished_at: finishedAt,
        env: { ...run.env, backends: pool.backends },
      };
      await store.putRun(final);
      this.run = final;
      this.wallSeconds = (performance.now() - t0) / 1000;
      if (outcome.reason) this.error = outcome.reason;
      this.phase = outcome.status;
    } finally {
      if (this.#timer) clearInterval(this.#timer);
      this.#timer = null;
      this.#flush(true);
      this.#pool = null;
      // The live logs end with the run (the lanes are stopped); the records are in the results.
      this.#live.clear();
      this.#laneBackends.clear();
      this.training = [];
      this.#releaseLock();
    }
  }

  /** Resolves once every record reported so far is in `results` (slices included). */
  async settled(): Promise<void> {
    while (this.#pendingResults.length) await new Promise((r) => setTimeout(r, SLICE_MS));
  }

  /**
   * Moves pending records into `results`, one panel per slice and the next panel a frame later:
   * each slice redraws one RAC panel (the first draw of a panel is the costly one), so a burst
   * that touches many panels (a resume, a fast run) is drawn across frames, not in one long task.
   */
  #releaseResults(force = false): void {
    if (this.#pendingResults.length === 0 || this.#sliceTimer) return;
    const now = performance.now();
    if (!force && now - this.#lastRelease < RESULTS_MS) return;
    const panel = panelOf(this.#pendingResults[0]);
    const take: CellResult[] = [];
    const keep: CellResult[] = [];
    for (const c of this.#pendingResults) (panelOf(c) === panel ? take : keep).push(c);
    this.#pendingResults = keep;
    this.results = this.results.concat(take);
    this.#lastRelease = now;
    if (keep.length) {
      this.#sliceTimer = setTimeout(() => {
        this.#sliceTimer = null;
        this.#releaseResults(true);
      }, SLICE_MS);
    }
  }

  /** Moves what the pool reported since the last flush into the reactive fields. */
  #flush(final = false): void {
    this.#releaseResults(final);
    if (this.#pendingViews.size) {
      for (const [i, v] of this.#pendingViews) this.#views[i] = v;
      this.#pendingViews.clear();
      this.workerViews = [...this.#views];
    }
    if (this.#live.takeChanged()) {
      this.training = this.#live.fits.map((f) => {
        const r = this.#laneBackends.get(f.lane);
        return { ...f, backend: r?.backend ?? null, backendReason: r?.reason ?? null };
      });
    }
    const snap = this.#pool?.snapshot();
    if (snap) this.progress = snap;
    if (this.#pool) this.restarts = this.#pool.restarts;
  }

  #fail(e: unknown): void {
    this.#releaseLock();
    this.phase = 'error';
    this.error = errText(e);
  }

  /** Test hooks (window.__racRun): crash a worker, lose a GPU device, count replaced workers. */
  debugHooks() {
    return {
      simulateCrash: (index: number) => this.#pool?.simulateCrash(index) ?? false,
      simulateDeviceLost: (index: number) => this.#pool?.simulateDeviceLost(index) ?? Promise.resolve(false),
      simulateHang: (index: number) => this.#pool?.simulateHang(index) ?? false,
      setWatchdog: (w: { factor: number; minMs: number }) => {
        this.#watchdog = w;
      },
      /** Hold this page's runs once `fits` fits are taken in all (null: never); release() lifts it. */
      holdAfter: (fits: number | null) => this.#hold.set(fits),
      release: () => this.#hold.set(null),
      /** True once a held run has stored its fits and waits, nothing in flight. */
      held: () => this.#pool?.held ?? false,
      /** Deep fits save every `p` ({ everySteps } or { everyMs }; null: never) in runs started after. */
      setCheckpointPolicy: (p: CheckpointPolicy) => {
        this.#checkpointPolicy = p;
      },
      /** The fit that stores the n-th checkpoint from now waits there (null: never; lifts a hold). */
      holdAtCheckpoint: (n: number | null) => this.#checkpointHold.set(n),
      /** True while a deep fit waits at a checkpoint hold, its checkpoint stored. */
      checkpointHeld: () => this.#checkpointHold.held,
      restarts: () => this.restarts,
      /** Runs a custom selection to the end (used by `npm run bench`); resolves with the records. */
      runSelection: async (sel: CustomSelection, workers?: number) => {
        this.preset = 'custom';
        this.selection = sel;
        if (workers) this.workers = workers;
        await this.start();
        await this.settled();
        // Marks the end of streaming for the bench: what follows (copying every record out) is the hook's own cost.
        performance.mark('rac-run-settled');
        await new Promise((r) => setTimeout(r, 50)); // the copy below is a task of its own, outside the window
        return {
          phase: this.phase,
          error: this.error,
          wallSeconds: this.wallSeconds,
          workers: this.workers,
          results: $state.snapshot(this.results),
        };
      },
    };
  }
}

export const runState = new RunState();

if (typeof window !== 'undefined') {
  (window as unknown as { __racRun: ReturnType<RunState['debugHooks']> }).__racRun = runState.debugHooks();
}
