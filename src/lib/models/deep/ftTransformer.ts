/**
 * FT-Transformer (Gorishniy et al. 2021, rtdl) exactly as PROTOCOL.md §7.3: CLS token first,
 * pre-norm blocks (block 0 without LN0), per-block token-mixing E_k / E_v on keys and values,
 * ReGLU feed-forward, the last block computed from the CLS query only, head LN → ReLU → linear.
 *
 * Parameters are plain named tensors (`FTParams`), so the same forward runs on the trained
 * weights, on the EMA shadow and inside `tf.variableGrads`. Activations are kept token-major
 * ([tokens, batch, d_token]) so that the token mixing is one matmul and the CLS token is a
 * contiguous slice; the PyTorch oracle (scripts/fixtures/make_deep_fixtures.py) uses the
 * usual batch-major layout, which checks the layout as well.
 *
 * With a gradient the whole network is one tape node with a hand-written backward (forwardTrain):
 * tfjs's per-op autodiff would add an Identity kernel per saved input and its own gradient
 * bookkeeping to every op (issue 20: ~850 Identity kernels a step). The pieces come from fused.ts,
 * one kernel each where the backend has it.
 * @see https://arxiv.org/abs/2106.11959
 */
import * as tf from '@tensorflow/tfjs';
import { MT19937 } from '../../protocol/rng.ts';
import {
  colSum,
  hasStridedBmm,
  layerNorm,
  matMul,
  layerNormGrad,
  regluDropout,
  regluDropoutGrad,
  softmaxDropout,
  softmaxDropoutGrad,
  stridedBmm,
  tokenize,
  tokenizeGrad,
  type Drop,
} from './fused.ts';

import type { FTSize } from './sizes.ts';

export { blockCacheBytes, FT_SIZES, type FTSize, type FTSizeName } from './sizes.ts';

export interface FTShape extends FTSize {
  /** Input features d (tokens n = d + 1). */
  features: number;
  /** Output classes. */
  classes: number;
}

/** Named parameters; the insertion order of `paramSpecs` is the init draw order. */
export type FTParams = Record<string, tf.Tensor>;

export interface ParamSpec {
  name: string;
  shape: number[];
  /**
   * 'uniform' draws U(−bound, bound) from the init generator, 'normal' N(0, std²) (heads, head.ts);
   * 'zeros' / 'ones' draw nothing.
   */
  init: 'uniform' | 'normal' | 'zeros' | 'ones';
  bound?: number;
  std?: number;
  /** Coupled L2 applies to every parameter that is not a bias (§7.2). */
  decay: boolean;
}

/** Every parameter in init order (PROTOCOL.md §7.3). Linear weights are stored [in, out]. */
export function paramSpecs(s: FTShape): ParamSpec[] {
  const { dToken: D, features: d, ffnHidden: F, classes: k } = s;
  const n = d + 1;
  const u = (fanIn: number) => 1 / Math.sqrt(fanIn);
  const specs: ParamSpec[] = [
    { name: 'tok.W', shape: [n, D], init: 'uniform', bound: u(D), decay: true },
    { name: 'tok.b', shape: [d, D], init: 'uniform', bound: u(D), decay: false },
  ];
  for (let l = 0; l < s.blocks; l++) {
    const p = `b${l}.`;
    if (l > 0) {
      specs.push({ name: p + 'ln0.g', shape: [D], init: 'ones', decay: true });
      specs.push({ name: p + 'ln0.b', shape: [D], init: 'zeros', decay: false });
    }
    for (const m of ['q', 'k', 'v']) {
      specs.push({ name: `${p}W${m}`, shape: [D, D], init: 'uniform', bound: u(D), decay: true });
      specs.push({ name: `${p}b${m}`, shape: [D], init: 'zeros', decay: false });
    }
    specs.push({ name: p + 'Ek', shape: [n, n], init: 'uniform', bound: u(n), decay: true });
    specs.push({ name: p + 'Ev', shape: [n, n], init: 'uniform', bound: u(n), decay: true });
    specs.push({ name: p + 'Wo', shape: [D, D], init: 'uniform', bound: u(D), decay: true });
    specs.push({ name: p + 'bo', shape: [D], init: 'zeros', decay: false });
    specs.push({ name: p + 'ln1.g', shape: [D], init: 'ones', decay: true });
    specs.push({ name: p + 'ln1.b', shape: [D], init: 'zeros', decay: false });
    specs.push({ name: p + 'W1', shape: [D, 2 * F], init: 'uniform', bound: u(D), decay: true });
    specs.push({ name: p + 'b1', shape: [2 * F], init: 'uniform', bound: u(D), decay: false });
    specs.push({ name: p + 'W2', shape: [F, D], init: 'uniform', bound: u(F), decay: true });
    specs.push({ name: p + 'b2', shape: [D], init: 'uniform', bound: u(F), decay: false });
  }
  specs.push({ name: 'head.ln.g', shape: [D], init: 'ones', decay: true });
  specs.push({ name: 'head.ln.b', shape: [D], init: 'zeros', decay: false });
  specs.push({ name: 'head.W', shape: [D, k], init: 'uniform', bound: u(D), decay: true });
  specs.push({ name: 'head.b', shape: [k], init: 'uniform', bound: u(D), decay: false });
  return specs;
}

