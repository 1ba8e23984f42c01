/**
 * The finetune trainer path on the CLI's WebGPU backend (Dawn for Node; on this CPU-only machine
 * Chromium's SwiftShader Vulkan driver stands in for a GPU server's adapter): two steps of FixMatch
 * (one joint forward, BatchNorm over 3B rows) and MeanTeacher (separate forwards, the teacher's
 * statistics deferred) on the reduced ResNet with fresh CIFAR views agree with wasm to 1e-4 in the
 * weights, the EMA shadow and every BatchNorm running statistic, and leave no tensor behind.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { probePath, runProbe, SWIFTSHADER_ICD, swiftShaderEnv } from '../../helpers/probe.ts';

const probe = probePath('tests/unit/models/deep/finetuneWebgpuProbe.ts');

type Out = Record<'fixmatch' | 'meanteacher', { params: number[]; shadow: number[]; buffers: number[] }> & {
  backend: string;
  leaked: number;
};

/** max |a − b| / max |b|. */
function rel(a: number[], b: number[]): number {
  let num = 0,
    den = 1e-12;
  for (let i = 0; i < b.length; i++) {
    num = Math.max(num, Math.abs(a[i] - b[i]));
    den = Math.max(den, Math.abs(b[i]));
  }
  return num / den;
}

describe('finetune on the WebGPU backend under Node', () => {
  it('agrees with wasm in weights, shadow and BatchNorm statistics after two FixMatch and MeanTeacher steps', async () => {
    expect(existsSync(SWIFTSHADER_ICD), `${SWIFTSHADER_ICD}: Debian's chromium package`).toBe(true);
    const [gpu, wasm] = await Promise.all([
      runProbe(probe, 'webgpu', swiftShaderEnv(), 600_000),
      runProbe(probe, 'wasm', {}, 600_000),
    ]);
    expect(gpu.code, gpu.err).toBe(0);
    expect(wasm.code, wasm.err).toBe(0);
    const g = JSON.parse(gpu.out) as Out;
    const w = JSON.parse(wasm.out) as Out;
    expect([g.backend, w.backend]).toEqual(['webgpu', 'wasm']);
    for (const id of ['fixmatch', 'meanteacher'] as const)
      for (const part of ['params', 'shadow', 'buffers'] as const) {
        expect(g[id][part].length).toBe(w[id][part].length);
        expect(rel(g[id][part], w[id][part]), `${id} ${part}`).toBeLessThan(1e-4);
      }
    expect([g.leaked, w.leaked]).toEqual([0, 0]);
  }, 660_000);
});
