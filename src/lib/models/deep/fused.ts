/**
 * The FT-Transformer's element-wise pieces, each one kernel where the backend has it
 * (fusedKernels.ts: cpu and wasm; webgpuKernels.ts: webgpu, one to four programs) and the same
 * arithmetic from tf ops elsewhere (webgl):
 *   layerNorm / layerNormGrad        LN over the last axis, and its backward (dx, dγ, dβ)
 *   softmaxDropout / …Grad           softmax(scale·s), then inverted dropout
 *   regluDropout / …Grad             first half × relu(second half), then inverted dropout
 *   tokenize / tokenizeGrad          the FT tokenizer [1, x]·W + [0; b], token-major
 * Dropout masks come from dropout.ts's counter-based hash (element i of the op's output), so the
 * kernels draw them in place, the composite path draws the very same mask on the host, and a
 * backward pass redraws what its forward used. Call inside a tidy.
 */
import * as tf from '@tensorflow/tfjs';
import { dropoutMask } from './dropout.ts';
import { registerFusedKernels } from './fusedKernels.ts';
import { registerWebGPUKernels } from './webgpuKernels.ts';

registerFusedKernels();
registerWebGPUKernels();

export const LN_EPS = 1e-5;

/** An op's dropout: rate and call seed (null or rate 0: none). */
export type Drop = { rate: number; seed: number } | null;

const active = (d: Drop): d is { rate: number; seed: number } => d !== null && d.rate > 0;
const dropAttrs = (d: Drop) => (active(d) ? { rate: d.rate, seed: d.seed >>> 0 } : { rate: 0, seed: 0 });

/** Whether the active backend has kernel `name` (fusedKernels.ts registers cpu and wasm). */
function hasKernel(name: string): boolean {
  return tf.getKernel(name, tf.getBackend()) !== undefined;
}

function run<T extends tf.Tensor | tf.Tensor[]>(name: string, inputs: tf.NamedTensorMap, attrs: object): T {
  return tf.engine().runKernel(name, inputs, attrs as unknown as tf.NamedAttrMap) as unknown as T;
}

function maskOf(shape: number[], d: { rate: number; seed: number }): tf.Tensor {
  return tf.tensor(
    dropoutMask(
      shape.reduce((a, b) => a * b, 1),
      d.rate,
      d.seed,
    ),
    shape,
    'float32',
  );
}

// ---- products ------------------------------------------------------------------------------------

/**
 * op(a)·op(b) (+ bias) for 2-D a, b, op = transpose where asked: one kernel on wasm (its GEMM) and
 * webgpu (tfjs's fused product); elsewhere tf.matMul and a bias add (on tfjs-wasm without our
 * module, with explicit transposes: its flagged products run a scalar loop).
 */
export function matMul(
  a: tf.Tensor,
  b: tf.Tensor,
  transposeA = false,
  transposeB = false,
  bias: tf.Tensor | null = null,
): tf.Tensor2D {
  if (hasKernel('RacMatMul')) {
    const inputs: tf.NamedTensorMap = bias ? { a, b, bias } : { a, b };
    return run('RacMatMul', inputs, { transposeA, transposeB });
  }
  const backend = tf.getBackend();
  // webgpu: its fused product kernel directly (tf.fused.matMul would add reshapes around it).
  if (backend === 'webgpu')
    return run('_FusedMatMul', bias ? { a, b, bias } : { a, b }, {
      transposeA,
      transposeB,
      activation: 'linear',
      leakyreluAlpha: 0.2,
    });
  let y: tf.Tensor2D;
  if (backend === 'wasm')
    y = tf.matMul(
      (transposeA ? tf.transpose(a) : a) as tf.Tensor2D,
      (transposeB ? tf.transpose(b) : b) as tf.Tensor2D,
    );
  else y = tf.matMul(a as tf.Tensor2D, b as tf.Tensor2D, transposeA, transposeB);
  return bias ? (tf.add(y, bias) as tf.Tensor2D) : y;
}