export function countParams(s: FTShape): number {
  return paramSpecs(s).reduce((acc, p) => acc + p.shape.reduce((a, b) => a * b, 1), 0);
}

/**
 * Initial weights as host arrays from MT19937(initSeed): each drawn parameter in spec order,
 * row-major; uniform as low + (high − low)·random() in doubles (numpy's `RandomState.uniform`),
 * normal as std·normal(); then float32. Any network's specs (the FT-Transformer, head.ts's heads).
 */
export function initParams(specs: readonly ParamSpec[], initSeed: number): Map<string, Float32Array> {
  const rng = new MT19937(initSeed);
  const out = new Map<string, Float32Array>();
  for (const p of specs) {
    const size = p.shape.reduce((a, b) => a * b, 1);
    const a = new Float32Array(size);
    if (p.init === 'ones') a.fill(1);
    else if (p.init === 'uniform') {
      const b = p.bound as number;
      for (let i = 0; i < size; i++) a[i] = -b + 2 * b * rng.random();
    } else if (p.init === 'normal') {
      const sd = p.std as number;
      for (let i = 0; i < size; i++) a[i] = sd * rng.normal();
    }
    out.set(p.name, a);
  }
  return out;
}

/** The FT-Transformer's initial weights (initParams over paramSpecs). */
export function initWeights(s: FTShape, initSeed: number): Map<string, Float32Array> {
  if (s.dToken % s.heads !== 0) {
    throw new RangeError(`FT-Transformer: dToken (${s.dToken}) must be a multiple of heads (${s.heads}).`);
  }
  return initParams(paramSpecs(s), initSeed);
}

export interface ForwardOptions {
  /** Training-mode dropout; null or rates of 0 = eval mode. */
  dropout?: { attention: number; ffn: number; seed: number } | null;
  /** Recompute each block's activations in the backward pass (gradient checkpointing). */
  recompute?: boolean;
  /** No gradient will be taken: free each block's intermediates as soon as it is done. */
  noGrad?: boolean;
}

/**
 * 2-D matmul whose gradient also avoids transpose flags: tfjs-wasm sends flagged (and batched)
 * matmuls to a naive loop that is 10–30× slower than its XNNPACK path; explicit transposes are cheap.
 * (The FT-Transformer below has its own backward; this stays for other networks.)
 */
const mm2 = tf.customGrad(((a: tf.Tensor2D, b: tf.Tensor2D, save: tf.GradSaveFunc) => {
  save([a, b]);
  return {
    value: tf.matMul(a, b),
    gradFunc: (dy: tf.Tensor2D, saved: tf.Tensor[]) => {
      const [sa, sb] = saved as tf.Tensor2D[];
      return [tf.matMul(dy, tf.transpose(sb)), tf.matMul(tf.transpose(sa), dy)];
    },
  };
}) as unknown as Parameters<typeof tf.customGrad>[0]) as unknown as (
  a: tf.Tensor,
  b: tf.Tensor,
) => tf.Tensor2D;

export function matmul2d(a: tf.Tensor, b: tf.Tensor): tf.Tensor2D {
  return mm2(a, b);
}

/** x·W + b for 2-D x (fused.ts: one kernel on wasm). */
function linear(x: tf.Tensor, W: tf.Tensor, b: tf.Tensor): tf.Tensor2D {
  return matMul(x, W, false, false, b);
}

