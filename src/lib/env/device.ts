/**
 * Which TensorFlow.js backend to run on, decided from plain facts (pure: no DOM, no tfjs).
 *
 * The worker gathers the facts (WebGPU adapter info, which backends registered) and calls
 * `chooseBackend`; the page shows the resulting `BackendReport`. Keeping the decision here
 * lets Node tests pin it down for every kind of machine.
 */
import type { SelfCheckResult } from './selfCheck.ts';

export const BACKENDS = ['webgpu', 'webgl', 'wasm', 'cpu'] as const;
export type BackendName = (typeof BACKENDS)[number];
export type BackendPref = 'auto' | BackendName;
export const BACKEND_PREFS: readonly BackendPref[] = ['auto', ...BACKENDS];

/** The parts of `GPUAdapterInfo` we read, plus the fallback flag (plain and serialisable). */
export interface AdapterFacts {
  vendor: string;
  architecture: string;
  device: string;
  description: string;
  isFallbackAdapter: boolean;
}

/** What the worker reports after initialising tfjs. Crosses the worker boundary as a plain record. */
export interface BackendReport {
  /** The backend tfjs actually runs on. */
  backend: BackendName;
  /** What the user asked for. */
  requested: BackendPref;
  /** What `chooseBackend` picked; differs from `backend` when that failed to initialise. */
  chosen: BackendName;
  /** One plain sentence: why this backend. */
  reason: string;
  adapter: AdapterFacts | null;
  tfjsVersion: string;
  /** setBackend + ready, in ms (of the backend that worked). */
  initMs: number;
  /** What failed and why, in the order it was tried, e.g. "webgpu: device request failed". */
  fallbacks: string[];
  /** Set when a WebGPU device was lost after init and the worker moved to another backend. */
  deviceLost?: string;
}

export interface BackendChoice {
  backend: BackendName;
  reason: string;
}

const NAMES: Record<BackendName, string> = { webgpu: 'WebGPU', webgl: 'WebGL', wasm: 'WASM', cpu: 'CPU' };

/**
 * What a browser declares of its memory: `navigator.deviceMemory` in GiB (rounded down, capped at
 * 8 by Chrome), or null where it declares none (Firefox, Safari, Node). Pass `globalThis.navigator`.
 */
export function declaredDeviceMemoryGiB(nav: object | undefined): number | null {
  const m = (nav as { deviceMemory?: unknown } | undefined)?.deviceMemory;
  return typeof m === 'number' && Number.isFinite(m) && m > 0 ? m : null;
}

/** Display name of a backend ("WebGPU", "WASM", ...). */
export function backendLabel(b: BackendName): string {
  return NAMES[b];
}

export function isBackendName(s: unknown): s is BackendName {
  return typeof s === 'string' && (BACKENDS as readonly string[]).includes(s);
}

export function isBackendPref(s: unknown): s is BackendPref {
  return s === 'auto' || isBackendName(s);
}

/** A stored or URL value as a preference; anything unknown means 'auto'. */
export function parseBackendPref(s: unknown): BackendPref {
  return isBackendPref(s) ? s : 'auto';
}

const SOFTWARE_RENDERERS: ReadonlyArray<[RegExp, string]> = [
  [/swiftshader/i, 'SwiftShader'],
  [/llvmpipe/i, 'llvmpipe'],
  [/lavapipe/i, 'lavapipe'],
  [/warp|microsoft basic render/i, 'WARP'],
  [/software|\bcpu\b/i, 'software renderer'],
];

/**
 * Is this adapter a CPU emulation of a GPU? Returns the renderer's name when it is, null when
 * it looks like real hardware. The flag is trusted first; the strings catch browsers that
 * do not set it.
 */
export function softwareAdapterName(a: AdapterFacts): string | null {
  const text = [a.vendor, a.architecture, a.device, a.description].join(' ');
  for (const [re, name] of SOFTWARE_RENDERERS) if (re.test(text)) return name;
  return a.isFallbackAdapter ? 'software' : null;
}

/** Short human text for an adapter: "SwiftShader fallback adapter", "nvidia ampere", "no WebGPU adapter". */
export function describeAdapter(a: AdapterFacts | null): string {
  if (!a) return 'no WebGPU adapter';
  const sw = softwareAdapterName(a);
  if (sw) return sw === 'software' ? 'software fallback adapter' : `${sw} fallback adapter`;
  const parts = [a.vendor, a.architecture || a.description || a.device].filter((s) => s.trim() !== '');
  return parts.length ? parts.join(' ') : 'GPU adapter';
}

