/**
 * Child-process probe for webgpuParity.test.ts: every fused op of fused.ts (the WGSL programs of
 * webgpuKernels.ts) on the backend named by argv[2], against the same op on the cpu backend (its
 * JavaScript kernels), at odd sizes, with dropout; the optimiser kernels after two steps. Prints
 * one JSON object: op → [relative error, whether dropped entries agree].
 */
import * as tf from '@tensorflow/tfjs';
import { initNodeBackend, type NodeBackend } from '../../../../src/cli/tfNode.ts';
import * as F from '../../../../src/lib/models/deep/fused.ts';
import { hostNormals, onBackend, type Host } from './hostOps.ts';

const target = await initNodeBackend(process.argv[2] as NodeBackend);
const host = hostNormals(9);

async function on(backend: string, inputs: Host[], f: (...t: tf.Tensor[]) => tf.Tensor | tf.Tensor[]) {
  return (await onBackend(backend, inputs, f)).arrays;
}

const result: Record<string, [number, boolean]> = {};
async function compare(name: string, inputs: Host[], f: (...t: tf.Tensor[]) => tf.Tensor | tf.Tensor[]) {
  const got = await on(target, inputs, f);
  const ref = await on('cpu', inputs, f);
  let worst = 0;
  let zeros = got.length === ref.length;
  got.forEach((g, i) => {
    let num = 0,
      den = 0;
    for (let j = 0; j < g.length; j++) {
      num = Math.max(num, Math.abs(g[j] - ref[i][j]));
      den = Math.max(den, Math.abs(ref[i][j]));
      if ((g[j] === 0) !== (ref[i][j] === 0)) zeros = false;
    }
    worst = Math.max(worst, den === 0 ? num : num / den);
  });
  result[name] = [worst, zeros];
}

const drop = { rate: 0.25, seed: 4242 };
const [M, D] = [37, 13];
const x = host([M, D]),
  g = host([D]),
  b = host([D]),
  dy = host([M, D]);
await compare('layerNorm', [x, g, b], F.layerNorm);
await compare('layerNormGrad', [x, g, dy], (a, c, d) => F.layerNormGrad(a, c, d));
await compare('layerNormGrad+res', [x, g, dy, dy], (a, c, d, e) => F.layerNormGrad(a, c, d, e));
const s = host([3, 2, 5, 17]);
await compare('softmaxDropout', [s], (t) => F.softmaxDropout(t, 0.6, drop));
await compare('softmax', [s], (t) => F.softmaxDropout(t, 0.6, null));
await compare('softmaxDropoutGrad', [s, s], (t, u) => F.softmaxDropoutGrad(tf.softmax(t), u, 0.6, drop));
const f = host([11, 14]),
  dg = host([11, 7]);
await compare('regluDropout', [f], (t) => F.regluDropout(t as tf.Tensor2D, drop));
await compare('regluDropoutGrad', [f, dg], (t, u) =>
  F.regluDropoutGrad(t as tf.Tensor2D, u as tf.Tensor2D, drop),
);
await compare('colSum', [x], (t) => F.colSum(t));
// Attention's products on token-major rows (n tokens, B samples, H heads of dh; the last block's
// CLS-only queries with zeroed rows).
{
  const [n2, B2, H2, dh2] = [5, 3, 2, 4];
  const D2 = H2 * dh2;
  const q = host([n2 * B2, D2]),
    k = host([n2, B2 * D2]);
  for (const nq of [n2, 1])
    await compare(`stridedBmm nq=${nq}`, [q, k], (a, c) =>
      F.stridedBmm(a, c, {
        ...{ batch: B2 * H2, m: nq, k: dh2, n: n2 },
        ...{ sAb: dh2, sAi: B2 * D2, sAp: 1, sBb: dh2, sBp: 1, sBj: B2 * D2, sCb: nq * n2, sCi: n2 },
        outShape: [B2, H2, nq, n2],
      }),
    );
  const sc = host([B2 * H2, 1, n2]);
  await compare('stridedBmm zero rows', [sc, k], (a, c) =>
    F.stridedBmm(a, c, {
      ...{ batch: B2 * H2, m: 1, k: n2, n: dh2 },
      ...{ sAb: n2, sAi: n2, sAp: 1, sBb: dh2, sBp: B2 * D2, sBj: 1, sCb: dh2, sCi: B2 * D2 },
      outShape: [n2 * B2, D2],
      zero: true,
    }),
  );
}
await compare('dropout', [x], (t) => F.dropout(t, drop));
const [B, d, Dt] = [5, 3, 8];
const xt = host([B, d]),
  W = host([d + 1, Dt]),
  bias = host([d, Dt]),
  dh = host([(d + 1) * B, Dt]);
await compare('tokenize', [xt, W, bias], (a, c, e) =>
  F.tokenize(a as tf.Tensor2D, c as tf.Tensor2D, e as tf.Tensor2D),
);
await compare('tokenizeGrad', [xt, dh], (a, c) => F.tokenizeGrad(a as tf.Tensor2D, c as tf.Tensor2D, d + 1));
const a2 = host([19, 23]),
  b2 = host([23, 10]),
  bb = host([10]);
await compare('matMul+bias', [a2, b2, bb], (p, q, r) => F.matMul(p, q, false, false, r));
await compare('matMul tA tB', [b2, a2], (p, q) => F.matMul(p, q, true, true));
const n = 1003;
const th = host([n]),
  gr = host([n]),
  m = host([n]),
  v = host([n]),
  sh = host([n]),
  wd = host([n]);
for (const vv of v.data.keys()) v.data[vv] = Math.abs(v.data[vv]);
const adam = {
  b1: 0.9,
  c1: 0.1,
  b2: 0.999,
  c2: 0.001,
  sbc2: 0.05,
  eps: 1e-8,
  lrc: 0.01,
  ema: 0.99,
  cema: 0.01,
};
await compare('adam', [th, gr, m, v, sh, wd], (p, q, r, t, u, w) =>
  F.runFused<tf.Tensor[]>('RacAdam', { th: p, g: q, m: r, v: t, s: u, wd: w }, adam),
);
await compare('sgd', [th, gr, m, sh], (p, q, r, u) =>
  F.runFused<tf.Tensor[]>(
    'RacSgd',
    { th: p, g: q, b: r, s: u },
    { mom: 0.9, lr: 0.05, ema: 0.99, cema: 0.01 },
  ),
);
process.stdout.write(JSON.stringify({ backend: target, result }));
process.exit(0);
