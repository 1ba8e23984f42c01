import { describe, expect, it } from 'vitest';
import {
  declaredDeviceMemoryGiB,
  adapterFactsOf,
  badgeText,
  chooseBackend,
  describeAdapter,
  fallbackReason,
  initOrder,
  parseBackendPref,
  softwareAdapterName,
  type AdapterFacts,
  type BackendName,
} from '../../../src/lib/env/device.ts';

// Exactly what headless Chromium 156 reports for SwiftShader (PLATFORM-NOTES.md).
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
const LLVMPIPE_UNFLAGGED: AdapterFacts = {
  vendor: 'mesa',
  architecture: '',
  device: '',
  description: 'llvmpipe (LLVM 15.0.6, 256 bits)',
  isFallbackAdapter: false,
};
const ALL: BackendName[] = ['webgpu', 'webgl', 'wasm', 'cpu'];

describe('softwareAdapterName', () => {
  it('names SwiftShader from the architecture string', () => {
    expect(softwareAdapterName(SWIFTSHADER)).toBe('SwiftShader');
  });
  it('catches llvmpipe even when the fallback flag is not set', () => {
    expect(softwareAdapterName(LLVMPIPE_UNFLAGGED)).toBe('llvmpipe');
  });
  it('trusts the flag when the strings say nothing', () => {
    expect(softwareAdapterName({ ...NVIDIA, vendor: '', architecture: '', isFallbackAdapter: true })).toBe(
      'software',
    );
  });
  it('returns null for a hardware adapter', () => {
    expect(softwareAdapterName(NVIDIA)).toBeNull();
    expect(
      softwareAdapterName({
        vendor: 'apple',
        architecture: 'metal-3',
        device: '',
        description: 'Apple M2',
        isFallbackAdapter: false,
      }),
    ).toBeNull();
  });
});

describe('chooseBackend (auto)', () => {
  it('picks WASM on a SwiftShader fallback adapter and says why', () => {
    expect(chooseBackend(SWIFTSHADER, 'auto', ALL)).toEqual({
      backend: 'wasm',
      reason: 'WebGPU adapter is a software fallback (SwiftShader), so WASM is faster here.',
    });
  });
  it('picks WebGPU on a hardware adapter', () => {
    const c = chooseBackend(NVIDIA, 'auto', ALL);
    expect(c.backend).toBe('webgpu');
    expect(c.reason).toBe('A hardware WebGPU adapter (nvidia ampere) is available, so WebGPU is used.');
  });
  it('picks WASM when there is no adapter', () => {
    expect(chooseBackend(null, 'auto', ['webgl', 'wasm', 'cpu'])).toEqual({
      backend: 'wasm',
      reason: 'No WebGPU adapter was found, so WASM (SIMD, single thread) is used.',
    });
  });
  it('falls to WebGL, then CPU, when WASM is missing', () => {
    expect(chooseBackend(null, 'auto', ['webgl', 'cpu']).backend).toBe('webgl');
    expect(chooseBackend(null, 'auto', ['cpu']).backend).toBe('cpu');
    expect(chooseBackend(SWIFTSHADER, 'auto', ['webgpu', 'webgl', 'cpu']).backend).toBe('webgl');
  });
  it('does not pick WebGPU when its backend is not registered, even with a hardware adapter', () => {
    expect(chooseBackend(NVIDIA, 'auto', ['wasm', 'cpu']).backend).toBe('wasm');
  });
});

describe('chooseBackend (override)', () => {
  it('honours an available override, even a slow one', () => {
    expect(chooseBackend(SWIFTSHADER, 'webgpu', ALL)).toEqual({
      backend: 'webgpu',
      reason: 'You chose WebGPU.',
    });
    expect(chooseBackend(NVIDIA, 'cpu', ALL)).toEqual({ backend: 'cpu', reason: 'You chose CPU.' });
  });
  it('falls back with a reason when WebGPU is asked for but there is no adapter', () => {
    expect(chooseBackend(null, 'webgpu', ALL)).toEqual({
      backend: 'wasm',
      reason: 'You chose WebGPU, but no WebGPU adapter was found, so WASM is used.',
    });
  });
  it('falls back when the override is not registered', () => {
    expect(chooseBackend(SWIFTSHADER, 'webgl', ['webgpu', 'wasm', 'cpu'])).toEqual({
      backend: 'wasm',
      reason: 'You chose WebGL, but it is not available here, so WASM is used.',
    });
  });
});

describe('initOrder and fallbackReason', () => {
  it('tries the choice, then wasm, webgl, cpu', () => {
    expect(initOrder('webgpu', ALL)).toEqual(['webgpu', 'wasm', 'webgl', 'cpu']);
    expect(initOrder('wasm', ALL)).toEqual(['wasm', 'webgl', 'cpu']);
    expect(initOrder('cpu', ALL)).toEqual(['cpu', 'wasm', 'webgl']);
    expect(initOrder('webgpu', ['webgpu', 'cpu'])).toEqual(['webgpu', 'cpu']);
  });
  it('keeps the choice reason when the first backend works, else names the failure', () => {
    const choice = { backend: 'webgpu' as const, reason: 'You chose WebGPU.' };
    expect(fallbackReason(choice, 'webgpu', [])).toBe('You chose WebGPU.');
    expect(fallbackReason(choice, 'wasm', ['device request failed'])).toBe(
      'WebGPU failed to start (device request failed), so WASM is used instead.',
    );
  });
});

describe('labels and parsing', () => {
  it('describes adapters and builds the badge text', () => {
    expect(describeAdapter(SWIFTSHADER)).toBe('SwiftShader fallback adapter');
    expect(describeAdapter(null)).toBe('no WebGPU adapter');
    expect(describeAdapter(NVIDIA)).toBe('nvidia ampere');
    expect(badgeText({ backend: 'wasm', adapter: SWIFTSHADER })).toBe('WASM · SwiftShader fallback adapter');
  });
  it('parses preferences, defaulting unknown values to auto', () => {
    expect(parseBackendPref('webgl')).toBe('webgl');
    expect(parseBackendPref('WEBGL')).toBe('auto');
    expect(parseBackendPref('tpu')).toBe('auto');
    expect(parseBackendPref(null)).toBe('auto');
  });
  it('reads adapter facts from new (info.isFallbackAdapter) and old (adapter.isFallbackAdapter) Chromium', () => {
    expect(
      adapterFactsOf({ info: { vendor: 'google', architecture: 'swiftshader', isFallbackAdapter: true } }),
    ).toEqual(SWIFTSHADER);
    expect(
      adapterFactsOf({ info: { vendor: 'google', architecture: 'swiftshader' }, isFallbackAdapter: true })
        .isFallbackAdapter,
    ).toBe(true);
    expect(adapterFactsOf({}).isFallbackAdapter).toBe(false);
  });
});

describe('declaredDeviceMemoryGiB', () => {
  it('reads navigator.deviceMemory where it is a positive number, else null', () => {
    expect(declaredDeviceMemoryGiB({ deviceMemory: 8 })).toBe(8);
    expect(declaredDeviceMemoryGiB({ deviceMemory: 0.5 })).toBe(0.5);
    expect(declaredDeviceMemoryGiB({})).toBeNull(); // Firefox, Safari
    expect(declaredDeviceMemoryGiB(undefined)).toBeNull(); // no navigator
    expect(declaredDeviceMemoryGiB({ deviceMemory: '8' })).toBeNull();
    expect(declaredDeviceMemoryGiB({ deviceMemory: Number.NaN })).toBeNull();
    expect(declaredDeviceMemoryGiB({ deviceMemory: 0 })).toBeNull();
  });
});
