/**
 * The image backbones on tfjs's WebGPU backend under Node (Dawn for Node on SwiftShader's Vulkan
 * driver, the stand-in GPU of webgpuNode.test.ts), against the same PyTorch fixtures and with the
 * same checks as resnet.test.ts and mobilenetv3.test.ts on cpu and wasm (backboneParity.ts), within
 * 1e-4 relative: the reduced ResNet's frozen eval features and eval logits, one training-mode forward
 * (logits, every BN running statistic), the gradient of CE wrt every parameter through WebGPU's own
 * conv backprop kernels, 3 SGD steps (parameters, their update θ3 − θ0, running statistics, eval
 * logits after); the reduced MobileNetV3-small's eval pre-logits features; no tensor left behind.
 * Each check runs in a child process (webgpuBackboneProbe.ts): the test process cannot switch to Dawn.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runSwiftShaderProbe } from '../../helpers/probe.ts';
import { worst, type ResNetMeta } from './backboneParity.ts';

const TOL = 1e-4;
const meta = JSON.parse(
  readFileSync(new URL('../../../fixtures/backbone/backbone.json', import.meta.url), 'utf8'),
) as { resnet: ResNetMeta };

describe('image backbones on webgpu (Dawn, SwiftShader)', () => {
  it('match PyTorch: ResNet eval, training forward, BN statistics, gradients, 3 SGD steps; MobileNetV3 eval', async () => {
    // Seconds on an idle machine, a minute under heavy load: room for a slow CI runner.
    const out = await runSwiftShaderProbe<{
      tfBackend: string;
      resnet: Record<string, number>;
      mnv3: Record<string, number>;
      leaked: number;
    }>('tests/unit/models/backbone/webgpuBackboneProbe.ts', 300_000);
    expect(out.tfBackend).toBe('webgpu');
    const bad = Object.entries(out.resnet).filter(([, e]) => !(e <= TOL));
    expect(bad, `worst: ${worst(out.resnet)}`).toEqual([]);
    // features, 3 logits, per buffer 2, per parameter grad + value + update.
    expect(Object.keys(out.resnet).length).toBe(
      4 + 2 * meta.resnet.buffers.length + 3 * meta.resnet.params.length,
    );
    expect(out.mnv3['eval.features']).toBeLessThanOrEqual(TOL);
    expect(out.leaked).toBe(0);
  }, 310_000);
});