/** Backward of y = x·W + b for dy: [dx = dy·Wᵀ, dW = xᵀ·dy, db = Σ dy]. */
function linearGrad(x: tf.Tensor, W: tf.Tensor, dy: tf.Tensor): [tf.Tensor2D, tf.Tensor2D, tf.Tensor1D] {
  return [matMul(dy, W, false, true), matMul(x, dy, true, false), colSum(dy)];
}

/** Dropout of block l's two sites (attention probabilities, ReGLU output); null: eval mode. */
interface BlockDrop {
  attention: Drop;
  ffn: Drop;
}

function blockDrop(drop: ForwardOptions['dropout'], l: number): BlockDrop | null {
  if (!drop || !(drop.attention > 0 || drop.ffn > 0)) return null;
  return {
    attention: { rate: drop.attention, seed: (drop.seed + Math.imul(2 * l + 1, 0x9e3779b1)) >>> 0 },
    ffn: { rate: drop.ffn, seed: (drop.seed + Math.imul(2 * l + 2, 0x9e3779b1)) >>> 0 },
  };
}

/** What block l's backward needs from its forward (token-major 2-D activations, row t·B + b). */
interface BlockCache {
  h: tf.Tensor2D; // input [n·B, D]
  a: tf.Tensor2D; // LN0(h) (block 0: h)
  k0: tf.Tensor2D; // K before token mixing, [n, B·D]
  v0: tf.Tensor2D;
  // Attention operands: token-major q [n·B, D], k, v [n, B·D] where the backend has the strided
  // product (attention below), else in head layout q [B, H, nq, dh], kᵀ [B, H, dh, n], v [B, H, n, dh].
  q: tf.Tensor;
  k: tf.Tensor;
  v: tf.Tensor;
  p: tf.Tensor; // softmax [B, H, nq, n] (before dropout)
  pd: tf.Tensor; // after dropout
  merged: tf.Tensor2D; // heads merged [nq·B, D]
  x1: tf.Tensor2D; // after the attention residual [nq·B, D]
  l1: tf.Tensor2D; // LN1(x1)
  f1: tf.Tensor2D; // [nq·B, 2F]
  g: tf.Tensor2D; // ReGLU + dropout [nq·B, F]
}
const CACHE_KEYS = ['h', 'a', 'k0', 'v0', 'q', 'k', 'v', 'p', 'pd', 'merged', 'x1', 'l1', 'f1', 'g'] as const;

/**
 * Multi-head attention on token-major q [n·B, D] (its first nq·B rows are the queries: all tokens,
 * or the CLS token for the last block) and token-mixed k, v [n, B·D], with dropout on the
 * probabilities: p (before dropout), pd, and the heads merged back [nq·B, D]. With the strided
 * product (fused.ts) the three products read and write token-major rows in place (head h of
 * sample b is the column block h·dh of row t·B + b, batch index b·H + h); otherwise operands are
 * transposed to and from heads.
 */
function attention(
  s: FTShape,
  B: number,
  nq: number,
  q: tf.Tensor,
  k: tf.Tensor,
  v: tf.Tensor,
  drop: Drop,
): { q: tf.Tensor; k: tf.Tensor; v: tf.Tensor; p: tf.Tensor; pd: tf.Tensor; merged: tf.Tensor2D } {
  const { dToken: D, heads: H } = s;
  const dh = D / H;
  const n = s.features + 1;
  const scale = 1 / Math.sqrt(dh);
  if (hasStridedBmm()) {
    const BH = B * H;
    // S[bh, i, j] = Σ_e q[i·B + b, h·dh + e] · k[j·B + b, h·dh + e]
    const S = stridedBmm(q, k, {
      ...{ batch: BH, m: nq, k: dh, n },
      ...{ sAb: dh, sAi: B * D, sAp: 1, sBb: dh, sBp: 1, sBj: B * D, sCb: nq * n, sCi: n },
      outShape: [B, H, nq, n],
    });
    const [p, pd] = softmaxDropout(S, scale, drop);
    // merged[i·B + b, h·dh + e] = Σ_j pd[bh, i, j] · v[j·B + b, h·dh + e]
    const merged = stridedBmm(pd, v, {
      ...{ batch: BH, m: nq, k: n, n: dh },
      ...{ sAb: nq * n, sAi: n, sAp: 1, sBb: dh, sBp: B * D, sBj: 1, sCb: dh, sCi: B * D },
      outShape: [nq * B, D],
    }) as tf.Tensor2D;
    return { q, k, v, p, pd, merged };
  }
  const qr = nq === n ? q : tf.slice(q, [0, 0], [nq * B, D]); // the CLS token's rows come first
  const qh = tf.transpose(tf.reshape(qr, [nq, B, H, dh]), [1, 2, 0, 3]) as tf.Tensor4D;
  const khT = tf.transpose(tf.reshape(k, [n, B, H, dh]), [1, 2, 3, 0]) as tf.Tensor4D;
  const vh = tf.transpose(tf.reshape(v, [n, B, H, dh]), [1, 2, 0, 3]) as tf.Tensor4D;
  const [p, pd] = softmaxDropout(tf.matMul(qh, khT), scale, drop);
  const ctx = tf.matMul(pd as tf.Tensor4D, vh); // [B, H, nq, dh]
  const merged = tf.reshape(tf.transpose(ctx, [2, 0, 1, 3]), [nq * B, D]) as tf.Tensor2D;
  return { q: qh, k: khT, v: vh, p, pd, merged };
}