/**
 * A batched product read and written through element strides (every offset in floats):
 *   C[t, i, j] at t·sCb + i·sCi + j = Σ_p A[t·sAb + i·sAi + p·sAp] · B[t·sBb + p·sBp + j·sBj]
 * for t < batch, i < m, j < n, p < k; C has shape `outShape` (positions no (t, i, j) writes are 0
 * when `zero` is set). Lets attention read and write token-major activations in place, without
 * the transposes to and from heads. Only where the backend has the kernel: see `hasStridedBmm`.
 */
export interface StridedBmm {
  batch: number;
  m: number;
  k: number;
  n: number;
  sAb: number;
  sAi: number;
  sAp: number;
  sBb: number;
  sBp: number;
  sBj: number;
  sCb: number;
  sCi: number;
  outShape: number[];
  zero?: boolean;
}

export function hasStridedBmm(): boolean {
  return hasKernel('RacStridedBmm');
}

export function stridedBmm(a: tf.Tensor, b: tf.Tensor, spec: StridedBmm): tf.Tensor {
  return run('RacStridedBmm', { a, b }, { ...spec, zero: spec.zero ? 1 : 0 });
}

/** Σ over the rows of a 2-D x (a bias gradient): one pass on cpu and wasm. */
export function colSum(x: tf.Tensor): tf.Tensor1D {
  if (hasKernel('RacColSum')) return run('RacColSum', { x }, {});
  return tf.sum(x, 0) as tf.Tensor1D;
}

/** Whether the active backend runs `name` as one kernel (optim.ts asks for RacAdam / RacSgd). */
export function fusedKernel(name: string): boolean {
  return hasKernel(name);
}

/** Runs a fused kernel (optim.ts). */
export function runFused<T extends tf.Tensor | tf.Tensor[]>(
  name: string,
  inputs: tf.NamedTensorMap,
  attrs: object,
): T {
  return run<T>(name, inputs, attrs);
}

// ---- LayerNorm ----------------------------------------------------------------------------------

/** (x − mean)·rsqrt(var + ε)·γ + β over the last axis (biased variance, as torch.nn.LayerNorm). */
export function layerNorm(x: tf.Tensor, g: tf.Tensor, b: tf.Tensor): tf.Tensor {
  if (hasKernel('RacLayerNorm')) return run('RacLayerNorm', { x, g, b }, { eps: LN_EPS });
  return layerNormComposite(x, g, b);
}

export function layerNormComposite(x: tf.Tensor, g: tf.Tensor, b: tf.Tensor): tf.Tensor {
  const mean = tf.mean(x, -1, true);
  const c = tf.sub(x, mean);
  const variance = tf.mean(tf.square(c), -1, true);
  return tf.add(tf.mul(tf.mul(c, tf.rsqrt(tf.add(variance, LN_EPS))), g), b);
}

/**
 * Backward of layerNorm at x: [dx (+ dres when given), dγ, dβ] for the output gradient dy.
 * dx = r·(dx̂ − mean(dx̂) − x̂·mean(dx̂·x̂)) with dx̂ = dy·γ, x̂ = (x − mean)·r.
 */
export function layerNormGrad(
  x: tf.Tensor,
  g: tf.Tensor,
  dy: tf.Tensor,
  dres: tf.Tensor | null = null,
): [tf.Tensor, tf.Tensor, tf.Tensor] {
  if (hasKernel('RacLayerNormGrad')) {
    const inputs: tf.NamedTensorMap = dres ? { x, g, dy, dres } : { x, g, dy };
    return run<tf.Tensor[]>('RacLayerNormGrad', inputs, { eps: LN_EPS }) as [tf.Tensor, tf.Tensor, tf.Tensor];
  }
  return layerNormGradComposite(x, g, dy, dres);
}

