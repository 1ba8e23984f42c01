/**
 * Label Propagation and Label Spreading on WebGPU (Dawn under Node, SwiftShader's Vulkan driver as
 * the stand-in GPU, as in webgpuNode.test.ts): their float32 graph path — affinity blocks, graph
 * products, the convergence reduction and the prediction kernel, all tfjs ops — runs on the
 * webgpu backend and predicts exactly what the wasm backend predicts, with the same n_iter.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { probePath, runProbe, SWIFTSHADER_ICD, swiftShaderEnv } from '../helpers/probe.ts';

const probe = probePath('tests/unit/cli/webgpuGraphProbe.ts');

interface Row {
  cell: string;
  model: string;
  precision: string;
  nIter: number;
  pred: number[];
  proba: number[];
  leaked: number;
}

const run = (backend: string, env: Record<string, string> = {}) => runProbe(probe, backend, env, 280_000);

describe('LP and LS float32 graph path on --backend webgpu (Dawn)', () => {
  it('predicts what wasm predicts on iris and wine cells, same n_iter, no leaked tensors', async () => {
    expect(existsSync(SWIFTSHADER_ICD), `${SWIFTSHADER_ICD} is needed as the stand-in GPU`).toBe(true);
    const [gpu, wasm] = await Promise.all([run('webgpu', swiftShaderEnv()), run('wasm')]);
    expect(gpu.code, gpu.err).toBe(0);
    expect(wasm.code, wasm.err).toBe(0);
    const g = JSON.parse(gpu.out) as { tfBackend: string; out: Row[] };
    const w = JSON.parse(wasm.out) as { tfBackend: string; out: Row[] };
    expect(g.tfBackend).toBe('webgpu');
    expect(w.tfBackend).toBe('wasm');
    expect(g.out.map((r) => `${r.cell} ${r.model}`)).toEqual(w.out.map((r) => `${r.cell} ${r.model}`));
    expect(g.out).toHaveLength(4);
    for (let i = 0; i < g.out.length; i++) {
      const [a, b] = [g.out[i], w.out[i]];
      expect(a.precision).toBe('float32');
      expect(a.leaked, `${a.cell} ${a.model}`).toBe(0);
      expect(a.nIter, `${a.cell} ${a.model}`).toBe(b.nIter);
      expect(a.pred, `${a.cell} ${a.model}`).toEqual(b.pred);
      let worst = 0;
      for (let j = 0; j < a.proba.length; j++) worst = Math.max(worst, Math.abs(a.proba[j] - b.proba[j]));
      expect(worst, `${a.cell} ${a.model}`).toBeLessThan(1e-4);
    }
  }, 300_000);
});