/**
 * Backward of `attention` for dMerged [nq·B, D]: dq [n·B, D] (zero below the first nq·B rows),
 * dk and dv [n, B·D] (before token mixing is undone by the caller).
 */
function attentionGrad(
  s: FTShape,
  B: number,
  nq: number,
  c: Pick<BlockCache, 'q' | 'k' | 'v' | 'p' | 'pd'>,
  dMerged: tf.Tensor2D,
  drop: Drop,
): { dq: tf.Tensor2D; dk: tf.Tensor2D; dv: tf.Tensor2D } {
  const { dToken: D, heads: H } = s;
  const dh = D / H;
  const n = s.features + 1;
  const scale = 1 / Math.sqrt(dh);
  if (hasStridedBmm()) {
    const BH = B * H;
    const tm = { sCb: dh, sCi: B * D }; // token-major output rows
    // dpd[bh, i, j] = Σ_e dMerged[i·B + b, h·dh + e] · v[j·B + b, h·dh + e]
    const dpd = stridedBmm(dMerged, c.v, {
      ...{ batch: BH, m: nq, k: dh, n },
      ...{ sAb: dh, sAi: B * D, sAp: 1, sBb: dh, sBp: 1, sBj: B * D, sCb: nq * n, sCi: n },
      outShape: [B, H, nq, n],
    });
    // dv[j·B + b, h·dh + e] = Σ_i pd[bh, i, j] · dMerged[i·B + b, h·dh + e]
    const dv = stridedBmm(c.pd, dMerged, {
      ...{ batch: BH, m: n, k: nq, n: dh },
      ...{ sAb: nq * n, sAi: 1, sAp: n, sBb: dh, sBp: B * D, sBj: 1, ...tm },
      outShape: [n, B * D],
    }) as tf.Tensor2D;
    const dS = softmaxDropoutGrad(c.p, dpd, scale, drop);
    // dq[i·B + b, h·dh + e] = Σ_j dS[bh, i, j] · k[j·B + b, h·dh + e] (rows past nq·B: 0)
    const dq = stridedBmm(dS, c.k, {
      ...{ batch: BH, m: nq, k: n, n: dh },
      ...{ sAb: nq * n, sAi: n, sAp: 1, sBb: dh, sBp: B * D, sBj: 1, ...tm },
      outShape: [n * B, D],
      zero: nq < n,
    }) as tf.Tensor2D;
    // dk[j·B + b, h·dh + e] = Σ_i dS[bh, i, j] · q[i·B + b, h·dh + e]
    const dk = stridedBmm(dS, c.q, {
      ...{ batch: BH, m: n, k: nq, n: dh },
      ...{ sAb: nq * n, sAi: 1, sAp: n, sBb: dh, sBp: B * D, sBj: 1, ...tm },
      outShape: [n, B * D],
    }) as tf.Tensor2D;
    return { dq, dk, dv };
  }
  const qh = c.q as tf.Tensor4D,
    khT = c.k as tf.Tensor4D,
    vh = c.v as tf.Tensor4D;
  const dctx = tf.transpose(tf.reshape(dMerged, [nq, B, H, dh]), [1, 2, 0, 3]) as tf.Tensor4D;
  const dpd = tf.matMul(dctx, vh, false, true); // [B, H, nq, n]
  const dvh = tf.matMul(c.pd as tf.Tensor4D, dctx, true, false); // [B, H, n, dh]
  const dS = softmaxDropoutGrad(c.p, dpd, scale, drop) as tf.Tensor4D;
  const dqh = tf.matMul(dS, khT, false, true); // [B, H, nq, dh]
  const dkhT = tf.matMul(qh, dS, true, false); // [B, H, dh, n]
  let dq = tf.reshape(tf.transpose(dqh, [2, 0, 1, 3]), [nq * B, D]) as tf.Tensor2D;
  if (nq < n)
    dq = tf.pad(dq, [
      [0, (n - nq) * B],
      [0, 0],
    ]);
  const dk = tf.reshape(tf.transpose(dkhT, [3, 0, 1, 2]), [n, B * D]) as tf.Tensor2D;
  const dv = tf.reshape(tf.transpose(dvh, [2, 0, 1, 3]), [n, B * D]) as tf.Tensor2D;
  return { dq, dk, dv };
}