export function layerNormGradComposite(
  x: tf.Tensor,
  g: tf.Tensor,
  dy: tf.Tensor,
  dres: tf.Tensor | null,
): [tf.Tensor, tf.Tensor, tf.Tensor] {
  const D = x.shape[x.shape.length - 1];
  const mean = tf.mean(x, -1, true);
  const c = tf.sub(x, mean);
  const r = tf.rsqrt(tf.add(tf.mean(tf.square(c), -1, true), LN_EPS));
  const xhat = tf.mul(c, r);
  const dy2 = tf.reshape(dy, [-1, D]);
  const dg = tf.sum(tf.mul(dy2, tf.reshape(xhat, [-1, D])), 0);
  const db = tf.sum(dy2, 0);
  const dxh = tf.mul(dy, g);
  const m1 = tf.mean(dxh, -1, true);
  const m2 = tf.mean(tf.mul(dxh, xhat), -1, true);
  let dx = tf.mul(r, tf.sub(tf.sub(dxh, m1), tf.mul(xhat, m2)));
  if (dres) dx = tf.add(dx, dres);
  return [dx, dg, db];
}

// ---- dropout ------------------------------------------------------------------------------------

/**
 * Inverted dropout of any tensor, differentiable (its gradient is the same mask on dy, redrawn from
 * the seed): one kernel each way where the backend has it, no mask upload; elsewhere x·mask.
 */
export function dropout(x: tf.Tensor, drop: Drop): tf.Tensor {
  if (!active(drop)) return x;
  const one = (t: tf.Tensor) =>
    hasKernel('RacDropout')
      ? run<tf.Tensor>('RacDropout', { x: t }, dropAttrs(drop))
      : tf.mul(t, maskOf(t.shape, drop));
  const f = tf.customGrad(((a: tf.Tensor) => ({
    value: one(a),
    gradFunc: (dy: tf.Tensor) => one(dy),
  })) as unknown as Parameters<typeof tf.customGrad>[0]) as unknown as (a: tf.Tensor) => tf.Tensor;
  return f(x);
}

// ---- softmax + dropout --------------------------------------------------------------------------

/** [p, pd]: p = softmax(scale·s) over the last axis, pd = dropout(p) (pd is p without dropout). */
export function softmaxDropout(s: tf.Tensor, scale: number, drop: Drop): [tf.Tensor, tf.Tensor] {
  if (hasKernel('RacSoftmaxDropout')) {
    if (!active(drop)) {
      const p = run<tf.Tensor>('RacSoftmaxDropout', { s }, { scale, ...dropAttrs(null) });
      return [p, p];
    }
    const [p, pd] = run<tf.Tensor[]>('RacSoftmaxDropout', { s }, { scale, ...dropAttrs(drop) });
    return [p, pd];
  }
  return softmaxDropoutComposite(s, scale, drop);
}

export function softmaxDropoutComposite(s: tf.Tensor, scale: number, drop: Drop): [tf.Tensor, tf.Tensor] {
  const p = tf.softmax(scale === 1 ? s : tf.mul(s, scale));
  return [p, active(drop) ? tf.mul(p, maskOf(p.shape, drop)) : p];
}

/** Gradient w.r.t. s of softmaxDropout's pd, given p (its first output) and dpd. */
export function softmaxDropoutGrad(p: tf.Tensor, dpd: tf.Tensor, scale: number, drop: Drop): tf.Tensor {
  if (hasKernel('RacSoftmaxDropoutGrad'))
    return run('RacSoftmaxDropoutGrad', { p, dpd }, { scale, ...dropAttrs(drop) });
  return softmaxDropoutGradComposite(p, dpd, scale, drop);
}

export function softmaxDropoutGradComposite(
  p: tf.Tensor,
  dpd: tf.Tensor,
  scale: number,
  drop: Drop,
): tf.Tensor {
  const dp = active(drop) ? tf.mul(dpd, maskOf(p.shape, drop)) : dpd;
  const ds = tf.mul(p, tf.sub(dp, tf.sum(tf.mul(dp, p), -1, true)));
  return scale === 1 ? ds : tf.mul(ds, scale);
}

// ---- ReGLU + dropout ----------------------------------------------------------------------------

