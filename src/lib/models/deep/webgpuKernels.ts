/**
 * fused.ts's ops as WGSL programs for tfjs's WebGPU backend, so that a GPU step dispatches about
 * as few programs as the wasm one and draws its dropout masks on the device (dropout.ts's hash in
 * u32 arithmetic: the same masks as every other backend), instead of uploading them. Programs go
 * through the backend's own `runWebGPUProgram` (its buffers, uniforms and pipeline cache); nothing
 * here imports the WebGPU backend, so bundles without it are unaffected.
 *
 * A kernel with several outputs runs one program per output (WebGPU programs write one buffer):
 * LayerNorm's backward is 4 (row statistics, dx, dγ, dβ), Adam 4 (θ, m, v, shadow). Row-wise
 * programs use one thread per row, element-wise ones one per element.
 */
import * as tf from '@tensorflow/tfjs';
import { dropCut, dropKeys } from './dropout.ts';

interface Program {
  outputShape: number[];
  shaderKey: string;
  dispatchLayout: { x: number[] };
  dispatch: [number, number, number];
  variableNames: string[];
  workgroupSize: [number, number, number];
  uniforms?: string;
  size?: boolean;
  getUserCode(): string;
}
type Uniform = { type: 'int32' | 'uint32' | 'float32'; data: number[] };
interface WebGPUBackendLike {
  runWebGPUProgram(
    program: Program,
    inputs: tf.TensorInfo[],
    dtype: 'float32',
    uniforms?: Uniform[],
  ): tf.TensorInfo;
}
type Attrs = Record<string, number>;
type Inputs = Record<string, tf.TensorInfo>;

const WG = 64;

type Field = [name: string, type: 'i32' | 'u32' | 'f32', value: number];
/** The WGSL declaration and the data of scalar uniforms (one entry each: no vector packing). */
function fields(fs: Field[]): [string, Uniform[]] {
  const T = { i32: 'int32', u32: 'uint32', f32: 'float32' } as const;
  return [fs.map(([n, t]) => `${n} : ${t},`).join(' '), fs.map(([, t, v]) => ({ type: T[t], data: [v] }))];
}
const prod = (s: readonly number[]) => s.reduce((a, b) => a * b, 1);

