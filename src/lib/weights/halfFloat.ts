/**
 * IEEE half (F16) and bfloat16 (BF16) to float32, bit-exact: every half value, subnormals, ±0, ±inf
 * and NaN payloads included, is representable in float32, so the conversion is a bit mapping with
 * no rounding. Checkpoints stored in half precision then load to exactly the weights PyTorch would
 * get from `.float()`.
 */

let halfTable: Uint32Array | null = null;

/** float32 bit pattern of each of the 65 536 half bit patterns (256 KiB, built on first use). */
function table(): Uint32Array {
  if (halfTable) return halfTable;
  const t = new Uint32Array(65536);
  const f = new Float32Array(t.buffer);
  for (let h = 0; h < 65536; h++) {
    const sign = (h & 0x8000) << 16;
    const exp = (h >> 10) & 0x1f;
    const mant = h & 0x3ff;
    if (exp === 0) {
      // Zero or subnormal: mant · 2^-24, exact in float32 (which has 8 more exponent bits).
      f[h] = (sign ? -1 : 1) * mant * 2 ** -24;
    } else if (exp === 31) {
      t[h] = sign | 0x7f800000 | (mant << 13); // inf, or NaN with its payload kept
    } else {
      t[h] = sign | ((exp - 15 + 127) << 23) | (mant << 13);
    }
  }
  halfTable = t;
  return t;
}

/** Converts half bit patterns (as stored, little-endian u16) to float32 values in a new array. */
export function float16ToFloat32(bits: Uint16Array): Float32Array {
  const t = table();
  const out = new Uint32Array(bits.length);
  for (let i = 0; i < bits.length; i++) out[i] = t[bits[i]];
  return new Float32Array(out.buffer);
}

/** bfloat16 is the top half of a float32: shift the bits up (exact for every value, NaN included). */
export function bfloat16ToFloat32(bits: Uint16Array): Float32Array {
  const out = new Uint32Array(bits.length);
  for (let i = 0; i < bits.length; i++) out[i] = bits[i] << 16;
  return new Float32Array(out.buffer);
}
