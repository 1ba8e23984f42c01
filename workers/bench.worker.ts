/**
 * The benchmark worker: runs one cell at a time on tfjs (src/lib/suite/runCell.ts), loading and
 * memoising datasets itself, so only plain records cross to the page. One worker per pool slot.
 *
 * Protocol (comlink): init → runCell* → dispose. `cancel()` aborts the running cell. A cell during
 * which the WebGPU device was lost is not trusted: it throws a DeviceLostError and the pool
 * retries it on a fresh worker.
 */
import { expose } from 'comlink';
import {
  currentReport,
  initBackend,
  simulateDeviceLost,
  tf,
  type BackendPref,
  type BackendReport,
  type WorkerBackendRequest,
} from './backend.ts';
import { loadDatasetWithReport } from '../src/lib/data/index.ts';
import { declaredDeviceMemoryGiB, describeAdapter } from '../src/lib/env/device.ts';
import { getAlgorithm } from '../src/lib/models/catalogue.ts';
import { pageActivationBudget, setActivationBudget } from '../src/lib/models/deep/activationBudget.ts';
import type { Progress } from '../src/lib/models/estimator.ts';
import { TrainingBatch, trainingEventOf, type TimedTrainingEvent } from '../src/lib/charts/trainingFeed.ts';
import type { CellSpec, RunPlanSpec } from '../src/lib/suite/plan.ts';
import { runCell as runCellCore, type CellEnv } from '../src/lib/suite/runCell.ts';
import type { CellResult } from '../src/lib/suite/schema.ts';
import type { Dataset } from '../src/lib/types.ts';
import type { CellCheckpoint, CheckpointPolicy } from '../src/lib/suite/cellCheckpoint.ts';
import { version as APP_VERSION } from '../package.json';

/** Progress posts at most this often (STYLE.md §10). */
const PROGRESS_EVERY_MS = 150;

export interface BenchInitOptions {
  /** The site's base URL: embedded datasets resolve against it (a worker's own URL is under assets/). */
  baseUrl: string;
}

export interface CellProgress {
  runId: string;
  key: string;
  fraction: number;
  message?: string;
  /**
   * A deep fit's training events since the last post (step, losses, mask rate; worker clock),
   * at most TrainingBatch's capacity: the trainer reports every `progressEvery` steps and the
   * posts stay throttled, so this adds no message and no read-back of its own.
   */
  training?: TimedTrainingEvent[];
}

interface LoadedDataset {
  ds: Dataset;
  source: string;
}

let baseUrl: string | null = null;
const datasets = new Map<string, Promise<LoadedDataset>>();
let controller: AbortController | null = null;
/** Set when the backend changed (device lost) while a cell ran. */
let lostDuringCell: string | null = null;
/** Sticky: once this worker's WebGPU device is lost, no later cell result from it is trusted. */
let gpuLost: string | null = null;
let watchingGpu = false;
let busy = false;

