/**
 * The floating-point work of one deep training step, counted analytically, so that a measured
 * step time becomes an achieved TFLOP/s that can be set beside the GPU's peak (and beside PyTorch's
 * on the same GPU). What is counted: the matrix products of the FT-Transformer (PROTOCOL.md §7.3:
 * Q/K/V/output projections, the Ek/Ev token mixing, attention scores and weighted values, both FFN
 * linears, the head), 2·m·n·k FLOPs each; a pass that carries a gradient costs three forwards
 * (the backward computes the input and the weight gradient, each a product of the forward's
 * size). Not counted: element-wise work, softmax, LayerNorm, the tokenizer's broadcast, the
 * optimiser and the EMA update (all memory-bound), and any forward recomputed for gradient
 * checkpointing — the count is the algorithm's, not what a given implementation executes.
 * scripts/bench/deep_step.py carries the same count (`--flops-only` prints it; a test compares).
 */
import { FT_SIZES, type FTSize, type FTSizeName } from '../../src/lib/models/deep/sizes.ts';

export interface StepShape extends FTSize {
  features: number;
  classes: number;
}

/** One forward pass of `rows` rows in a step; `grad`: the loss is differentiated through it. */
export interface Pass {
  rows: number;
  grad: boolean;
}

/**
 * The forward passes of one step per method, as the parity oracle computes them
 * (scripts/fixtures/make_deep_fixtures.py, rsb protocol and quirks): the labeled batch B, then
 * the unlabeled views of μ·B rows. Teacher passes (no tape) are forward-only; so is Mean Teacher's
 * student pass under the rsb quirk (its output is detached before the loss).
 */
export function stepPasses(method: string, batchL = 64): Pass[] {
  const B = batchL;
  const labeled: Pass = { rows: B, grad: true };
  switch (method) {
    case 'ftt':
      return [labeled];
    case 'pseudolabel':
      return [labeled, { rows: B, grad: true }];
    case 'pimodel':
    case 'ict':
      return [labeled, { rows: B, grad: false }, { rows: B, grad: true }];
    case 'meanteacher':
      return [labeled, { rows: B, grad: false }, { rows: B, grad: false }];
    case 'uda':
    case 'fixmatch':
    case 'flexmatch':
    case 'softmatch':
      return [labeled, { rows: 7 * B, grad: false }, { rows: 7 * B, grad: true }];
    default:
      throw new RangeError(`stepPasses: unknown deep method '${method}'.`);
  }
}

/** Multiply-accumulates of one row's forward through the FT-Transformer. */
export function forwardMacsPerRow(s: StepShape): number {
  const n = s.features + 1; // tokens: [CLS] + one per feature
  const D = s.dToken;
  const F = s.ffnHidden;
  // A block over q query tokens (all n, or only [CLS] in the last block) and n key/value tokens.
  const block = (q: number) =>
    q * D * D + // Q projection
    2 * n * D * D + // K and V projections
    2 * n * n * D + // Ek, Ev token mixing (n × n by n × D)
    2 * q * n * D + // scores Q·Kᵀ and weights·V over all heads
    q * D * D + // output projection
    q * D * 2 * F + // FFN first linear (ReGLU: 2F outputs)
    q * F * D; // FFN second linear
  return (s.blocks - 1) * block(n) + block(1) + D * s.classes;
}

/** FLOPs of one training step of `method` (see the file's head for what is counted). */
export function stepFlops(method: string, s: StepShape, batchL = 64): number {
  const perRow = 2 * forwardMacsPerRow(s);
  return stepPasses(method, batchL).reduce((sum, p) => sum + p.rows * perRow * (p.grad ? 3 : 1), 0);
}

/** Achieved TFLOP/s of `flops` done in `ms` milliseconds. */
export const tflops = (flops: number, ms: number): number => flops / (ms * 1e-3) / 1e12;

/** `rsb`, `tiny`, or `blocks:dToken:heads:ffnHidden` (dry runs on a software adapter: 1:8:2:8). */
export function parseSize(text: string): { name: string; shape: FTSize; option: FTSizeName | FTSize } {
  // A named size goes to trainerConfig by name: its defaults (rsb: recompute 'auto') follow it.
  if (text in FT_SIZES)
    return { name: text, shape: FT_SIZES[text as FTSizeName], option: text as FTSizeName };
  const parts = text.split(':').map(Number);
  if (parts.length !== 4 || !parts.every((x) => Number.isInteger(x) && x >= 1) || parts[1] % parts[2] !== 0)
    throw new RangeError(
      `--size must be ${Object.keys(FT_SIZES).join(', ')} or blocks:dToken:heads:ffnHidden with dToken a multiple of heads; got "${text}"`,
    );
  const [blocks, dToken, heads, ffnHidden] = parts;
  const shape = { blocks, dToken, heads, ffnHidden };
  return { name: text, shape, option: shape };
}
