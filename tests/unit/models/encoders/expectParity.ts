/**
 * The assertions on an encoderParity.ts check, shared by the cpu/wasm tests (roberta.test.ts,
 * minilm.test.ts) and the webgpu one (webgpuEncoders.test.ts): every measured tensor within TOL,
 * exactly the expected number of them (none silently skipped), and the named facts, all holding.
 */
import { expect } from 'vitest';
import type { CheckResult } from './encoderParity.ts';
import { loadGoldens, report, TOL, worst } from './fixture.ts';

export function expectParity(name: string, r: CheckResult, count: number, facts: readonly string[]): void {
  report(name, r.errors);
  const [tensor, e] = worst(r.errors);
  expect(e, `${name}: worst ${tensor}: ${JSON.stringify(r.errors)}`).toBeLessThanOrEqual(TOL);
  expect(Object.keys(r.errors).length, name).toBe(count);
  expect(Object.keys(r.facts).sort(), name).toEqual([...facts].sort());
  for (const [fact, holds] of Object.entries(r.facts)) expect(holds, `${name}: ${fact}`).toBe(true);
}

const T = loadGoldens().roberta.train!;

/** What robertaEvalParity measures: last hidden state, `<s>` feature padded and cut, logits. */
export const ROBERTA_EVAL = [4, ['positionIds', 'sFeatureShape']] as const;
/** What robertaTrainParity measures: loss, losses, every gradient, every parameter and its update. */
export const ROBERTA_TRAIN = [
  2 + Object.keys(T.grads).length + 2 * Object.keys(T.params).length,
  ['gradNames', 'paddingRowsNoGrad', 'positionRowsUsed'],
] as const;
/** What minilmEvalParity measures: last hidden state, pooled feature padded and cut. */
export const MINILM_EVAL = [3, ['pooledShape']] as const;
