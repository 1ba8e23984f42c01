/**
 * RoBERTa (src/lib/models/backbone/roberta.ts) against the PyTorch oracle of
 * scripts/fixtures/make_encoder_fixtures.py (transformers' modeling_roberta.py written out, random
 * tiny weights: hidden 32, 2 layers, 4 heads, intermediate 64, vocab 100, 40 positions), on the
 * tfjs cpu and wasm backends, within 1e-4 relative (fixture.ts: max |Δ| / max |torch| per tensor):
 * 1. Eval: position ids (the literal `<pad>` of §6.7 sits at padding_idx and does not advance the
 *    counter), the last hidden state of a padded batch, the `<s>` feature (Backbone) and the
 *    classification logits; the Backbone's feature without padding equals the padded one.
 * 2. Training (dropout off): through the DeepTrainer, the gradient of CE wrt every parameter at the
 *    initial weights (the padding rows of the word and position embeddings get none, as
 *    nn.Embedding(padding_idx)), then 3 SGD steps (momentum 0.9, coupled weight decay 5e-4 on §7.2's
 *    decay group): each step's loss, the parameters, and the update θ3 − θ0 itself.
 * 3. Dropout on: the same seed gives the same output, another seed or eval mode a different one;
 *    gradients with layer recomputation equal those without (same masks).
 * 4. Loading: with or without the `roberta.` prefix; lm_head, pooler, classifier and the int64
 *    position_ids buffer skipped; missing names, a wrong config and an unknown head count refused.
 * No test leaves a tensor behind.
 */
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createPositionIds,
  encoderForward,
  loadRobertaWeights,
  robertaBackbone,
  robertaForSequenceClassification,
  splitTokens,
  tokenRows,
  type EncoderWeights,
} from '../../../../src/lib/models/backbone/roberta.ts';
import { installWasmBatchMatMul } from '../../../../src/lib/models/deep/batchMatMul.ts';
import { createMethod } from '../../../../src/lib/models/deep/methods/index.ts';
import type { DeepNetwork } from '../../../../src/lib/models/deep/network.ts';
import { DeepTrainer, type BatchDraw, type TrainerConfig } from '../../../../src/lib/models/deep/trainer.ts';
import type { ViewSource } from '../../../../src/lib/models/deep/views.ts';
import { MT19937 } from '../../../../src/lib/protocol/rng.ts';
import { parseSafetensors, type SafetensorsFile } from '../../../../src/lib/weights/safetensors.ts';
import { transpose2d } from '../../../../src/lib/weights/weightMap.ts';
import { writeSafetensors, type TensorSpec } from '../../weights/helpers.ts';
import {
  f32,
  FIXTURES,
  loadFile,
  loadGoldens,
  relErr,
  report,
  scaleOf,
  TOL,
  torchLayout,
  worst,
  type TrainGolden,
} from './fixture.ts';

const G = loadGoldens();
const R = G.roberta;
const FILE = loadFile(FIXTURES, R.file);
const TINY = { heads: R.config.num_attention_heads };
const CLASSES = R.config.num_labels;
const E = R.eval;
const T = R.train as TrainGolden;

function evalInput(L = E.seqLength): tf.Tensor3D {
  const ids: number[] = [],
    mask: number[] = [];
  for (let r = 0; r < E.batch; r++)
    for (let j = 0; j < L; j++) {
      ids.push(E.ids[r * E.seqLength + j]);
      mask.push(E.mask[r * E.seqLength + j]);
    }
  return tf.tensor3d(tokenRows(ids, mask, E.batch, L), [E.batch, 2, L]);
}

/** The network's initial weights with the fixture's classifier (the oracle's random head). */
function initialWithFixtureHead(net: DeepNetwork): Map<string, Float32Array> {
  const init = net.init(0);
  for (const name of FILE.names.filter((n) => n.startsWith('classifier.'))) {
    const { shape } = FILE.info(name);
    const a = FILE.float32(name);
    init.set(name, shape.length === 2 ? transpose2d(a, shape).data : a.slice());
  }
  return init;
}

