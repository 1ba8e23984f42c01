/**
 * MT19937 seeded exactly like numpy's legacy `RandomState(seed)` (init_genrand), with numpy's
 * legacy bounded integers (masked rejection) and Fisher–Yates permutation. PROTOCOL.md §3.1–3.2.
 *
 * This is the only source of randomness in the core: split draws must match numpy bit for bit,
 * and model-internal randomness uses the same generator so that every run is reproducible.
 */
export class MT19937 {
  private readonly mt = new Uint32Array(624);
  private idx = 624;
  /** Box–Muller keeps its second value, as numpy's legacy `gauss` does. */
  private gaussNext: number | null = null;

  constructor(seed: number) {
    if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
      throw new RangeError(`MT19937 seed must be an integer in [0, 2^32 - 1]; got ${seed}.`);
    }
    const mt = this.mt;
    mt[0] = seed >>> 0;
    for (let i = 1; i < 624; i++) {
      const prev = mt[i - 1];
      mt[i] = (Math.imul(1812433253, prev ^ (prev >>> 30)) + i) >>> 0;
    }
  }

  nextU32(): number {
    const mt = this.mt;
    if (this.idx >= 624) {
      for (let j = 0; j < 624; j++) {
        const y = (mt[j] & 0x80000000) | (mt[(j + 1) % 624] & 0x7fffffff);
        mt[j] = mt[(j + 397) % 624] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      this.idx = 0;
    }
    let y = mt[this.idx++];
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** Uniform double in [0, 1) with 53 random bits: numpy's `random_sample`. */
  random(): number {
    const a = this.nextU32() >>> 5;
    const b = this.nextU32() >>> 6;
    return (a * 67108864 + b) / 9007199254740992;
  }

  /** Uniform integer in [0, max] by masked rejection (numpy legacy `random_interval`). */
  randomInterval(max: number): number {
    if (max === 0) return 0;
    let mask = max;
    mask |= mask >>> 1;
    mask |= mask >>> 2;
    mask |= mask >>> 4;
    mask |= mask >>> 8;
    mask |= mask >>> 16;
    mask >>>= 0;
    for (;;) {
      const v = (this.nextU32() & mask) >>> 0;
      if (v <= max) return v;
    }
  }

  /** Uniform integer in [0, n). */
  randint(n: number): number {
    if (!Number.isInteger(n) || n < 1) throw new RangeError(`randint needs an integer n >= 1; got ${n}.`);
    return this.randomInterval(n - 1);
  }

  /** In-place Fisher–Yates from the end (numpy legacy `shuffle`). */
  shuffle<T>(a: T[] | Int32Array | Float64Array | Uint32Array): void {
    for (let i = a.length - 1; i >= 1; i--) {
      const j = this.randomInterval(i);
      const tmp = a[i];
      a[i] = a[j];
      a[j] = tmp;
    }
  }

  /** `permutation(n)`: a shuffled [0..n-1]. */
  permutation(n: number): number[] {
    const a = Array.from({ length: n }, (_, i) => i);
    this.shuffle(a);
    return a;
  }

  /** `permutation(list)`: a shuffled copy. */
  permuted<T>(list: readonly T[]): T[] {
    const a = list.slice();
    this.shuffle(a);
    return a;
  }

  /** Standard normal (numpy legacy polar Box–Muller `gauss`). */
  normal(): number {
    if (this.gaussNext !== null) {
      const g = this.gaussNext;
      this.gaussNext = null;
      return g;
    }
    let x1: number, x2: number, r2: number;
    do {
      x1 = 2 * this.random() - 1;
      x2 = 2 * this.random() - 1;
      r2 = x1 * x1 + x2 * x2;
    } while (r2 >= 1 || r2 === 0);
    const f = Math.sqrt((-2 * Math.log(r2)) / r2);
    this.gaussNext = f * x1;
    return f * x2;
  }
}

/** A fresh generator: every split, mask and class subset starts its own (PROTOCOL.md §3.5). */
export function mt(seed: number): MT19937 {
  return new MT19937(seed);
}

/** Model-internal randomness: a seeded generator derived from a run seed and a purpose tag. */
export function deriveSeed(seed: number, tag: string): number {
  // FNV-1a over the tag, mixed with the seed; deterministic and platform independent.
  let h = 0x811c9dc5 ^ (seed >>> 0);
  for (let i = 0; i < tag.length; i++) {
    h ^= tag.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
