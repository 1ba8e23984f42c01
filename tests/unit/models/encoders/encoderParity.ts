/**
 * The PyTorch parity checks of the tiny RoBERTa and MiniLM encoders (tests/fixtures/encoders, from
 * scripts/fixtures/make_encoder_fixtures.py) as functions that return name → relative error, for
 * the backends a test process cannot switch to (webgpuEncoderProbe.ts runs them under Dawn). The
 * same checks, with the same measures, as roberta.test.ts and minilm.test.ts:
 * - RoBERTa eval: position ids, last hidden state of a padded batch, the `<s>` feature padded and
 *   cut to the longest row, the classification logits;
 * - RoBERTa training (dropout off) through the DeepTrainer: CE gradients at the initial weights
 *   (key biases floored at 1e-3 of the largest gradient), 3 SGD steps (momentum, coupled decay):
 *   losses, parameters, the update θ3 − θ0; the padding rows of the embeddings get no gradient;
 * - MiniLM eval: last hidden state, masked mean pooled feature padded and cut.
 * The features' shapes ([n, hidden]) are facts. Every function leaves no tensor behind.
 */
import * as tf from '@tensorflow/tfjs';
import { loadMiniLMWeights, minilmBackbone } from '../../../../src/lib/models/backbone/minilm.ts';
import {
  createPositionIds,
  encoderForward,
  loadRobertaWeights,
  robertaBackbone,
  robertaForSequenceClassification,
  splitTokens,
  tokenRows,
} from '../../../../src/lib/models/backbone/roberta.ts';
import { createMethod } from '../../../../src/lib/models/deep/methods/index.ts';
import type { DeepNetwork } from '../../../../src/lib/models/deep/network.ts';
import { DeepTrainer, type BatchDraw, type TrainerConfig } from '../../../../src/lib/models/deep/trainer.ts';
import type { ViewSource } from '../../../../src/lib/models/deep/views.ts';
import { MT19937 } from '../../../../src/lib/protocol/rng.ts';
import type { SafetensorsFile } from '../../../../src/lib/weights/safetensors.ts';
import { transpose2d } from '../../../../src/lib/weights/weightMap.ts';
import {
  f32,
  FIXTURES,
  loadFile,
  loadGoldens,
  relErr,
  scaleOf,
  torchLayout,
  type EvalGolden,
  type ModelGolden,
  type TrainGolden,
} from './fixture.ts';

/** What a check measured: errors per tensor, and the exact-equality facts it asserts by name. */
export interface CheckResult {
  errors: Record<string, number>;
  /** name → true when the fact holds (e.g. `positionIds`, `paddingRowsNoGrad`). */
  facts: Record<string, boolean>;
}

const tiny = (g: ModelGolden) => ({ heads: g.config.num_attention_heads });

/** The golden eval batch, cut to its first L tokens, as [n, 2, L]. */
export function evalInput(e: EvalGolden, L = e.seqLength): tf.Tensor3D {
  const ids: number[] = [],
    mask: number[] = [];
  for (let r = 0; r < e.batch; r++)
    for (let j = 0; j < L; j++) {
      ids.push(e.ids[r * e.seqLength + j]);
      mask.push(e.mask[r * e.seqLength + j]);
    }
  return tf.tensor3d(tokenRows(ids, mask, e.batch, L), [e.batch, 2, L]);
}

/** The longest row of a golden batch (§6.5: the frozen encoder may run without padding). */
const longestRow = (e: EvalGolden): number =>
  Math.max(
    ...Array.from({ length: e.batch }, (_, r) =>
      e.mask.slice(r * e.seqLength, (r + 1) * e.seqLength).reduce((a, b) => a + b, 0),
    ),
  );

async function read(t: tf.Tensor): Promise<Float32Array> {
  const a = (await t.data()) as Float32Array;
  t.dispose();
  return a;
}

/** The network's initial weights with the fixture's classifier (the oracle's random head). */
export function initialWithFixtureHead(net: DeepNetwork, file: SafetensorsFile): Map<string, Float32Array> {
  const init = net.init(0);
  for (const name of file.names.filter((n) => n.startsWith('classifier.'))) {
    const { shape } = file.info(name);
    const a = file.float32(name);
    init.set(name, shape.length === 2 ? transpose2d(a, shape).data : a.slice());
  }
  return init;
}

