/**
 * tfjs backend set-up, shared by every worker: probe the WebGPU adapter, pick a backend with
 * the pure `chooseBackend`, initialise it (falling through wasm → webgl → cpu on failure),
 * and move to wasm if a WebGPU device is lost later.
 *
 * Usage in a worker:  const report = await initBackend(pref, { onChange: (r) => ... });
 */
// Core plus backends only (not the tfjs umbrella): the probe worker loads at every page start.
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
import '@tensorflow/tfjs-backend-webgl';
import '@tensorflow/tfjs-backend-webgpu';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
// Served by Vite as hashed assets; works in dev, in the build and in workers (PLATFORM-NOTES).
import wasmUrl from '@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm?url';
import wasmSimdUrl from '@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-simd.wasm?url';
import wasmThreadedUrl from '@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-threaded-simd.wasm?url';
import {
  BACKENDS,
  adapterFactsOf,
  backendLabel,
  chooseWorkerBackend,
  fallbackReason,
  initOrder,
  type AdapterFacts,
  type BackendName,
  type BackendPref,
  type BackendReport,
  type WorkerBackendRequest,
  workerRequest,
} from '../src/lib/env/device.ts';

export { tf };
export type { BackendReport, BackendPref, BackendName, WorkerBackendRequest };

/** A backend whose init takes longer than this is treated as failed (threaded wasm can hang). */
const INIT_TIMEOUT_MS = 30_000;

const abs = (u: string) => new URL(u, self.location.href).href;
setWasmPaths({
  'tfjs-backend-wasm.wasm': abs(wasmUrl),
  'tfjs-backend-wasm-simd.wasm': abs(wasmSimdUrl),
  'tfjs-backend-wasm-threaded-simd.wasm': abs(wasmThreadedUrl),
});
// Threaded wasm hangs after minification (tensorflow/tfjs#4539) and gains nothing on 2 cores.
tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);

export interface InitOptions {
  /** Called when the backend changes after init (e.g. the WebGPU device was lost). */
  onChange?: (report: BackendReport) => void;
}

let current: BackendReport | null = null;
let watchedDevice: GPUDevice | null = null;
let onChange: InitOptions['onChange'];

/** The last report, or null before `initBackend` has finished. */
export function currentReport(): BackendReport | null {
  return current;
}

/** Facts about the WebGPU adapter in this context, or null (with the reason) when there is none. */
export async function probeAdapter(): Promise<{ adapter: AdapterFacts | null; note: string | null }> {
  const gpu = (self.navigator as Navigator & { gpu?: GPU }).gpu;
  if (!gpu) return { adapter: null, note: 'navigator.gpu is undefined' };
  try {
    const adapter = await gpu.requestAdapter();
    if (!adapter) return { adapter: null, note: 'requestAdapter() returned null' };
    return {
      adapter: adapterFactsOf(adapter as unknown as Parameters<typeof adapterFactsOf>[0]),
      note: null,
    };
  } catch (e) {
    return { adapter: null, note: `requestAdapter() threw: ${errText(e)}` };
  }
}

/** Backends registered with tfjs and usable in this context. */
export function availableBackends(): BackendName[] {
  return BACKENDS.filter((b) => {
    if (!tf.findBackendFactory(b)) return false;
    if (b === 'webgl') return typeof OffscreenCanvas !== 'undefined' || typeof document !== 'undefined';
    if (b === 'wasm') return typeof WebAssembly !== 'undefined';
    return true;
  });
}

/**
 * Pick and initialise a backend. Never throws: when the chosen backend fails, the next one in
 * `initOrder` is tried and the failure is listed in `fallbacks`; cpu always works.
 */