/** f [M, 2F] → dropout(f[:, :F] · relu(f[:, F:])) [M, F]. */
export function regluDropout(f: tf.Tensor2D, drop: Drop): tf.Tensor2D {
  if (hasKernel('RacReglu')) return run('RacReglu', { f }, dropAttrs(drop));
  return regluDropoutComposite(f, drop);
}

export function regluDropoutComposite(f: tf.Tensor2D, drop: Drop): tf.Tensor2D {
  const [a, b] = tf.split(f, 2, 1);
  const g = tf.mul(a, tf.relu(b)) as tf.Tensor2D;
  return active(drop) ? (tf.mul(g, maskOf(g.shape, drop)) as tf.Tensor2D) : g;
}

/** Gradient w.r.t. f [M, 2F] of regluDropout, given dg [M, F]. */
export function regluDropoutGrad(f: tf.Tensor2D, dg: tf.Tensor2D, drop: Drop): tf.Tensor2D {
  if (hasKernel('RacRegluGrad')) return run('RacRegluGrad', { f, dg }, dropAttrs(drop));
  return regluDropoutGradComposite(f, dg, drop);
}

export function regluDropoutGradComposite(f: tf.Tensor2D, dg: tf.Tensor2D, drop: Drop): tf.Tensor2D {
  const dgm = active(drop) ? tf.mul(dg, maskOf(dg.shape, drop)) : dg;
  const [a, b] = tf.split(f, 2, 1);
  const da = tf.mul(dgm, tf.relu(b));
  const db = tf.mul(tf.mul(dgm, a), tf.step(b));
  return tf.concat([da, db], 1) as tf.Tensor2D;
}

// ---- FT tokenizer -------------------------------------------------------------------------------

/**
 * Tokens, token-major [n·B, D] (row t·B + b): t = 0 is the CLS token W₀; t ≥ 1 is x[b, t−1]·W_t + b_{t−1}.
 */
export function tokenize(x: tf.Tensor2D, W: tf.Tensor2D, bias: tf.Tensor2D): tf.Tensor2D {
  if (hasKernel('RacTokenize')) return run('RacTokenize', { x, W, bias }, {});
  return tokenizeComposite(x, W, bias);
}

export function tokenizeComposite(x: tf.Tensor2D, W: tf.Tensor2D, bias: tf.Tensor2D): tf.Tensor2D {
  const [B] = x.shape;
  const [n, D] = W.shape;
  const x1T = tf.concat([tf.ones([1, B]), tf.transpose(x)], 0); // [n, B]
  const b0 = tf.concat([tf.zeros([1, D]), bias], 0); // [n, D]
  const h = tf.add(tf.mul(tf.expandDims(x1T, 2), tf.expandDims(W, 1)), tf.expandDims(b0, 1));
  return tf.reshape(h, [n * B, D]);
}

/** [dW, dbias] of tokenize for dh [n·B, D]. */
export function tokenizeGrad(x: tf.Tensor2D, dh: tf.Tensor2D, n: number): [tf.Tensor2D, tf.Tensor2D] {
  if (hasKernel('RacTokenizeGrad'))
    return run<tf.Tensor[]>('RacTokenizeGrad', { x, dh }, { n }) as [tf.Tensor2D, tf.Tensor2D];
  return tokenizeGradComposite(x, dh, n);
}

export function tokenizeGradComposite(
  x: tf.Tensor2D,
  dh: tf.Tensor2D,
  n: number,
): [tf.Tensor2D, tf.Tensor2D] {
  const [B] = x.shape;
  const D = dh.shape[1];
  const d3 = tf.reshape(dh, [n, B, D]);
  const x1T = tf.concat([tf.ones([1, B]), tf.transpose(x)], 0); // [n, B]
  const dW = tf.sum(tf.mul(d3, tf.expandDims(x1T, 2)), 1) as tf.Tensor2D;
  const db = tf.slice(tf.sum(d3, 1), [1, 0], [n - 1, D]) as tf.Tensor2D;
  return [dW, db];
}