export async function robertaEvalParity(dir = FIXTURES): Promise<CheckResult> {
  const R = loadGoldens(dir).roberta;
  const file = loadFile(dir, R.file);
  const E = R.eval;
  const w = loadRobertaWeights(file, { config: tiny(R) });
  const errors: Record<string, number> = {};
  const facts: Record<string, boolean> = {};
  const x = evalInput(E);
  const { ids, mask } = splitTokens(x);
  const P: Record<string, tf.Tensor> = {};
  for (const [name, t] of w.tensors) P[name] = tf.tensor(t.data, t.shape);
  try {
    const pos = createPositionIds(ids, 1);
    facts.positionIds = JSON.stringify(Array.from(await read(pos))) === JSON.stringify(E.positionIds);
    const h = tf.tidy(() => encoderForward(w.config, P, '', ids, mask));
    errors.lastHidden = relErr(await read(h), f32(E.lastHidden));

    const bb = robertaBackbone(w, { seqLength: 256 });
    const s = bb.forward(x);
    facts.sFeatureShape = JSON.stringify(s.shape) === JSON.stringify([E.batch, w.config.hidden]);
    errors.sFeature = relErr(await read(s), f32(E.sFeature!));
    const cut = evalInput(E, longestRow(E));
    errors.unpadded = relErr(await read(bb.forward(cut)), f32(E.sFeature!));
    cut.dispose();
    bb.dispose();

    const net = robertaForSequenceClassification(w, R.config.num_labels, { seqLength: E.seqLength });
    const init = initialWithFixtureHead(net, file);
    const W: Record<string, tf.Tensor> = {};
    for (const s of net.specs()) W[s.name] = tf.tensor(init.get(s.name)!, s.shape);
    const x2 = tf.reshape(x, [E.batch, 2 * E.seqLength]) as tf.Tensor2D;
    errors.logits = relErr(await read(net.forward(W, x2, { noGrad: true })), f32(E.logits!));
    tf.dispose([x2, ...Object.values(W)]);
    return { errors, facts };
  } finally {
    tf.dispose([x, ids, mask, ...Object.values(P)]);
  }
}

/** The oracle's training batches as the trainer's labeled rows (views [ids…, mask…]). */
function batchViews(T: TrainGolden): { views: ViewSource; yl: Int32Array; draw: (it: number) => BatchDraw } {
  const L = T.seqLength;
  const bL = T.batches[0].labels.length;
  const n = T.batches.length * bL;
  const rows = new Float32Array(n * 2 * L);
  const yl = new Int32Array(n);
  let r = 0;
  for (const b of T.batches) {
    rows.set(tokenRows(b.ids, b.mask, b.labels.length, L), r * 2 * L);
    yl.set(b.labels, r);
    r += b.labels.length;
  }
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

function trainer(
  net: DeepNetwork,
  file: SafetensorsFile,
  T: TrainGolden,
  k: number,
  data: { views: ViewSource; yl: Int32Array },
): DeepTrainer {
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
    recompute: false,
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
    { yl: data.yl, k, views: data.views },
    streams,
    initialWithFixtureHead(net, file),
  );
}

