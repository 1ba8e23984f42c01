;; Batched float32 matrix product for tfjs's WASM backend (batchMatMul.ts), run inside the backend's
;; own memory (imported), so tensors are read and written in place.
;;
;;   C[b] = A[b] · B[b]    A[b]: m×k, B[b]: k×n, C contiguous [batch, m, n]
;;
;; A and B are read through element strides (batch, row, column), so transposed and broadcast
;; operands need no copy in JS: each batch's A and B are first packed into `scratch` as row-major
;; m×k and k×n (cheap: O(mk + kn) against O(mkn)), then C's rows are computed 16 columns at a time
;; in four f32x4 accumulators (then 4, then 1), summing over p in order 0..k−1.
;; A broadcast B (batch stride 0) is packed once.
(module
  (import "env" "memory" (memory 1))

  (func (export "bmm")
    (param $a i32) (param $b i32) (param $c i32) (param $scratch i32)
    (param $batch i32) (param $m i32) (param $k i32) (param $n i32)
    (param $sAb i32) (param $sAi i32) (param $sAp i32)
    (param $sBb i32) (param $sBp i32) (param $sBj i32)
    (local $bi i32) (local $i i32) (local $p i32) (local $j i32)
    (local $ap i32) (local $bp i32) (local $src i32) (local $dst i32)
    (local $arow i32) (local $bptr i32) (local $cout i32) (local $nb i32)
    (local $acc0 v128) (local $acc1 v128) (local $acc2 v128) (local $acc3 v128) (local $av v128)
    (local $s f32)
    (local.set $ap (local.get $scratch))
    (local.set $bp (i32.add (local.get $scratch) (i32.shl (i32.mul (local.get $m) (local.get $k)) (i32.const 2))))
    (local.set $nb (i32.shl (local.get $n) (i32.const 2)))
    (local.set $cout (local.get $c))
    (local.set $bi (i32.const 0))
    (block $batchDone
      (loop $batchLoop
        (br_if $batchDone (i32.ge_u (local.get $bi) (local.get $batch)))
        ;; pack A[bi] → ap (m×k row-major)
        (local.set $dst (local.get $ap))
        (local.set $i (i32.const 0))
        (block $paDone
          (loop $paI
            (br_if $paDone (i32.ge_u (local.get $i) (local.get $m)))
            (local.set $src
              (i32.add (local.get $a)
                (i32.shl
                  (i32.add (i32.mul (local.get $bi) (local.get $sAb)) (i32.mul (local.get $i) (local.get $sAi)))
                  (i32.const 2))))
            (local.set $p (i32.const 0))
            (block $paPDone
              (loop $paP
                (br_if $paPDone (i32.ge_u (local.get $p) (local.get $k)))
                (f32.store (local.get $dst) (f32.load (local.get $src)))
                (local.set $dst (i32.add (local.get $dst) (i32.const 4)))
                (local.set $src (i32.add (local.get $src) (i32.shl (local.get $sAp) (i32.const 2))))
                (local.set $p (i32.add (local.get $p) (i32.const 1)))
                (br $paP)))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $paI)))
        ;; pack B[bi] → bp (k×n row-major), once when B is broadcast
        (if (i32.or (i32.eqz (local.get $bi)) (i32.ne (local.get $sBb) (i32.const 0)))
          (then
            (local.set $dst (local.get $bp))
            (local.set $p (i32.const 0))
            (block $pbDone
              (loop $pbP
                (br_if $pbDone (i32.ge_u (local.get $p) (local.get $k)))
                (local.set $src
                  (i32.add (local.get $b)
                    (i32.shl
                      (i32.add (i32.mul (local.get $bi) (local.get $sBb)) (i32.mul (local.get $p) (local.get $sBp)))
                      (i32.const 2))))
                (local.set $j (i32.const 0))
                (block $pbJDone
                  (loop $pbJ
                    (br_if $pbJDone (i32.ge_u (local.get $j) (local.get $n)))
                    (f32.store (local.get $dst) (f32.load (local.get $src)))
                    (local.set $dst (i32.add (local.get $dst) (i32.const 4)))
                    (local.set $src (i32.add (local.get $src) (i32.shl (local.get $sBj) (i32.const 2))))
                    (local.set $j (i32.add (local.get $j) (i32.const 1)))
                    (br $pbJ)))
                (local.set $p (i32.add (local.get $p) (i32.const 1)))
                (br $pbP)))))
        ;; C rows
        (local.set $i (i32.const 0))
        (block $rowsDone
          (loop $rows
            (br_if $rowsDone (i32.ge_u (local.get $i) (local.get $m)))
            (local.set $arow (i32.add (local.get $ap) (i32.shl (i32.mul (local.get $i) (local.get $k)) (i32.const 2))))
            (local.set $j (i32.const 0))
            ;; 16 columns at a time
            (block $b16Done
              (loop $b16
                (br_if $b16Done (i32.gt_u (i32.add (local.get $j) (i32.const 16)) (local.get $n)))
                (local.set $acc0 (v128.const i32x4 0 0 0 0))
                (local.set $acc1 (v128.const i32x4 0 0 0 0))
                (local.set $acc2 (v128.const i32x4 0 0 0 0))
                (local.set $acc3 (v128.const i32x4 0 0 0 0))
                (local.set $bptr (i32.add (local.get $bp) (i32.shl (local.get $j) (i32.const 2))))
                (local.set $p (i32.const 0))
                (block $k16Done
                  (loop $k16
                    (br_if $k16Done (i32.ge_u (local.get $p) (local.get $k)))
                    (local.set $av (f32x4.splat (f32.load (i32.add (local.get $arow) (i32.shl (local.get $p) (i32.const 2))))))
                    (local.set $acc0 (f32x4.add (local.get $acc0) (f32x4.mul (local.get $av) (v128.load (local.get $bptr)))))
                    (local.set $acc1 (f32x4.add (local.get $acc1) (f32x4.mul (local.get $av) (v128.load offset=16 (local.get $bptr)))))
                    (local.set $acc2 (f32x4.add (local.get $acc2) (f32x4.mul (local.get $av) (v128.load offset=32 (local.get $bptr)))))
                    (local.set $acc3 (f32x4.add (local.get $acc3) (f32x4.mul (local.get $av) (v128.load offset=48 (local.get $bptr)))))
                    (local.set $bptr (i32.add (local.get $bptr) (local.get $nb)))
                    (local.set $p (i32.add (local.get $p) (i32.const 1)))
                    (br $k16)))
                (v128.store (local.get $cout) (local.get $acc0))
                (v128.store offset=16 (local.get $cout) (local.get $acc1))
                (v128.store offset=32 (local.get $cout) (local.get $acc2))
                (v128.store offset=48 (local.get $cout) (local.get $acc3))
                (local.set $cout (i32.add (local.get $cout) (i32.const 64)))
                (local.set $j (i32.add (local.get $j) (i32.const 16)))
                (br $b16)))
            ;; 4 columns at a time
            (block $b4Done
              (loop $b4
                (br_if $b4Done (i32.gt_u (i32.add (local.get $j) (i32.const 4)) (local.get $n)))
                (local.set $acc0 (v128.const i32x4 0 0 0 0))
                (local.set $bptr (i32.add (local.get $bp) (i32.shl (local.get $j) (i32.const 2))))
                (local.set $p (i32.const 0))
                (block $k4Done
                  (loop $k4
                    (br_if $k4Done (i32.ge_u (local.get $p) (local.get $k)))
                    (local.set $acc0
                      (f32x4.add (local.get $acc0)
                        (f32x4.mul
                          (f32x4.splat (f32.load (i32.add (local.get $arow) (i32.shl (local.get $p) (i32.const 2)))))
                          (v128.load (local.get $bptr)))))
                    (local.set $bptr (i32.add (local.get $bptr) (local.get $nb)))
                    (local.set $p (i32.add (local.get $p) (i32.const 1)))
                    (br $k4)))
                (v128.store (local.get $cout) (local.get $acc0))
                (local.set $cout (i32.add (local.get $cout) (i32.const 16)))
                (local.set $j (i32.add (local.get $j) (i32.const 4)))
                (br $b4)))
            ;; the last columns one by one
            (block $b1Done
              (loop $b1
                (br_if $b1Done (i32.ge_u (local.get $j) (local.get $n)))
                (local.set $s (f32.const 0))
                (local.set $bptr (i32.add (local.get $bp) (i32.shl (local.get $j) (i32.const 2))))
                (local.set $p (i32.const 0))
                (block $k1Done
                  (loop $k1
                    (br_if $k1Done (i32.ge_u (local.get $p) (local.get $k)))
                    (local.set $s
                      (f32.add (local.get $s)
                        (f32.mul
                          (f32.load (i32.add (local.get $arow) (i32.shl (local.get $p) (i32.const 2))))
                          (f32.load (local.get $bptr)))))
                    (local.set $bptr (i32.add (local.get $bptr) (local.get $nb)))
                    (local.set $p (i32.add (local.get $p) (i32.const 1)))
                    (br $k1)))
                (f32.store (local.get $cout) (local.get $s))
                (local.set $cout (i32.add (local.get $cout) (i32.const 4)))
                (local.set $j (i32.add (local.get $j) (i32.const 1)))
                (br $b1)))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $rows)))
        (local.set $bi (i32.add (local.get $bi) (i32.const 1)))
        (br $batchLoop))))
)
