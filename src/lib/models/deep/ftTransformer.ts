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
 * @see https://arxiv.org/abs/2106.11959
 */
import * as tf from '@tensorflow/tfjs';
import { MT19937 } from '../../protocol/rng.ts';
import { dropoutMask } from './dropout.ts';

import type { FTSize } from './sizes.ts';

export { FT_SIZES, type FTSize, type FTSizeName } from './sizes.ts';

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

const LN_EPS = 1e-5;

function layerNorm(x: tf.Tensor, g: tf.Tensor, b: tf.Tensor): tf.Tensor {
  const mean = tf.mean(x, -1, true);
  const c = tf.sub(x, mean);
  const variance = tf.mean(tf.square(c), -1, true);
  return tf.add(tf.mul(tf.mul(c, tf.rsqrt(tf.add(variance, LN_EPS))), g), b);
}

/**
 * 2-D matmul whose gradient also avoids transpose flags: tfjs-wasm sends flagged (and batched)
 * matmuls to a naive loop that is 10–30× slower than its XNNPACK path; explicit transposes are cheap.
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

function linear(x2: tf.Tensor, W: tf.Tensor, b: tf.Tensor): tf.Tensor2D {
  return tf.add(mm2(x2, W), b) as tf.Tensor2D;
}

function applyDropout(x: tf.Tensor, rate: number, seed: number): tf.Tensor {
  if (rate <= 0) return x;
  const mask = tf.tensor(dropoutMask(x.size, rate, seed), x.shape, 'float32');
  return tf.mul(x, mask);
}

/** The names of block l's parameters, in a fixed order (the recompute wrapper passes them as inputs). */
function blockParamNames(l: number): string[] {
  const p = `b${l}.`;
  const names = [
    'Wq',
    'bq',
    'Wk',
    'bk',
    'Wv',
    'bv',
    'Ek',
    'Ev',
    'Wo',
    'bo',
    'ln1.g',
    'ln1.b',
    'W1',
    'b1',
    'W2',
    'b2',
  ].map((x) => p + x);
  return l > 0 ? [p + 'ln0.g', p + 'ln0.b', ...names] : names;
}

/** Block l on token-major h [n, B, D] → [n or 1, B, D]. Dropout seeds are fixed by the caller. */
function block(
  s: FTShape,
  l: number,
  P: FTParams,
  h: tf.Tensor,
  drop: { attention: number; ffn: number; seeds: [number, number] } | null,
): tf.Tensor {
  const { dToken: D, heads: H } = s;
  const dh = D / H;
  const n = s.features + 1;
  const B = h.shape[1] as number;
  const p = `b${l}.`;
  const last = l === s.blocks - 1;
  const nq = last ? 1 : n;
  const a = l > 0 ? layerNorm(h, P[p + 'ln0.g'], P[p + 'ln0.b']) : h; // [n, B, D]
  const a2 = tf.reshape(a, [n * B, D]);
  const aq2 = last ? tf.reshape(tf.slice(a, [0, 0, 0], [1, B, D]), [B, D]) : a2;
  const q = linear(aq2, P[p + 'Wq'], P[p + 'bq']);
  // Token mixing: K ← E_k K along the token axis (one [n,n] × [n, B·D] matmul in this layout).
  const k = mm2(P[p + 'Ek'], tf.reshape(linear(a2, P[p + 'Wk'], P[p + 'bk']), [n, B * D]));
  const v = mm2(P[p + 'Ev'], tf.reshape(linear(a2, P[p + 'Wv'], P[p + 'bv']), [n, B * D]));
  const toHeads = (t: tf.Tensor, rows: number) => tf.transpose(tf.reshape(t, [rows, B, H, dh]), [1, 2, 0, 3]); // [B,H,rows,dh]
  const qh = toHeads(tf.mul(q, 1 / Math.sqrt(dh)), nq);
  const khT = tf.transpose(tf.reshape(k, [n, B, H, dh]), [1, 2, 3, 0]); // [B,H,dh,n]
  const vh = toHeads(v, n);
  let att: tf.Tensor = tf.softmax(tf.matMul(qh as tf.Tensor4D, khT as tf.Tensor4D)); // [B,H,nq,n]
  if (drop) att = applyDropout(att, drop.attention, drop.seeds[0]);
  const ctxh = tf.matMul(att as tf.Tensor4D, vh as tf.Tensor4D); // [B,H,nq,dh]
  const merged = tf.reshape(tf.transpose(ctxh, [2, 0, 1, 3]), [nq * B, D]);
  const out = tf.reshape(linear(merged, P[p + 'Wo'], P[p + 'bo']), [nq, B, D]);
  const res = last ? tf.slice(h, [0, 0, 0], [1, B, D]) : h;
  let x = tf.add(res, out);
  // FFN: LN1 → linear D→2F → ReGLU (first half × relu(second half)) → dropout → linear F→D.
  const f1 = linear(
    tf.reshape(layerNorm(x, P[p + 'ln1.g'], P[p + 'ln1.b']), [nq * B, D]),
    P[p + 'W1'],
    P[p + 'b1'],
  );
  const [ga, gb] = tf.split(f1, 2, 1);
  let g: tf.Tensor = tf.mul(ga, tf.relu(gb));
  if (drop) g = applyDropout(g, drop.ffn, drop.seeds[1]);
  x = tf.add(x, tf.reshape(linear(g, P[p + 'W2'], P[p + 'b2']), [nq, B, D]));
  return x;
}

