/**
 * The text encoders on tfjs's WebGPU backend under Node (Dawn for Node on SwiftShader's Vulkan
 * driver, the stand-in GPU of webgpuNode.test.ts), against the same PyTorch fixtures and with the
 * same checks as roberta.test.ts and minilm.test.ts on cpu and wasm (encoderParity.ts), within 1e-4
 * relative:
 * - RoBERTa eval: position ids (exact), last hidden state of a padded batch with literal `<pad>`
 *   words, the `<s>` feature padded and cut to the longest row, the classification logits;
 * - RoBERTa training through the DeepTrainer: CE gradients of every parameter (no gradient on the
 *   embeddings' padding rows), 3 SGD steps: losses, parameters and their update θ3 − θ0;
 * - RoBERTa's dropout-on forward equals the cpu backend's (the masks are the same counter hash);
 * - MiniLM eval: last hidden state and the masked mean pooled feature, padded and cut;
 * and no tensor left behind. The checks run in a child process (webgpuEncoderProbe.ts): the test
 * process cannot switch to Dawn.
 */
import { describe, expect, it } from 'vitest';
import { runSwiftShaderProbe } from '../../helpers/probe.ts';
import type { CheckResult } from './encoderParity.ts';
import { ROBERTA_EVAL, ROBERTA_TRAIN, MINILM_EVAL, expectParity } from './expectParity.ts';
import { TOL } from './fixture.ts';

describe('text encoders on webgpu (Dawn, SwiftShader)', () => {
  it('match PyTorch: RoBERTa eval, gradients and 3 SGD steps, MiniLM eval; dropout as on cpu', async () => {
    // Seconds on an idle machine, a minute under heavy load: room for a slow CI runner.
    const out = await runSwiftShaderProbe<{
      tfBackend: string;
      robertaEval: CheckResult;
      robertaTrain: CheckResult;
      minilmEval: CheckResult;
      dropoutVsCpu: number;
      leaked: number;
    }>('tests/unit/models/encoders/webgpuEncoderProbe.ts', 300_000);
    expect(out.tfBackend).toBe('webgpu');
    expectParity('roberta eval webgpu', out.robertaEval, ...ROBERTA_EVAL);
    expectParity('roberta train webgpu', out.robertaTrain, ...ROBERTA_TRAIN);
    expectParity('minilm eval webgpu', out.minilmEval, ...MINILM_EVAL);
    expect(out.dropoutVsCpu).toBeLessThanOrEqual(TOL);
    expect(out.leaked).toBe(0);
  }, 310_000);
});