function tensorsOf(init: Map<string, Float32Array>, net: DeepNetwork): Record<string, tf.Tensor> {
  const P: Record<string, tf.Tensor> = {};
  for (const s of net.specs()) P[s.name] = tf.tensor(init.get(s.name)!, s.shape);
  return P;
}

/** The oracle's three batches as the trainer's labeled rows (views [ids…, mask…]). */
function batchViews(): { views: ViewSource; yl: Int32Array; draw: (it: number) => BatchDraw } {
  const L = T.seqLength;
  const n = T.batches.length * T.batches[0].labels.length;
  const rows = new Float32Array(n * 2 * L);
  const yl = new Int32Array(n);
  let r = 0;
  for (const b of T.batches) {
    const bn = b.labels.length;
    rows.set(tokenRows(b.ids, b.mask, bn, L), r * 2 * L);
    yl.set(b.labels, r);
    r += bn;
  }
  const bL = T.batches[0].labels.length;
  const views: ViewSource = {
    nL: n,
    nU: 0,
    dim: 2 * L,
    draw: () => [],
    drawsLabeled: () => false,
    labeled: (idx) => {
      const out = new Float32Array(idx.length * 2 * L);
      idx.forEach((i, j) => out.set(rows.subarray(i * 2 * L, (i + 1) * 2 * L), j * 2 * L));
      return tf.tensor2d(out, [idx.length, 2 * L]);
    },
    unlabeled: () => {
      throw new Error('no unlabeled rows');
    },
  };
  const draw = (it: number): BatchDraw => ({
    idxL: Int32Array.from({ length: bL }, (_, j) => it * bL + j),
    idxU: new Int32Array(0),
    noise: [],
  });
  return { views, yl, draw };
}

function trainer(net: DeepNetwork, views: ViewSource, yl: Int32Array, recompute = false): DeepTrainer {
  const cfg: TrainerConfig = {
    network: net,
    steps: T.batches.length,
    batchL: T.batches[0].labels.length,
    optimizer: 'sgd',
    lr: T.lr,
    cosineFraction: 0, // constant lr: the oracle's plain SGD
    weightDecay: T.weightDecay,
    emaDecay: 0.999,
    noiseWeak: 0,
    noiseStrong: 0,
    dropoutAttention: 0,
    dropoutFfn: 0,
    initSeed: 0,
    quirks: 'fixed',
    progressEvery: 1,
    checkpointEvery: 0,
    recompute,
  };
  const streams = {
    labeled: new MT19937(1),
    unlabeled: new MT19937(2),
    noise: new MT19937(3),
    method: new MT19937(4),
    dropoutSeed: 0,
  };
  return new DeepTrainer(
    cfg,
    createMethod('ftt'),
    { yl, k: CLASSES, views },
    streams,
    initialWithFixtureHead(net),
  );
}

let before = 0;
beforeAll(async () => {
  expect(await tf.setBackend('cpu')).toBe(true);
});
beforeEach(() => {
  before = tf.memory().numTensors;
});
afterEach(() => {
  expect(tf.memory().numTensors).toBe(before);
});

