/**
 * Dropout masks from a counter-based hash: element i of a call with seed s is kept when
 * hash(s, i) ≥ rate·2³², so any element's draw is computed on its own, in any order, on any
 * backend, with the same 32-bit integer arithmetic: the host (this file), the WebAssembly kernels
 * (deepKernels.wat) and the WGSL ones agree bit for bit, a mask never has to be uploaded where a
 * kernel draws it, and the backward pass (or a recomputed block) redraws the very same mask.
 *
 * hash(s, i) = lowbias32(lowbias32(i + a) ^ b) with (a, b) derived from s (two rounds of
 * C. Wellons' lowbias32 [16, 0x21f0aaad, 15, 0x735a2d97, 15]). Masks cannot match PyTorch's anyway
 * (§3: model-internal randomness is only required to be deterministic per seed); the seed of
 * each call is derived from (dropout stream, step, call index), so a resumed fit draws the same masks.
 */

/** SplitMix32-style scrambler: spreads a 32-bit seed over the generator state. */
function mix32(x: number): number {
  x = (x + 0x9e3779b9) | 0;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

/** lowbias32 (Wellons' hash-prospector, bias ≈ 0.108). */
function lowbias32(x: number): number {
  x ^= x >>> 16;
  x = Math.imul(x, 0x21f0aaad);
  x ^= x >>> 15;
  x = Math.imul(x, 0x735a2d97);
  return (x ^ (x >>> 15)) >>> 0;
}

/** The two 32-bit keys of a call seed (what the kernels take). */
export function dropKeys(seed: number): [number, number] {
  const a = mix32(seed >>> 0);
  return [a, mix32(a ^ 0x6a09e667)];
}

/** The 32-bit draw of element i under keys (a, b). */
export function dropDraw(a: number, b: number, i: number): number {
  return lowbias32(lowbias32((i + a) >>> 0) ^ b);
}

/** Drop when the draw is below this: P(drop) = rate up to 2⁻³². */
export function dropCut(rate: number): number {
  if (!(rate >= 0 && rate < 1)) throw new RangeError(`dropout rate must be in [0, 1); got ${rate}.`);
  return Math.floor(rate * 4294967296);
}

/** Length `size` mask: 0 with probability `rate`, else 1/(1 − rate) (inverted dropout). */
export function dropoutMask(size: number, rate: number, seed: number): Float32Array {
  const cut = dropCut(rate);
  const out = new Float32Array(size);
  const keep = 1 / (1 - rate);
  const [a, b] = dropKeys(seed);
  for (let i = 0; i < size; i++) out[i] = dropDraw(a, b, i) >= cut ? keep : 0;
  return out;
}

/** Seed of one forward call's dropout: stream seed, step, call number (deterministic on resume). */
export function dropoutSeed(streamSeed: number, step: number, call: number): number {
  return mix32(mix32(streamSeed ^ mix32(step)) ^ Math.imul(call + 1, 0x27d4eb2f));
}