/** Block l on token-major h [n·B, D] → [n·B, D] ([B, D], the CLS rows, for the last block). */
function blockForward(
  s: FTShape,
  l: number,
  P: FTParams,
  h: tf.Tensor2D,
  B: number,
  drop: BlockDrop | null,
): { out: tf.Tensor2D; cache: BlockCache } {
  const D = s.dToken;
  const n = s.features + 1;
  const p = `b${l}.`;
  const last = l === s.blocks - 1;
  const nq = last ? 1 : n;
  const a = (l > 0 ? layerNorm(h, P[p + 'ln0.g'], P[p + 'ln0.b']) : h) as tf.Tensor2D;
  // Q, K, V as three products [n·B, D] × [D, D]: the same sums, column by column, as one product
  // with the weights concatenated, without the concatenation and the copies splitting its output.
  const qAll = linear(a, P[p + 'Wq'], P[p + 'bq']);
  const kLin = linear(a, P[p + 'Wk'], P[p + 'bk']);
  const vLin = linear(a, P[p + 'Wv'], P[p + 'bv']);
  // Token mixing: K ← E_k K along the token axis (one [n,n] × [n, B·D] product in this layout).
  const k0 = tf.reshape(kLin, [n, B * D]) as tf.Tensor2D;
  const v0 = tf.reshape(vLin, [n, B * D]) as tf.Tensor2D;
  const att = attention(
    s,
    B,
    nq,
    qAll,
    matMul(P[p + 'Ek'], k0),
    matMul(P[p + 'Ev'], v0),
    drop?.attention ?? null,
  );
  const merged = att.merged;
  const res = last ? (tf.slice(h, [0, 0], [B, D]) as tf.Tensor2D) : h;
  const x1 = tf.add(res, linear(merged, P[p + 'Wo'], P[p + 'bo'])) as tf.Tensor2D;
  // FFN: LN1 → linear D→2F → ReGLU (first half × relu(second half)) → dropout → linear F→D.
  const l1 = layerNorm(x1, P[p + 'ln1.g'], P[p + 'ln1.b']) as tf.Tensor2D;
  const f1 = linear(l1, P[p + 'W1'], P[p + 'b1']);
  const g = regluDropout(f1, drop?.ffn ?? null);
  const out = tf.add(x1, linear(g, P[p + 'W2'], P[p + 'b2'])) as tf.Tensor2D;
  const { q, k, v, p: pr, pd } = att;
  return { out, cache: { h, a, k0, v0, q, k, v, p: pr, pd, merged, x1, l1, f1, g } };
}

