/**
 * float32 → IEEE half, rounded to nearest, ties to even (what numpy's astype(float16) and
 * PyTorch's .half() do), for the feature bank's float16 blocks. The way back is exact
 * (weights/halfFloat.ts).
 */

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

export function toHalf(value: number): number {
  f32[0] = value;
  const x = u32[0];
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  let mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 | (mant >>> 13) : 0); // inf, or a quiet NaN
  const e = exp - 127 + 15;
  if (e >= 31) return sign | 0x7c00; // overflow → inf
  if (e <= 0) {
    // Subnormal half (or zero): shift the full significand into place, rounding to nearest even.
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    const half = mant >>> shift;
    const rest = mant & ((1 << shift) - 1);
    const mid = 1 << (shift - 1);
    return sign | (rest > mid || (rest === mid && half & 1) ? half + 1 : half);
  }
  const half = (e << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  // A carry out of the mantissa moves into the exponent, which is the right result (up to inf).
  return sign | (rest > 0x1000 || (rest === 0x1000 && half & 1) ? half + 1 : half);
}

export function float32ToFloat16(
  values: ArrayLike<number>,
  out: Uint16Array = new Uint16Array(values.length),
): Uint16Array {
  for (let i = 0; i < values.length; i++) out[i] = toHalf(values[i]);
  return out;
}
