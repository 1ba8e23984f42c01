/**
 * The analytic FLOP count behind the device kit's TFLOP/s (scripts/device/stepFlops.ts), against
 * PyTorch's profiler on the parity oracle's forward and against the PyTorch bench's own count
 * (tests/fixtures/device/flops.json, made by make_flops_fixture.py in that folder).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  forwardMacsPerRow,
  parseSize,
  stepFlops,
  stepPasses,
  tflops,
  type StepShape,
} from '../../../scripts/device/stepFlops.ts';
import { FT_SIZES } from '../../../src/lib/models/deep/sizes.ts';
import { DEEP_METHOD_IDS } from '../../../src/lib/models/deep/methods/index.ts';

const golden = JSON.parse(
  readFileSync(new URL('../../fixtures/device/flops.json', import.meta.url), 'utf8'),
) as {
  profiler: { shape: StepShape; rows: number; forwardFlops: number }[];
  steps: Record<'rsb' | 'tiny', Record<string, number>>;
};

describe('stepFlops', () => {
  it("counts a forward's matrix-product FLOPs exactly as PyTorch's profiler does", () => {
    expect(golden.profiler.length).toBeGreaterThanOrEqual(3);
    for (const g of golden.profiler) expect(2 * g.rows * forwardMacsPerRow(g.shape)).toBe(g.forwardFlops);
  });

  it('agrees with deep_step.py --flops-only for every method at both sizes', () => {
    for (const size of ['rsb', 'tiny'] as const) {
      const shape = { ...FT_SIZES[size], features: 16, classes: 26 };
      for (const m of DEEP_METHOD_IDS)
        expect(stepFlops(m, shape), `${size}/${m}`).toBe(golden.steps[size][`letter/${m}`]);
    }
  });

  it('charges three forwards for a pass with a gradient and one for a teacher pass', () => {
    const s = { ...FT_SIZES.rsb, features: 16, classes: 26 };
    const row = 2 * forwardMacsPerRow(s);
    expect(stepFlops('ftt', s)).toBe(64 * row * 3);
    // FixMatch: labeled 64 (grad), weak 448 (teacher, no tape), strong 448 (grad).
    expect(stepFlops('fixmatch', s)).toBe(64 * row * 3 + 448 * row + 448 * row * 3);
    expect(stepPasses('meanteacher').every((p, i) => p.grad === (i === 0))).toBe(true);
  });

  it('names an unknown method', () => {
    expect(() => stepPasses('mixmatch')).toThrow(/unknown deep method 'mixmatch'/);
  });

  it('turns FLOPs and milliseconds into TFLOP/s', () => {
    expect(tflops(2e12, 1000)).toBeCloseTo(2, 12);
    expect(tflops(14_686_175_232, 1)).toBeCloseTo(14.686, 3);
  });

  it('reads a size by name (kept by name for its defaults) or as blocks:dToken:heads:ffnHidden', () => {
    expect(parseSize('rsb')).toEqual({ name: 'rsb', shape: FT_SIZES.rsb, option: 'rsb' });
    const custom = { blocks: 1, dToken: 8, heads: 2, ffnHidden: 8 };
    expect(parseSize('1:8:2:8')).toEqual({ name: '1:8:2:8', shape: custom, option: custom });
    expect(() => parseSize('1:8:3:8')).toThrow(/dToken a multiple of heads; got "1:8:3:8"/);
    expect(() => parseSize('huge')).toThrow(/--size must be rsb, tiny or blocks/);
  });
});
