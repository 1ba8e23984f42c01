/**
 * One long fit per catalogue entry, for the abort contract (abort.test.ts): data and options set so
 * that every fit makes far more checkpoints (`ctx.tick()` calls and progress reports) than the one
 * the abort is armed at, started through the same FitContext runCell builds (clock-throttled ticks).
 * Checkpoints are counted, not timed: a fit makes the same ones on every machine (quiet: SSGMM, the
 * shortest, 522 in all; every other fit thousands, or is aborted at 6 s with hundreds made).
 */
import { defaultModelOptions, getAlgorithm, type ModelOptions } from '../../../src/lib/models/catalogue.ts';
import { createFitContext } from '../../../src/lib/models/fitContext.ts';
import { MT19937 } from '../../../src/lib/protocol/rng.ts';
import type { Matrix } from '../../../src/lib/types.ts';

/** The checkpoint at which the abort is sent: past set-up and warm-up, a fifth of SSGMM's 522. */
export const ARM_AT_CHECKPOINT = 100;

/** Options that make a fit long (stop rules off); any entry not listed runs with its defaults. */
export const LONG_FIT_OPTIONS: Readonly<Record<string, ModelOptions>> = {
  xgb: { nEstimators: 10_000 },
  // 'zero' support: under 'ignore' (the rsb default since 1.1.0) EM reaches an exact fixed point on
  // these blobs within milliseconds, and the fit would end before the signal.
  ssgmm: { tol: 0, maxIter: 1_000_000, support: 'zero' },
  lp: { tol: 0, maxIter: 1_000_000 },
  ls: { tol: 0, maxIter: 1_000_000 },
  // Not more rounds: each pass predicts L and U with every tree, between two ticks.
  tritraining: { nEstimators: 1_500 },
  // C_u doubles from 1e-300 up to C_l = 15: about 1 000 annealing rounds per class instead of 18.
  tsvm: { Cu: 1e-300 },
  assemble: { T: 10_000 },
  // Deep entries: the tiny network and a small batch, so one step (the span between two ticks) is
  // a few ms of WASM work; a million steps outlast the signal.
  ...Object.fromEntries(
    ['ftt', 'pseudolabel', 'pimodel', 'meanteacher', 'ict', 'uda', 'fixmatch', 'flexmatch', 'softmatch'].map(
      (id) => [id, { size: 'tiny', steps: 1_000_000, batchL: 8 }],
    ),
  ),
};

function blobs(n: number, k: number, d: number, seed: number): { X: Matrix; y: Int32Array } {
  const r = new MT19937(seed);
  const X = new Float32Array(n * d);
  const y = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    y[i] = i % k;
    for (let j = 0; j < d; j++) X[i * d + j] = (j === y[i] % d ? 1.5 : 0) + r.normal();
  }
  return { X: { data: X, rows: n, cols: d }, y };
}

const L = blobs(200, 4, 6, 1);
const U = blobs(300, 4, 6, 2);

/**
 * Overlapping classes with 30 % of the labels flipped: boosting keeps finding splits, EM and the
 * TSVM's swaps keep moving, so these fits outlast the signal on a quiet machine too (on the clean
 * blobs they converge in under a second).
 */
function noisy(n: number, seed: number): { X: Matrix; y: Int32Array } {
  const b = blobs(n, 4, 6, seed);
  const r = new MT19937(seed + 100);
  for (let i = 0; i < b.X.data.length; i++) b.X.data[i] *= 0.5 + r.random();
  for (let i = 0; i < n; i++) if (r.random() < 0.3) b.y[i] = Math.floor(r.random() * 4);
  return b;
}
const HARD_TSVM = { l: noisy(400, 3), u: noisy(600, 4) };
// EM and boosting yield every iteration or round, so more rows only lengthen the fit.
const HARD_BIG = { l: noisy(1000, 5), u: noisy(4000, 6) };
const HARD_DATA: Record<string, { l: ReturnType<typeof noisy>; u: ReturnType<typeof noisy> }> = {
  xgb: HARD_BIG,
  ssgmm: HARD_BIG,
  tsvm: HARD_TSVM,
  tritraining: HARD_TSVM,
};

/**
 * Creates the estimator of `id` (loading its module, which is not part of the fit) and returns
 * `run`, which starts the long fit: it resolves 'finished' or rejects with the fit's error.
 */
export async function prepareLongFit(
  id: string,
): Promise<(signal: AbortSignal, onCheckpoint?: () => void) => Promise<'finished'>> {
  const spec = getAlgorithm(id);
  if (spec.suite === 'deep') {
    // The deep family runs on tfjs WASM (as in the browser's workers and the CLI).
    const tf = await import('@tensorflow/tfjs');
    await import('@tensorflow/tfjs-backend-wasm');
    await tf.setBackend('wasm');
  }
  const options = { ...defaultModelOptions(spec, 'rsb'), ...(LONG_FIT_OPTIONS[id] ?? {}) };
  const model = await spec.create({ mode: 'rsb', options });
  const { l, u } = HARD_DATA[id] ?? { l: L, u: U };
  return async (signal, onCheckpoint) => {
    const ctx = createFitContext({ seed: 0, signal, onProgress: onCheckpoint, now: () => performance.now() });
    if (onCheckpoint) {
      const tick = ctx.tick;
      ctx.tick = (p) => {
        if (!p) onCheckpoint(); // with p, tick reports it through onProgress
        return tick(p);
      };
    }
    try {
      await model.fit(l.X, l.y, u.X, 4, ctx);
      return 'finished';
    } finally {
      model.dispose();
    }
  };
}
