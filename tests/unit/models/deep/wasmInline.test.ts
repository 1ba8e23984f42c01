/**
 * Build-time inlining of `;; @inline` WebAssembly text functions (scripts/wasm/inline.mjs): the
 * inlined module computes what the module with calls computes (locals zeroed per inlined copy,
 * `return` as a branch, nested marked calls), the deep kernels keep no call to a marked helper,
 * and what it cannot inline faithfully is refused.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import wabtInit from 'wabt';
// @ts-expect-error: a plain .mjs build script without types
import { inlineMarked } from '../../../../scripts/wasm/inline.mjs';

const DEEP_WAT = readFileSync(
  new URL('../../../../src/lib/models/deep/batchMatMul.wat', import.meta.url),
  'utf8',
);

async function instantiate(text: string) {
  const wabt = await wabtInit();
  const parsed = wabt.parseWat('t.wat', text, { simd: true });
  const { buffer } = parsed.toBinary({});
  parsed.destroy();
  const instance = new WebAssembly.Instance(new WebAssembly.Module(buffer as Uint8Array<ArrayBuffer>));
  return instance.exports as Record<string, (...a: number[]) => number>;
}

// $acc counts up from its zero start: an inlined copy that kept the last call's value would add
// it again. $clip returns early; $twice calls the marked $clip (nested inlining); $tri has its own
// loop labels (two copies in one caller) and leaves by a numeric branch to the function's level.
const SMALL = `(module
  ;; @inline
  (func $tri (param $x i32) (result i32)
    (local $k i32) (local $t i32)
    (block $out (loop $more
      (br_if $out (i32.ge_s (local.get $k) (local.get $x)))
      (local.set $k (i32.add (local.get $k) (i32.const 1)))
      (local.set $t (i32.add (local.get $t) (local.get $k)))
      (br $more)))
    (if (i32.gt_s (local.get $t) (i32.const 100)) (then (br 1 (i32.const 100))))
    (local.get $t))
  ;; @inline
  (func $clip (param $x i32) (param $hi i32) (result i32)
    (local $acc i32)
    (local.set $acc (i32.add (local.get $acc) (local.get $x)))
    (if (i32.gt_s (local.get $acc) (local.get $hi)) (then (return (local.get $hi))))
    (local.get $acc))
  ;; @inline
  (func $twice (param $x i32) (result i32)
    (i32.add (call $clip (local.get $x) (i32.const 10)) (call $clip (local.get $x) (i32.const 10))))
  (func (export "sum") (param $n i32) (result i32)
    (local $i i32) (local $s i32)
    (block $done (loop $next
      (br_if $done (i32.ge_s (local.get $i) (local.get $n)))
      (local.set $s (i32.add (local.get $s) (call $twice (local.get $i))))
      (local.set $s (i32.add (local.get $s) (i32.add (call $tri (local.get $i)) (call $tri (local.get $i)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next)))
    (local.get $s)))
`;

describe('wasm inlining (scripts/wasm/inline.mjs)', () => {
  it('computes what the calls computed, with no call left to a marked function', async () => {
    const inlined = inlineMarked(SMALL);
    expect(inlined).not.toMatch(/call \$(clip|twice|tri)/);
    expect(inlined).toMatch(/\(loop \$__tri_(\d+)_more[^]*\(loop \$__tri_(?!\1_)\d+_more/);
    expect(inlined).toContain('(br $__clip_');
    const [before, after] = await Promise.all([instantiate(SMALL), instantiate(inlined)]);
    for (const n of [0, 1, 5, 11, 40]) expect(after.sum(n), `n = ${n}`).toBe(before.sum(n));
    // Σ 2·min(i, 10) + 2·min(i(i+1)/2, 100) for i < 40: the early exits taken and not taken
    expect(after.sum(40)).toBe(2 * (45 + 10 * 30) + 2 * (455 + 26 * 100));
  });

  it('leaves text without a marker as it is', () => {
    const text = SMALL.replaceAll(';; @inline', ';; not inlined');
    expect(inlineMarked(text)).toBe(text);
  });

  it('inlines every helper of the deep kernels and the GEMM micro-kernel: no call is left', () => {
    expect(inlineMarked(DEEP_WAT) as string).not.toMatch(/\(call /);
    expect(DEEP_WAT.match(/;; @inline\n/g)?.length).toBeGreaterThanOrEqual(10);
  });

  it('refuses what it cannot inline faithfully', () => {
    expect(() => inlineMarked(SMALL.replace('(call $twice (local.get $i))', '(call $twice)'))).toThrow(
      /\$twice takes 1 arguments, called with 0/,
    );
    const refused = (body: string) => () =>
      inlineMarked(`(module\n  ;; @inline\n  (func $f (param $x i32) (local $y i32) ${body})\n)`);
    expect(refused('(drop (local.get 0))')).toThrow(/\(local.get 0\) is not one of its named locals/);
    expect(refused('local.get $x drop')).toThrow(/folded \(a bare local.get\)/);
    expect(refused('(drop (local.get $x))')).not.toThrow();
    expect(() =>
      inlineMarked(
        `(module\n  ;; @inline\n  (func $f (param i32 i32))\n  (func $g (call $f (i32.const 0) (i32.const 1))))`,
      ),
    ).toThrow(/one named param per declaration/);
    expect(() =>
      inlineMarked(
        `(module\n  ;; @inline\n  (func $f (param $x i32) (call $f (local.get $x)))\n  (func $g (call $f (i32.const 0))))`,
      ),
    ).toThrow(/deeper than 16/);
  });
});
