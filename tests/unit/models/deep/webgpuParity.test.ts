/**
 * The deep family on tfjs's WebGPU backend under Node (Dawn for Node on SwiftShader's Vulkan
 * driver, the stand-in GPU of webgpuNode.test.ts):
 * 1. every WGSL program of webgpuKernels.ts against the cpu backend's kernels, dropout masks
 *    included (the same hash on every backend), and the optimiser steps bit for bit;
 * 2. the PyTorch parity fixture through the trainer, for two runs that keep it short on a
 *    software GPU: FixMatch (Adam, quirks rsb) and ICT (SGD + cosine, quirks fixed, soft targets),
 *    within 1e-4 as on cpu and wasm, with no leaked tensors; one FixMatch step stays finite.
 */
import { describe, expect, it } from 'vitest';
import { runSwiftShaderProbe } from '../../helpers/probe.ts';

const TOL = 1e-4;

describe('deep trainer on webgpu (Dawn, SwiftShader)', () => {
  it('runs the fused ops as WGSL programs that agree with the cpu kernels', async () => {
    const { result } = await runSwiftShaderProbe<{ result: Record<string, [number, boolean]> }>(
      'tests/unit/models/deep/webgpuKernelsProbe.ts',
      170_000,
    );
    expect(Object.keys(result).length).toBeGreaterThanOrEqual(15);
    for (const [op, [err, zeros]] of Object.entries(result)) {
      expect(err, op).toBeLessThan(2e-6);
      expect(zeros, `${op}: dropped entries`).toBe(true);
    }
    expect(result.adam[0]).toBe(0);
    expect(result.sgd[0]).toBe(0);
  }, 180_000);

  it('matches PyTorch: forwards, losses, masks, gradients and 3-step weights', async () => {
    const out = await runSwiftShaderProbe<{
      tfBackend: string;
      errors: Record<string, number>;
      mismatches: string[];
      leaked: number;
      finite: boolean;
    }>('tests/unit/models/deep/webgpuParityProbe.ts', 580_000);
    expect(out.tfBackend).toBe('webgpu');
    expect(out.mismatches).toEqual([]);
    const bad = Object.entries(out.errors).filter(([, e]) => !(e <= TOL));
    expect(bad).toEqual([]);
    expect(Object.keys(out.errors).length).toBeGreaterThan(20);
    expect(out.leaked).toBe(0);
    expect(out.finite).toBe(true);
  }, 600_000);
});