export async function robertaTrainParity(dir = FIXTURES): Promise<CheckResult> {
  const R = loadGoldens(dir).roberta;
  const T = R.train!;
  const file = loadFile(dir, R.file);
  const k = R.config.num_labels;
  const w = loadRobertaWeights(file, { config: tiny(R) });
  const net = robertaForSequenceClassification(w, k, { seqLength: T.seqLength });
  const data = batchViews(T);
  const shapes = new Map(net.specs().map((s) => [s.name, s.shape]));
  const errors: Record<string, number> = {};
  const facts: Record<string, boolean> = {};

  const g = trainer(net, file, T, k, data);
  try {
    const { grads, terms } = await g.gradients(0, data.draw(0));
    errors.loss = relErr([terms[0]], [T.loss]);
    facts.gradNames =
      JSON.stringify(Object.keys(grads).sort()) === JSON.stringify(Object.keys(T.grads).sort());
    const refs = Object.entries(T.grads).map(([name, ref]) => [name, f32(ref)] as const);
    // Key biases have a zero gradient in exact arithmetic: floor at 1e-3 of the largest gradient.
    const floor = 1e-3 * scaleOf(refs.map(([, r]) => r));
    for (const [name, ref] of refs)
      errors[`grad ${name}`] = relErr(torchLayout(name, grads[name], shapes.get(name)!), ref, floor);
    // nn.Embedding(padding_idx=1): row 1 gets no gradient though `<pad>` tokens use it.
    const D = w.config.hidden;
    facts.paddingRowsNoGrad = [
      'roberta.embeddings.word_embeddings.weight',
      'roberta.embeddings.position_embeddings.weight',
    ].every((name) => grads[name].subarray(D, 2 * D).every((v) => v === 0));
    facts.positionRowsUsed = grads['roberta.embeddings.position_embeddings.weight']
      .subarray(2 * D, 3 * D)
      .some((v) => v !== 0);
  } finally {
    g.dispose();
  }

  const tr = trainer(net, file, T, k, data);
  try {
    const losses: number[] = [];
    await tr.run({ drawBatch: data.draw, onProgress: (r) => losses.push(r.lossS) });
    errors.losses = relErr(losses, T.losses);
    const params = await tr.weights('params');
    const init = initialWithFixtureHead(net, file);
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
  return { errors, facts };
}

/**
 * RoBERTa's classification logits with dropout on (attention and FFN 0.1, seed 7) at fixed random
 * weights: the training-mode forward, which the PyTorch oracle cannot give (its masks come from
 * torch's generator), compared across backends instead: the masks are a counter hash, the same on
 * every backend, so the logits must agree.
 */
export async function robertaDropoutLogits(dir = FIXTURES): Promise<Float32Array> {
  const R = loadGoldens(dir).roberta;
  const E = R.eval;
  const net = robertaForSequenceClassification(
    loadRobertaWeights(loadFile(dir, R.file), { config: tiny(R) }),
    R.config.num_labels,
    { seqLength: E.seqLength },
  );
  const init = net.init(3);
  const W: Record<string, tf.Tensor> = {};
  for (const s of net.specs()) W[s.name] = tf.tensor(init.get(s.name)!, s.shape);
  const x3 = evalInput(E);
  const x = tf.reshape(x3, [E.batch, 2 * E.seqLength]) as tf.Tensor2D;
  try {
    return await read(net.forward(W, x, { dropout: { attention: 0.1, ffn: 0.1, seed: 7 } }));
  } finally {
    tf.dispose([x3, x, ...Object.values(W)]);
  }
}

export async function minilmEvalParity(dir = FIXTURES): Promise<CheckResult> {
  const M = loadGoldens(dir).minilm;
  const E = M.eval;
  const w = loadMiniLMWeights(loadFile(dir, M.file), { config: tiny(M) });
  const errors: Record<string, number> = {};
  const x = evalInput(E);
  const { ids, mask } = splitTokens(x);
  const P: Record<string, tf.Tensor> = {};
  for (const [name, t] of w.tensors) P[name] = tf.tensor(t.data, t.shape);
  try {
    const h = tf.tidy(() => encoderForward(w.config, P, '', ids, mask));
    errors.lastHidden = relErr(await read(h), f32(E.lastHidden));
    const bb = minilmBackbone(w);
    const pooled = bb.forward(x);
    const facts = {
      pooledShape: JSON.stringify(pooled.shape) === JSON.stringify([E.batch, w.config.hidden]),
    };
    errors.pooled = relErr(await read(pooled), f32(E.pooled!));
    const cut = evalInput(E, longestRow(E));
    errors.unpadded = relErr(await read(bb.forward(cut)), f32(E.pooled!));
    cut.dispose();
    bb.dispose();
    return { errors, facts };
  } finally {
    tf.dispose([x, ids, mask, ...Object.values(P)]);
  }
}
