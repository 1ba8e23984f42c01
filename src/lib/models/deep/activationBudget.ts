/**
 * How much memory one gradient forward of the FT-Transformer may keep for its backward pass
 * before the trainer's `recompute: 'auto'` recomputes each block instead (gradient
 * checkpointing, ftTransformer.ts). Recomputing gives bit-identical weights
 * (tests/unit/models/deep/activationBudget.test.ts), so the budget trades memory for time only:
 * like the wasm kernels' flavour it is chosen per environment, once, by whoever starts the
 * backend (the CLI, a page worker, a bench), and it is not a hyper-parameter of any cell.
 *
 * What it buys (letter, FixMatch, rsb size: 512 gradient rows × 17 tokens, 736 MiB of block
 * caches): keeping the caches skips the ≈ 26 % of the step's products that recomputation
 * repeats, at a wasm heap of 994 MiB instead of 491 MiB (the caches, plus the backward pass's
 * temporaries beside them). tfjs-wasm's heap may grow to 4 GiB.
 */

const MiB = 2 ** 20;

/** The default: what a small device can afford (a phone, a 4 GiB laptop with other workers). */
export const DEFAULT_ACTIVATION_BUDGET_BYTES = 384 * MiB;

/** Node (the CLI, benches): one fit per process with the 4 GiB wasm heap to itself. */
export const NODE_ACTIVATION_BUDGET_BYTES = 1024 * MiB;

let budget = DEFAULT_ACTIVATION_BUDGET_BYTES;

/** Sets the process-wide budget (bytes of block caches one gradient forward may keep). */
export function setActivationBudget(bytes: number): void {
  if (!Number.isFinite(bytes) || bytes < 0)
    throw new RangeError(`The activation budget must be a non-negative number of bytes; got ${bytes}.`);
  budget = bytes;
}

/** The budget in force. */
export function activationBudget(): number {
  return budget;
}

/**
 * A page worker's budget from the memory the device declares (`navigator.deviceMemory`, GiB;
 * Chrome reports at most 8, null where the browser says nothing): 1 GiB at 8 GiB, scaled down
 * with the device, never below the default. Only one worker of a run trains deep networks (the
 * pool's GPU lane, workers/pool.ts); the others run statistical methods beside it.
 */
export function pageActivationBudget(deviceMemoryGiB: number | null | undefined): number {
  if (typeof deviceMemoryGiB !== 'number' || !Number.isFinite(deviceMemoryGiB) || deviceMemoryGiB <= 0)
    return DEFAULT_ACTIVATION_BUDGET_BYTES;
  const scaled = Math.floor((Math.min(deviceMemoryGiB, 8) / 8) * NODE_ACTIVATION_BUDGET_BYTES);
  return Math.max(DEFAULT_ACTIVATION_BUDGET_BYTES, scaled);
}