/** Backward of block l: gradient w.r.t. its input h, and its parameters' gradients (into `grads`). */
function blockBackward(
  s: FTShape,
  l: number,
  P: FTParams,
  c: BlockCache,
  dOut: tf.Tensor2D,
  B: number,
  drop: BlockDrop | null,
  grads: Record<string, tf.Tensor>,
): tf.Tensor2D {
  const D = s.dToken;
  const n = s.features + 1;
  const p = `b${l}.`;
  const last = l === s.blocks - 1;
  const nq = last ? 1 : n;
  // FFN.
  const [dg, dW2, db2] = linearGrad(c.g, P[p + 'W2'], dOut);
  const df1 = regluDropoutGrad(c.f1, dg, drop?.ffn ?? null);
  const [dl1, dW1, db1] = linearGrad(c.l1, P[p + 'W1'], df1);
  const [dx1, dg1, dbeta1] = layerNormGrad(c.x1, P[p + 'ln1.g'], dl1, dOut);
  // Attention output.
  const [dMerged, dWo, dbo] = linearGrad(c.merged, P[p + 'Wo'], dx1);
  const { dq, dk, dv } = attentionGrad(s, B, nq, c, dMerged, drop?.attention ?? null);
  // Token mixing: k = E k0 → dE = dk·k0ᵀ, dk0 = Eᵀ·dk.
  grads[p + 'Ek'] = matMul(dk, c.k0, false, true);
  grads[p + 'Ev'] = matMul(dv, c.v0, false, true);
  const dk0 = tf.reshape(matMul(P[p + 'Ek'], dk, true, false), [n * B, D]);
  const dv0 = tf.reshape(matMul(P[p + 'Ev'], dv, true, false), [n * B, D]);
  const dqkv = tf.concat([dq, dk0, dv0], 1);
  const Wqkv = tf.concat([P[p + 'Wq'], P[p + 'Wk'], P[p + 'Wv']], 1);
  const [da, dWqkv, dbqkv] = linearGrad(c.a, Wqkv, dqkv);
  [grads[p + 'Wq'], grads[p + 'Wk'], grads[p + 'Wv']] = tf.split(dWqkv, 3, 1);
  [grads[p + 'bq'], grads[p + 'bk'], grads[p + 'bv']] = tf.split(dbqkv, 3);
  Object.assign(grads, {
    [p + 'Wo']: dWo,
    [p + 'bo']: dbo,
    [p + 'W1']: dW1,
    [p + 'b1']: db1,
    [p + 'W2']: dW2,
    [p + 'b2']: db2,
    [p + 'ln1.g']: dg1,
    [p + 'ln1.b']: dbeta1,
  });
  // The residual into h: all rows, or only the CLS rows for the last block.
  const dres = last
    ? tf.pad(dx1, [
        [0, (n - 1) * B],
        [0, 0],
      ])
    : dx1;
  if (l === 0) return tf.add(da, dres) as tf.Tensor2D;
  const [dh0, dg0, db0] = layerNormGrad(c.h, P[p + 'ln0.g'], da, dres);
  grads[p + 'ln0.g'] = dg0;
  grads[p + 'ln0.b'] = db0;
  return dh0 as tf.Tensor2D;
}

/** Head: LN → ReLU → linear on the CLS rows [B, D]. */
function headForward(P: FTParams, cls: tf.Tensor2D): { logits: tf.Tensor2D; ln: tf.Tensor2D } {
  const ln = layerNorm(cls, P['head.ln.g'], P['head.ln.b']) as tf.Tensor2D;
  return { logits: linear(tf.relu(ln), P['head.W'], P['head.b']), ln };
}

/**
 * Logits with a hand-written backward (one tape node for the whole network): every kernel of the
 * forward and backward is chosen here, so none of tfjs's per-op saves (an Identity kernel per
 * saved input) and gradient bookkeeping happen. `recompute`: keep only each block's input and
 * recompute the block in the backward pass (gradient checkpointing: memory of one block instead of
 * all); otherwise every block's cache is kept. The parameters are read by reference in the backward
 * pass: they must outlive it (the trainer's views of its flat weights do).
 */
