/**
 * The deep family's cost model (PROTOCOL.md §9), without tfjs: multiply-adds of one fit, from the
 * network size, the cell's shape and the method's batch, and seconds at a measured rate. The
 * catalogue's deep entries use it for the pre-start estimate, longest-first order and the ETA.
 */
import { activationBudget } from './activationBudget.ts';
import { DEEP_METHODS } from './methods/registry.ts';
import { blockCacheBytes, FT_SIZES, type FTSize, type FTSizeName } from './sizes.ts';

/**
 * Rows per step through the network, as multiples of the labeled batch (64), from each method's
 * trainer hooks (methods/*.ts): `grad` rows go through the student forward with the gradient
 * (labeled + the method's student rows), `noGrad` rows through teacher / shadow forwards.
 * tests/unit/models/deep/cost.test.ts checks these against the methods' μ and views.
 */
export const DEEP_STEP_ROWS: Readonly<Record<string, { grad: number; noGrad: number; fixedGrad?: number }>> =
  Object.fromEntries(Object.entries(DEEP_METHODS).map(([id, m]) => [id, m.steps]));

/** Multiply-adds of one eval-mode forward of one row (d features, k classes), §7.3's network. */
export function forwardMacsPerRow(size: FTSize, d: number, k: number): number {
  const n = d + 1;
  const D = size.dToken;
  const F = size.ffnHidden;
  const tokenizer = n * D;
  // Q, K, V, out projections; E_k, E_v token mixing; QKᵀ and attention × V; ReGLU FFN (D→2F→D).
  const full = 4 * n * D * D + 2 * n * n * D + 2 * n * n * D + 3 * n * D * F;
  // Last block: K, V from every token, the query, attention and FFN from CLS only.
  const last = 2 * n * D * D + 2 * D * D + 2 * n * n * D + 2 * n * D + 3 * D * F;
  const head = D * k;
  return tokenizer + Math.max(0, size.blocks - 1) * full + (size.blocks > 0 ? last : 0) + head;
}

export interface DeepFitOptions {
  size?: FTSizeName;
  quirks?: 'rsb' | 'fixed';
  /** Labeled rows per step (§7.2: 64); the unlabeled batch is μ × this. */
  batchL?: number;
}

export interface DeepFitShape {
  /** Features and classes of the cell. */
  d: number;
  k: number;
  /** Test rows predicted once. */
  test: number;
  steps: number;
}

/**
 * Multiply-adds of one fit + predict: per step, gradient rows ≈ 3 forwards, 4 where the rsb size
 * recomputes its blocks (the step's caches exceed the activation budget in force,
 * activationBudget.ts: what the trainer's 'auto' decides from the same numbers).
 */
export function deepFitMacs(
  method: string,
  s: DeepFitShape,
  { size = 'rsb', quirks = 'rsb', batchL = 64 }: DeepFitOptions = {},
): number {
  const net = FT_SIZES[size] ?? FT_SIZES.rsb;
  const rows = DEEP_STEP_ROWS[method] ?? DEEP_STEP_ROWS.fixmatch;
  const fwd = forwardMacsPerRow(net, s.d, s.k);
  const grad = quirks === 'fixed' && rows.fixedGrad !== undefined ? rows.fixedGrad : rows.grad;
  const recomputes =
    size === 'rsb' && blockCacheBytes({ ...net, features: s.d }, batchL * grad) > activationBudget();
  const gradFactor = recomputes ? 4 : 3;
  const noGrad = rows.noGrad + (rows.grad - grad);
  const perStep = batchL * fwd * (grad * gradFactor + noGrad);
  return s.steps * perStep + s.test * fwd;
}

/**
 * Multiply-adds per second of the deep trainer on tfjs WASM under Node on the reference machine
 * (the 2-core VM of the statistical constants), per network size, and the fixed cost of one step
 * (op dispatch: a few hundred kernels a step, what dominates the tiny network). rsb: `npm run
 * bench:deep -- --rounds 3` (letter, activations kept, 3 warm-up steps: supervised 443 ms, Pi-Model
 * 1.10 s, FixMatch 4.03 s CPU per step ⇒ 15.5–18.8 GMAC/s; GEMM ≈ 48 GFLOP/s in the step, helpers
 * inlined, issue 20); tiny: scripts/bench/deepCost.ts (100-step fits at batch 64: iris FT-T 5.2 ms a
 * step, wine FT-T 7.0, iris FixMatch 19.3, wine FixMatch 63.1 ⇒ ≈ 3.5 ms a step plus 7.5 GMAC/s).
 */
export const DEEP_REFERENCE_MACS_PER_SECOND: Readonly<Record<FTSizeName, number>> = {
  rsb: 17e9,
  tiny: 7.5e9,
};
export const DEEP_STEP_OVERHEAD_SECONDS = 0.0035;

/** Seconds of one fit + predict at the reference rate (the catalogue's `cost` unit). */
export function deepFitSeconds(method: string, s: DeepFitShape, o: DeepFitOptions = {}): number {
  const rate = DEEP_REFERENCE_MACS_PER_SECOND[o.size ?? 'rsb'] ?? DEEP_REFERENCE_MACS_PER_SECOND.rsb;
  return deepFitMacs(method, s, o) / rate + s.steps * DEEP_STEP_OVERHEAD_SECONDS;
}