/** Watches the active WebGPU device directly: `lost` resolves before backend.ts has moved to wasm. */
function watchGpu(): void {
  if (tf.getBackend() !== 'webgpu') return;
  const device = (tf.backend() as unknown as { device?: GPUDevice }).device;
  if (!device) return;
  watchingGpu = true;
  void device.lost.then((info) => {
    gpuLost = `GPU device lost (${info.reason}${info.message ? `: ${info.message}` : ''})`;
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function loadOnce(id: string): Promise<LoadedDataset> {
  let p = datasets.get(id);
  if (!p) {
    // Not tied to one cell's signal: a cancelled cell must not poison the memo for the next.
    p = loadDatasetWithReport(id, { baseUrl: baseUrl ?? undefined }).then((r) => ({
      ds: r.dataset,
      source: r.origin === 'embedded' ? `embedded:data/${id}.csv` : r.source,
    }));
    p.catch(() => datasets.delete(id));
    datasets.set(id, p);
  }
  return p;
}

function cellEnv(report: BackendReport): CellEnv {
  const cores = (self.navigator as Navigator).hardwareConcurrency;
  return {
    backend: report.backend,
    float_precision: 'float32',
    tfjs_version: report.tfjsVersion,
    app_version: APP_VERSION,
    device:
      report.backend === 'webgpu'
        ? describeAdapter(report.adapter)
        : `${report.backend} on ${cores ?? '?'} logical cores`,
  };
}

function deviceLostError(what: string): Error {
  const e = new Error(`${what}; the pool retries it on a fresh worker.`);
  e.name = 'DeviceLostError';
  return e;
}

function abortError(): Error {
  const e = new Error('The cell was cancelled.');
  e.name = 'AbortError';
  return e;
}

const api = {
  /** `want`: the user's preference, or the pool's request (preference plus this worker's role). */
  async init(want: BackendPref | WorkerBackendRequest, opts: BenchInitOptions): Promise<BackendReport> {
    baseUrl = opts.baseUrl;
    // Deep fits may keep a step's activations instead of recomputing them, up to a share of the
    // memory this device declares (the same weights either way; activationBudget.ts).
    setActivationBudget(pageActivationBudget(declaredDeviceMemoryGiB(globalThis.navigator)));
    const report = await initBackend(want, {
      onChange: (r) => {
        if (busy) lostDuringCell = r.deviceLost ?? `backend changed to ${r.backend}`;
      },
    });
    watchGpu();
    return report;
  },

  /**
   * Runs one cell. `onProgress` (a comlink proxy) hears at most one post per ~150 ms.
   * Throws AbortError when cancelled and DeviceLostError when the GPU went away mid-cell.
   */
  async runCell(
    cell: CellSpec,
    plan: RunPlanSpec,
    runId: string,
    onProgress?: (p: CellProgress) => void,
    checkpoints?: { resumeFrom: CellCheckpoint | null; policy: CheckpointPolicy },
    channel?: { save(c: CellCheckpoint): Promise<void>; notice(text: string): void },
  ): Promise<CellResult> {
    const report = currentReport();
    if (!report) throw new Error('bench worker: runCell was called before init.');
    if (busy) throw new Error(`bench worker: runCell("${cell.key}") while another cell runs; one at a time.`);
    if (gpuLost) throw deviceLostError(`${gpuLost} before cell ${cell.key}`);
    busy = true;
    lostDuringCell = null;
    const ac = new AbortController();
    controller = ac;
    let lastPost = -Infinity;
    let lastFraction = 0;
    let lastMessage: string | undefined;
    const training = new TrainingBatch();
    const post = (now: number) => {
      lastPost = now;
      const events = training.take();
      void onProgress?.({
        runId,
        key: cell.key,
        fraction: lastFraction,
        message: lastMessage,
        ...(events ? { training: events } : {}),
      });
    };
    const progress = (fraction: number, message?: string, event?: Progress) => {
      if (!onProgress) return;
      const now = performance.now();
      lastFraction = fraction;
      lastMessage = message;
      const te = event ? trainingEventOf(event, now) : null;
      if (te) training.push(te);
      if (now - lastPost >= PROGRESS_EVERY_MS) post(now);
    };
    try {
      progress(0, `loading ${cell.dataset}`);
      const { ds, source } = await loadOnce(cell.dataset);
      if (ac.signal.aborted) throw abortError();
      // runCell fails the cell (TensorLeak reason) when the fit leaves tensors behind.
      const result = await runCellCore(ds, source, cell, plan, getAlgorithm(cell.algorithm), {
        now: () => performance.now(),
        isoTime: () => new Date().toISOString(),
        env: cellEnv(report),
        signal: ac.signal,
        onProgress: progress,
        liveTensors: () => tf.memory().numTensors,
        // A deep fit's checkpoints go to the page (structured-cloned: the arrays may alias tensor
        // memory on some backends, so nothing is transferred) and the fit waits until stored.
        ...(checkpoints && channel
          ? {
              checkpoints: {
                ...checkpoints,
                save: (c: CellCheckpoint) => channel.save(c),
                notice: (text: string) => void channel.notice(text),
              },
            }
          : {}),
      });
      // The last steps' events (held back by the throttle): the counter ends at n of n.
      if (training.size) post(performance.now());
      // A fit that failed on WebGPU may have failed because the device went away; its loss is
      // reported a moment later, so give it one tick before trusting the record.
      if (watchingGpu && result.outcome.status === 'failed' && !gpuLost) await sleep(100);
      // After a loss the worker is tainted (backend.ts is switching under it): the pool replaces it.
      const lost = lostDuringCell ?? gpuLost;
      if (lost) {
        throw deviceLostError(`${lost} while cell ${cell.key} ran`);
      }
      return result;
    } finally {
      busy = false;
      if (controller === ac) controller = null;
    }
  },

  /** Aborts the running cell (its fit throws AbortError at its next check). */
  cancel(): void {
    controller?.abort();
  },

  report(): BackendReport | null {
    return currentReport();
  },

  /** Test hooks: lose the WebGPU device, or crash the worker outright (an uncaught error). */
  simulateDeviceLost(): boolean {
    return simulateDeviceLost();
  },
  /** A fit that spins forever and never posts again (the pool's watchdog must notice). */
  simulateHang(): void {
    setTimeout(() => {
      for (;;) {
        /* spin */
      }
    }, 0);
  },
  simulateCrash(): void {
    setTimeout(() => {
      throw new Error('bench worker: simulated crash (test hook).');
    }, 0);
  },

  dispose(): void {
    controller?.abort();
    datasets.clear();
    tf.disposeVariables();
  },
};

export type BenchWorkerApi = typeof api;
expose(api);
