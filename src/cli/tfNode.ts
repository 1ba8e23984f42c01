/**
 * tfjs under Node. `wasm` (SIMD, about 35x faster than the pure-JS cpu backend here) is the
 * default; `webgpu` runs the same kernels as the site's WebGPU backend on a GPU server through
 * Dawn for Node (the optional `webgpu` package), so a Slurm or Kubernetes job needs no browser.
 */
import { tmpdir } from 'node:os';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { CliError } from './args.ts';
import { NODE_ACTIVATION_BUDGET_BYTES, setActivationBudget } from '../lib/models/deep/activationBudget.ts';
import { missingLoaderAdvice } from './vulkanLoader.ts';

export type NodeBackend = 'wasm' | 'cpu' | 'webgpu';
export const NODE_BACKENDS: readonly NodeBackend[] = ['wasm', 'cpu', 'webgpu'];

export interface NodeBackendInfo {
  backend: NodeBackend;
  /** The GPU adapter (webgpu only), as the run record's env.adapter holds it. */
  adapter: AdapterInfo | null;
  /** The same in words, for the progress line. */
  adapterText: string | null;
  /** True for a software adapter (SwiftShader, lavapipe): correct but slow. */
  software: boolean;
}

export interface AdapterInfo {
  vendor?: string;
  architecture?: string;
  device?: string;
  description?: string;
}

interface DawnModule {
  create(flags: string[]): GPU;
  globals: Record<string, unknown>;
}

/** Puts Dawn's `navigator.gpu` where tfjs-backend-webgpu looks for it (Node 20 has no navigator). */
async function installDawn(): Promise<GPUAdapter> {
  let dawn: DawnModule;
  try {
    dawn = (await import('webgpu')) as unknown as DawnModule;
  } catch (err) {
    throw new CliError(
      `--backend webgpu needs Dawn for Node, the optional package "webgpu" (npm install webgpu): ${(err as Error).message}`,
    );
  }
  // The Vulkan loader complains on stderr when this is unset (headless servers, containers).
  process.env.XDG_RUNTIME_DIR ??= tmpdir();
  Object.assign(globalThis, dawn.globals);
  const gpu = dawn.create([]);
  const nav = (globalThis as { navigator?: object }).navigator;
  if (nav) Object.defineProperty(nav, 'gpu', { value: gpu, configurable: true });
  else
    Object.defineProperty(globalThis, 'navigator', {
      value: { gpu, userAgent: `node ${process.version}` },
      configurable: true,
    });
  const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  if (!adapter) {
    const loader = missingLoaderAdvice();
    if (loader) throw new CliError(`--backend webgpu: Dawn found no GPU adapter: ${loader}`);
    throw new CliError(
      '--backend webgpu: Dawn found no GPU adapter. Check the GPU driver (nvidia-smi, vulkaninfo); on a machine ' +
        "without one, point VK_ICD_FILENAMES at a software Vulkan driver such as Chromium's " +
        '/usr/lib/chromium/vk_swiftshader_icd.json (slow, for tests only).',
    );
  }
  return adapter;
}

function describeAdapter(adapter: GPUAdapter): { info: AdapterInfo; text: string; software: boolean } {
  const i = adapter.info;
  const info: AdapterInfo = {};
  for (const key of ['vendor', 'architecture', 'device', 'description'] as const)
    if (i[key]) info[key] = i[key].slice(0, 200);
  const text = Object.values(info).join(' · ') || 'unknown adapter';
  const software =
    /swiftshader|llvmpipe|lavapipe|software/i.test(text) ||
    (adapter as { isFallbackAdapter?: boolean }).isFallbackAdapter === true;
  return { info, text, software };
}

let current: NodeBackendInfo | null = null;

/** What initNodeBackend started (for the run record's env): backend, adapter, software or not. */
export function nodeBackendInfo(): NodeBackendInfo | null {
  return current;
}

/** Starts tfjs on `prefer`; wasm falls back to cpu, webgpu never falls back (it throws). */
export async function initNodeBackend(prefer: NodeBackend = 'wasm'): Promise<NodeBackend> {
  current = await start(prefer);
  // One fit per process: the deep trainer may keep a step's activations up to this budget rather
  // than recompute them (the same weights, less time; activationBudget.ts). On WebGPU they live
  // in GPU memory, outside the 4 GiB wasm heap.
  setActivationBudget(
    current.backend === 'webgpu' ? 4 * NODE_ACTIVATION_BUDGET_BYTES : NODE_ACTIVATION_BUDGET_BYTES,
  );
  return current.backend;
}

async function start(prefer: NodeBackend): Promise<NodeBackendInfo> {
  if (prefer === 'webgpu') {
    // A GPU run must never change backend behind the user's back (PROTOCOL §10 records it): fail instead.
    const adapter = await installDawn();
    await import('@tensorflow/tfjs-backend-webgpu');
    if (!(await tf.setBackend('webgpu')))
      throw new CliError('--backend webgpu: tfjs could not start its WebGPU backend.');
    await tf.ready();
    const { info, text, software } = describeAdapter(adapter);
    return { backend: 'webgpu', adapter: info, adapterText: text, software };
  }
  if (prefer === 'wasm') {
    try {
      if (await tf.setBackend('wasm')) {
        await tf.ready();
        return { backend: 'wasm', adapter: null, adapterText: null, software: false };
      }
    } catch {
      // fall through to cpu
    }
  }
  await tf.setBackend('cpu');
  await tf.ready();
  return { backend: 'cpu', adapter: null, adapterText: null, software: false };
}

export function parseNodeBackend(text: string | undefined): NodeBackend {
  const b = text ?? 'wasm';
  if (!(NODE_BACKENDS as readonly string[]).includes(b)) {
    throw new CliError(`--backend must be one of ${NODE_BACKENDS.join(', ')}; got "${b}".`);
  }
  return b as NodeBackend;
}

export const TFJS_VERSION: string = tf.version.tfjs;

/** Live tensors of the engine (runCell fails a cell whose fit leaks). */
export const liveTensors = (): number => tf.memory().numTensors;