/** Badge text: "WASM · SwiftShader fallback adapter". */
export function badgeText(r: Pick<BackendReport, 'backend' | 'adapter'>): string {
  return `${backendLabel(r.backend)} · ${describeAdapter(r.adapter)}`;
}

/** The automatic pick, given the adapter and what is available. */
function autoChoice(adapter: AdapterFacts | null, available: readonly BackendName[]): BackendChoice {
  const has = (b: BackendName) => available.includes(b);
  if (adapter && has('webgpu')) {
    const sw = softwareAdapterName(adapter);
    if (!sw)
      return {
        backend: 'webgpu',
        reason: `A hardware WebGPU adapter (${describeAdapter(adapter)}) is available, so WebGPU is used.`,
      };
    const why = sw === 'software' ? 'a software fallback' : `a software fallback (${sw})`;
    if (has('wasm')) return { backend: 'wasm', reason: `WebGPU adapter is ${why}, so WASM is faster here.` };
    return firstOf(['webgl', 'cpu', 'webgpu'], available, `WebGPU adapter is ${why} and WASM is unavailable`);
  }
  const why = adapter ? 'WebGPU is unavailable in this context' : 'No WebGPU adapter was found';
  if (has('wasm')) return { backend: 'wasm', reason: `${why}, so WASM (SIMD, single thread) is used.` };
  return firstOf(['webgl', 'cpu'], available, `${why} and WASM is unavailable`);
}

function firstOf(order: BackendName[], available: readonly BackendName[], why: string): BackendChoice {
  for (const b of order)
    if (available.includes(b)) return { backend: b, reason: `${why}, so ${backendLabel(b)} is used.` };
  // cpu ships with tfjs, so this only happens if a caller passes an empty list.
  return { backend: 'cpu', reason: `${why} and no other backend is registered, so CPU is used.` };
}

/**
 * Pick a backend.
 *
 * - `override` other than 'auto' wins when that backend is available; otherwise the automatic
 *   pick is used and the reason says why the override could not be honoured.
 * - Automatic: a hardware WebGPU adapter → webgpu; a software/fallback adapter or none → wasm
 *   (SwiftShader WebGPU is ~40× slower than SIMD wasm on the same CPU); then webgl, then cpu.
 *
 * @param adapter   facts from `navigator.gpu.requestAdapter()`, or null when there is none.
 * @param override  the user's preference.
 * @param available backends registered and usable in this context (order does not matter).
 */
export function chooseBackend(
  adapter: AdapterFacts | null,
  override: BackendPref,
  available: readonly BackendName[],
): BackendChoice {
  if (override !== 'auto') {
    if (available.includes(override) && (override !== 'webgpu' || adapter)) {
      return { backend: override, reason: `You chose ${backendLabel(override)}.` };
    }
    const auto = autoChoice(adapter, available);
    const missing =
      override === 'webgpu' && !adapter ? 'no WebGPU adapter was found' : 'it is not available here';
    return {
      backend: auto.backend,
      reason: `You chose ${backendLabel(override)}, but ${missing}, so ${backendLabel(auto.backend)} is used.`,
    };
  }
  return autoChoice(adapter, available);
}

/** WebGPU and WebGL run on the GPU; WASM and CPU on the processor. */
export function isGpuBackend(b: BackendName): boolean {
  return b === 'webgpu' || b === 'webgl';
}

/**
 * Why the pool starts a worker, beside the user's preference. The reason a worker reports must be
 * the real one: a worker the pool put on WASM did not get there because the user chose WASM.
 *   main         the preference applies as it stands (a plan's first worker, any worker of a plan
 *                without deep work);
 *   beside-gpu   a further worker of a plan with deep work: when the preference gives a GPU backend,
 *                worker 1 keeps the GPU for the deep fits and this one runs statistical fits on WASM;
 *   replacement  it replaces a worker that crashed on `failedOn`, on `backend`.
 */
export type WorkerRole =
  | { kind: 'main' }
  | { kind: 'beside-gpu' }
  | { kind: 'replacement'; backend: BackendName; failedOn: BackendName | null };

/** What the pool asks of a worker: the user's preference and the worker's role. */
export interface WorkerBackendRequest {
  pref: BackendPref;
  role: WorkerRole;
}

/** A bare preference is a main worker's request (the probe worker, the header badge). */
export function workerRequest(x: BackendPref | WorkerBackendRequest): WorkerBackendRequest {
  return typeof x === 'string' ? { pref: x, role: { kind: 'main' } } : x;
}

/**
 * The backend of a worker and the real reason for it: `chooseBackend` on the user's preference,
 * then the pool's role (see WorkerRole). Never says "You chose" about a choice the pool made.
 */