/** A program writing `outShape`, with `threads` threads (one per row, element, …). */
function program(
  key: string,
  outShape: number[],
  names: string[],
  threads: number,
  uniforms: string,
  body: string,
): Program {
  return {
    outputShape: outShape,
    shaderKey: `rac_${key}`,
    dispatchLayout: { x: outShape.map((_, i) => i) },
    dispatch: [Math.max(1, Math.ceil(threads / WG)), 1, 1],
    variableNames: names,
    workgroupSize: [WG, 1, 1],
    uniforms,
    // Every input is read somewhere (a phony read otherwise): the pipeline's layout is derived
    // from what the shader uses, and tfjs binds every input.
    getUserCode: () =>
      `${HASH}\n${body.replace('fn main(index : i32) {', `fn main(index : i32) {\n  ${names.map((n) => `_ = ${n}[0];`).join(' ')}`)}`,
  };
}

/** dropout.ts's keep test in WGSL (u32 arithmetic wraps as Math.imul does). */
const HASH = `
fn racLb(x0 : u32) -> u32 {
  var x = x0;
  x = x ^ (x >> 16u); x = x * 0x21f0aaadu; x = x ^ (x >> 15u); x = x * 0x735a2d97u;
  return x ^ (x >> 15u);
}
fn racKeep(i : u32, ka : u32, kb : u32, cut : u32) -> bool {
  return racLb(racLb(i + ka) ^ kb) >= cut;
}`;

/** Dropout uniforms: cut, keys, kept scale (cut 0 and scale 1: none). */
function dropFields(a: Attrs): Field[] {
  const [ka, kb] = a.rate > 0 ? dropKeys(a.seed) : [0, 0];
  return [
    ['cut', 'u32', a.rate > 0 ? dropCut(a.rate) : 0],
    ['ka', 'u32', ka],
    ['kb', 'u32', kb],
    ['keep', 'f32', a.rate > 0 ? Math.fround(1 / (1 - a.rate)) : 1],
  ];
}
const DROP = (i: string, v: string) =>
  `select(0.0, ${v} * uniforms.keep, racKeep(u32(${i}), uniforms.ka, uniforms.kb, uniforms.cut))`;

type Kernel = (inputs: Inputs, backend: WebGPUBackendLike, attrs: Attrs) => tf.TensorInfo | tf.TensorInfo[];

/** Runs one program: `key` names the shader (with everything its code depends on). */
function run(
  be: WebGPUBackendLike,
  key: string,
  outShape: number[],
  inputs: [string, tf.TensorInfo][],
  threads: number,
  fs: Field[],
  body: string,
): tf.TensorInfo {
  const [decl, data] = fields(fs);
  return be.runWebGPUProgram(
    program(
      key,
      outShape,
      inputs.map(([n]) => n),
      threads,
      decl,
      body,
    ),
    inputs.map(([, t]) => t),
    'float32',
    data,
  );
}

/**
 * The elementwise outputs of one optimiser step over the parameter tensor `th`: each output is its
 * own program (`${name}_${key}`, `_wd` with a decay vector) made of the step's shared WGSL functions
 * (`common`) and `result[index] = expr`; the shadow weights (`s`, an EMA of the new parameters)
 * come last where the step keeps them.
 */
function optimizerOutputs(
  be: WebGPUBackendLike,
  name: string,
  th: tf.TensorInfo,
  ins: [string, tf.TensorInfo][],
  fs: Field[],
  common: string,
  wd: boolean,
  exprs: [key: string, expr: string][],
  s: tf.TensorInfo | undefined,
): tf.TensorInfo[] {
  const one = (key: string, expr: string, extra: [string, tf.TensorInfo][] = []) =>
    run(
      be,
      `${name}_${key}${wd ? '_wd' : ''}`,
      th.shape,
      [...ins, ...extra],
      prod(th.shape),
      fs,
      `${common}
fn main(index : i32) {
  if (index >= uniforms.len) { return; }
  result[index] = ${expr};
}`,
    );
  const outs = exprs.map(([key, expr]) => one(key, expr));
  if (s) outs.push(one('s', 's[index] * uniforms.ema + thNew(index) * uniforms.cema', [['s', s]]));
  return outs;
}

const LN_STATS = `
  let D = uniforms.cols; let o = index * D;
  var s = 0.0;
  for (var j = 0; j < D; j++) { s += x[o + j]; }
  let mean = s / f32(D);
  var v = 0.0;
  for (var j = 0; j < D; j++) { let c = x[o + j] - mean; v += c * c; }
  let rs = 1.0 / sqrt(v / f32(D) + uniforms.eps);`;

const KERNELS: Record<string, Kernel> = {
  RacLayerNorm({ x, g, b }, be, { eps }) {
    const D = x.shape[x.shape.length - 1];
    const M = prod(x.shape) / D;
    const fs: Field[] = [
      ['rows', 'i32', M],
      ['cols', 'i32', D],
      ['eps', 'f32', eps],
    ];
    return run(
      be,
      'ln',
      x.shape,
      [
        ['x', x],
        ['g', g],
        ['b', b],
      ],
      M,
      fs,
      `
fn main(index : i32) {
  if (index >= uniforms.rows) { return; }${LN_STATS}
  for (var j = 0; j < D; j++) { result[o + j] = (x[o + j] - mean) * rs * g[j] + b[j]; }
}`,
    );
  },

  RacLayerNormGrad({ x, g, dy, dres }, be, { eps }) {
    const D = x.shape[x.shape.length - 1];
    const M = prod(x.shape) / D;
    const fs: Field[] = [
      ['rows', 'i32', M],
      ['cols', 'i32', D],
      ['eps', 'f32', eps],
    ];
    // Row statistics: mean, 1/σ, mean(dy·γ), mean(dy·γ·x̂).
    const st = run(
      be,
      'ln_stats',
      [M, 4],
      [
        ['x', x],
        ['g', g],
        ['dy', dy],
      ],
      M,
      fs,
      `
fn main(index : i32) {
  if (index >= uniforms.rows) { return; }${LN_STATS}
  var m1 = 0.0; var m2 = 0.0;
  for (var j = 0; j < D; j++) { let d = dy[o + j] * g[j]; m1 += d; m2 += d * (x[o + j] - mean) * rs; }
  result[index * 4] = mean; result[index * 4 + 1] = rs;
  result[index * 4 + 2] = m1 / f32(D); result[index * 4 + 3] = m2 / f32(D);
}`,
    );
    const ins: [string, tf.TensorInfo][] = [
      ['x', x],
      ['g', g],
      ['dy', dy],
      ['st', st],
    ];
    if (dres) ins.push(['dres', dres]);
    const dx = run(
      be,
      dres ? 'ln_dx_res' : 'ln_dx',
      x.shape,
      ins,
      M * D,
      fs,
      `
fn main(index : i32) {
  if (index >= uniforms.rows * uniforms.cols) { return; }
  let r = index / uniforms.cols; let j = index % uniforms.cols;
  let h = (x[index] - st[r * 4]) * st[r * 4 + 1];
  result[index] = st[r * 4 + 1] * (dy[index] * g[j] - st[r * 4 + 2] - h * st[r * 4 + 3])${dres ? ' + dres[index]' : ''};
}`,
    );
    const col = (key: string, expr: string) =>
      run(
        be,
        key,
        [D],
        [
          ['x', x],
          ['dy', dy],
          ['st', st],
        ],
        D,
        fs,
        `
fn main(index : i32) {
  if (index >= uniforms.cols) { return; }
  var s = 0.0;
  for (var r = 0; r < uniforms.rows; r++) { let i = r * uniforms.cols + index; s += ${expr}; }
  result[index] = s;
}`,
      );
    const dg = col('ln_dg', 'dy[i] * (x[i] - st[r * 4]) * st[r * 4 + 1]');
    const db = col('ln_db', 'dy[i]');
    (be as unknown as { disposeData(id: object): void }).disposeData(st.dataId);
    return [dx, dg, db];
  },

  RacSoftmaxDropout({ s }, be, a) {
    const n = s.shape[s.shape.length - 1];
    const R = prod(s.shape) / n;
    const fs: Field[] = [['rows', 'i32', R], ['cols', 'i32', n], ['scale', 'f32', a.scale], ...dropFields(a)];
    const p = run(
      be,
      'smd_p',
      s.shape,
      [['s', s]],
      R,
      fs,
      `
fn main(index : i32) {
  if (index >= uniforms.rows) { return; }
  let n = uniforms.cols; let o = index * n;
  var mx = -3.402823e38;
  for (var j = 0; j < n; j++) { mx = max(mx, s[o + j] * uniforms.scale); }
  var sum = 0.0;
  for (var j = 0; j < n; j++) { let e = exp(s[o + j] * uniforms.scale - mx); result[o + j] = e; sum += e; }
  for (var j = 0; j < n; j++) { result[o + j] = result[o + j] / sum; }
}`,
    );
    if (!(a.rate > 0)) return p;
    const pd = run(
      be,
      'smd_pd',
      s.shape,
      [['p', p]],
      R * n,
      fs,
      `
fn main(index : i32) {
  if (index >= uniforms.rows * uniforms.cols) { return; }
  result[index] = ${DROP('index', 'p[index]')};
}`,
    );
    return [p, pd];
  },

  RacSoftmaxDropoutGrad({ p, dpd }, be, a) {
    const n = p.shape[p.shape.length - 1];
    const R = prod(p.shape) / n;
    const fs: Field[] = [['rows', 'i32', R], ['cols', 'i32', n], ['scale', 'f32', a.scale], ...dropFields(a)];
    return run(
      be,
      'smd_bwd',
      p.shape,
      [
        ['p', p],
        ['dpd', dpd],
      ],
      R,
      fs,
      `
fn main(index : i32) {
  if (index >= uniforms.rows) { return; }
  let n = uniforms.cols; let o = index * n;
  var dot = 0.0;
  for (var j = 0; j < n; j++) { let d = ${DROP('o + j', 'dpd[o + j]')}; result[o + j] = d; dot += d * p[o + j]; }
  for (var j = 0; j < n; j++) { result[o + j] = p[o + j] * (result[o + j] - dot) * uniforms.scale; }
}`,
    );
  },

  RacReglu({ f }, be, a) {
    const [M, F2] = f.shape;
    const F = F2 / 2;
    const fs: Field[] = [['rows', 'i32', M], ['cols', 'i32', F], ...dropFields(a)];
    return run(
      be,
      'reglu',
      [M, F],
      [['f', f]],
      M * F,
      fs,
      `
fn main(index : i32) {
  if (index >= uniforms.rows * uniforms.cols) { return; }
  let F = uniforms.cols; let r = index / F; let j = index % F;
  let v = f[r * 2 * F + j] * max(f[r * 2 * F + F + j], 0.0);
  result[index] = ${DROP('index', 'v')};
}`,
    );
  },

  RacRegluGrad({ f, dg }, be, a) {
    const [M, F2] = f.shape;
    const F = F2 / 2;
    const fs: Field[] = [['rows', 'i32', M], ['cols', 'i32', F], ...dropFields(a)];
    return run(
      be,
      'reglu_bwd',
      [M, F2],
      [
        ['f', f],
        ['dg', dg],
      ],
      M * F2,
      fs,
      `
fn main(index : i32) {
  if (index >= uniforms.rows * 2 * uniforms.cols) { return; }
  let F = uniforms.cols; let r = index / (2 * F); let c = index % (2 * F);
  let j = select(c - F, c, c < F);
  let d = ${DROP('r * F + j', 'dg[r * F + j]')};
  let av = f[r * 2 * F + j]; let bv = f[r * 2 * F + F + j];
  result[index] = select(0.0, d * select(av, bv, c < F), bv > 0.0);
}`,
    );
  },

  RacDropout({ x }, be, a) {
    const n = prod(x.shape);
    return run(
      be,
      'dropout',
      x.shape,
      [['x', x]],
      n,
      [['len', 'i32', n], ...dropFields(a)],
      `
fn main(index : i32) {
  if (index >= uniforms.len) { return; }
  result[index] = ${DROP('index', 'x[index]')};
}`,
    );
  },

  RacStridedBmm({ a, b }, be, at) {
    const out = at.outShape as unknown as number[];
    const fs: Field[] = (
      ['batch', 'm', 'k', 'n', 'sAb', 'sAi', 'sAp', 'sBb', 'sBp', 'sBj', 'sCb', 'sCi'] as const
    ).map((key): Field => [key, 'i32', at[key]]);
    fs.push(['total', 'i32', prod(out)]);
    // One thread per output element: its (t, i, j) from the output strides (the larger first);
    // positions no (t, i, j) writes are 0.
    return run(
      be,
      'strided_bmm',
      out,
      [
        ['a', a],
        ['b', b],
      ],
      prod(out),
      fs,
      `
fn main(index : i32) {
  if (index >= uniforms.total) { return; }
  let U = uniforms;
  var t = 0; var i = 0; var j = 0;
  if (U.sCb >= U.sCi) { t = index / U.sCb; let r = index % U.sCb; i = r / U.sCi; j = r % U.sCi; }
  else { i = index / U.sCi; let r = index % U.sCi; t = r / U.sCb; j = r % U.sCb; }
  if (t >= U.batch || i >= U.m || j >= U.n) { result[index] = 0.0; return; }
  var acc = 0.0;
  for (var p = 0; p < U.k; p++) {
    acc += a[t * U.sAb + i * U.sAi + p * U.sAp] * b[t * U.sBb + p * U.sBp + j * U.sBj];
  }
  result[index] = acc;
}`,
    );
  },

  RacColSum({ x }, be) {
    const [M, N] = x.shape;
    return run(
      be,
      'colsum',
      [N],
      [['x', x]],
      N,
      [
        ['rows', 'i32', M],
        ['cols', 'i32', N],
      ],
      `
fn main(index : i32) {
  if (index >= uniforms.cols) { return; }
  var s = 0.0;
  for (var r = 0; r < uniforms.rows; r++) { s += x[r * uniforms.cols + index]; }
  result[index] = s;
}`,
    );
  },

  RacTokenize({ x, W, bias }, be) {
    const [B, d] = x.shape;
    const [n, D] = W.shape;
    const fs: Field[] = [
      ['nb', 'i32', B],
      ['nd', 'i32', d],
      ['dt', 'i32', D],
      ['nt', 'i32', n],
    ];
    return run(
      be,
      'tokenize',
      [n * B, D],
      [
        ['x', x],
        ['W', W],
        ['bias', bias],
      ],
      n * B * D,
      fs,
      `
fn main(index : i32) {
  if (index >= uniforms.nt * uniforms.nb * uniforms.dt) { return; }
  let D = uniforms.dt; let j = index % D; let row = index / D;
  let t = row / uniforms.nb; let b = row % uniforms.nb;
  if (t == 0) { result[index] = W[j]; return; }
  result[index] = x[b * uniforms.nd + t - 1] * W[t * D + j] + bias[(t - 1) * D + j];
}`,
    );
  },

  RacTokenizeGrad({ x, dh }, be, { n }) {
    const [B, d] = x.shape;
    const D = dh.shape[1];
    const fs: Field[] = [
      ['nb', 'i32', B],
      ['nd', 'i32', d],
      ['dt', 'i32', D],
      ['nt', 'i32', n],
    ];
    const dW = run(
      be,
      'tokenize_dw',
      [n, D],
      [
        ['x', x],
        ['dh', dh],
      ],
      n * D,
      fs,
      `
fn main(index : i32) {
  if (index >= uniforms.nt * uniforms.dt) { return; }
  let D = uniforms.dt; let t = index / D; let j = index % D;
  var s = 0.0;
  for (var b = 0; b < uniforms.nb; b++) {
    let xv = select(x[max(b * uniforms.nd + t - 1, 0)], 1.0, t == 0);
    s += dh[(t * uniforms.nb + b) * D + j] * xv;
  }
  result[index] = s;
}`,
    );
    const db = run(
      be,
      'tokenize_db',
      [n - 1, D],
      [['dh', dh]],
      (n - 1) * D,
      fs,
      `
fn main(index : i32) {
  if (index >= (uniforms.nt - 1) * uniforms.dt) { return; }
  let D = uniforms.dt; let t = index / D + 1; let j = index % D;
  var s = 0.0;
  for (var b = 0; b < uniforms.nb; b++) { s += dh[(t * uniforms.nb + b) * D + j]; }
  result[index] = s;
}`,
    );
    return [dW, db];
  },

  RacAdam({ th, g, m, v, s, wd }, be, a) {
    const n = prod(th.shape);
    const ins: [string, tf.TensorInfo][] = [
      ['th', th],
      ['g', g],
      ['m', m],
      ['v', v],
    ];
    if (wd) ins.push(['wd', wd]);
    const fs: Field[] = [
      ['len', 'i32', n],
      ...(['b1', 'c1', 'b2', 'c2', 'sbc2', 'eps', 'lrc', 'ema', 'cema'] as const).map((k): Field => [
        k,
        'f32',
        a[k],
      ]),
    ];
    const common = `
fn gd(i : i32) -> f32 { return ${wd ? 'g[i] + th[i] * wd[i]' : 'g[i]'}; }
fn mNew(i : i32) -> f32 { return m[i] * uniforms.b1 + gd(i) * uniforms.c1; }
fn vNew(i : i32) -> f32 { let q = gd(i); return v[i] * uniforms.b2 + q * q * uniforms.c2; }
fn thNew(i : i32) -> f32 { return th[i] - mNew(i) / (sqrt(vNew(i)) / uniforms.sbc2 + uniforms.eps) * uniforms.lrc; }`;
    const exprs: [string, string][] = [
      ['th', 'thNew(index)'],
      ['m', 'mNew(index)'],
      ['v', 'vNew(index)'],
    ];
    return optimizerOutputs(be, 'adam', th, ins, fs, common, !!wd, exprs, s);
  },

  RacSgd({ th, g, b, s, wd }, be, a) {
    const n = prod(th.shape);
    const ins: [string, tf.TensorInfo][] = [
      ['th', th],
      ['g', g],
      ['b', b],
    ];
    if (wd) ins.push(['wd', wd]);
    const fs: Field[] = [
      ['len', 'i32', n],
      ...(['mom', 'lr', 'ema', 'cema'] as const).map((k): Field => [k, 'f32', a[k]]),
    ];
    const common = `
fn bNew(i : i32) -> f32 { return b[i] * uniforms.mom + ${wd ? 'g[i] + th[i] * wd[i]' : 'g[i]'}; }
fn thNew(i : i32) -> f32 { return th[i] - bNew(i) * uniforms.lr; }`;
    const exprs: [string, string][] = [
      ['th', 'thNew(index)'],
      ['b', 'bNew(index)'],
    ];
    return optimizerOutputs(be, 'sgd', th, ins, fs, common, !!wd, exprs, s);
  },
};

/** Registers the WGSL forms for the webgpu backend (idempotent; harmless where it is not loaded). */
export function registerWebGPUKernels(): void {
  for (const [name, k] of Object.entries(KERNELS)) {
    if (tf.getKernel(name, 'webgpu')) continue;
    tf.registerKernel({
      kernelName: name,
      backendName: 'webgpu',
      kernelFunc: (({
        inputs,
        backend,
        attrs,
      }: {
        inputs: Inputs;
        backend: WebGPUBackendLike;
        attrs: Attrs;
      }) => k(inputs, backend, attrs)) as unknown as tf.KernelFunc,
    });
  }
}
