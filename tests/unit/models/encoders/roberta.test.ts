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
  loadRobertaWeights,
  robertaBackbone,
  robertaForSequenceClassification,
  tokenRows,
  type EncoderWeights,
} from '../../../../src/lib/models/backbone/roberta.ts';
import { installWasmBatchMatMul } from '../../../../src/lib/models/deep/batchMatMul.ts';
import type { DeepNetwork } from '../../../../src/lib/models/deep/network.ts';
import { parseSafetensors, type SafetensorsFile } from '../../../../src/lib/weights/safetensors.ts';
import { writeSafetensors, type TensorSpec } from '../../weights/helpers.ts';
import { evalInput, robertaEvalParity, robertaTrainParity } from './encoderParity.ts';
import { expectParity, ROBERTA_EVAL, ROBERTA_TRAIN } from './expectParity.ts';
import { FIXTURES, loadFile, loadGoldens, relErr, type TrainGolden } from './fixture.ts';

const G = loadGoldens();
const R = G.roberta;
const FILE = loadFile(FIXTURES, R.file);
const TINY = { heads: R.config.num_attention_heads };
const CLASSES = R.config.num_labels;
const E = R.eval;
const T = R.train as TrainGolden;

function tensorsOf(init: Map<string, Float32Array>, net: DeepNetwork): Record<string, tf.Tensor> {
  const P: Record<string, tf.Tensor> = {};
  for (const s of net.specs()) P[s.name] = tf.tensor(init.get(s.name)!, s.shape);
  return P;
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

  // The checks themselves live in encoderParity.ts, shared with the webgpu test.
  it('eval: position ids, last hidden state, <s> feature and logits', async () => {
    expectParity(`roberta eval ${backend}`, await robertaEvalParity(), ...ROBERTA_EVAL);
  });

  it('training: CE gradients at init and 3 SGD steps (momentum, coupled decay) through the trainer', async () => {
    const net = robertaForSequenceClassification(loadRobertaWeights(FILE, { config: TINY }), CLASSES, {
      seqLength: T.seqLength,
    });
    // §7.2's decay group: every weight (embeddings, LayerNorm.weight included), no bias.
    expect(
      net
        .specs()
        .filter((s) => s.decay)
        .map((s) => s.name)
        .sort(),
    ).toEqual([...T.decay].sort());
    expectParity(`roberta train ${backend}`, await robertaTrainParity(), ...ROBERTA_TRAIN);
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
    const x3 = evalInput(E);
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
    const x3 = evalInput(E);
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