describe.each(['cpu', 'wasm'] as const)('RoBERTa parity with PyTorch on %s', (backend) => {
  beforeEach(async () => {
    expect(await tf.setBackend(backend)).toBe(true);
    if (backend === 'wasm') expect(installWasmBatchMatMul()).toBe(true);
    before = tf.memory().numTensors;
  });

  it('eval: position ids, last hidden state, <s> feature and logits', async () => {
    const w = loadRobertaWeights(FILE, { config: TINY });
    const x = evalInput();
    const errors: Record<string, number> = {};

    const { ids, mask } = splitTokens(x);
    const pos = createPositionIds(ids, 1);
    expect(Array.from(await pos.data())).toEqual(E.positionIds);
    const P: Record<string, tf.Tensor> = {};
    for (const [name, t] of w.tensors) P[name] = tf.tensor(t.data, t.shape);
    const h = tf.tidy(() => encoderForward(w.config, P, '', ids, mask));
    errors.lastHidden = relErr(await h.data(), f32(E.lastHidden));
    tf.dispose([ids, mask, pos, h, ...Object.values(P)]);

    const bb = robertaBackbone(w, { seqLength: 256 });
    const s = bb.forward(x);
    expect(s.shape).toEqual([E.batch, 32]);
    errors.sFeature = relErr(await s.data(), f32(E.sFeature!));
    // §6.5: the frozen encoder MAY run without padding: cut the batch to its longest row.
    const longest = Math.max(
      ...Array.from({ length: E.batch }, (_, r) =>
        E.mask.slice(r * E.seqLength, (r + 1) * E.seqLength).reduce((a, b) => a + b, 0),
      ),
    );
    const xs = evalInput(longest);
    const s2 = bb.forward(xs);
    errors.unpadded = relErr(await s2.data(), f32(E.sFeature!));
    tf.dispose([s, xs, s2]);
    bb.dispose();

    const net = robertaForSequenceClassification(w, CLASSES, { seqLength: E.seqLength });
    const W = tensorsOf(initialWithFixtureHead(net), net);
    const x2 = tf.reshape(x, [E.batch, 2 * E.seqLength]) as tf.Tensor2D;
    const logits = net.forward(W, x2, { noGrad: true });
    errors.logits = relErr(await logits.data(), f32(E.logits!));
    tf.dispose([x, x2, logits, ...Object.values(W)]);

    report(`roberta eval ${backend}`, errors);
    const [name, e] = worst(errors);
    expect(e, `${name}: ${JSON.stringify(errors)}`).toBeLessThanOrEqual(TOL);
  });

  it('training: CE gradients at init and 3 SGD steps (momentum, coupled decay) through the trainer', async () => {
    const w = loadRobertaWeights(FILE, { config: TINY });
    const net = robertaForSequenceClassification(w, CLASSES, { seqLength: T.seqLength });
    // §7.2's decay group: every weight (embeddings, LayerNorm.weight included), no bias.
    expect(
      net
        .specs()
        .filter((s) => s.decay)
        .map((s) => s.name)
        .sort(),
    ).toEqual([...T.decay].sort());
    const { views, yl, draw } = batchViews();
    const errors: Record<string, number> = {};
    const shapes = new Map(net.specs().map((s) => [s.name, s.shape]));

    const g = trainer(net, views, yl);
    try {
      const { grads, terms } = await g.gradients(0, draw(0));
      errors.loss = relErr([terms[0]], [T.loss]);
      expect(Object.keys(grads).sort()).toEqual(Object.keys(T.grads).sort());
      const refs = Object.entries(T.grads).map(([name, ref]) => [name, f32(ref)] as const);
      // Key biases have a zero gradient in exact arithmetic: floor at 1e-3 of the largest gradient.
      const floor = 1e-3 * scaleOf(refs.map(([, r]) => r));
      for (const [name, ref] of refs)
        errors[`grad ${name}`] = relErr(torchLayout(name, grads[name], shapes.get(name)!), ref, floor);
      // nn.Embedding(padding_idx=1): row 1 gets no gradient though `<pad>` tokens use it.
      const D = w.config.hidden;
      for (const name of [
        'roberta.embeddings.word_embeddings.weight',
        'roberta.embeddings.position_embeddings.weight',
      ])
        expect(grads[name].subarray(D, 2 * D).every((v) => v === 0)).toBe(true);
      expect(
        grads['roberta.embeddings.position_embeddings.weight'].subarray(2 * D, 3 * D).some((v) => v !== 0),
      ).toBe(true);
    } finally {
      g.dispose();
    }

    const tr = trainer(net, views, yl);
    try {
      const losses: number[] = [];
      await tr.run({ drawBatch: draw, onProgress: (r) => losses.push(r.lossS) });
      errors.losses = relErr(losses, T.losses);
      const params = await tr.weights('params');
      const init = initialWithFixtureHead(net);
      const updates = Object.entries(T.params).map(([name, ref]) => {
        const a = torchLayout(name, params[name], shapes.get(name)!);
        const r = f32(ref);
        const i0 = torchLayout(name, init.get(name)!, shapes.get(name)!);
        errors[`param ${name}`] = relErr(a, r);
        // The update θ3 − θ0 itself, which the weights' own scale could hide.
        return [
          name,
          Float32Array.from(a, (v, j) => v - i0[j]),
          Float32Array.from(r, (v, j) => v - i0[j]),
        ] as const;
      });
      const floor = 1e-3 * scaleOf(updates.map(([, , dRef]) => dRef));
      for (const [name, d, dRef] of updates) errors[`update ${name}`] = relErr(d, dRef, floor);
    } finally {
      tr.dispose();
    }
    report(`roberta train ${backend}`, errors);
    const [name, e] = worst(errors);
    expect(e, `${name}: ${e}`).toBeLessThanOrEqual(TOL);
  });
});

