;; The deep trainer's own WebAssembly kernels for tfjs's WASM backend, run inside the backend's own
;; memory (imported), so tensors are read and written in place:
;;   bmm        batched products (batchMatMul.ts; attention), strided operands and output rows
;;   gemm       2-D products with either operand transposed and an optional bias (fusedKernels.ts)
;;   ln_fwd / ln_bwd, smd_fwd / smd_bwd, reglu_fwd / reglu_bwd, colsum, dropout: the fused
;;              element-wise ops (fused.ts), with dropout masks drawn in place (dropout.ts's hash)
;;   adam / sgd one optimiser step over every parameter, with the EMA shadow (optim.ts)
;;
;; bmm:  C[b] = A[b] · B[b]    A[b]: m×k, B[b]: k×n; row i of C[b] at c + 4·(b·sCb + i·sCi)
;;
;; A and B are read through element strides (batch, row, column), so transposed and broadcast
;; operands need no copy in JS. A is read in place (one load-splat per row and p). B is read in
;; place when its rows are contiguous and n is a multiple of 4 (V, K, Q, dO in the attention's
;; layout); otherwise (Kᵀ, Vᵀ: n = tokens) each batch's B is packed into `scratch` as k × n4 row-major,
;; n4 = n rounded up to 4, the columns past n zero (written once). C is computed in blocks of
;; 4 rows × 8 columns (eight f32x4 accumulators), then 4 columns, then the last rows one by one;
;; a block's lanes past n are not stored. Every element sums over p in order 0..k−1, a multiply
;; then an add (no FMA): the same bits as tfjs's cpu kernel order and as this kernel's earlier
;; one-row form. A broadcast B (batch stride 0) is packed once.
(module
  (import "env" "memory" (memory 1))

  (func (export "bmm")
    (param $a i32) (param $b i32) (param $c i32) (param $scratch i32)
    (param $batch i32) (param $m i32) (param $k i32) (param $n i32)
    (param $sAb i32) (param $sAi i32) (param $sAp i32)
    (param $sBb i32) (param $sBp i32) (param $sBj i32) (param $sCb i32) (param $sCi i32)
    (local $bi i32) (local $i i32) (local $p i32) (local $j i32) (local $n4 i32) (local $direct i32)
    (local $bbase i32) (local $ldb i32) (local $ldc i32) (local $ap4 i32) (local $pa i32)
    (local $abase i32) (local $crow i32) (local $src i32) (local $dst i32) (local $bptr i32) (local $cout i32)
    (local $a0 i32) (local $a1 i32) (local $a2 i32) (local $a3 i32) (local $lda i32) (local $bp4 i32)
    (local $c00 v128) (local $c01 v128) (local $c10 v128) (local $c11 v128) (local $c20 v128) (local $c21 v128) (local $c30 v128) (local $c31 v128) (local $b0 v128) (local $b1 v128) (local $x v128)
    (local.set $n4 (i32.and (i32.add (local.get $n) (i32.const 3)) (i32.const -4)))
    ;; B is read in place when its rows are contiguous and a whole number of vectors wide
    (local.set $direct (i32.and (i32.eq (local.get $sBj) (i32.const 1)) (i32.eq (local.get $n) (local.get $n4))))
    (local.set $ap4 (i32.shl (local.get $sAp) (i32.const 2)))
    (local.set $bp4 (i32.shl (local.get $sBp) (i32.const 2)))
    (local.set $lda (i32.shl (local.get $sAi) (i32.const 2)))
    (local.set $ldc (i32.shl (local.get $sCi) (i32.const 2)))
    (local.set $bi (i32.const 0))
    (block $batchDone
      (loop $batchLoop
        (br_if $batchDone (i32.ge_u (local.get $bi) (local.get $batch)))
        (if (local.get $direct)
          (then
            (local.set $bbase (i32.add (local.get $b) (i32.shl (i32.mul (local.get $bi) (local.get $sBb)) (i32.const 2))))
            (local.set $ldb (i32.shl (local.get $sBp) (i32.const 2))))
          (else
            (local.set $bbase (local.get $scratch))
            (local.set $ldb (i32.shl (local.get $n4) (i32.const 2)))
            ;; pack B[bi] → scratch (k × n4 row-major), once when B is broadcast: column by column
            ;; (B's columns are the contiguous direction when sBj ≠ 1, e.g. Kᵀ); the zero columns past
            ;; n are written once, with the first batch
            (if (i32.eqz (local.get $bi))
              (then
                (local.set $j (local.get $n))
                (block $pzDone
                  (loop $pz
                    (br_if $pzDone (i32.ge_u (local.get $j) (local.get $n4)))
                    (local.set $dst (i32.add (local.get $scratch) (i32.shl (local.get $j) (i32.const 2))))
                    (local.set $p (local.get $k))
                    (block $pzpDone
                      (loop $pzp
                        (br_if $pzpDone (i32.eqz (local.get $p)))
                        (f32.store (local.get $dst) (f32.const 0))
                        (local.set $dst (i32.add (local.get $dst) (local.get $ldb)))
                        (local.set $p (i32.sub (local.get $p) (i32.const 1)))
                        (br $pzp)))
                    (local.set $j (i32.add (local.get $j) (i32.const 1)))
                    (br $pz)))))
            (if (i32.or (i32.eqz (local.get $bi)) (i32.ne (local.get $sBb) (i32.const 0)))
              (then
                (local.set $j (i32.const 0))
                (block $pbDone
                  (loop $pbJ
                    (br_if $pbDone (i32.ge_u (local.get $j) (local.get $n)))
                    (local.set $src
                      (i32.add (local.get $b)
                        (i32.shl
                          (i32.add (i32.mul (local.get $bi) (local.get $sBb)) (i32.mul (local.get $j) (local.get $sBj)))
                          (i32.const 2))))
                    (local.set $dst (i32.add (local.get $scratch) (i32.shl (local.get $j) (i32.const 2))))
                    (local.set $p (local.get $k))
                    (block $pbPDone
                      (loop $pbP
                        (br_if $pbPDone (i32.eqz (local.get $p)))
                        (f32.store (local.get $dst) (f32.load (local.get $src)))
                        (local.set $dst (i32.add (local.get $dst) (local.get $ldb)))
                        (local.set $src (i32.add (local.get $src) (local.get $bp4)))
                        (local.set $p (i32.sub (local.get $p) (i32.const 1)))
                        (br $pbP)))
                    (local.set $j (i32.add (local.get $j) (i32.const 1)))
                    (br $pbJ)))))))
        (local.set $abase (i32.add (local.get $a) (i32.shl (i32.mul (local.get $bi) (local.get $sAb)) (i32.const 2))))
        (local.set $i (i32.const 0))
        ;; four rows at a time
        (block $r4Done
          (loop $r4
            (br_if $r4Done (i32.gt_u (i32.add (local.get $i) (i32.const 4)) (local.get $m)))
            (local.set $a0 (i32.add (local.get $abase) (i32.mul (local.get $i) (local.get $lda))))
            (local.set $a1 (i32.add (local.get $a0) (local.get $lda)))
            (local.set $a2 (i32.add (local.get $a1) (local.get $lda)))
            (local.set $a3 (i32.add (local.get $a2) (local.get $lda)))
            (local.set $crow (i32.add (local.get $c) (i32.shl
              (i32.add (i32.mul (local.get $bi) (local.get $sCb)) (i32.mul (local.get $i) (local.get $sCi)))
              (i32.const 2))))
            (local.set $j (i32.const 0))
            (block $q8d (loop $q8
              (br_if $q8d (i32.gt_u (i32.add (local.get $j) (i32.const 8)) (local.get $n4)))
              (local.set $c00 (v128.const i32x4 0 0 0 0))
              (local.set $c01 (v128.const i32x4 0 0 0 0))
              (local.set $c10 (v128.const i32x4 0 0 0 0))
              (local.set $c11 (v128.const i32x4 0 0 0 0))
              (local.set $c20 (v128.const i32x4 0 0 0 0))
              (local.set $c21 (v128.const i32x4 0 0 0 0))
              (local.set $c30 (v128.const i32x4 0 0 0 0))
              (local.set $c31 (v128.const i32x4 0 0 0 0))
              (local.set $bptr (i32.add (local.get $bbase) (i32.shl (local.get $j) (i32.const 2))))
              (local.set $pa (i32.const 0))
              (local.set $p (local.get $k))
              (block $qk8d (loop $qk8
                (br_if $qk8d (i32.eqz (local.get $p)))
                (local.set $b0 (v128.load offset=0 (local.get $bptr)))
                (local.set $b1 (v128.load offset=16 (local.get $bptr)))
                (local.set $x (v128.load32_splat (i32.add (local.get $a0) (local.get $pa))))
                (local.set $c00 (f32x4.add (local.get $c00) (f32x4.mul (local.get $x) (local.get $b0))))
                (local.set $c01 (f32x4.add (local.get $c01) (f32x4.mul (local.get $x) (local.get $b1))))
                (local.set $x (v128.load32_splat (i32.add (local.get $a1) (local.get $pa))))
                (local.set $c10 (f32x4.add (local.get $c10) (f32x4.mul (local.get $x) (local.get $b0))))
                (local.set $c11 (f32x4.add (local.get $c11) (f32x4.mul (local.get $x) (local.get $b1))))
                (local.set $x (v128.load32_splat (i32.add (local.get $a2) (local.get $pa))))
                (local.set $c20 (f32x4.add (local.get $c20) (f32x4.mul (local.get $x) (local.get $b0))))
                (local.set $c21 (f32x4.add (local.get $c21) (f32x4.mul (local.get $x) (local.get $b1))))
                (local.set $x (v128.load32_splat (i32.add (local.get $a3) (local.get $pa))))
                (local.set $c30 (f32x4.add (local.get $c30) (f32x4.mul (local.get $x) (local.get $b0))))
                (local.set $c31 (f32x4.add (local.get $c31) (f32x4.mul (local.get $x) (local.get $b1))))
                (local.set $pa (i32.add (local.get $pa) (local.get $ap4)))
                (local.set $bptr (i32.add (local.get $bptr) (local.get $ldb)))
                (local.set $p (i32.sub (local.get $p) (i32.const 1)))
                (br $qk8)))
              (local.set $cout (i32.add (local.get $crow) (i32.shl (local.get $j) (i32.const 2))))
              (call $stv (i32.add (local.get $cout) (i32.const 0)) (local.get $c00) (i32.sub (local.get $n) (i32.add (local.get $j) (i32.const 0))))
              (call $stv (i32.add (local.get $cout) (i32.const 16)) (local.get $c01) (i32.sub (local.get $n) (i32.add (local.get $j) (i32.const 4))))
              (local.set $cout (i32.add (local.get $cout) (local.get $ldc)))
              (call $stv (i32.add (local.get $cout) (i32.const 0)) (local.get $c10) (i32.sub (local.get $n) (i32.add (local.get $j) (i32.const 0))))
              (call $stv (i32.add (local.get $cout) (i32.const 16)) (local.get $c11) (i32.sub (local.get $n) (i32.add (local.get $j) (i32.const 4))))
              (local.set $cout (i32.add (local.get $cout) (local.get $ldc)))
              (call $stv (i32.add (local.get $cout) (i32.const 0)) (local.get $c20) (i32.sub (local.get $n) (i32.add (local.get $j) (i32.const 0))))
              (call $stv (i32.add (local.get $cout) (i32.const 16)) (local.get $c21) (i32.sub (local.get $n) (i32.add (local.get $j) (i32.const 4))))
              (local.set $cout (i32.add (local.get $cout) (local.get $ldc)))
              (call $stv (i32.add (local.get $cout) (i32.const 0)) (local.get $c30) (i32.sub (local.get $n) (i32.add (local.get $j) (i32.const 0))))
              (call $stv (i32.add (local.get $cout) (i32.const 16)) (local.get $c31) (i32.sub (local.get $n) (i32.add (local.get $j) (i32.const 4))))
              (local.set $j (i32.add (local.get $j) (i32.const 8)))
              (br $q8)))
            (if (i32.lt_u (local.get $j) (local.get $n4)) (then
              (local.set $c00 (v128.const i32x4 0 0 0 0))
              (local.set $c10 (v128.const i32x4 0 0 0 0))
              (local.set $c20 (v128.const i32x4 0 0 0 0))
              (local.set $c30 (v128.const i32x4 0 0 0 0))
              (local.set $bptr (i32.add (local.get $bbase) (i32.shl (local.get $j) (i32.const 2))))
              (local.set $pa (i32.const 0))
              (local.set $p (local.get $k))
              (block $qk4d (loop $qk4
                (br_if $qk4d (i32.eqz (local.get $p)))
                (local.set $b0 (v128.load offset=0 (local.get $bptr)))
                (local.set $x (v128.load32_splat (i32.add (local.get $a0) (local.get $pa))))
                (local.set $c00 (f32x4.add (local.get $c00) (f32x4.mul (local.get $x) (local.get $b0))))
                (local.set $x (v128.load32_splat (i32.add (local.get $a1) (local.get $pa))))
                (local.set $c10 (f32x4.add (local.get $c10) (f32x4.mul (local.get $x) (local.get $b0))))
                (local.set $x (v128.load32_splat (i32.add (local.get $a2) (local.get $pa))))
                (local.set $c20 (f32x4.add (local.get $c20) (f32x4.mul (local.get $x) (local.get $b0))))
                (local.set $x (v128.load32_splat (i32.add (local.get $a3) (local.get $pa))))
                (local.set $c30 (f32x4.add (local.get $c30) (f32x4.mul (local.get $x) (local.get $b0))))
                (local.set $pa (i32.add (local.get $pa) (local.get $ap4)))
                (local.set $bptr (i32.add (local.get $bptr) (local.get $ldb)))
                (local.set $p (i32.sub (local.get $p) (i32.const 1)))
                (br $qk4)))
              (local.set $cout (i32.add (local.get $crow) (i32.shl (local.get $j) (i32.const 2))))
              (call $stv (i32.add (local.get $cout) (i32.const 0)) (local.get $c00) (i32.sub (local.get $n) (i32.add (local.get $j) (i32.const 0))))
              (local.set $cout (i32.add (local.get $cout) (local.get $ldc)))
              (call $stv (i32.add (local.get $cout) (i32.const 0)) (local.get $c10) (i32.sub (local.get $n) (i32.add (local.get $j) (i32.const 0))))
              (local.set $cout (i32.add (local.get $cout) (local.get $ldc)))
              (call $stv (i32.add (local.get $cout) (i32.const 0)) (local.get $c20) (i32.sub (local.get $n) (i32.add (local.get $j) (i32.const 0))))
              (local.set $cout (i32.add (local.get $cout) (local.get $ldc)))
              (call $stv (i32.add (local.get $cout) (i32.const 0)) (local.get $c30) (i32.sub (local.get $n) (i32.add (local.get $j) (i32.const 0))))
            ))
            (local.set $i (i32.add (local.get $i) (i32.const 4)))
            (br $r4)))
        ;; the last rows one at a time
        (block $r1Done
          (loop $r1
            (br_if $r1Done (i32.ge_u (local.get $i) (local.get $m)))
            (local.set $a0 (i32.add (local.get $abase) (i32.mul (local.get $i) (local.get $lda))))
            (local.set $crow (i32.add (local.get $c) (i32.shl
              (i32.add (i32.mul (local.get $bi) (local.get $sCb)) (i32.mul (local.get $i) (local.get $sCi)))
              (i32.const 2))))
            (local.set $j (i32.const 0))
            (block $s8d (loop $s8
              (br_if $s8d (i32.gt_u (i32.add (local.get $j) (i32.const 8)) (local.get $n4)))
              (local.set $c00 (v128.const i32x4 0 0 0 0))
              (local.set $c01 (v128.const i32x4 0 0 0 0))
              (local.set $bptr (i32.add (local.get $bbase) (i32.shl (local.get $j) (i32.const 2))))
              (local.set $pa (i32.const 0))
              (local.set $p (local.get $k))
              (block $sk8d (loop $sk8
                (br_if $sk8d (i32.eqz (local.get $p)))
                (local.set $b0 (v128.load offset=0 (local.get $bptr)))
                (local.set $b1 (v128.load offset=16 (local.get $bptr)))
                (local.set $x (v128.load32_splat (i32.add (local.get $a0) (local.get $pa))))
                (local.set $c00 (f32x4.add (local.get $c00) (f32x4.mul (local.get $x) (local.get $b0))))
                (local.set $c01 (f32x4.add (local.get $c01) (f32x4.mul (local.get $x) (local.get $b1))))
                (local.set $pa (i32.add (local.get $pa) (local.get $ap4)))
                (local.set $bptr (i32.add (local.get $bptr) (local.get $ldb)))
                (local.set $p (i32.sub (local.get $p) (i32.const 1)))
                (br $sk8)))
              (local.set $cout (i32.add (local.get $crow) (i32.shl (local.get $j) (i32.const 2))))
              (call $stv (i32.add (local.get $cout) (i32.const 0)) (local.get $c00) (i32.sub (local.get $n) (i32.add (local.get $j) (i32.const 0))))
              (call $stv (i32.add (local.get $cout) (i32.const 16)) (local.get $c01) (i32.sub (local.get $n) (i32.add (local.get $j) (i32.const 4))))
              (local.set $j (i32.add (local.get $j) (i32.const 8)))
              (br $s8)))
            (if (i32.lt_u (local.get $j) (local.get $n4)) (then
              (local.set $c00 (v128.const i32x4 0 0 0 0))
              (local.set $bptr (i32.add (local.get $bbase) (i32.shl (local.get $j) (i32.const 2))))
              (local.set $pa (i32.const 0))
              (local.set $p (local.get $k))
              (block $sk4d (loop $sk4
                (br_if $sk4d (i32.eqz (local.get $p)))
                (local.set $b0 (v128.load offset=0 (local.get $bptr)))
                (local.set $x (v128.load32_splat (i32.add (local.get $a0) (local.get $pa))))
                (local.set $c00 (f32x4.add (local.get $c00) (f32x4.mul (local.get $x) (local.get $b0))))
                (local.set $pa (i32.add (local.get $pa) (local.get $ap4)))
                (local.set $bptr (i32.add (local.get $bptr) (local.get $ldb)))
                (local.set $p (i32.sub (local.get $p) (i32.const 1)))
                (br $sk4)))
              (local.set $cout (i32.add (local.get $crow) (i32.shl (local.get $j) (i32.const 2))))
              (call $stv (i32.add (local.get $cout) (i32.const 0)) (local.get $c00) (i32.sub (local.get $n) (i32.add (local.get $j) (i32.const 0))))
            ))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $r1)))
        (local.set $bi (i32.add (local.get $bi) (i32.const 1)))
        (br $batchLoop))))

  ;; stores the first `valid` lanes of v at addr (all four when valid ≥ 4): C's rows end at n
  ;; @inline
  (func $stv (param $addr i32) (param $v v128) (param $valid i32)
    (if (i32.ge_s (local.get $valid) (i32.const 4))
      (then (v128.store (local.get $addr) (local.get $v)) (return)))
    (f32.store (local.get $addr) (f32x4.extract_lane 0 (local.get $v)))
    (if (i32.ge_s (local.get $valid) (i32.const 2))
      (then (f32.store offset=4 (local.get $addr) (f32x4.extract_lane 1 (local.get $v)))))
    (if (i32.ge_s (local.get $valid) (i32.const 3))
      (then (f32.store offset=8 (local.get $addr) (f32x4.extract_lane 2 (local.get $v))))))

  ;; ---- gemm ----------------------------------------------------------------------------------
  ;; C (+)= A·B in blocks (BLIS order): B packed in 8-column panels (KC = 288 deep, NC = 1024
  ;; wide: the step's products have n ≤ 576, so A is packed once per block of p), A in 5-row panels
  ;; (MC = 100 rows), then a 5 × 8 micro-kernel of ten f32x4 accumulators sums over p in order;
  ;; blocks of p after the first add into C. Transposed operands cost nothing extra: they are read
  ;; through strides while packing.
  ;; Register budget (V8 on x64 allocates 15 of the 16 xmm registers): 10 accumulators, 2 B vectors,
  ;; and rows 0–3 of A as ONE vector whose lanes are broadcast by shuffles (pshufd), row 4 by a
  ;; load-splat: 15 live values. Five load-splats per p (or p unrolled twice) let TurboFan hoist
  ;; the loads and spill five accumulators to the stack every iteration: that kernel ran at 25
  ;; GFLOP/s, this one at 45–50 against a 54–58 f32x4 FMA ceiling (scripts/bench/gemmMicro.mjs).
  ;; Relaxed SIMD: scripts/wasm/build.mjs also emits a second module in which every multiply-add
  ;; `(f32x4.add (local.get $c) (f32x4.mul (local.get $a) (local.get $b)))` between the
  ;; @relaxed-madd markers becomes `f32x4.relaxed_madd` (one FMA where the engine fuses it: fewer
  ;; instructions in the loop, one rounding instead of two); batchMatMul.ts runs it where the
  ;; engine validates it (Chrome ≥ 114; Node 20 with --experimental-wasm-relaxed-simd).
  ;; micro-kernel 5x8: C tile (+)= Apanel[kc x 5] . Bpanel[kc x 8]
  ;; ap: packed A panel (per p: rows 0–3 as one vector; then, from ap + 16·kc, row 4 per p),
  ;; bp: packed B (per p: 8 floats)
  ;; out: destination, ldc in bytes; mode 0 = store, 1 = add to existing; rows: C's rows to store
  ;; (1–5: the last panel of A has zero rows past m, computed and not stored)
  ;; @relaxed-madd begin
  ;; @inline
  (func $micro (param $ap i32) (param $bp i32) (param $kc i32) (param $out i32) (param $ldc i32) (param $mode i32) (param $bias i32) (param $rows i32)
    (local $c00 v128) (local $c01 v128) (local $c10 v128) (local $c11 v128) (local $c20 v128) (local $c21 v128) (local $c30 v128) (local $c31 v128) (local $c40 v128) (local $c41 v128) (local $b0 v128) (local $b1 v128) (local $a v128) (local $av v128) (local $o i32) (local $kk i32) (local $a4 i32)
    (local.set $a4 (i32.add (local.get $ap) (i32.shl (local.get $kc) (i32.const 4))))
    (local.set $kk (local.get $kc))
    (block $lpd (loop $lp
        (br_if $lpd (i32.lt_u (local.get $kk) (i32.const 1)))
        (local.set $b0 (v128.load offset=0 (local.get $bp)))
        (local.set $b1 (v128.load offset=16 (local.get $bp)))
        (local.set $av (v128.load offset=0 (local.get $ap)))
        (local.set $a (i8x16.shuffle 0 1 2 3 0 1 2 3 0 1 2 3 0 1 2 3 (local.get $av) (local.get $av)))
        (local.set $c00 (f32x4.add (local.get $c00) (f32x4.mul (local.get $a) (local.get $b0))))
        (local.set $c01 (f32x4.add (local.get $c01) (f32x4.mul (local.get $a) (local.get $b1))))
        (local.set $a (i8x16.shuffle 4 5 6 7 4 5 6 7 4 5 6 7 4 5 6 7 (local.get $av) (local.get $av)))
        (local.set $c10 (f32x4.add (local.get $c10) (f32x4.mul (local.get $a) (local.get $b0))))
        (local.set $c11 (f32x4.add (local.get $c11) (f32x4.mul (local.get $a) (local.get $b1))))
        (local.set $a (i8x16.shuffle 8 9 10 11 8 9 10 11 8 9 10 11 8 9 10 11 (local.get $av) (local.get $av)))
        (local.set $c20 (f32x4.add (local.get $c20) (f32x4.mul (local.get $a) (local.get $b0))))
        (local.set $c21 (f32x4.add (local.get $c21) (f32x4.mul (local.get $a) (local.get $b1))))
        (local.set $a (i8x16.shuffle 12 13 14 15 12 13 14 15 12 13 14 15 12 13 14 15 (local.get $av) (local.get $av)))
        (local.set $c30 (f32x4.add (local.get $c30) (f32x4.mul (local.get $a) (local.get $b0))))
        (local.set $c31 (f32x4.add (local.get $c31) (f32x4.mul (local.get $a) (local.get $b1))))
        (local.set $a (v128.load32_splat (local.get $a4)))
        (local.set $c40 (f32x4.add (local.get $c40) (f32x4.mul (local.get $a) (local.get $b0))))
        (local.set $c41 (f32x4.add (local.get $c41) (f32x4.mul (local.get $a) (local.get $b1))))
        (local.set $ap (i32.add (local.get $ap) (i32.const 16)))
        (local.set $a4 (i32.add (local.get $a4) (i32.const 4)))
        (local.set $bp (i32.add (local.get $bp) (i32.const 32)))
        (local.set $kk (i32.sub (local.get $kk) (i32.const 1)))
        (br $lp)))
    (local.set $o (local.get $out))
    ;; mode 2: + this tile's 8 bias values on every row (acc + bias: the bits of adding to C = bias)
    (if (i32.eq (local.get $mode) (i32.const 2)) (then
        (local.set $b0 (v128.load (local.get $bias)))
        (local.set $b1 (v128.load offset=16 (local.get $bias)))
        (local.set $c00 (f32x4.add (local.get $c00) (local.get $b0)))
        (local.set $c01 (f32x4.add (local.get $c01) (local.get $b1)))
        (local.set $c10 (f32x4.add (local.get $c10) (local.get $b0)))
        (local.set $c11 (f32x4.add (local.get $c11) (local.get $b1)))
        (local.set $c20 (f32x4.add (local.get $c20) (local.get $b0)))
        (local.set $c21 (f32x4.add (local.get $c21) (local.get $b1)))
        (local.set $c30 (f32x4.add (local.get $c30) (local.get $b0)))
        (local.set $c31 (f32x4.add (local.get $c31) (local.get $b1)))
        (local.set $c40 (f32x4.add (local.get $c40) (local.get $b0)))
        (local.set $c41 (f32x4.add (local.get $c41) (local.get $b1)))))
    (if (i32.eq (local.get $mode) (i32.const 1)) (then
        (local.set $c00 (f32x4.add (local.get $c00) (v128.load (local.get $o))))
        (local.set $c01 (f32x4.add (local.get $c01) (v128.load offset=16 (local.get $o))))
        (if (i32.gt_u (local.get $rows) (i32.const 1)) (then
          (local.set $o (i32.add (local.get $o) (local.get $ldc)))
          (local.set $c10 (f32x4.add (local.get $c10) (v128.load (local.get $o))))
          (local.set $c11 (f32x4.add (local.get $c11) (v128.load offset=16 (local.get $o))))))
        (if (i32.gt_u (local.get $rows) (i32.const 2)) (then
          (local.set $o (i32.add (local.get $o) (local.get $ldc)))
          (local.set $c20 (f32x4.add (local.get $c20) (v128.load (local.get $o))))
          (local.set $c21 (f32x4.add (local.get $c21) (v128.load offset=16 (local.get $o))))))
        (if (i32.gt_u (local.get $rows) (i32.const 3)) (then
          (local.set $o (i32.add (local.get $o) (local.get $ldc)))
          (local.set $c30 (f32x4.add (local.get $c30) (v128.load (local.get $o))))
          (local.set $c31 (f32x4.add (local.get $c31) (v128.load offset=16 (local.get $o))))))
        (if (i32.gt_u (local.get $rows) (i32.const 4)) (then
          (local.set $o (i32.add (local.get $o) (local.get $ldc)))
          (local.set $c40 (f32x4.add (local.get $c40) (v128.load (local.get $o))))
          (local.set $c41 (f32x4.add (local.get $c41) (v128.load offset=16 (local.get $o))))))
        (local.set $o (local.get $out))))
    (v128.store (local.get $o) (local.get $c00))
    (v128.store offset=16 (local.get $o) (local.get $c01))
    (if (i32.gt_u (local.get $rows) (i32.const 1)) (then
      (local.set $o (i32.add (local.get $o) (local.get $ldc)))
      (v128.store (local.get $o) (local.get $c10))
      (v128.store offset=16 (local.get $o) (local.get $c11))))
    (if (i32.gt_u (local.get $rows) (i32.const 2)) (then
      (local.set $o (i32.add (local.get $o) (local.get $ldc)))
      (v128.store (local.get $o) (local.get $c20))
      (v128.store offset=16 (local.get $o) (local.get $c21))))
    (if (i32.gt_u (local.get $rows) (i32.const 3)) (then
      (local.set $o (i32.add (local.get $o) (local.get $ldc)))
      (v128.store (local.get $o) (local.get $c30))
      (v128.store offset=16 (local.get $o) (local.get $c31))))
    (if (i32.gt_u (local.get $rows) (i32.const 4)) (then
      (local.set $o (i32.add (local.get $o) (local.get $ldc)))
      (v128.store (local.get $o) (local.get $c40))
      (v128.store offset=16 (local.get $o) (local.get $c41))))
  )
  ;; @relaxed-madd end

  ;; The 4 × 4 transpose of rows x0..x3 stored as four vectors at d, d + stride, d + 2·stride,
  ;; d + 3·stride (column j of the rows at d + j·stride): the GEMM's packing
  ;; @inline
  (func $store4x4T (param $d i32) (param $stride i32) (param $x0 v128) (param $x1 v128) (param $x2 v128) (param $x3 v128)
    (local $t0 v128) (local $t1 v128) (local $t2 v128) (local $t3 v128)
    (local.set $t0 (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $x0) (local.get $x1)))
    (local.set $t1 (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 (local.get $x0) (local.get $x1)))
    (local.set $t2 (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $x2) (local.get $x3)))
    (local.set $t3 (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 (local.get $x2) (local.get $x3)))
    (v128.store (local.get $d) (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $t0) (local.get $t2)))
    (local.set $d (i32.add (local.get $d) (local.get $stride)))
    (v128.store (local.get $d) (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $t0) (local.get $t2)))
    (local.set $d (i32.add (local.get $d) (local.get $stride)))
    (v128.store (local.get $d) (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $t1) (local.get $t3)))
    (local.set $d (i32.add (local.get $d) (local.get $stride)))
    (v128.store (local.get $d) (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $t1) (local.get $t3))))

  ;; C[m x n] (row-major, contiguous) = A . B (+ C when acc = 1) (+ bias[n] on every row when bias ≠ 0:
  ;; added to the first block of p's sums in the micro-kernel, as C = bias then C += sums would)
  ;; A(i,p) at a + 4*(i*sAi + p*sAp); B(p,j) at b + 4*(p*sBp + j*sBj)
  ;; scratch: packA (MC*KC floats) + packB (KC*NC floats) + tile (48 floats)
  (func (export "gemm")
    (param $a i32) (param $b i32) (param $c i32) (param $scratch i32)
    (param $m i32) (param $k i32) (param $n i32)
    (param $sAi i32) (param $sAp i32) (param $sBp i32) (param $sBj i32) (param $acc i32) (param $bias i32)
    (local $pa i32) (local $bj i32) (local $pb i32) (local $tile i32)
    (local $jc i32) (local $nc i32) (local $pc i32) (local $kc i32) (local $ic i32) (local $mc i32)
    (local $jr i32) (local $ir i32) (local $p i32) (local $i i32) (local $j i32)
    (local $dst i32) (local $src i32) (local $mode i32) (local $rows i32) (local $cols i32)
    (local $out i32) (local $ldc i32) (local $x i32) (local $y i32)
    (local $d4 i32) (local $rs i32) (local $vc i32) (local $r0 v128) (local $r1 v128) (local $r2 v128) (local $r3 v128)
    (local.set $pa (local.get $scratch))
    (local.set $pb (i32.add (local.get $scratch) (i32.const 115200))) ;; MC·KC·4 = 100·288·4
    (local.set $tile (i32.add (local.get $pb) (i32.const 1179648))) ;; KC·NC·4 = 288·1024·4
    (local.set $ldc (i32.shl (local.get $n) (i32.const 2)))
    (local.set $jc (i32.const 0))
    (block $jcDone (loop $jcLoop
      (br_if $jcDone (i32.ge_u (local.get $jc) (local.get $n)))
      (local.set $nc (i32.sub (local.get $n) (local.get $jc)))
      (if (i32.gt_u (local.get $nc) (i32.const 1024)) (then (local.set $nc (i32.const 1024))))
      (local.set $pc (i32.const 0))
      (block $pcDone (loop $pcLoop
        (br_if $pcDone (i32.ge_u (local.get $pc) (local.get $k)))
        (local.set $kc (i32.sub (local.get $k) (local.get $pc)))
        (if (i32.gt_u (local.get $kc) (i32.const 288)) (then (local.set $kc (i32.const 288))))
        ;; pack B[pc:pc+kc, jc:jc+nc] into 8-wide panels: panel jr at pb + jr*kc*4 (jr multiple of 8),
        ;; per p 8 floats, the columns past n zero. Rows of B contiguous (sBj = 1): two vector copies
        ;; per p; columns contiguous (sBp = 1, e.g. Wᵀ): four p of eight columns at a time, transposed
        ;; in registers (4 × 4 blocks); any other layout, and the p left over, one float at a time.
        (local.set $jr (i32.const 0))
        (block $pbDone (loop $pbLoop
          (br_if $pbDone (i32.ge_u (local.get $jr) (local.get $nc)))
          (local.set $dst (i32.add (local.get $pb) (i32.shl (i32.mul (local.get $jr) (local.get $kc)) (i32.const 2))))
          (local.set $cols (i32.sub (local.get $nc) (local.get $jr)))
          (local.set $src (i32.add (local.get $b) (i32.shl
            (i32.add (i32.mul (local.get $pc) (local.get $sBp))
                     (i32.mul (i32.add (local.get $jc) (local.get $jr)) (local.get $sBj))) (i32.const 2))))
          (local.set $rs (i32.shl (local.get $sBj) (i32.const 2))) ;; column stride, bytes
          (local.set $p (i32.const 0))
          (if (i32.ge_u (local.get $cols) (i32.const 8)) (then
            (if (i32.eq (local.get $sBj) (i32.const 1)) (then
              (block $prDone (loop $prLoop
                (br_if $prDone (i32.ge_u (local.get $p) (local.get $kc)))
                (v128.store (local.get $dst) (v128.load (local.get $src)))
                (v128.store offset=16 (local.get $dst) (v128.load offset=16 (local.get $src)))
                (local.set $src (i32.add (local.get $src) (i32.shl (local.get $sBp) (i32.const 2))))
                (local.set $dst (i32.add (local.get $dst) (i32.const 32)))
                (local.set $p (i32.add (local.get $p) (i32.const 1)))
                (br $prLoop))))
              (else (if (i32.eq (local.get $sBp) (i32.const 1)) (then
                (block $pvDone (loop $pvLoop
                  (br_if $pvDone (i32.gt_u (i32.add (local.get $p) (i32.const 4)) (local.get $kc)))
                  (local.set $r0 (v128.load (local.get $src)))
                  (local.set $r1 (v128.load (i32.add (local.get $src) (local.get $rs))))
                  (local.set $r2 (v128.load (i32.add (local.get $src) (i32.shl (local.get $rs) (i32.const 1)))))
                  (local.set $r3 (v128.load (i32.add (local.get $src) (i32.mul (local.get $rs) (i32.const 3)))))
                  (call $store4x4T (local.get $dst) (i32.const 32) (local.get $r0) (local.get $r1) (local.get $r2) (local.get $r3))
                  (local.set $x (i32.add (local.get $src) (i32.shl (local.get $rs) (i32.const 2))))
                  (local.set $r0 (v128.load (local.get $x)))
                  (local.set $r1 (v128.load (i32.add (local.get $x) (local.get $rs))))
                  (local.set $r2 (v128.load (i32.add (local.get $x) (i32.shl (local.get $rs) (i32.const 1)))))
                  (local.set $r3 (v128.load (i32.add (local.get $x) (i32.mul (local.get $rs) (i32.const 3)))))
                  (call $store4x4T (i32.add (local.get $dst) (i32.const 16)) (i32.const 32) (local.get $r0) (local.get $r1) (local.get $r2) (local.get $r3))
                  (local.set $src (i32.add (local.get $src) (i32.const 16)))
                  (local.set $dst (i32.add (local.get $dst) (i32.const 128)))
                  (local.set $p (i32.add (local.get $p) (i32.const 4)))
                  (br $pvLoop)))))))))
          ;; (the p left over: the panel's row zeroed, then its valid columns copied)
          (local.set $vc (select (local.get $cols) (i32.const 8) (i32.lt_u (local.get $cols) (i32.const 8))))
          (block $ppDone (loop $ppLoop
            (br_if $ppDone (i32.ge_u (local.get $p) (local.get $kc)))
            (v128.store offset=0 (local.get $dst) (v128.const i32x4 0 0 0 0))
            (v128.store offset=16 (local.get $dst) (v128.const i32x4 0 0 0 0))
            (local.set $j (i32.const 0))
            (block $pjDone (loop $pjLoop
              (br_if $pjDone (i32.ge_u (local.get $j) (local.get $vc)))
              (f32.store (i32.add (local.get $dst) (i32.shl (local.get $j) (i32.const 2)))
                (f32.load (i32.add (local.get $src) (i32.mul (local.get $j) (local.get $rs)))))
              (local.set $j (i32.add (local.get $j) (i32.const 1)))
              (br $pjLoop)))
            (local.set $src (i32.add (local.get $src) (i32.shl (local.get $sBp) (i32.const 2))))
            (local.set $dst (i32.add (local.get $dst) (i32.const 32)))
            (local.set $p (i32.add (local.get $p) (i32.const 1)))
            (br $ppLoop)))
          (local.set $jr (i32.add (local.get $jr) (i32.const 8)))
          (br $pbLoop)))
        (local.set $mode
          (select (i32.const 1)
            (select (i32.const 2) (i32.const 0) (local.get $bias))
            (i32.or (local.get $acc) (i32.ne (local.get $pc) (i32.const 0)))))
        (local.set $ic (i32.const 0))
        (block $icDone (loop $icLoop
          (br_if $icDone (i32.ge_u (local.get $ic) (local.get $m)))
          (local.set $mc (i32.sub (local.get $m) (local.get $ic)))
          (if (i32.gt_u (local.get $mc) (i32.const 100)) (then (local.set $mc (i32.const 100))))
          ;; pack A[ic:ic+mc, pc:pc+kc] into 5-row panels: panel ir at pa + ir*kc*4 (ir multiple of 5),
          ;; rows 0–3 of each p as one vector (16 bytes per p), then from panel + 16·kc row 4 of each p;
          ;; rows past m are zero. Rows of A contiguous (sAp = 1): four p of rows 0–3 at a time,
          ;; transposed in registers; columns contiguous (sAi = 1, e.g. xᵀ): rows 0–3 of a p are one
          ;; vector; any other layout, and the p left over, one float at a time.
          (local.set $ir (i32.const 0))
          (block $paDone (loop $paLoop
            (br_if $paDone (i32.ge_u (local.get $ir) (local.get $mc)))
            (local.set $rows (i32.sub (local.get $mc) (local.get $ir)))
            (local.set $dst (i32.add (local.get $pa) (i32.shl (i32.mul (local.get $ir) (local.get $kc)) (i32.const 2))))
            (local.set $d4 (i32.add (local.get $dst) (i32.shl (local.get $kc) (i32.const 4))))
            (local.set $src (i32.add (local.get $a) (i32.shl
              (i32.add (i32.mul (i32.add (local.get $ic) (local.get $ir)) (local.get $sAi))
                       (i32.mul (local.get $pc) (local.get $sAp))) (i32.const 2))))
            (local.set $rs (i32.shl (local.get $sAi) (i32.const 2))) ;; row stride, bytes
            (local.set $p (i32.const 0))
            (if (i32.ge_u (local.get $rows) (i32.const 5)) (then
              (if (i32.eq (local.get $sAp) (i32.const 1)) (then
                (block $avDone (loop $avLoop
                  (br_if $avDone (i32.gt_u (i32.add (local.get $p) (i32.const 4)) (local.get $kc)))
                  (local.set $r0 (v128.load (local.get $src)))
                  (local.set $r1 (v128.load (i32.add (local.get $src) (local.get $rs))))
                  (local.set $r2 (v128.load (i32.add (local.get $src) (i32.shl (local.get $rs) (i32.const 1)))))
                  (local.set $r3 (v128.load (i32.add (local.get $src) (i32.mul (local.get $rs) (i32.const 3)))))
                  (v128.store (local.get $d4) (v128.load (i32.add (local.get $src) (i32.shl (local.get $rs) (i32.const 2)))))
                  (call $store4x4T (local.get $dst) (i32.const 16) (local.get $r0) (local.get $r1) (local.get $r2) (local.get $r3))
                  (local.set $src (i32.add (local.get $src) (i32.const 16)))
                  (local.set $dst (i32.add (local.get $dst) (i32.const 64)))
                  (local.set $d4 (i32.add (local.get $d4) (i32.const 16)))
                  (local.set $p (i32.add (local.get $p) (i32.const 4)))
                  (br $avLoop)))))
              (if (i32.eq (local.get $sAi) (i32.const 1)) (then
                (block $acDone (loop $acLoop
                  (br_if $acDone (i32.ge_u (local.get $p) (local.get $kc)))
                  (v128.store (local.get $dst) (v128.load (local.get $src)))
                  (f32.store (local.get $d4) (f32.load offset=16 (local.get $src)))
                  (local.set $src (i32.add (local.get $src) (i32.shl (local.get $sAp) (i32.const 2))))
                  (local.set $dst (i32.add (local.get $dst) (i32.const 16)))
                  (local.set $d4 (i32.add (local.get $d4) (i32.const 4)))
                  (local.set $p (i32.add (local.get $p) (i32.const 1)))
                  (br $acLoop)))))))
            ;; (the p left over, and the last panel's rows: rows 0–3 zeroed, then the valid ones copied)
            (local.set $vc (select (local.get $rows) (i32.const 4) (i32.lt_u (local.get $rows) (i32.const 4))))
            (block $asDone (loop $asLoop
              (br_if $asDone (i32.ge_u (local.get $p) (local.get $kc)))
              (v128.store (local.get $dst) (v128.const i32x4 0 0 0 0))
              (local.set $i (i32.const 0))
              (block $aiDone (loop $aiLoop
                (br_if $aiDone (i32.ge_u (local.get $i) (local.get $vc)))
                (f32.store (i32.add (local.get $dst) (i32.shl (local.get $i) (i32.const 2)))
                  (f32.load (i32.add (local.get $src) (i32.mul (local.get $i) (local.get $rs)))))
                (local.set $i (i32.add (local.get $i) (i32.const 1)))
                (br $aiLoop)))
              (f32.store (local.get $d4)
                (if (result f32) (i32.gt_u (local.get $rows) (i32.const 4))
                  (then (f32.load (i32.add (local.get $src) (i32.shl (local.get $rs) (i32.const 2)))))
                  (else (f32.const 0))))
              (local.set $src (i32.add (local.get $src) (i32.shl (local.get $sAp) (i32.const 2))))
              (local.set $dst (i32.add (local.get $dst) (i32.const 16)))
              (local.set $d4 (i32.add (local.get $d4) (i32.const 4)))
              (local.set $p (i32.add (local.get $p) (i32.const 1)))
              (br $asLoop)))
            (local.set $ir (i32.add (local.get $ir) (i32.const 5)))
            (br $paLoop)))
          ;; tiles
          (local.set $jr (i32.const 0))
          (block $jrDone (loop $jrLoop
            (br_if $jrDone (i32.ge_u (local.get $jr) (local.get $nc)))
            (local.set $cols (i32.sub (local.get $nc) (local.get $jr)))
            (local.set $ir (i32.const 0))
            (block $irDone (loop $irLoop
              (br_if $irDone (i32.ge_u (local.get $ir) (local.get $mc)))
              (local.set $rows (i32.sub (local.get $mc) (local.get $ir)))
              (local.set $out (i32.add (local.get $c) (i32.shl
                 (i32.add (i32.mul (i32.add (local.get $ic) (local.get $ir)) (local.get $n)) (i32.add (local.get $jc) (local.get $jr))) (i32.const 2))))
              (local.set $bj (i32.add (local.get $bias) (i32.shl (i32.add (local.get $jc) (local.get $jr)) (i32.const 2))))
              (if (i32.ge_u (local.get $cols) (i32.const 8))
                (then
                  (call $micro
                    (i32.add (local.get $pa) (i32.shl (i32.mul (local.get $ir) (local.get $kc)) (i32.const 2)))
                    (i32.add (local.get $pb) (i32.shl (i32.mul (local.get $jr) (local.get $kc)) (i32.const 2)))
                    (local.get $kc) (local.get $out) (local.get $ldc) (local.get $mode) (local.get $bj)
                    (select (local.get $rows) (i32.const 5) (i32.lt_u (local.get $rows) (i32.const 5)))))
                (else
                  ;; edge tile (fewer than 8 columns): compute into tile (stride 32 bytes), then
                  ;; copy/add the valid part
                  (call $micro
                    (i32.add (local.get $pa) (i32.shl (i32.mul (local.get $ir) (local.get $kc)) (i32.const 2)))
                    (i32.add (local.get $pb) (i32.shl (i32.mul (local.get $jr) (local.get $kc)) (i32.const 2)))
                    (local.get $kc) (local.get $tile) (i32.const 32) (i32.const 0) (i32.const 0) (i32.const 5))
                  (local.set $y (i32.const 0))
                  (block $eyDone (loop $eyLoop
                    (br_if $eyDone (i32.or (i32.ge_u (local.get $y) (i32.const 5)) (i32.ge_u (local.get $y) (local.get $rows))))
                    (local.set $x (i32.const 0))
                    (block $exDone (loop $exLoop
                      (br_if $exDone (i32.or (i32.ge_u (local.get $x) (i32.const 8)) (i32.ge_u (local.get $x) (local.get $cols))))
                      (local.set $dst (i32.add (local.get $out) (i32.add (i32.mul (local.get $y) (local.get $ldc)) (i32.shl (local.get $x) (i32.const 2)))))
                      (local.set $src (i32.add (local.get $tile) (i32.shl (i32.add (i32.shl (local.get $y) (i32.const 3)) (local.get $x)) (i32.const 2))))
                      (if (i32.eq (local.get $mode) (i32.const 1))
                        (then (f32.store (local.get $dst) (f32.add (f32.load (local.get $dst)) (f32.load (local.get $src)))))
                        (else (if (i32.eq (local.get $mode) (i32.const 2))
                          (then (f32.store (local.get $dst)
                            (f32.add (f32.load (i32.add (local.get $bj) (i32.shl (local.get $x) (i32.const 2)))) (f32.load (local.get $src)))))
                          (else (f32.store (local.get $dst) (f32.load (local.get $src)))))))
                      (local.set $x (i32.add (local.get $x) (i32.const 1)))
                      (br $exLoop)))
                    (local.set $y (i32.add (local.get $y) (i32.const 1)))
                    (br $eyLoop)))))
              (local.set $ir (i32.add (local.get $ir) (i32.const 5)))
              (br $irLoop)))
            (local.set $jr (i32.add (local.get $jr) (i32.const 8)))
            (br $jrLoop)))
          (local.set $ic (i32.add (local.get $ic) (i32.const 100)))
          (br $icLoop)))
        (local.set $pc (i32.add (local.get $pc) (i32.const 288)))
        (br $pcLoop)))
      (local.set $jc (i32.add (local.get $jc) (i32.const 1024)))
      (br $jcLoop)))
  )

  ;; ---- element-wise kernels of the FT-Transformer (fusedKernels.ts) ----------------------------

  ;; horizontal sum of the 4 lanes
  ;; @inline
  (func $hsum (param $v v128) (result f32)
    (f32.add
      (f32.add (f32x4.extract_lane 0 (local.get $v)) (f32x4.extract_lane 1 (local.get $v)))
      (f32.add (f32x4.extract_lane 2 (local.get $v)) (f32x4.extract_lane 3 (local.get $v)))))

  ;; @inline
  (func $hmax (param $v v128) (result f32)
    (f32.max
      (f32.max (f32x4.extract_lane 0 (local.get $v)) (f32x4.extract_lane 1 (local.get $v)))
      (f32.max (f32x4.extract_lane 2 (local.get $v)) (f32x4.extract_lane 3 (local.get $v)))))

  ;; lowbias32 on 4 lanes
  ;; @inline
  (func $lb4 (param $x v128) (result v128)
    (local.set $x (v128.xor (local.get $x) (i32x4.shr_u (local.get $x) (i32.const 16))))
    (local.set $x (i32x4.mul (local.get $x) (v128.const i32x4 0x21f0aaad 0x21f0aaad 0x21f0aaad 0x21f0aaad)))
    (local.set $x (v128.xor (local.get $x) (i32x4.shr_u (local.get $x) (i32.const 15))))
    (local.set $x (i32x4.mul (local.get $x) (v128.const i32x4 0x735a2d97 0x735a2d97 0x735a2d97 0x735a2d97)))
    (v128.xor (local.get $x) (i32x4.shr_u (local.get $x) (i32.const 15))))

  ;; @inline
  (func $lb1 (param $x i32) (result i32)
    (local.set $x (i32.xor (local.get $x) (i32.shr_u (local.get $x) (i32.const 16))))
    (local.set $x (i32.mul (local.get $x) (i32.const 0x21f0aaad)))
    (local.set $x (i32.xor (local.get $x) (i32.shr_u (local.get $x) (i32.const 15))))
    (local.set $x (i32.mul (local.get $x) (i32.const 0x735a2d97)))
    (i32.xor (local.get $x) (i32.shr_u (local.get $x) (i32.const 15))))

  ;; dropout of 4 values whose element indices are i..i+3: kept → v·keep, dropped → 0 (dropout.ts)
  ;; @inline
  (func $drop4 (param $v v128) (param $i i32) (param $ka i32) (param $kb i32) (param $cut i32) (param $keep f32) (result v128)
    (local $h v128)
    (local.set $h (i32x4.add (i32x4.splat (i32.add (local.get $i) (local.get $ka)))
      (v128.const i32x4 0 1 2 3)))
    (local.set $h (call $lb4 (v128.xor (call $lb4 (local.get $h)) (i32x4.splat (local.get $kb)))))
    (v128.and
      (i32x4.ge_u (local.get $h) (i32x4.splat (local.get $cut)))
      (f32x4.mul (local.get $v) (f32x4.splat (local.get $keep)))))

  ;; @inline
  (func $drop1 (param $v f32) (param $i i32) (param $ka i32) (param $kb i32) (param $cut i32) (param $keep f32) (result f32)
    (select
      (f32.mul (local.get $v) (local.get $keep))
      (f32.const 0)
      (i32.ge_u
        (call $lb1 (i32.xor (call $lb1 (i32.add (local.get $i) (local.get $ka))) (local.get $kb)))
        (local.get $cut))))

  ;; exp on 4 lanes for x ≤ 88 (Cephes expf: n = round(x·log2 e), r = x − n·ln 2, degree-5 polynomial)
  ;; @inline
  (func $exp4 (param $x v128) (result v128)
    (local $fx v128) (local $y v128) (local $z v128)
    (local.set $x (f32x4.max (local.get $x) (v128.const f32x4 -87.3 -87.3 -87.3 -87.3)))
    (local.set $fx (f32x4.floor (f32x4.add
      (f32x4.mul (local.get $x) (v128.const f32x4 1.44269504088896341 1.44269504088896341 1.44269504088896341 1.44269504088896341))
      (v128.const f32x4 0.5 0.5 0.5 0.5))))
    (local.set $x (f32x4.sub (local.get $x) (f32x4.mul (local.get $fx) (v128.const f32x4 0.693359375 0.693359375 0.693359375 0.693359375))))
    (local.set $x (f32x4.sub (local.get $x) (f32x4.mul (local.get $fx) (v128.const f32x4 -2.12194440e-4 -2.12194440e-4 -2.12194440e-4 -2.12194440e-4))))
    (local.set $z (f32x4.mul (local.get $x) (local.get $x)))
    (local.set $y (v128.const f32x4 1.9875691500e-4 1.9875691500e-4 1.9875691500e-4 1.9875691500e-4))
    (local.set $y (f32x4.add (f32x4.mul (local.get $y) (local.get $x)) (v128.const f32x4 1.3981999507e-3 1.3981999507e-3 1.3981999507e-3 1.3981999507e-3)))
    (local.set $y (f32x4.add (f32x4.mul (local.get $y) (local.get $x)) (v128.const f32x4 8.3334519073e-3 8.3334519073e-3 8.3334519073e-3 8.3334519073e-3)))
    (local.set $y (f32x4.add (f32x4.mul (local.get $y) (local.get $x)) (v128.const f32x4 4.1665795894e-2 4.1665795894e-2 4.1665795894e-2 4.1665795894e-2)))
    (local.set $y (f32x4.add (f32x4.mul (local.get $y) (local.get $x)) (v128.const f32x4 1.6666665459e-1 1.6666665459e-1 1.6666665459e-1 1.6666665459e-1)))
    (local.set $y (f32x4.add (f32x4.mul (local.get $y) (local.get $x)) (v128.const f32x4 5.0000001201e-1 5.0000001201e-1 5.0000001201e-1 5.0000001201e-1)))
    (local.set $y (f32x4.add (f32x4.add (f32x4.mul (local.get $y) (local.get $z)) (local.get $x)) (v128.const f32x4 1 1 1 1)))
    ;; 2^n from the exponent bits
    (f32x4.mul (local.get $y)
      (i32x4.shl (i32x4.add (i32x4.trunc_sat_f32x4_s (local.get $fx)) (v128.const i32x4 127 127 127 127)) (i32.const 23))))

  ;; @inline
  (func $exp1 (param $x f32) (result f32)
    (f32x4.extract_lane 0 (call $exp4 (f32x4.splat (local.get $x)))))

  ;; LayerNorm over rows of D: y = (x − mean)·rsqrt(var + eps)·g + b
  (func (export "ln_fwd") (param $x i32) (param $g i32) (param $b i32) (param $y i32)
    (param $M i32) (param $D i32) (param $eps f32)
    (local $r i32) (local $j i32) (local $D4 i32) (local $o i32) (local $q i32)
    (local $acc v128) (local $mean f32) (local $var f32) (local $rs f32) (local $c f32)
    (local $vm v128) (local $vr v128) (local $v v128)
    (local.set $D4 (i32.and (local.get $D) (i32.const -4)))
    (local.set $r (i32.const 0))
    (block $rd (loop $rl
      (br_if $rd (i32.ge_u (local.get $r) (local.get $M)))
      (local.set $o (i32.add (local.get $x) (i32.shl (i32.mul (local.get $r) (local.get $D)) (i32.const 2))))
      (local.set $q (i32.add (local.get $y) (i32.shl (i32.mul (local.get $r) (local.get $D)) (i32.const 2))))
      ;; mean
      (local.set $acc (v128.const i32x4 0 0 0 0))
      (local.set $j (i32.const 0))
      (block $d1 (loop $l1
        (br_if $d1 (i32.ge_u (local.get $j) (local.get $D4)))
        (local.set $acc (f32x4.add (local.get $acc) (v128.load (i32.add (local.get $o) (i32.shl (local.get $j) (i32.const 2))))))
        (local.set $j (i32.add (local.get $j) (i32.const 4)))
        (br $l1)))
      (local.set $mean (call $hsum (local.get $acc)))
      (block $d1t (loop $l1t
        (br_if $d1t (i32.ge_u (local.get $j) (local.get $D)))
        (local.set $mean (f32.add (local.get $mean) (f32.load (i32.add (local.get $o) (i32.shl (local.get $j) (i32.const 2))))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $l1t)))
      (local.set $mean (f32.div (local.get $mean) (f32.convert_i32_u (local.get $D))))
      (local.set $vm (f32x4.splat (local.get $mean)))
      ;; variance
      (local.set $acc (v128.const i32x4 0 0 0 0))
      (local.set $j (i32.const 0))
      (block $d2 (loop $l2
        (br_if $d2 (i32.ge_u (local.get $j) (local.get $D4)))
        (local.set $v (f32x4.sub (v128.load (i32.add (local.get $o) (i32.shl (local.get $j) (i32.const 2)))) (local.get $vm)))
        (local.set $acc (f32x4.add (local.get $acc) (f32x4.mul (local.get $v) (local.get $v))))
        (local.set $j (i32.add (local.get $j) (i32.const 4)))
        (br $l2)))
      (local.set $var (call $hsum (local.get $acc)))
      (block $d2t (loop $l2t
        (br_if $d2t (i32.ge_u (local.get $j) (local.get $D)))
        (local.set $c (f32.sub (f32.load (i32.add (local.get $o) (i32.shl (local.get $j) (i32.const 2)))) (local.get $mean)))
        (local.set $var (f32.add (local.get $var) (f32.mul (local.get $c) (local.get $c))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $l2t)))
      (local.set $rs (f32.div (f32.const 1)
        (f32.sqrt (f32.add (f32.div (local.get $var) (f32.convert_i32_u (local.get $D))) (local.get $eps)))))
      (local.set $vr (f32x4.splat (local.get $rs)))
      ;; output
      (local.set $j (i32.const 0))
      (block $d3 (loop $l3
        (br_if $d3 (i32.ge_u (local.get $j) (local.get $D4)))
        (v128.store (i32.add (local.get $q) (i32.shl (local.get $j) (i32.const 2)))
          (f32x4.add
            (f32x4.mul
              (f32x4.mul (f32x4.sub (v128.load (i32.add (local.get $o) (i32.shl (local.get $j) (i32.const 2)))) (local.get $vm)) (local.get $vr))
              (v128.load (i32.add (local.get $g) (i32.shl (local.get $j) (i32.const 2)))))
            (v128.load (i32.add (local.get $b) (i32.shl (local.get $j) (i32.const 2))))))
        (local.set $j (i32.add (local.get $j) (i32.const 4)))
        (br $l3)))
      (block $d3t (loop $l3t
        (br_if $d3t (i32.ge_u (local.get $j) (local.get $D)))
        (f32.store (i32.add (local.get $q) (i32.shl (local.get $j) (i32.const 2)))
          (f32.add
            (f32.mul
              (f32.mul (f32.sub (f32.load (i32.add (local.get $o) (i32.shl (local.get $j) (i32.const 2)))) (local.get $mean)) (local.get $rs))
              (f32.load (i32.add (local.get $g) (i32.shl (local.get $j) (i32.const 2)))))
            (f32.load (i32.add (local.get $b) (i32.shl (local.get $j) (i32.const 2))))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $l3t)))
      (local.set $r (i32.add (local.get $r) (i32.const 1)))
      (br $rl))))

  ;; Backward of ln_fwd: dx = rs·(dy·g − mean(dy·g) − x̂·mean(dy·g·x̂)) (+ dres when dres ≠ 0),
  ;; dg = Σ_rows dy·x̂, db = Σ_rows dy (dg, db: D floats each, overwritten).
  (func (export "ln_bwd") (param $x i32) (param $g i32) (param $dy i32) (param $dres i32)
    (param $dx i32) (param $dg i32) (param $db i32) (param $M i32) (param $D i32) (param $eps f32)
    (local $r i32) (local $j i32) (local $D4 i32) (local $o i32) (local $a i32)
    (local $acc v128) (local $acc2 v128) (local $mean f32) (local $var f32) (local $rs f32) (local $c f32)
    (local $vm v128) (local $vr v128) (local $v v128) (local $h v128) (local $e v128) (local $d v128)
    (local $m1 f32) (local $m2 f32) (local $hs f32) (local $es f32) (local $ds f32) (local $off i32)
    (local.set $D4 (i32.and (local.get $D) (i32.const -4)))
    (memory.fill (local.get $dg) (i32.const 0) (i32.shl (local.get $D) (i32.const 2)))
    (memory.fill (local.get $db) (i32.const 0) (i32.shl (local.get $D) (i32.const 2)))
    (local.set $r (i32.const 0))
    (block $rd (loop $rl
      (br_if $rd (i32.ge_u (local.get $r) (local.get $M)))
      (local.set $off (i32.shl (i32.mul (local.get $r) (local.get $D)) (i32.const 2)))
      (local.set $o (i32.add (local.get $x) (local.get $off)))
      ;; mean, variance (as ln_fwd)
      (local.set $acc (v128.const i32x4 0 0 0 0))
      (local.set $j (i32.const 0))
      (block $d1 (loop $l1
        (br_if $d1 (i32.ge_u (local.get $j) (local.get $D4)))
        (local.set $acc (f32x4.add (local.get $acc) (v128.load (i32.add (local.get $o) (i32.shl (local.get $j) (i32.const 2))))))
        (local.set $j (i32.add (local.get $j) (i32.const 4)))
        (br $l1)))
      (local.set $mean (call $hsum (local.get $acc)))
      (block $d1t (loop $l1t
        (br_if $d1t (i32.ge_u (local.get $j) (local.get $D)))
        (local.set $mean (f32.add (local.get $mean) (f32.load (i32.add (local.get $o) (i32.shl (local.get $j) (i32.const 2))))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $l1t)))
      (local.set $mean (f32.div (local.get $mean) (f32.convert_i32_u (local.get $D))))
      (local.set $vm (f32x4.splat (local.get $mean)))
      (local.set $acc (v128.const i32x4 0 0 0 0))
      (local.set $j (i32.const 0))
      (block $d2 (loop $l2
        (br_if $d2 (i32.ge_u (local.get $j) (local.get $D4)))
        (local.set $v (f32x4.sub (v128.load (i32.add (local.get $o) (i32.shl (local.get $j) (i32.const 2)))) (local.get $vm)))
        (local.set $acc (f32x4.add (local.get $acc) (f32x4.mul (local.get $v) (local.get $v))))
        (local.set $j (i32.add (local.get $j) (i32.const 4)))
        (br $l2)))
      (local.set $var (call $hsum (local.get $acc)))
      (block $d2t (loop $l2t
        (br_if $d2t (i32.ge_u (local.get $j) (local.get $D)))
        (local.set $c (f32.sub (f32.load (i32.add (local.get $o) (i32.shl (local.get $j) (i32.const 2)))) (local.get $mean)))
        (local.set $var (f32.add (local.get $var) (f32.mul (local.get $c) (local.get $c))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $l2t)))
      (local.set $rs (f32.div (f32.const 1)
        (f32.sqrt (f32.add (f32.div (local.get $var) (f32.convert_i32_u (local.get $D))) (local.get $eps)))))
      (local.set $vr (f32x4.splat (local.get $rs)))
      ;; m1 = Σ dy·g, m2 = Σ dy·g·x̂; dg += dy·x̂; db += dy
      (local.set $acc (v128.const i32x4 0 0 0 0))
      (local.set $acc2 (v128.const i32x4 0 0 0 0))
      (local.set $j (i32.const 0))
      (block $d3 (loop $l3
        (br_if $d3 (i32.ge_u (local.get $j) (local.get $D4)))
        (local.set $a (i32.shl (local.get $j) (i32.const 2)))
        (local.set $h (f32x4.mul (f32x4.sub (v128.load (i32.add (local.get $o) (local.get $a))) (local.get $vm)) (local.get $vr)))
        (local.set $e (v128.load (i32.add (i32.add (local.get $dy) (local.get $off)) (local.get $a))))
        (local.set $d (f32x4.mul (local.get $e) (v128.load (i32.add (local.get $g) (local.get $a)))))
        (local.set $acc (f32x4.add (local.get $acc) (local.get $d)))
        (local.set $acc2 (f32x4.add (local.get $acc2) (f32x4.mul (local.get $d) (local.get $h))))
        (v128.store (i32.add (local.get $dg) (local.get $a))
          (f32x4.add (v128.load (i32.add (local.get $dg) (local.get $a))) (f32x4.mul (local.get $e) (local.get $h))))
        (v128.store (i32.add (local.get $db) (local.get $a))
          (f32x4.add (v128.load (i32.add (local.get $db) (local.get $a))) (local.get $e)))
        (local.set $j (i32.add (local.get $j) (i32.const 4)))
        (br $l3)))
      (local.set $m1 (call $hsum (local.get $acc)))
      (local.set $m2 (call $hsum (local.get $acc2)))
      (block $d3t (loop $l3t
        (br_if $d3t (i32.ge_u (local.get $j) (local.get $D)))
        (local.set $a (i32.shl (local.get $j) (i32.const 2)))
        (local.set $hs (f32.mul (f32.sub (f32.load (i32.add (local.get $o) (local.get $a))) (local.get $mean)) (local.get $rs)))
        (local.set $es (f32.load (i32.add (i32.add (local.get $dy) (local.get $off)) (local.get $a))))
        (local.set $ds (f32.mul (local.get $es) (f32.load (i32.add (local.get $g) (local.get $a)))))
        (local.set $m1 (f32.add (local.get $m1) (local.get $ds)))
        (local.set $m2 (f32.add (local.get $m2) (f32.mul (local.get $ds) (local.get $hs))))
        (f32.store (i32.add (local.get $dg) (local.get $a))
          (f32.add (f32.load (i32.add (local.get $dg) (local.get $a))) (f32.mul (local.get $es) (local.get $hs))))
        (f32.store (i32.add (local.get $db) (local.get $a))
          (f32.add (f32.load (i32.add (local.get $db) (local.get $a))) (local.get $es)))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $l3t)))
      (local.set $m1 (f32.div (local.get $m1) (f32.convert_i32_u (local.get $D))))
      (local.set $m2 (f32.div (local.get $m2) (f32.convert_i32_u (local.get $D))))
      ;; dx
      (local.set $j (i32.const 0))
      (block $d4 (loop $l4
        (br_if $d4 (i32.ge_u (local.get $j) (local.get $D4)))
        (local.set $a (i32.add (local.get $off) (i32.shl (local.get $j) (i32.const 2))))
        (local.set $h (f32x4.mul (f32x4.sub (v128.load (i32.add (local.get $x) (local.get $a))) (local.get $vm)) (local.get $vr)))
        (local.set $d (f32x4.mul (v128.load (i32.add (local.get $dy) (local.get $a)))
          (v128.load (i32.add (local.get $g) (i32.shl (local.get $j) (i32.const 2))))))
        (local.set $v (f32x4.mul (local.get $vr)
          (f32x4.sub (f32x4.sub (local.get $d) (f32x4.splat (local.get $m1))) (f32x4.mul (local.get $h) (f32x4.splat (local.get $m2))))))
        (if (local.get $dres)
          (then (local.set $v (f32x4.add (local.get $v) (v128.load (i32.add (local.get $dres) (local.get $a)))))))
        (v128.store (i32.add (local.get $dx) (local.get $a)) (local.get $v))
        (local.set $j (i32.add (local.get $j) (i32.const 4)))
        (br $l4)))
      (block $d4t (loop $l4t
        (br_if $d4t (i32.ge_u (local.get $j) (local.get $D)))
        (local.set $a (i32.add (local.get $off) (i32.shl (local.get $j) (i32.const 2))))
        (local.set $hs (f32.mul (f32.sub (f32.load (i32.add (local.get $x) (local.get $a))) (local.get $mean)) (local.get $rs)))
        (local.set $ds (f32.mul (f32.load (i32.add (local.get $dy) (local.get $a)))
          (f32.load (i32.add (local.get $g) (i32.shl (local.get $j) (i32.const 2))))))
        (local.set $c (f32.mul (local.get $rs) (f32.sub (f32.sub (local.get $ds) (local.get $m1)) (f32.mul (local.get $hs) (local.get $m2)))))
        (if (local.get $dres)
          (then (local.set $c (f32.add (local.get $c) (f32.load (i32.add (local.get $dres) (local.get $a)))))))
        (f32.store (i32.add (local.get $dx) (local.get $a)) (local.get $c))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $l4t)))
      (local.set $r (i32.add (local.get $r) (i32.const 1)))
      (br $rl))))

  ;; p = softmax(scale·s) per row of n; pd = dropout(p) (element index = flat index); pd may be 0 (none)
  (func (export "smd_fwd") (param $s i32) (param $p i32) (param $pd i32) (param $R i32) (param $n i32)
    (param $scale f32) (param $cut i32) (param $ka i32) (param $kb i32) (param $keep f32)
    (local $r i32) (local $j i32) (local $n4 i32) (local $o i32) (local $a i32)
    (local $vs v128) (local $vmax v128) (local $acc v128) (local $v v128)
    (local $mx f32) (local $sum f32) (local $inv f32) (local $t f32)
    (local.set $n4 (i32.and (local.get $n) (i32.const -4)))
    (local.set $vs (f32x4.splat (local.get $scale)))
    (local.set $r (i32.const 0))
    (block $rd (loop $rl
      (br_if $rd (i32.ge_u (local.get $r) (local.get $R)))
      (local.set $o (i32.shl (i32.mul (local.get $r) (local.get $n)) (i32.const 2)))
      ;; max of scale·s
      (local.set $vmax (v128.const f32x4 -inf -inf -inf -inf))
      (local.set $j (i32.const 0))
      (block $d1 (loop $l1
        (br_if $d1 (i32.ge_u (local.get $j) (local.get $n4)))
        (local.set $vmax (f32x4.max (local.get $vmax)
          (f32x4.mul (v128.load (i32.add (local.get $s) (i32.add (local.get $o) (i32.shl (local.get $j) (i32.const 2))))) (local.get $vs))))
        (local.set $j (i32.add (local.get $j) (i32.const 4)))
        (br $l1)))
      (local.set $mx (call $hmax (local.get $vmax)))
      (block $d1t (loop $l1t
        (br_if $d1t (i32.ge_u (local.get $j) (local.get $n)))
        (local.set $mx (f32.max (local.get $mx)
          (f32.mul (f32.load (i32.add (local.get $s) (i32.add (local.get $o) (i32.shl (local.get $j) (i32.const 2))))) (local.get $scale))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $l1t)))
      ;; e = exp(scale·s − max) into p, and the sum
      (local.set $vmax (f32x4.splat (local.get $mx)))
      (local.set $acc (v128.const i32x4 0 0 0 0))
      (local.set $j (i32.const 0))
      (block $d2 (loop $l2
        (br_if $d2 (i32.ge_u (local.get $j) (local.get $n4)))
        (local.set $a (i32.add (local.get $o) (i32.shl (local.get $j) (i32.const 2))))
        (local.set $v (call $exp4 (f32x4.sub (f32x4.mul (v128.load (i32.add (local.get $s) (local.get $a))) (local.get $vs)) (local.get $vmax))))
        (v128.store (i32.add (local.get $p) (local.get $a)) (local.get $v))
        (local.set $acc (f32x4.add (local.get $acc) (local.get $v)))
        (local.set $j (i32.add (local.get $j) (i32.const 4)))
        (br $l2)))
      (local.set $sum (call $hsum (local.get $acc)))
      (block $d2t (loop $l2t
        (br_if $d2t (i32.ge_u (local.get $j) (local.get $n)))
        (local.set $a (i32.add (local.get $o) (i32.shl (local.get $j) (i32.const 2))))
        (local.set $t (call $exp1 (f32.sub (f32.mul (f32.load (i32.add (local.get $s) (local.get $a))) (local.get $scale)) (local.get $mx))))
        (f32.store (i32.add (local.get $p) (local.get $a)) (local.get $t))
        (local.set $sum (f32.add (local.get $sum) (local.get $t)))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $l2t)))
      ;; normalise; dropout
      (local.set $acc (f32x4.splat (local.get $sum)))
      (local.set $j (i32.const 0))
      (block $d3 (loop $l3
        (br_if $d3 (i32.ge_u (local.get $j) (local.get $n4)))
        (local.set $a (i32.add (local.get $o) (i32.shl (local.get $j) (i32.const 2))))
        (local.set $v (f32x4.div (v128.load (i32.add (local.get $p) (local.get $a))) (local.get $acc)))
        (v128.store (i32.add (local.get $p) (local.get $a)) (local.get $v))
        (if (local.get $pd)
          (then (v128.store (i32.add (local.get $pd) (local.get $a))
            (call $drop4 (local.get $v) (i32.add (i32.mul (local.get $r) (local.get $n)) (local.get $j))
              (local.get $ka) (local.get $kb) (local.get $cut) (local.get $keep)))))
        (local.set $j (i32.add (local.get $j) (i32.const 4)))
        (br $l3)))
      (block $d3t (loop $l3t
        (br_if $d3t (i32.ge_u (local.get $j) (local.get $n)))
        (local.set $a (i32.add (local.get $o) (i32.shl (local.get $j) (i32.const 2))))
        (local.set $t (f32.div (f32.load (i32.add (local.get $p) (local.get $a))) (local.get $sum)))
        (f32.store (i32.add (local.get $p) (local.get $a)) (local.get $t))
        (if (local.get $pd)
          (then (f32.store (i32.add (local.get $pd) (local.get $a))
            (call $drop1 (local.get $t) (i32.add (i32.mul (local.get $r) (local.get $n)) (local.get $j))
              (local.get $ka) (local.get $kb) (local.get $cut) (local.get $keep)))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $l3t)))
      (local.set $r (i32.add (local.get $r) (i32.const 1)))
      (br $rl))))

  ;; ds = p·(dp − Σ dp·p)·scale with dp = dropout(dpd) (same mask as smd_fwd; none when cut = 0 and keep = 1)
  (func (export "smd_bwd") (param $p i32) (param $dpd i32) (param $ds i32) (param $R i32) (param $n i32)
    (param $scale f32) (param $cut i32) (param $ka i32) (param $kb i32) (param $keep f32)
    (local $r i32) (local $j i32) (local $n4 i32) (local $o i32) (local $a i32) (local $idx i32)
    (local $acc v128) (local $v v128) (local $vd v128) (local $vs v128) (local $dot f32) (local $t f32)
    (local.set $n4 (i32.and (local.get $n) (i32.const -4)))
    (local.set $vs (f32x4.splat (local.get $scale)))
    (local.set $r (i32.const 0))
    (block $rd (loop $rl
      (br_if $rd (i32.ge_u (local.get $r) (local.get $R)))
      (local.set $o (i32.shl (i32.mul (local.get $r) (local.get $n)) (i32.const 2)))
      (local.set $idx (i32.mul (local.get $r) (local.get $n)))
      ;; dp into ds (temporarily), and the dot with p
      (local.set $acc (v128.const i32x4 0 0 0 0))
      (local.set $j (i32.const 0))
      (block $d1 (loop $l1
        (br_if $d1 (i32.ge_u (local.get $j) (local.get $n4)))
        (local.set $a (i32.add (local.get $o) (i32.shl (local.get $j) (i32.const 2))))
        (local.set $vd (call $drop4 (v128.load (i32.add (local.get $dpd) (local.get $a))) (i32.add (local.get $idx) (local.get $j))
          (local.get $ka) (local.get $kb) (local.get $cut) (local.get $keep)))
        (v128.store (i32.add (local.get $ds) (local.get $a)) (local.get $vd))
        (local.set $acc (f32x4.add (local.get $acc) (f32x4.mul (local.get $vd) (v128.load (i32.add (local.get $p) (local.get $a))))))
        (local.set $j (i32.add (local.get $j) (i32.const 4)))
        (br $l1)))
      (local.set $dot (call $hsum (local.get $acc)))
      (block $d1t (loop $l1t
        (br_if $d1t (i32.ge_u (local.get $j) (local.get $n)))
        (local.set $a (i32.add (local.get $o) (i32.shl (local.get $j) (i32.const 2))))
        (local.set $t (call $drop1 (f32.load (i32.add (local.get $dpd) (local.get $a))) (i32.add (local.get $idx) (local.get $j))
          (local.get $ka) (local.get $kb) (local.get $cut) (local.get $keep)))
        (f32.store (i32.add (local.get $ds) (local.get $a)) (local.get $t))
        (local.set $dot (f32.add (local.get $dot) (f32.mul (local.get $t) (f32.load (i32.add (local.get $p) (local.get $a))))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $l1t)))
      (local.set $acc (f32x4.splat (local.get $dot)))
      (local.set $j (i32.const 0))
      (block $d2 (loop $l2
        (br_if $d2 (i32.ge_u (local.get $j) (local.get $n4)))
        (local.set $a (i32.add (local.get $o) (i32.shl (local.get $j) (i32.const 2))))
        (v128.store (i32.add (local.get $ds) (local.get $a))
          (f32x4.mul (f32x4.mul (v128.load (i32.add (local.get $p) (local.get $a)))
            (f32x4.sub (v128.load (i32.add (local.get $ds) (local.get $a))) (local.get $acc))) (local.get $vs)))
        (local.set $j (i32.add (local.get $j) (i32.const 4)))
        (br $l2)))
      (block $d2t (loop $l2t
        (br_if $d2t (i32.ge_u (local.get $j) (local.get $n)))
        (local.set $a (i32.add (local.get $o) (i32.shl (local.get $j) (i32.const 2))))
        (f32.store (i32.add (local.get $ds) (local.get $a))
          (f32.mul (f32.mul (f32.load (i32.add (local.get $p) (local.get $a)))
            (f32.sub (f32.load (i32.add (local.get $ds) (local.get $a))) (local.get $dot))) (local.get $scale)))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $l2t)))
      (local.set $r (i32.add (local.get $r) (i32.const 1)))
      (br $rl))))

  ;; g[r, j] = dropout(f[r, j]·relu(f[r, F + j])), element index r·F + j
  (func (export "reglu_fwd") (param $f i32) (param $g i32) (param $M i32) (param $F i32)
    (param $cut i32) (param $ka i32) (param $kb i32) (param $keep f32)
    (local $r i32) (local $j i32) (local $F4 i32) (local $o i32) (local $q i32) (local $v v128) (local $t f32)
    (local.set $F4 (i32.and (local.get $F) (i32.const -4)))
    (local.set $r (i32.const 0))
    (block $rd (loop $rl
      (br_if $rd (i32.ge_u (local.get $r) (local.get $M)))
      (local.set $o (i32.add (local.get $f) (i32.shl (i32.mul (local.get $r) (i32.shl (local.get $F) (i32.const 1))) (i32.const 2))))
      (local.set $q (i32.mul (local.get $r) (local.get $F)))
      (local.set $j (i32.const 0))
      (block $d1 (loop $l1
        (br_if $d1 (i32.ge_u (local.get $j) (local.get $F4)))
        (local.set $v (f32x4.mul (v128.load (i32.add (local.get $o) (i32.shl (local.get $j) (i32.const 2))))
          (f32x4.max (v128.load (i32.add (local.get $o) (i32.shl (i32.add (local.get $F) (local.get $j)) (i32.const 2))))
            (v128.const i32x4 0 0 0 0))))
        (if (local.get $cut)
          (then (local.set $v (call $drop4 (local.get $v) (i32.add (local.get $q) (local.get $j))
            (local.get $ka) (local.get $kb) (local.get $cut) (local.get $keep)))))
        (v128.store (i32.add (local.get $g) (i32.shl (i32.add (local.get $q) (local.get $j)) (i32.const 2))) (local.get $v))
        (local.set $j (i32.add (local.get $j) (i32.const 4)))
        (br $l1)))
      (block $d1t (loop $l1t
        (br_if $d1t (i32.ge_u (local.get $j) (local.get $F)))
        (local.set $t (f32.mul (f32.load (i32.add (local.get $o) (i32.shl (local.get $j) (i32.const 2))))
          (f32.max (f32.load (i32.add (local.get $o) (i32.shl (i32.add (local.get $F) (local.get $j)) (i32.const 2)))) (f32.const 0))))
        (if (local.get $cut)
          (then (local.set $t (call $drop1 (local.get $t) (i32.add (local.get $q) (local.get $j))
            (local.get $ka) (local.get $kb) (local.get $cut) (local.get $keep)))))
        (f32.store (i32.add (local.get $g) (i32.shl (i32.add (local.get $q) (local.get $j)) (i32.const 2))) (local.get $t))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $l1t)))
      (local.set $r (i32.add (local.get $r) (i32.const 1)))
      (br $rl))))

  ;; df[r, j] = d·relu(b), df[r, F + j] = b > 0 ? d·a : 0 with d = dropout(dg[r, j]), a = f[r, j], b = f[r, F + j]
  (func (export "reglu_bwd") (param $f i32) (param $dg i32) (param $df i32) (param $M i32) (param $F i32)
    (param $cut i32) (param $ka i32) (param $kb i32) (param $keep f32)
    (local $r i32) (local $j i32) (local $F4 i32) (local $o i32) (local $q i32) (local $a i32) (local $bb i32)
    (local $d v128) (local $va v128) (local $vb v128) (local $pos v128) (local $ds f32) (local $as f32) (local $bs f32)
    (local.set $F4 (i32.and (local.get $F) (i32.const -4)))
    (local.set $r (i32.const 0))
    (block $rd (loop $rl
      (br_if $rd (i32.ge_u (local.get $r) (local.get $M)))
      (local.set $o (i32.shl (i32.mul (local.get $r) (i32.shl (local.get $F) (i32.const 1))) (i32.const 2)))
      (local.set $q (i32.mul (local.get $r) (local.get $F)))
      (local.set $j (i32.const 0))
      (block $d1 (loop $l1
        (br_if $d1 (i32.ge_u (local.get $j) (local.get $F4)))
        (local.set $d (v128.load (i32.add (local.get $dg) (i32.shl (i32.add (local.get $q) (local.get $j)) (i32.const 2)))))
        (if (local.get $cut)
          (then (local.set $d (call $drop4 (local.get $d) (i32.add (local.get $q) (local.get $j))
            (local.get $ka) (local.get $kb) (local.get $cut) (local.get $keep)))))
        (local.set $a (i32.add (local.get $o) (i32.shl (local.get $j) (i32.const 2))))
        (local.set $bb (i32.add (local.get $o) (i32.shl (i32.add (local.get $F) (local.get $j)) (i32.const 2))))
        (local.set $va (v128.load (i32.add (local.get $f) (local.get $a))))
        (local.set $vb (v128.load (i32.add (local.get $f) (local.get $bb))))
        (local.set $pos (f32x4.gt (local.get $vb) (v128.const i32x4 0 0 0 0)))
        (v128.store (i32.add (local.get $df) (local.get $a)) (v128.and (local.get $pos) (f32x4.mul (local.get $d) (local.get $vb))))
        (v128.store (i32.add (local.get $df) (local.get $bb)) (v128.and (local.get $pos) (f32x4.mul (local.get $d) (local.get $va))))
        (local.set $j (i32.add (local.get $j) (i32.const 4)))
        (br $l1)))
      (block $d1t (loop $l1t
        (br_if $d1t (i32.ge_u (local.get $j) (local.get $F)))
        (local.set $ds (f32.load (i32.add (local.get $dg) (i32.shl (i32.add (local.get $q) (local.get $j)) (i32.const 2)))))
        (if (local.get $cut)
          (then (local.set $ds (call $drop1 (local.get $ds) (i32.add (local.get $q) (local.get $j))
            (local.get $ka) (local.get $kb) (local.get $cut) (local.get $keep)))))
        (local.set $a (i32.add (local.get $o) (i32.shl (local.get $j) (i32.const 2))))
        (local.set $bb (i32.add (local.get $o) (i32.shl (i32.add (local.get $F) (local.get $j)) (i32.const 2))))
        (local.set $as (f32.load (i32.add (local.get $f) (local.get $a))))
        (local.set $bs (f32.load (i32.add (local.get $f) (local.get $bb))))
        (f32.store (i32.add (local.get $df) (local.get $a))
          (select (f32.mul (local.get $ds) (local.get $bs)) (f32.const 0) (f32.gt (local.get $bs) (f32.const 0))))
        (f32.store (i32.add (local.get $df) (local.get $bb))
          (select (f32.mul (local.get $ds) (local.get $as)) (f32.const 0) (f32.gt (local.get $bs) (f32.const 0))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $l1t)))
      (local.set $r (i32.add (local.get $r) (i32.const 1)))
      (br $rl))))

  ;; out[j] = Σ_i x[i, j] over M rows of N (float32, rows in order)
  (func (export "colsum") (param $x i32) (param $out i32) (param $M i32) (param $N i32)
    (local $i i32) (local $j i32) (local $N4 i32) (local $row i32) (local $a i32)
    (local.set $N4 (i32.and (local.get $N) (i32.const -4)))
    (memory.fill (local.get $out) (i32.const 0) (i32.shl (local.get $N) (i32.const 2)))
    (block $rd (loop $rl
      (br_if $rd (i32.ge_u (local.get $i) (local.get $M)))
      (local.set $row (i32.add (local.get $x) (i32.shl (i32.mul (local.get $i) (local.get $N)) (i32.const 2))))
      (local.set $j (i32.const 0))
      (block $d (loop $l
        (br_if $d (i32.ge_u (local.get $j) (local.get $N4)))
        (local.set $a (i32.shl (local.get $j) (i32.const 2)))
        (v128.store (i32.add (local.get $out) (local.get $a))
          (f32x4.add (v128.load (i32.add (local.get $out) (local.get $a))) (v128.load (i32.add (local.get $row) (local.get $a)))))
        (local.set $j (i32.add (local.get $j) (i32.const 4)))
        (br $l)))
      (block $dt (loop $lt
        (br_if $dt (i32.ge_u (local.get $j) (local.get $N)))
        (local.set $a (i32.shl (local.get $j) (i32.const 2)))
        (f32.store (i32.add (local.get $out) (local.get $a))
          (f32.add (f32.load (i32.add (local.get $out) (local.get $a))) (f32.load (i32.add (local.get $row) (local.get $a)))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $lt)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $rl))))

  ;; One Adam step (coupled L2) and the EMA shadow over n floats, in torch.optim.Adam's order of
  ;; float32 operations (the same as optim.ts's tf ops, so bit for bit equal):
  ;;   g' = g + θ·wd;  m' = m·b1 + g'·(1−b1);  v' = v·b2 + g'²·(1−b2)
  ;;   θ' = θ − (m' / (sqrt(v') / sbc2 + eps))·lrc;  s' = s·a + θ'·(1−a)
  ;; wd: per-element decay (0 = none for all); ema = 0: no shadow update. Outputs may not alias inputs.
  (func (export "adam") (param $th i32) (param $g i32) (param $m i32) (param $v i32) (param $s i32) (param $wd i32)
    (param $th2 i32) (param $m2 i32) (param $v2 i32) (param $s2 i32) (param $n i32)
    (param $b1 f32) (param $c1 f32) (param $b2 f32) (param $c2 f32) (param $sbc2 f32) (param $eps f32) (param $lrc f32)
    (param $ema i32) (param $a f32) (param $ca f32)
    (local $i i32) (local $o i32) (local $n4 i32)
    (local $vg v128) (local $vt v128) (local $vm v128) (local $vv v128)
    (local $sg f32) (local $st f32) (local $sm f32) (local $sv f32)
    (local.set $n4 (i32.and (local.get $n) (i32.const -4)))
    (block $d (loop $l
      (br_if $d (i32.ge_u (local.get $i) (local.get $n4)))
      (local.set $o (i32.shl (local.get $i) (i32.const 2)))
      (local.set $vt (v128.load (i32.add (local.get $th) (local.get $o))))
      (local.set $vg (v128.load (i32.add (local.get $g) (local.get $o))))
      (if (local.get $wd)
        (then (local.set $vg (f32x4.add (local.get $vg) (f32x4.mul (local.get $vt) (v128.load (i32.add (local.get $wd) (local.get $o))))))))
      (local.set $vm (f32x4.add (f32x4.mul (v128.load (i32.add (local.get $m) (local.get $o))) (f32x4.splat (local.get $b1)))
        (f32x4.mul (local.get $vg) (f32x4.splat (local.get $c1)))))
      (local.set $vv (f32x4.add (f32x4.mul (v128.load (i32.add (local.get $v) (local.get $o))) (f32x4.splat (local.get $b2)))
        (f32x4.mul (f32x4.mul (local.get $vg) (local.get $vg)) (f32x4.splat (local.get $c2)))))
      (v128.store (i32.add (local.get $m2) (local.get $o)) (local.get $vm))
      (v128.store (i32.add (local.get $v2) (local.get $o)) (local.get $vv))
      (local.set $vt (f32x4.sub (local.get $vt)
        (f32x4.mul
          (f32x4.div (local.get $vm)
            (f32x4.add (f32x4.div (f32x4.sqrt (local.get $vv)) (f32x4.splat (local.get $sbc2))) (f32x4.splat (local.get $eps))))
          (f32x4.splat (local.get $lrc)))))
      (v128.store (i32.add (local.get $th2) (local.get $o)) (local.get $vt))
      (if (local.get $ema)
        (then (v128.store (i32.add (local.get $s2) (local.get $o))
          (f32x4.add (f32x4.mul (v128.load (i32.add (local.get $s) (local.get $o))) (f32x4.splat (local.get $a)))
            (f32x4.mul (local.get $vt) (f32x4.splat (local.get $ca)))))))
      (local.set $i (i32.add (local.get $i) (i32.const 4)))
      (br $l)))
    (block $dt (loop $lt
      (br_if $dt (i32.ge_u (local.get $i) (local.get $n)))
      (local.set $o (i32.shl (local.get $i) (i32.const 2)))
      (local.set $st (f32.load (i32.add (local.get $th) (local.get $o))))
      (local.set $sg (f32.load (i32.add (local.get $g) (local.get $o))))
      (if (local.get $wd)
        (then (local.set $sg (f32.add (local.get $sg) (f32.mul (local.get $st) (f32.load (i32.add (local.get $wd) (local.get $o))))))))
      (local.set $sm (f32.add (f32.mul (f32.load (i32.add (local.get $m) (local.get $o))) (local.get $b1))
        (f32.mul (local.get $sg) (local.get $c1))))
      (local.set $sv (f32.add (f32.mul (f32.load (i32.add (local.get $v) (local.get $o))) (local.get $b2))
        (f32.mul (f32.mul (local.get $sg) (local.get $sg)) (local.get $c2))))
      (f32.store (i32.add (local.get $m2) (local.get $o)) (local.get $sm))
      (f32.store (i32.add (local.get $v2) (local.get $o)) (local.get $sv))
      (local.set $st (f32.sub (local.get $st)
        (f32.mul
          (f32.div (local.get $sm) (f32.add (f32.div (f32.sqrt (local.get $sv)) (local.get $sbc2)) (local.get $eps)))
          (local.get $lrc))))
      (f32.store (i32.add (local.get $th2) (local.get $o)) (local.get $st))
      (if (local.get $ema)
        (then (f32.store (i32.add (local.get $s2) (local.get $o))
          (f32.add (f32.mul (f32.load (i32.add (local.get $s) (local.get $o))) (local.get $a)) (f32.mul (local.get $st) (local.get $ca))))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $lt))))

  ;; One SGD-momentum step (coupled L2) and the EMA shadow: g' = g + θ·wd; b' = b·mom + g';
  ;; θ' = θ − b'·lr; s' = s·a + θ'·(1−a) (optim.ts's order of float32 operations)
  (func (export "sgd") (param $th i32) (param $g i32) (param $b i32) (param $s i32) (param $wd i32)
    (param $th2 i32) (param $b2 i32) (param $s2 i32) (param $n i32)
    (param $mom f32) (param $lr f32) (param $ema i32) (param $a f32) (param $ca f32)
    (local $i i32) (local $o i32) (local $n4 i32) (local $vg v128) (local $vt v128) (local $vb v128)
    (local $sg f32) (local $st f32) (local $sb f32)
    (local.set $n4 (i32.and (local.get $n) (i32.const -4)))
    (block $d (loop $l
      (br_if $d (i32.ge_u (local.get $i) (local.get $n4)))
      (local.set $o (i32.shl (local.get $i) (i32.const 2)))
      (local.set $vt (v128.load (i32.add (local.get $th) (local.get $o))))
      (local.set $vg (v128.load (i32.add (local.get $g) (local.get $o))))
      (if (local.get $wd)
        (then (local.set $vg (f32x4.add (local.get $vg) (f32x4.mul (local.get $vt) (v128.load (i32.add (local.get $wd) (local.get $o))))))))
      (local.set $vb (f32x4.add (f32x4.mul (v128.load (i32.add (local.get $b) (local.get $o))) (f32x4.splat (local.get $mom))) (local.get $vg)))
      (v128.store (i32.add (local.get $b2) (local.get $o)) (local.get $vb))
      (local.set $vt (f32x4.sub (local.get $vt) (f32x4.mul (local.get $vb) (f32x4.splat (local.get $lr)))))
      (v128.store (i32.add (local.get $th2) (local.get $o)) (local.get $vt))
      (if (local.get $ema)
        (then (v128.store (i32.add (local.get $s2) (local.get $o))
          (f32x4.add (f32x4.mul (v128.load (i32.add (local.get $s) (local.get $o))) (f32x4.splat (local.get $a)))
            (f32x4.mul (local.get $vt) (f32x4.splat (local.get $ca)))))))
      (local.set $i (i32.add (local.get $i) (i32.const 4)))
      (br $l)))
    (block $dt (loop $lt
      (br_if $dt (i32.ge_u (local.get $i) (local.get $n)))
      (local.set $o (i32.shl (local.get $i) (i32.const 2)))
      (local.set $st (f32.load (i32.add (local.get $th) (local.get $o))))
      (local.set $sg (f32.load (i32.add (local.get $g) (local.get $o))))
      (if (local.get $wd)
        (then (local.set $sg (f32.add (local.get $sg) (f32.mul (local.get $st) (f32.load (i32.add (local.get $wd) (local.get $o))))))))
      (local.set $sb (f32.add (f32.mul (f32.load (i32.add (local.get $b) (local.get $o))) (local.get $mom)) (local.get $sg)))
      (f32.store (i32.add (local.get $b2) (local.get $o)) (local.get $sb))
      (local.set $st (f32.sub (local.get $st) (f32.mul (local.get $sb) (local.get $lr))))
      (f32.store (i32.add (local.get $th2) (local.get $o)) (local.get $st))
      (if (local.get $ema)
        (then (f32.store (i32.add (local.get $s2) (local.get $o))
          (f32.add (f32.mul (f32.load (i32.add (local.get $s) (local.get $o))) (local.get $a)) (f32.mul (local.get $st) (local.get $ca))))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $lt))))

  ;; y = dropout(x) over n floats (element index = flat index; dropout.ts's hash)
  (func (export "dropout") (param $x i32) (param $y i32) (param $n i32)
    (param $cut i32) (param $ka i32) (param $kb i32) (param $keep f32)
    (local $i i32) (local $n4 i32) (local $o i32)
    (local.set $n4 (i32.and (local.get $n) (i32.const -4)))
    (block $d (loop $l
      (br_if $d (i32.ge_u (local.get $i) (local.get $n4)))
      (local.set $o (i32.shl (local.get $i) (i32.const 2)))
      (v128.store (i32.add (local.get $y) (local.get $o))
        (call $drop4 (v128.load (i32.add (local.get $x) (local.get $o))) (local.get $i)
          (local.get $ka) (local.get $kb) (local.get $cut) (local.get $keep)))
      (local.set $i (i32.add (local.get $i) (i32.const 4)))
      (br $l)))
    (block $dt (loop $lt
      (br_if $dt (i32.ge_u (local.get $i) (local.get $n)))
      (local.set $o (i32.shl (local.get $i) (i32.const 2)))
      (f32.store (i32.add (local.get $y) (local.get $o))
        (call $drop1 (f32.load (i32.add (local.get $x) (local.get $o))) (local.get $i)
          (local.get $ka) (local.get $kb) (local.get $cut) (local.get $keep)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $lt))))

  ;; n floats at c ← 0
  (func (export "fill_zero") (param $c i32) (param $n i32)
    (memory.fill (local.get $c) (i32.const 0) (i32.shl (local.get $n) (i32.const 2))))
)
