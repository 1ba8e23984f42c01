/**
 * Host-side random streams of the deep trainer: checkpointable MT19937 state and numpy's legacy
 * Beta sampler (ICT's mixing weight).
 */
import { MT19937 } from '../../protocol/rng.ts';

/** A serialisable MT19937 position (the 624-word state, the index and Box–Muller's spare). */
export interface MTState {
  mt: number[];
  idx: number;
  gaussNext: number | null;
}

// MT19937 keeps its state in TypeScript-private fields; a checkpoint needs to copy them. This is
// the one place that reaches in (a `getState`/`setState` on the class would replace it).
interface MTInternals {
  mt: Uint32Array;
  idx: number;
  gaussNext: number | null;
}

export function saveMT(rng: MT19937): MTState {
  const r = rng as unknown as MTInternals;
  return { mt: Array.from(r.mt), idx: r.idx, gaussNext: r.gaussNext };
}

export function loadMT(s: MTState): MT19937 {
  const rng = new MT19937(0);
  const r = rng as unknown as MTInternals;
  if (s.mt.length !== 624) throw new RangeError(`MT19937 state needs 624 words; got ${s.mt.length}.`);
  r.mt.set(s.mt);
  r.idx = s.idx;
  r.gaussNext = s.gaussNext;
  return rng;
}

/** numpy legacy `RandomState.beta(a, b)` for a, b ≤ 1 (Jöhnk's algorithm, as in numpy's legacy_beta). */
export function betaJohnk(rng: MT19937, a: number, b: number): number {
  if (!(a > 0 && b > 0 && a <= 1 && b <= 1))
    throw new RangeError(`betaJohnk needs 0 < a, b ≤ 1; got ${a}, ${b}.`);
  for (;;) {
    const U = rng.random();
    const V = rng.random();
    const X = Math.pow(U, 1 / a);
    const Y = Math.pow(V, 1 / b);
    const XpY = X + Y;
    if (XpY <= 1.0 && XpY > 0.0) {
      if (X + Y > 0) return X / XpY;
      let logX = Math.log(U) / a;
      let logY = Math.log(V) / b;
      const logM = logX > logY ? logX : logY;
      logX -= logM;
      logY -= logM;
      return Math.exp(logX - Math.log(Math.exp(logX) + Math.exp(logY)));
    }
  }
}
