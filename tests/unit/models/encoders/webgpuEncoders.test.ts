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
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { probePath, runProbe, SWIFTSHADER_ICD, swiftShaderEnv } from '../../helpers/probe.ts';
import type { CheckResult } from './encoderParity.ts';
import { loadGoldens, TOL, worst } from './fixture.ts';

const T = loadGoldens().roberta.train!;

function expectWithin(name: string, r: CheckResult, count: number): void {
  const [tensor, e] = worst(r.errors);
  expect(e, `${name}: worst ${tensor}`).toBeLessThanOrEqual(TOL);
  expect(Object.keys(r.errors).length, name).toBe(count);
  for (const [fact, holds] of Object.entries(r.facts)) expect(holds, `${name}: ${fact}`).toBe(true);
}

describe('text encoders on webgpu (Dawn, SwiftShader)', () => {
  it('match PyTorch: RoBERTa eval, gradients and 3 SGD steps, MiniLM eval; dropout as on cpu', async () => {
    expect(existsSync(SWIFTSHADER_ICD), `${SWIFTSHADER_ICD} (Debian's chromium package) is needed`).toBe(
      true,
    );
    const r = await runProbe(
      probePath('tests/unit/models/encoders/webgpuEncoderProbe.ts'),
      'webgpu',
      swiftShaderEnv(),
      // Seconds on an idle machine, a minute under heavy load: room for a slow CI runner.
      300_000,
    );
    expect(r.code, r.err).toBe(0);
    const out = JSON.parse(r.out) as {
      tfBackend: string;
      robertaEval: CheckResult;
      robertaTrain: CheckResult;
      minilmEval: CheckResult;
      dropoutVsCpu: number;
      leaked: number;
    };
    expect(out.tfBackend).toBe('webgpu');
    expectWithin('roberta eval', out.robertaEval, 4);
    expect(Object.keys(out.robertaEval.facts)).toEqual(['positionIds']);
    // loss, losses, every gradient, every parameter and its update.
    expectWithin(
      'roberta train',
      out.robertaTrain,
      2 + Object.keys(T.grads).length + 2 * Object.keys(T.params).length,
    );
    expect(Object.keys(out.robertaTrain.facts).sort()).toEqual([
      'gradNames',
      'paddingRowsNoGrad',
      'positionRowsUsed',
    ]);
    expectWithin('minilm eval', out.minilmEval, 3);
    expect(out.dropoutVsCpu).toBeLessThanOrEqual(TOL);
    expect(out.leaked).toBe(0);
  }, 310_000);
});