describe('RoBERTa training mode (cpu)', () => {
  beforeEach(async () => {
    expect(await tf.setBackend('cpu')).toBe(true);
    before = tf.memory().numTensors;
  });

  it('dropout is deterministic per seed, differs across seeds and from eval', async () => {
    const net = robertaForSequenceClassification(loadRobertaWeights(FILE, { config: TINY }), CLASSES, {
      seqLength: E.seqLength,
    });
    const W = tensorsOf(net.init(3), net);
    const x3 = evalInput();
    const x = tf.reshape(x3, [E.batch, 2 * E.seqLength]) as tf.Tensor2D;
    const run = async (seed: number | null) => {
      const t = net.forward(W, x, { dropout: seed === null ? null : { attention: 0.1, ffn: 0.1, seed } });
      const a = (await t.data()) as Float32Array;
      t.dispose();
      return a;
    };
    const a = await run(7),
      b = await run(7),
      c = await run(8),
      e = await run(null);
    expect(Array.from(a)).toEqual(Array.from(b));
    expect(relErr(a, c)).toBeGreaterThan(1e-3);
    expect(relErr(a, e)).toBeGreaterThan(1e-3);
    // Rates of 0 are eval mode (no masks drawn, the head's own default rate not applied).
    const z = net.forward(W, x, { dropout: { attention: 0, ffn: 0, seed: 7 } });
    expect(Array.from(await z.data())).toEqual(Array.from(e));
    tf.dispose([z, x, x3, ...Object.values(W)]);
  });

  it('layer recomputation gives the same gradients, dropout on', async () => {
    const net = robertaForSequenceClassification(loadRobertaWeights(FILE, { config: TINY }), CLASSES, {
      seqLength: E.seqLength,
    });
    const init = net.init(5);
    const vars = net.specs().map((s) => {
      const t = tf.tensor(init.get(s.name)!, s.shape);
      const v = tf.variable(t, true);
      t.dispose();
      return v;
    });
    const P = Object.fromEntries(net.specs().map((s, i) => [s.name, vars[i] as tf.Tensor]));
    const x3 = evalInput();
    const x = tf.reshape(x3, [E.batch, 2 * E.seqLength]) as tf.Tensor2D;
    const labels = tf.tensor1d([0, 1, 2, 1], 'int32');
    const gradsOf = async (recompute: boolean) => {
      const { value, grads } = tf.variableGrads(() => {
        const logits = net.forward(P, x, { dropout: { attention: 0.1, ffn: 0.1, seed: 11 }, recompute });
        return tf.losses.softmaxCrossEntropy(tf.oneHot(labels, CLASSES), logits) as tf.Scalar;
      }, vars);
      const out: Float32Array[] = [];
      for (const v of vars) out.push((await grads[v.name].data()) as Float32Array);
      tf.dispose([value, ...Object.values(grads)]);
      return out;
    };
    const a = await gradsOf(false);
    const b = await gradsOf(true);
    const errs = a.map((g, i) => relErr(b[i], g));
    expect(Math.max(...errs)).toBeLessThanOrEqual(1e-6);
    tf.dispose([x, x3, labels, ...vars]);
  });
});