export function chooseWorkerBackend(
  adapter: AdapterFacts | null,
  request: WorkerBackendRequest,
  available: readonly BackendName[],
): BackendChoice {
  const own = chooseBackend(adapter, request.pref, available);
  const { role } = request;
  if (role.kind === 'beside-gpu' && isGpuBackend(own.backend) && available.includes('wasm')) {
    return {
      backend: 'wasm',
      reason: `Worker 1 runs the deep fits on ${backendLabel(own.backend)}; this worker runs the statistical fits beside it on WASM, so the two do not share the GPU.`,
    };
  }
  if (role.kind === 'replacement' && role.backend !== own.backend && available.includes(role.backend)) {
    const was = role.failedOn ? backendLabel(role.failedOn) : 'its backend';
    return {
      backend: role.backend,
      reason: `A worker on ${was} crashed, so the worker that replaced it runs on ${backendLabel(role.backend)}.`,
    };
  }
  return own;
}

/**
 * The order to try backends in, starting with the chosen one: when one fails to initialise,
 * the next is tried. wasm, then webgl, then cpu (cpu always works).
 */
export function initOrder(first: BackendName, available: readonly BackendName[]): BackendName[] {
  const rest = (['wasm', 'webgl', 'cpu'] as const).filter((b) => b !== first && available.includes(b));
  return [first, ...rest];
}

/** Reason after init fell through: the first choice failed, so another backend runs. */
export function fallbackReason(chosen: BackendChoice, used: BackendName, failures: string[]): string {
  if (used === chosen.backend) return chosen.reason;
  return `${backendLabel(chosen.backend)} failed to start (${failures[0] ?? 'unknown error'}), so ${backendLabel(used)} is used instead.`;
}

/** Read adapter facts off a GPUAdapter-like object (Chromium ≥ 131 has `info.isFallbackAdapter`, older ones `adapter.isFallbackAdapter`). */
export function adapterFactsOf(adapter: {
  info?: Partial<Record<'vendor' | 'architecture' | 'device' | 'description', string>> & {
    isFallbackAdapter?: boolean;
  };
  isFallbackAdapter?: boolean;
}): AdapterFacts {
  const info = adapter.info ?? {};
  return {
    vendor: info.vendor ?? '',
    architecture: info.architecture ?? '',
    device: info.device ?? '',
    description: info.description ?? '',
    isFallbackAdapter: Boolean(info.isFallbackAdapter ?? adapter.isFallbackAdapter ?? false),
  };
}

/**
 * A GPU backend this much slower than WASM on the self-check is worth a warning. The check's
 * matmul is small (64×64), so a real GPU pays its read-back there and may be a few times slower
 * than WASM without being slow on real work; a software adapter is tens to hundreds of times slower.
 */
export const SLOW_GPU_RATIO = 10;

/** "186", "12", "3.4": a ratio as people say it. */
function ratioText(r: number): string {
  return r >= 10 ? String(Math.round(r)) : r.toFixed(1);
}

/**
 * Why the backend in use will be slow, in one plain paragraph, or null when it will not: a GPU
 * backend that the self-check measured at SLOW_GPU_RATIO or more times WASM's time, or WebGPU on a
 * software adapter (which emulates a GPU on the processor). Shown on the device badge (which then
 * is not green) and before Start.
 */
export function slowBackendWarning(
  report: Pick<BackendReport, 'backend' | 'adapter'> | null,
  check: SelfCheckResult | null,
): string | null {
  if (!report || !isGpuBackend(report.backend)) return null;
  const label = backendLabel(report.backend);
  const software = report.backend === 'webgpu' && report.adapter ? softwareAdapterName(report.adapter) : null;
  const ref = check && check.backend === report.backend ? check.reference : undefined;
  const ratio = ref ? ref.activeMs / Math.max(ref.ms, 0.05) : null;
  if (ratio !== null && ratio >= SLOW_GPU_RATIO) {
    const on = software ? ` on ${describeAdapter(report.adapter)}` : '';
    return (
      `${label}${on} is slow here: the self-check's ${check!.n}×${check!.n} matmul took ${ref!.activeMs} ms ` +
      `against ${ref!.ms} ms on WASM (about ${ratioText(ratio)}× slower). Fits will take far longer than on ` +
      'WASM: choose Auto or WASM in the device menu, or start anyway.'
    );
  }
  if (software && (ratio === null || ratio > 1)) {
    return (
      `${label} runs on a ${describeAdapter(report.adapter)}, which emulates a GPU on the processor and is ` +
      'usually much slower than WASM: choose Auto or WASM in the device menu, or start anyway.'
    );
  }
  return null;
}
