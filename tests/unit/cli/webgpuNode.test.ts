/**
 * The CLI's WebGPU backend under Node (Dawn for Node, the optional `webgpu` package). This machine
 * has no GPU: Chromium's SwiftShader Vulkan driver (Debian's chromium package, which the browser
 * tests need anyway) stands in, so the real WebGPU kernels of tfjs run and are checked against the
 * wasm backend. On a GPU server the same path picks the real adapter.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { probePath, runProbe, SWIFTSHADER_ICD, swiftShaderEnv } from '../helpers/probe.ts';

const probe = probePath('tests/unit/cli/webgpuNodeProbe.ts');

interface Probe {
  backend: string;
  tfBackend: string;
  info: {
    backend: string;
    adapter: Record<string, string> | null;
    adapterText: string | null;
    software: boolean;
  } | null;
  loss: number;
  grad: number[];
  probs: number[];
  rowSums: number[];
}

const run = (backend: string, env: Record<string, string> = {}) => runProbe(probe, backend, env, 170_000);

function maxRelative(a: number[], b: number[]): number {
  let worst = 0;
  for (let i = 0; i < a.length; i++)
    worst = Math.max(worst, Math.abs(a[i] - b[i]) / Math.max(1e-3, Math.abs(b[i])));
  return worst;
}

describe('rac-bench --backend webgpu under Node (Dawn)', () => {
  it('runs the tfjs WebGPU kernels on a Vulkan adapter and agrees with wasm to 1e-4', async () => {
    expect(
      existsSync(SWIFTSHADER_ICD),
      `${SWIFTSHADER_ICD} (Debian's chromium package) is needed as the stand-in GPU`,
    ).toBe(true);
    const [gpu, wasm] = await Promise.all([run('webgpu', swiftShaderEnv()), run('wasm')]);
    expect(gpu.code, gpu.err).toBe(0);
    expect(wasm.code, wasm.err).toBe(0);
    const g = JSON.parse(gpu.out) as Probe;
    const w = JSON.parse(wasm.out) as Probe;
    expect(g.tfBackend).toBe('webgpu');
    expect(g.info).toMatchObject({ backend: 'webgpu', software: true });
    expect(g.info!.adapterText).toMatch(/swiftshader/i);
    expect(g.info!.adapter).toMatchObject({ vendor: expect.any(String) });
    expect(w.tfBackend).toBe('wasm');
    expect(Math.abs(g.loss - w.loss) / w.loss).toBeLessThan(1e-4);
    expect(maxRelative(g.grad, w.grad)).toBeLessThan(1e-4);
    expect(maxRelative(g.probs, w.probs)).toBeLessThan(1e-4);
    for (const s of g.rowSums) expect(s).toBeCloseTo(1, 5);
  }, 180_000);

  it('fails with a clear message, never silently on another backend, when there is no adapter', async () => {
    // An ICD file that does not exist leaves the Vulkan loader with no driver at all.
    const r = await run('webgpu', { VK_ICD_FILENAMES: '/nonexistent/icd.json' });
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/Dawn found no GPU adapter/);
  }, 180_000);
});