/**
 * Block l with activation recomputation (gradient checkpointing): the forward keeps only the
 * block's input; the backward re-runs the block under its own tape (same dropout masks, as they
 * come from fixed seeds). Memory per fit then holds one block's intermediates instead of all eight:
 * without it a FixMatch step at rsb size (512 gradient rows) exceeds the WASM heap.
 */
function blockRecompute(
  s: FTShape,
  l: number,
  P: FTParams,
  h: tf.Tensor,
  drop: Parameters<typeof block>[4],
): tf.Tensor {
  const names = blockParamNames(l);
  const run = (hh: tf.Tensor, ps: tf.Tensor[]) =>
    block(s, l, Object.fromEntries(names.map((nm, i) => [nm, ps[i]])), hh, drop);
  const f = tf.customGrad(((...args: unknown[]) => {
    const save = args[args.length - 1] as tf.GradSaveFunc;
    const inputs = args.slice(0, -1) as tf.Tensor[];
    save(inputs);
    return {
      value: run(inputs[0], inputs.slice(1)),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) =>
        withOuterTapeKept(() => tf.grads((...xs: tf.Tensor[]) => run(xs[0], xs.slice(1)))(saved, dy)),
    };
  }) as unknown as Parameters<typeof tf.customGrad>[0]) as unknown as (...xs: tf.Tensor[]) => tf.Tensor;
  return f(h, ...names.map((nm) => P[nm]));
}

/**
 * tfjs's engine keeps one `activeTape`: a gradient computed inside another's backward pass (the
 * recompute above) replaces it and finally sets it to null, and the outer pass then fails when it
 * frees its tape. Keep the outer tape across the inner computation.
 */
function withOuterTapeKept<T>(f: () => T): T {
  const state = (tf.engine() as unknown as { state: { activeTape: unknown } }).state;
  const outer = state.activeTape;
  try {
    return f();
  } finally {
    state.activeTape = outer;
  }
}

/**
 * Logits (batch × classes) for rows x (batch × d). Call inside tf.tidy (or variableGrads);
 * it creates intermediates freely. `recompute` trades one extra block forward in the backward
 * pass for memory (use it for gradient forwards at rsb size).
 */
export function forward(s: FTShape, P: FTParams, x: tf.Tensor2D, opts: ForwardOptions = {}): tf.Tensor2D {
  const D = s.dToken;
  const B = x.shape[0];
  const drop = opts.dropout && (opts.dropout.attention > 0 || opts.dropout.ffn > 0) ? opts.dropout : null;
  // Tokens, token-major: t[j, b, :] = x1[b, j]·W_j + bias_j, x1 = [1, x] and bias_0 = 0 (CLS).
  const x1T = tf.concat([tf.ones([1, B]), tf.transpose(x)], 0); // [n, B]
  const bias = tf.concat([tf.zeros([1, D]), P['tok.b']], 0); // [n, D]
  let h: tf.Tensor = tf.add(
    tf.mul(tf.expandDims(x1T, 2), tf.expandDims(P['tok.W'], 1)),
    tf.expandDims(bias, 1),
  );
  for (let l = 0; l < s.blocks; l++) {
    const seeds: [number, number] = [
      ((drop ? drop.seed : 0) + Math.imul(2 * l + 1, 0x9e3779b1)) >>> 0,
      ((drop ? drop.seed : 0) + Math.imul(2 * l + 2, 0x9e3779b1)) >>> 0,
    ];
    const bd = drop ? { attention: drop.attention, ffn: drop.ffn, seeds } : null;
    const hin = h;
    if (opts.noGrad) h = tf.tidy(() => block(s, l, P, hin, bd));
    else h = opts.recompute ? blockRecompute(s, l, P, hin, bd) : block(s, l, P, hin, bd);
  }
  const cls = tf.reshape(tf.slice(h, [0, 0, 0], [1, B, D]), [B, D]);
  return linear(tf.relu(layerNorm(cls, P['head.ln.g'], P['head.ln.b'])), P['head.W'], P['head.b']);
}