describe('RoBERTa checkpoint loading', () => {
  beforeEach(async () => {
    expect(await tf.setBackend('cpu')).toBe(true);
    before = tf.memory().numTensors;
  });

  /** The fixture rewritten with renamed or dropped tensors. */
  function rewrite(f: SafetensorsFile, rename: (n: string) => string | null): SafetensorsFile {
    const out: Record<string, TensorSpec> = {};
    for (const t of f.tensors) {
      const to = rename(t.name);
      if (to === null) continue;
      const raw = f.raw(t.name);
      const data = raw instanceof BigInt64Array ? Array.from(raw) : Array.from(raw as Float32Array);
      out[to] = { dtype: t.dtype, shape: t.shape.slice(), data };
    }
    return parseSafetensors(writeSafetensors(out));
  }

  it('reads the config from the shapes and skips lm_head, pooler, classifier and position_ids', () => {
    const w: EncoderWeights = loadRobertaWeights(FILE, { config: TINY });
    expect(w.config).toEqual({
      hidden: 32,
      layers: 2,
      heads: 4,
      intermediate: 64,
      vocab: 100,
      maxPositions: 40,
      typeVocab: 1,
      layerNormEps: 1e-5,
      positions: 'roberta',
      padId: 1,
    });
    expect(w.tensors.size).toBe(5 + 16 * 2);
    expect(w.tensors.get('encoder.layer.0.intermediate.dense.weight')!.shape).toEqual([32, 64]); // [in, out]
    expect(FILE.names.some((n) => n.startsWith('lm_head.'))).toBe(true);
    expect(FILE.info('roberta.embeddings.position_ids').dtype).toBe('I64');
  });

  it('loads the same weights without the roberta. prefix', () => {
    const bare = rewrite(FILE, (n) => n.replace(/^roberta\./, ''));
    const a = loadRobertaWeights(FILE, { config: TINY });
    const b = loadRobertaWeights(bare, { config: TINY });
    expect([...b.tensors.keys()].sort()).toEqual([...a.tensors.keys()].sort());
    for (const [k, t] of a.tensors) expect(Array.from(b.tensors.get(k)!.data)).toEqual(Array.from(t.data));
  });

  it('names what is missing, refuses a config that disagrees and an impossible head count', () => {
    const noValue = rewrite(FILE, (n) =>
      n === 'roberta.encoder.layer.1.attention.self.value.bias' ? null : n,
    );
    expect(() => loadRobertaWeights(noValue, { config: TINY })).toThrow(
      /encoder\.layer\.1\.attention\.self\.value\.bias/,
    );
    expect(() => loadRobertaWeights(FILE, { config: { ...TINY, hidden: 768 } })).toThrow(/hidden = 768.*32/);
    expect(() => loadRobertaWeights(FILE)).toThrow(
      /heads must be a positive divisor of hidden \(32\); got 12/,
    );
    const extra = rewrite(FILE, (n) => (n === 'lm_head.bias' ? 'roberta.extra.bias' : n));
    expect(() => loadRobertaWeights(extra, { config: TINY })).toThrow(/extra\.bias/);
  });

  it('packs tokens as [ids…, mask…] per row and refuses other layouts or too many tokens', () => {
    expect(Array.from(tokenRows([5, 6, 7, 8], [1, 1, 1, 0], 2, 2))).toEqual([5, 6, 1, 1, 7, 8, 1, 0]);
    const bb = robertaBackbone(FILE, { config: TINY });
    expect(bb.id).toBe('roberta-h32-l2');
    expect(bb.feature).toBe('roberta-s-32');
    expect(bb.inputShape).toEqual([2, 256]);
    const bad = tf.zeros([2, 3, 4]);
    expect(() => bb.forward(bad)).toThrow(/\[n, 2, L\]/);
    const long = tf.zeros([1, 2, 39]); // positions up to 40: at most 40 − 2 tokens
    expect(() => bb.forward(long)).toThrow(/39 tokens exceed the 38 positions/);
    tf.dispose([bad, long]);
    bb.dispose();
  });
});
