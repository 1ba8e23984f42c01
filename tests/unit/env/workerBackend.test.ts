/**
 * Issue 21, item 9: the reason a worker gives for its backend is the real one. In Auto mode the
 * pool's further workers of a deep plan were started with the preference 'wasm', so every deep
 * fit on them said "Why WASM: You chose WASM." although nobody chose anything.
 */
import { describe, expect, it } from 'vitest';
import {
  chooseWorkerBackend,
  workerRequest,
  type AdapterFacts,
  type BackendName,
} from '../../../src/lib/env/device.ts';
import { laneRequest, replacementRequest } from '../../../workers/pool.ts';

const SWIFTSHADER: AdapterFacts = {
  vendor: 'google',
  architecture: 'swiftshader',
  device: '',
  description: '',
  isFallbackAdapter: true,
};
const NVIDIA: AdapterFacts = {
  vendor: 'nvidia',
  architecture: 'ampere',
  device: '',
  description: '',
  isFallbackAdapter: false,
};
const ALL: BackendName[] = ['webgpu', 'webgl', 'wasm', 'cpu'];

describe('the reason of each worker of a pool', () => {
  it('in Auto mode no worker of a deep plan says the user chose its backend', () => {
    for (const adapter of [SWIFTSHADER, null, NVIDIA]) {
      for (const index of [0, 1, 2, 3]) {
        const choice = chooseWorkerBackend(adapter, laneRequest(index, 'auto', true), ALL);
        expect(choice.reason).not.toMatch(/You chose/);
      }
    }
  });

  it('a further worker on a machine without a usable GPU gives the machine’s reason, as worker 1 does', () => {
    for (const adapter of [SWIFTSHADER, null]) {
      const first = chooseWorkerBackend(adapter, laneRequest(0, 'auto', true), ALL);
      const second = chooseWorkerBackend(adapter, laneRequest(1, 'auto', true), ALL);
      expect(second).toEqual(first);
      expect(second.backend).toBe('wasm');
    }
    expect(chooseWorkerBackend(SWIFTSHADER, laneRequest(1, 'auto', true), ALL).reason).toMatch(
      /software fallback \(SwiftShader\)/,
    );
    expect(chooseWorkerBackend(null, laneRequest(1, 'auto', true), ALL).reason).toMatch(
      /No WebGPU adapter was found/,
    );
  });

  it('beside a GPU worker, a further worker runs on WASM and says so', () => {
    const gpu = chooseWorkerBackend(NVIDIA, laneRequest(0, 'auto', true), ALL);
    expect(gpu.backend).toBe('webgpu');
    const beside = chooseWorkerBackend(NVIDIA, laneRequest(1, 'auto', true), ALL);
    expect(beside.backend).toBe('wasm');
    expect(beside.reason).toBe(
      'Worker 1 runs the deep fits on WebGPU; this worker runs the statistical fits beside it on WASM, so the two do not share the GPU.',
    );
    // Forcing WebGPU on a software adapter: worker 1 honours it, the others still run beside it.
    expect(chooseWorkerBackend(SWIFTSHADER, laneRequest(0, 'webgpu', true), ALL)).toEqual({
      backend: 'webgpu',
      reason: 'You chose WebGPU.',
    });
    expect(chooseWorkerBackend(SWIFTSHADER, laneRequest(1, 'webgpu', true), ALL).reason).toMatch(
      /^Worker 1 runs the deep fits on WebGPU/,
    );
  });

  it('without deep work every worker takes the preference as it stands', () => {
    expect(laneRequest(3, 'wasm', false)).toEqual({ pref: 'wasm', role: { kind: 'main' } });
    expect(chooseWorkerBackend(null, laneRequest(3, 'wasm', false), ALL).reason).toBe('You chose WASM.');
    expect(workerRequest('auto')).toEqual({ pref: 'auto', role: { kind: 'main' } });
  });

  it('a worker that replaces one that crashed on the GPU says so; one on the same backend keeps its reason', () => {
    const first = laneRequest(0, 'auto', true);
    const moved = replacementRequest(first, 'auto', 'wasm', 'webgpu');
    const choice = chooseWorkerBackend(NVIDIA, moved, ALL);
    expect(choice).toEqual({
      backend: 'wasm',
      reason: 'A worker on WebGPU crashed, so the worker that replaced it runs on WASM.',
    });
    expect(replacementRequest(first, 'auto', 'webgpu', 'webgpu')).toBe(first);
    expect(replacementRequest(first, 'auto', null, 'wasm')).toBe(first);
    // Asked for what the preference gives anyway: the preference's own reason.
    expect(
      chooseWorkerBackend(null, replacementRequest(first, 'auto', 'wasm', 'webgpu'), ALL).reason,
    ).toMatch(/No WebGPU adapter was found/);
  });
});