function forwardTrain(
  s: FTShape,
  P: FTParams,
  x: tf.Tensor2D,
  drop: ForwardOptions['dropout'],
  recompute: boolean,
): tf.Tensor2D {
  const names = paramSpecs(s).map((p) => p.name);
  const B = x.shape[0];
  const n = s.features + 1;
  const drops = Array.from({ length: s.blocks }, (_, l) => blockDrop(drop, l));
  // The backward reads the forward's tensors from this closure, kept (customGrad runs the forward
  // in a tidy), not through customGrad's `save`: the engine clones every saved tensor (one
  // Identity copy each: ~100 copies of [rows·17, 192] a FixMatch step, and a second set of every
  // kept cache until the step ends). The backward frees each block's tensors when it is done with
  // them. Outside a gradient (no tape: the backward never runs) nothing is kept.
  const taping = tf.engine().state.gradientDepth > 0;
  const keep = <T extends tf.Tensor>(t: T): T => (taping ? tf.keep(t) : t);
  const f = tf.customGrad(((..._args: unknown[]) => {
    const h0 = tokenize(x, P['tok.W'] as tf.Tensor2D, P['tok.b'] as tf.Tensor2D);
    const inputs: tf.Tensor2D[] = [];
    const caches: BlockCache[] = [];
    let h = h0;
    for (let l = 0; l < s.blocks; l++) {
      inputs.push(recompute ? keep(h) : h);
      const hin = h;
      if (recompute) h = tf.tidy(() => blockForward(s, l, P, hin, B, drops[l]).out);
      else {
        // Kept: the output and the cache; the block's other intermediates (the fused QKV product,
        // concatenated weights, …) go now rather than at the end of the step (half the peak memory).
        const [out, ...kept] = tf.tidy(() => {
          const r = blockForward(s, l, P, hin, B, drops[l]);
          return [r.out, ...CACHE_KEYS.map((key) => r.cache[key])];
        });
        caches.push(
          Object.fromEntries(CACHE_KEYS.map((key, i) => [key, keep(kept[i])])) as unknown as BlockCache,
        );
        h = out as tf.Tensor2D;
      }
    }
    const { logits, ln } = headForward(P, h);
    const cls = keep(h),
      lnS = keep(ln);
    return {
      value: logits,
      gradFunc: (dy: tf.Tensor2D) => {
        const grads: Record<string, tf.Tensor> = {};
        const blockKeys = new Map<number, string[]>();
        // Head.
        const r = tf.relu(lnS);
        grads['head.W'] = matMul(r, dy, true, false);
        grads['head.b'] = colSum(dy);
        const dr = tf.mul(matMul(dy, P['head.W'], false, true), tf.step(lnS));
        const [dcls, dgh, dbh] = layerNormGrad(cls, P['head.ln.g'], dr);
        grads['head.ln.g'] = dgh;
        grads['head.ln.b'] = dbh;
        r.dispose();
        dr.dispose();
        lnS.dispose();
        cls.dispose();
        let dOut = dcls as tf.Tensor2D;
        for (let l = s.blocks - 1; l >= 0; l--) {
          const d = dOut;
          // One block at a time: its (recomputed) cache and intermediates go when it is done.
          const [dIn, ...gs] = tf.tidy(() => {
            const c = recompute ? blockForward(s, l, P, inputs[l], B, drops[l]).cache : caches[l];
            const g: Record<string, tf.Tensor> = {};
            const din = blockBackward(s, l, P, c, d, B, drops[l], g);
            const keys = Object.keys(g);
            blockKeys.set(l, keys);
            return [din, ...keys.map((k) => g[k])];
          });
          blockKeys.get(l)!.forEach((k, i) => (grads[k] = gs[i]));
          d.dispose();
          // Block l's kept tensors are not read again (block l − 1's cache holds its own input).
          if (recompute) inputs[l].dispose();
          else for (const key of CACHE_KEYS) caches[l][key].dispose();
          dOut = dIn as tf.Tensor2D;
        }
        [grads['tok.W'], grads['tok.b']] = tokenizeGrad(x, dOut, n);
        return names.map((nm) => grads[nm]);
      },
    };
  }) as unknown as Parameters<typeof tf.customGrad>[0]) as unknown as (...ps: tf.Tensor[]) => tf.Tensor2D;
  return f(...names.map((nm) => P[nm]));
}

/** Forward in eval or training mode without gradient: each block's intermediates freed as it ends. */
function forwardNoGrad(
  s: FTShape,
  P: FTParams,
  x: tf.Tensor2D,
  drop: ForwardOptions['dropout'],
): tf.Tensor2D {
  const B = x.shape[0];
  let h = tokenize(x, P['tok.W'] as tf.Tensor2D, P['tok.b'] as tf.Tensor2D);
  for (let l = 0; l < s.blocks; l++) {
    const hin = h;
    h = tf.tidy(() => blockForward(s, l, P, hin, B, blockDrop(drop, l)).out);
  }
  return headForward(P, h).logits;
}

/**
 * Logits (batch × classes) for rows x (batch × d). Call inside tf.tidy (or a gradient); it creates
 * intermediates freely. With a gradient, `recompute` trades one extra block forward in the backward
 * pass for memory (use it for gradient forwards at rsb size).
 */
export function forward(s: FTShape, P: FTParams, x: tf.Tensor2D, opts: ForwardOptions = {}): tf.Tensor2D {
  if (s.dToken % s.heads !== 0)
    throw new RangeError(`FT-Transformer: dToken (${s.dToken}) must be a multiple of heads (${s.heads}).`);
  if (opts.noGrad) return forwardNoGrad(s, P, x, opts.dropout);
  return forwardTrain(s, P, x, opts.dropout, opts.recompute ?? false);
}
