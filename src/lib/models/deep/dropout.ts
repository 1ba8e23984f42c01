/**
 * Dropout masks from a fast seeded generator (xoshiro128**), filled on the host.
 *
 * tf.dropout draws from seedrandom's alea in JS, about 10× slower than this for the ≈ 10⁸ mask
 * entries of one rsb training step. Masks cannot match PyTorch's anyway (§3: model-internal
 * randomness is only required to be deterministic per seed and backend); the seed of each call
 * is derived from (dropout stream, step, call index), so a resumed fit draws the same masks.
 */

/** SplitMix32-style scrambler: spreads a 32-bit seed over the generator state. */
function mix32(x: number): number {
  x = (x + 0x9e3779b9) | 0;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

/** Length `size` mask: 0 with probability `rate`, else 1/(1 − rate) (inverted dropout). */
export function dropoutMask(size: number, rate: number, seed: number): Float32Array {
  if (!(rate >= 0 && rate < 1)) throw new RangeError(`dropout rate must be in [0, 1); got ${rate}.`);
  const out = new Float32Array(size);
  const keep = 1 / (1 - rate);
  // Keep when the 32-bit draw ≥ rate·2³²: P(keep) = 1 − rate up to 2⁻³².
  const cut = Math.floor(rate * 4294967296);
  let a = mix32(seed),
    b = mix32(a ^ 0x6a09e667),
    c = mix32(b ^ 0xbb67ae85),
    d = mix32(c ^ 0x3c6ef372);
  if ((a | b | c | d) === 0) a = 1;
  for (let i = 0; i < size; i++) {
    // xoshiro128** (Blackman & Vigna)
    const r = Math.imul(rotl(Math.imul(b, 5), 7), 9) >>> 0;
    const t = b << 9;
    c ^= a;
    d ^= b;
    b ^= c;
    a ^= d;
    c ^= t;
    d = rotl(d, 11);
    out[i] = r >= cut ? keep : 0;
  }
  return out;
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

/** Seed of one forward call's dropout: stream seed, step, call number (deterministic on resume). */
export function dropoutSeed(streamSeed: number, step: number, call: number): number {
  return mix32(mix32(streamSeed ^ mix32(step)) ^ Math.imul(call + 1, 0x27d4eb2f));
}