export async function initBackend(
  want: BackendPref | WorkerBackendRequest,
  opts: InitOptions = {},
): Promise<BackendReport> {
  onChange = opts.onChange;
  const request = workerRequest(want);
  const pref = request.pref;
  const { adapter, note } = await probeAdapter();
  const available = availableBackends();
  // The pool's role for this worker (beside the GPU worker, a replacement) is part of the reason.
  const choice = chooseWorkerBackend(adapter, request, available);
  const fallbacks: string[] = [];
  if (note && (pref === 'webgpu' || pref === 'auto')) fallbacks.push(`webgpu: ${note}`);
  const failures: string[] = [];
  for (const b of initOrder(choice.backend, available)) {
    const t0 = performance.now();
    const err = await trySetBackend(b);
    const initMs = performance.now() - t0;
    if (err) {
      failures.push(err);
      fallbacks.push(`${b}: ${err}`);
      continue;
    }
    current = {
      backend: b,
      requested: pref,
      chosen: choice.backend,
      reason: fallbackReason(choice, b, failures),
      adapter,
      tfjsVersion: tfjsVersion(),
      initMs: Math.round(initMs * 10) / 10,
      fallbacks,
    };
    watchDevice();
    return current;
  }
  throw new Error(`initBackend: no tfjs backend could be initialised; tried ${fallbacks.join('; ')}.`);
}

/** Error text when `tf.setBackend(name)` fails, or null on success. */
async function trySetBackend(name: BackendName): Promise<string | null> {
  // tfjs logs the cause with console.warn and returns false; catch the text for the report.
  const warned: string[] = [];
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    warned.push(args.map(String).join(' '));
    warn.apply(console, args);
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const timeout = new Promise<'timeout'>((r) => {
      timer = setTimeout(() => r('timeout'), INIT_TIMEOUT_MS);
    });
    const ok = await Promise.race([
      tf.setBackend(name).then(async (s) => {
        if (s) await tf.ready();
        return s;
      }),
      timeout,
    ]);
    if (ok === 'timeout') return `initialisation timed out after ${INIT_TIMEOUT_MS / 1000} s`;
    if (!ok) return firstLineOfCause(warned) ?? 'initialisation failed';
    return null;
  } catch (e) {
    return errText(e);
  } finally {
    clearTimeout(timer);
    console.warn = warn;
  }
}

/** tfjs warns "Initialization of backend x failed" then the error's stack; keep the error line. */
function firstLineOfCause(warned: string[]): string | null {
  const cause = warned.find((w) => !/^Initialization of backend/.test(w)) ?? warned[0];
  return cause ? cause.split('\n')[0].slice(0, 300) : null;
}

function tfjsVersion(): string {
  return tf.version_core;
}

function errText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function activeGpuDevice(): GPUDevice | null {
  if (tf.getBackend() !== 'webgpu') return null;
  return (tf.backend() as unknown as { device?: GPUDevice }).device ?? null;
}

/** When the active backend is WebGPU, move to wasm if its device is lost. */
function watchDevice(): void {
  const device = activeGpuDevice();
  if (!device || device === watchedDevice) return;
  watchedDevice = device;
  void device.lost.then((info) => onDeviceLost(device, info));
}

async function onDeviceLost(device: GPUDevice, info: GPUDeviceLostInfo): Promise<void> {
  if (device !== watchedDevice) return;
  watchedDevice = null;
  const what = `GPU device lost (${info.reason}${info.message ? `: ${info.message}` : ''})`;
  // Drop the dead backend but keep its factory, so WebGPU can be chosen again with a new device.
  const factory = tf.findBackendFactory('webgpu');
  const prev = current;
  const wasActive = tf.getBackend() === 'webgpu';
  try {
    tf.removeBackend('webgpu');
  } catch {
    /* the dead backend may fail to dispose */
  }
  if (factory) tf.registerBackend('webgpu', factory, 3);
  if (!wasActive) return;
  const report = await initBackend('wasm', { onChange });
  current = {
    ...report,
    requested: prev?.requested ?? 'auto',
    chosen: prev?.chosen ?? report.chosen,
    reason: `${what} — switched to ${backendLabel(report.backend)}.`,
    adapter: prev?.adapter ?? report.adapter,
    fallbacks: [...(prev?.fallbacks ?? []), `webgpu: ${what}`, ...report.fallbacks],
    deviceLost: `GPU device lost — switched to ${backendLabel(report.backend)}`,
  };
  onChange?.(current);
}

/** Test hook: destroy the active WebGPU device, which resolves `device.lost` like a real loss. */
export function simulateDeviceLost(): boolean {
  const device = activeGpuDevice();
  if (!device) return false;
  device.destroy();
  return true;
}
