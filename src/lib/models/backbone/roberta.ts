/**
 * RoBERTa (PROTOCOL-IMAGE-TEXT.md §6.5, §6.7, §7.1–§7.3) in tfjs, as transformers' modeling_roberta.py
 * writes it, loaded by name from a `.safetensors` checkpoint; the BERT encoder of MiniLM (minilm.ts)
 * is the same network with absolute positions, so it lives here too (transformers copies RoBERTa's
 * layers from BERT's).
 *
 * - `RobertaEmbeddings`: word + token type (row 0) + position → LayerNorm → dropout. Position ids
 *   are `create_position_ids_from_input_ids`: cumsum of (ids ≠ padding_idx 1), times that mask, +
 *   padding_idx; a literal `<pad>` inside a text (§6.7: id 1, attention 1) takes position 1 and does
 *   not advance the counter. BERT: positions 0…L−1.
 * - Each `RobertaLayer`, post-LayerNorm: self-attention (query, key, value; scores + the extended
 *   mask (1 − mask)·finfo(float32).min on masked keys; softmax; dropout on the probabilities) →
 *   `attention.output.dense` → dropout → LayerNorm(· + input) → `intermediate.dense` → exact (erf)
 *   GELU → `output.dense` → dropout → LayerNorm(· + input). LayerNorm ε 1e-5 (BERT: 1e-12).
 * - nn.Embedding's `padding_idx` is kept in the backward pass: the padding row of the word (and
 *   RoBERTa's position) embedding gets no gradient, as in PyTorch.
 *
 * Two uses: `robertaBackbone`, the frozen eval-mode encoder whose feature is the final hidden
 * state of `<s>` (the `features` tier), and `robertaForSequenceClassification`, encoder +
 * RobertaClassificationHead as a trainer network (`finetune`), with dropout from seeded masks.
 *
 * Token input: ids and attention mask travel together as one tensor, [n, 2, L] for a Backbone
 * (row 0 ids, row 1 mask) or the same memory as [n, 2L] for the trainer, whose views are 2-D
 * (`tokenRows` packs them). A mask is needed beside the ids because a literal `<pad>` (id 1) is
 * a real token.
 *
 * Names are the checkpoint's (`encoder.layer.3.attention.self.query.weight`; the trainer network
 * adds `roberta.` and `classifier.`, as RobertaForSequenceClassification's state_dict); Linear
 * weights are stored [in, out] (transposed at load) so that every product is a plain matmul.
 * PyTorch parity: tests/unit/models/encoders (fixtures from scripts/fixtures/make_encoder_fixtures.py).
 * @see https://arxiv.org/abs/1907.11692
 */
import * as tf from '@tensorflow/tfjs';
import type { SafetensorsFile } from '../../weights/safetensors.ts';
import { mapWeights, transpose2d, type WeightMapSpec } from '../../weights/weightMap.ts';
import { dropoutMask, dropoutSeed } from '../deep/dropout.ts';
import { matmul2d, type ParamSpec } from '../deep/ftTransformer.ts';
import { robertaHead } from '../deep/head.ts';
import type { DeepNetwork, NetworkForwardOptions } from '../deep/network.ts';
import type { Backbone } from './backbone.ts';

/** The encoder's shape and conventions (transformers' config names in the comments). */
export interface EncoderConfig {
  /** `hidden_size`: roberta-base 768, MiniLM-L6 384. */
  hidden: number;
  /** `num_hidden_layers`. */
  layers: number;
  /** `num_attention_heads` (the shapes cannot tell; both real checkpoints have 12). */
  heads: number;
  /** `intermediate_size`. */
  intermediate: number;
  /** `vocab_size`. */
  vocab: number;
  /** `max_position_embeddings`: roberta-base 514 (512 tokens + padding_idx + 1), BERT 512. */
  maxPositions: number;
  /** `type_vocab_size`: RoBERTa 1, BERT 2; only row 0 is used. */
  typeVocab: number;
  /** `layer_norm_eps`. */
  layerNormEps: number;
  /** 'roberta': create_position_ids_from_input_ids; 'absolute': 0…L−1 (BERT). */
  positions: 'roberta' | 'absolute';
  /** `pad_token_id`: the padding_idx of the word (RoBERTa: and position) embedding. */
  padId: number;
}

/** What the shapes cannot give, per family; the rest is read from the checkpoint. */
export type EncoderConventions = Pick<EncoderConfig, 'heads' | 'layerNormEps' | 'positions' | 'padId'>;

export const ROBERTA_CONVENTIONS: Readonly<EncoderConventions> = Object.freeze({
  heads: 12,
  layerNormEps: 1e-5,
  positions: 'roberta',
  padId: 1,
});

/** roberta-base (FacebookAI/roberta-base, §4.5). */
export const ROBERTA_BASE: Readonly<EncoderConfig> = Object.freeze({
  ...ROBERTA_CONVENTIONS,
  hidden: 768,
  layers: 12,
  intermediate: 3072,
  vocab: 50265,
  maxPositions: 514,
  typeVocab: 1,
});

/**
 * Checkpoint names → the encoder's: roberta-base is a masked-LM checkpoint (`roberta.*`, plus
 * `lm_head.*`, a pooler); a finetuned RobertaForSequenceClassification adds `classifier.*` (the
 * head here comes from the init seed, §7.2). Buffers (`position_ids`, `token_type_ids`) are not weights.
 */
export const ROBERTA_WEIGHT_MAP: Readonly<WeightMapSpec> = Object.freeze({
  stripPrefixes: ['roberta.'],
  ignore: ['lm_head.*', 'pooler.*', 'classifier.*', 'embeddings.position_ids', 'embeddings.token_type_ids'],
});

/** The encoder's weights in tfjs layout (Linear weights [in, out]), by checkpoint name without prefix. */
export interface EncoderWeights {
  readonly config: EncoderConfig;
  readonly tensors: ReadonlyMap<string, { readonly shape: number[]; readonly data: Float32Array }>;
}

export interface EncoderLoadOptions {
  /**
   * Expected values: `heads` is taken from here (default 12); any other field given is checked
   * against the checkpoint's shapes (a tiny test model, or a guard against a wrong file).
   */
  config?: Partial<EncoderConfig>;
}

/** Linear weights, which PyTorch stores [out, in] and this module [in, out]. */
export function isLinearWeight(name: string): boolean {
  return /\.(query|key|value|dense|out_proj)\.weight$/.test(name);
}

/** Every encoder tensor with its checkpoint shape (Linear [out, in]), in state_dict order. */
export function encoderShapes(c: EncoderConfig): Map<string, number[]> {
  const D = c.hidden;
  const m = new Map<string, number[]>([
    ['embeddings.word_embeddings.weight', [c.vocab, D]],
    ['embeddings.position_embeddings.weight', [c.maxPositions, D]],
    ['embeddings.token_type_embeddings.weight', [c.typeVocab, D]],
    ['embeddings.LayerNorm.weight', [D]],
    ['embeddings.LayerNorm.bias', [D]],
  ]);
  for (let l = 0; l < c.layers; l++) {
    const p = `encoder.layer.${l}.`;
    for (const x of ['query', 'key', 'value']) {
      m.set(`${p}attention.self.${x}.weight`, [D, D]);
      m.set(`${p}attention.self.${x}.bias`, [D]);
    }
    m.set(`${p}attention.output.dense.weight`, [D, D]);
    m.set(`${p}attention.output.dense.bias`, [D]);
    m.set(`${p}attention.output.LayerNorm.weight`, [D]);
    m.set(`${p}attention.output.LayerNorm.bias`, [D]);
    m.set(`${p}intermediate.dense.weight`, [c.intermediate, D]);
    m.set(`${p}intermediate.dense.bias`, [c.intermediate]);
    m.set(`${p}output.dense.weight`, [D, c.intermediate]);
    m.set(`${p}output.dense.bias`, [D]);
    m.set(`${p}output.LayerNorm.weight`, [D]);
    m.set(`${p}output.LayerNorm.bias`, [D]);
  }
  return m;
}

/**
 * Reads an encoder from a checkpoint: the config from the shapes (hidden, vocab, positions, token
 * types, layers, intermediate) and `conventions` + `opts.config`, then every tensor by name with
 * its shape checked (mapWeights names what is missing or unused). `what` prefixes messages.
 */
export function loadEncoderWeights(
  file: SafetensorsFile,
  spec: WeightMapSpec,
  conventions: EncoderConventions,
  opts: EncoderLoadOptions = {},
  what = 'encoder',
): EncoderWeights {
  const all = mapWeights(file, spec).weights;
  const shapeOf = (name: string): readonly number[] => {
    const t = all.get(name);
    if (!t) {
      const some = [...all.keys()].slice(0, 8).join(', ');
      throw new Error(
        `${what}: the checkpoint has no '${name}' (after the name map ${JSON.stringify(spec.stripPrefixes ?? [])}); ` +
          `it has ${all.size} weight(s)${all.size ? ` (${some}${all.size > 8 ? ', …' : ''})` : ''}.`,
      );
    }
    return t.shape;
  };
  let layers = 0;
  for (const name of all.keys()) {
    const m = /^encoder\.layer\.(\d+)\./.exec(name);
    if (m) layers = Math.max(layers, Number(m[1]) + 1);
  }
  const [vocab, hidden] = shapeOf('embeddings.word_embeddings.weight');
  const read: Omit<EncoderConfig, keyof EncoderConventions> = {
    hidden,
    layers,
    intermediate: layers > 0 ? shapeOf('encoder.layer.0.intermediate.dense.weight')[0] : 0,
    vocab,
    maxPositions: shapeOf('embeddings.position_embeddings.weight')[0],
    typeVocab: shapeOf('embeddings.token_type_embeddings.weight')[0],
  };
  const given = opts.config ?? {};
  for (const [k, v] of Object.entries(read) as [keyof typeof read, number][]) {
    if (given[k] !== undefined && given[k] !== v)
      throw new Error(`${what}: the config says ${k} = ${given[k]}; the checkpoint's shapes give ${v}.`);
  }
  const config: EncoderConfig = { ...conventions, ...given, ...read };
  if (!(Number.isInteger(config.heads) && config.heads > 0 && hidden % config.heads === 0))
    throw new Error(`${what}: heads must be a positive divisor of hidden (${hidden}); got ${config.heads}.`);
  if (layers === 0) throw new Error(`${what}: the checkpoint has no encoder.layer.* weights.`);
  if (config.typeVocab < 1) throw new Error(`${what}: token_type_embeddings has no rows.`);

  const { weights } = mapWeights(file, spec, { expected: encoderShapes(config) });
  const tensors = new Map<string, { shape: number[]; data: Float32Array }>();
  for (const [name, t] of weights) {
    tensors.set(
      name,
      isLinearWeight(name) ? transpose2d(t.data, t.shape) : { shape: t.shape.slice(), data: t.data },
    );
  }
  return { config, tensors };
}

/** RoBERTa's encoder from a checkpoint (roberta-base, or a tiny test model with an explicit config). */
export function loadRobertaWeights(file: SafetensorsFile, opts: EncoderLoadOptions = {}): EncoderWeights {
  return loadEncoderWeights(file, ROBERTA_WEIGHT_MAP, ROBERTA_CONVENTIONS, opts, 'roberta');
}

// ---------------------------------------------------------------- token input

/**
 * Packs a tokenizer's batch (tokenizer.ts EncodedBatch) as the encoders take it: per row the L ids,
 * then the L mask values, i.e. [n, 2, L] row-major, which is also the trainer's [n, 2L] view row.
 * float32 holds ids exactly (vocabularies are far below 2²⁴).
 */
export function tokenRows(
  ids: ArrayLike<number>,
  mask: ArrayLike<number>,
  n: number,
  L: number,
): Float32Array {
  if (ids.length !== n * L || mask.length !== n * L)
    throw new RangeError(
      `tokenRows: ids and mask must have n × L = ${n * L} entries; got ${ids.length} and ${mask.length}.`,
    );
  const out = new Float32Array(2 * n * L);
  for (let r = 0; r < n; r++) {
    for (let j = 0; j < L; j++) {
      out[2 * r * L + j] = ids[r * L + j];
      out[(2 * r + 1) * L + j] = mask[r * L + j];
    }
  }
  return out;
}

/** [n, 2, L] or [n, 2L] → int32 ids [n, L] and float32 mask [n, L]. */
export function splitTokens(x: tf.Tensor): { ids: tf.Tensor2D; mask: tf.Tensor2D } {
  const n = x.shape[0] as number;
  let L: number;
  if (x.rank === 3 && x.shape[1] === 2) L = x.shape[2] as number;
  else if (x.rank === 2 && (x.shape[1] as number) % 2 === 0) L = (x.shape[1] as number) / 2;
  else
    throw new RangeError(
      `encoder input: expected [n, 2, L] (ids, attention mask) or [n, 2L]; got ${JSON.stringify(x.shape)}.`,
    );
  return tf.tidy(() => {
    const x3 = tf.reshape(x, [n, 2, L]);
    const ids = tf.cast(tf.reshape(tf.slice(x3, [0, 0, 0], [n, 1, L]), [n, L]), 'int32') as tf.Tensor2D;
    const mask = tf.cast(tf.reshape(tf.slice(x3, [0, 1, 0], [n, 1, L]), [n, L]), 'float32') as tf.Tensor2D;
    return { ids, mask };
  });
}

// ---------------------------------------------------------------- the network

export interface EncoderForwardOptions {
  /** Training-mode dropout: `attention` on attention probabilities, `hidden` on hidden states. */
  dropout?: { attention: number; hidden: number; seed: number } | null;
  /** Recompute each layer's activations in the backward pass (gradient checkpointing). */
  recompute?: boolean;
  /** No gradient will be taken: free each layer's intermediates as soon as it is done. */
  noGrad?: boolean;
}

/** transformers adds torch.finfo(float32).min, not −∞: a row with every key masked stays finite. */
const FLOAT32_MIN = -3.4028234663852886e38;
const GELU_SCALE = Math.SQRT1_2;

function layerNorm(x: tf.Tensor, g: tf.Tensor, b: tf.Tensor, eps: number): tf.Tensor {
  const mean = tf.mean(x, -1, true);
  const c = tf.sub(x, mean);
  const variance = tf.mean(tf.square(c), -1, true);
  return tf.add(tf.mul(tf.mul(c, tf.rsqrt(tf.add(variance, eps))), g), b);
}

function linear(x2: tf.Tensor, W: tf.Tensor, b: tf.Tensor): tf.Tensor2D {
  return tf.add(matmul2d(x2, W), b) as tf.Tensor2D;
}

/** transformers' "gelu": x·Φ(x) with the exact erf, not the tanh approximation. */
function gelu(x: tf.Tensor): tf.Tensor {
  return tf.mul(tf.mul(x, 0.5), tf.add(tf.erf(tf.mul(x, GELU_SCALE)), 1));
}

function applyDropout(x: tf.Tensor, rate: number, seed: number): tf.Tensor {
  if (rate <= 0) return x;
  return tf.mul(x, tf.tensor(dropoutMask(x.size, rate, seed), x.shape, 'float32'));
}

/**
 * Embedding lookup whose gradient is a scatter-add (tf.gather's own gradient needs
 * UnsortedSegmentSum, which tfjs-wasm lacks) and skips `paddingIdx`, as nn.Embedding(padding_idx).
 */
function embed(W: tf.Tensor, ids: tf.Tensor1D, paddingIdx: number | null): tf.Tensor2D {
  const f = tf.customGrad(((w: tf.Tensor2D, save: tf.GradSaveFunc) => {
    // Saved, not captured: the caller's tidy frees `ids` before the backward pass runs.
    save([ids]);
    return {
      value: tf.gather(w, ids),
      gradFunc: (dy: tf.Tensor2D, saved: tf.Tensor[]) => {
        const at = saved[0] as tf.Tensor1D;
        const g =
          paddingIdx === null
            ? dy
            : tf.mul(dy, tf.expandDims(tf.cast(tf.notEqual(at, paddingIdx), 'float32'), 1));
        return tf.scatterND(tf.expandDims(at, 1), g, w.shape);
      },
    };
  }) as unknown as Parameters<typeof tf.customGrad>[0]) as unknown as (w: tf.Tensor) => tf.Tensor2D;
  return f(W);
}

/**
 * transformers' `create_position_ids_from_input_ids`: (cumsum(m)·m) + padding_idx with m = ids ≠
 * padding_idx, so padding and a literal `<pad>` token sit at padding_idx and real tokens count from
 * padding_idx + 1. int32 [B, L].
 */
export function createPositionIds(ids: tf.Tensor2D, paddingIdx: number): tf.Tensor2D {
  return tf.tidy(() => {
    const m = tf.cast(tf.notEqual(ids, paddingIdx), 'int32');
    return tf.add(tf.mul(tf.cumsum(m, 1), m), tf.scalar(paddingIdx, 'int32')) as tf.Tensor2D;
  });
}

/** Embeddings → [B, L, D], before dropout. `pre` is the parameters' name prefix. */
function embeddings(
  c: EncoderConfig,
  P: Record<string, tf.Tensor>,
  pre: string,
  ids: tf.Tensor2D,
): tf.Tensor {
  const [B, L] = ids.shape;
  const D = c.hidden;
  const e = `${pre}embeddings.`;
  const flat = tf.reshape(ids, [B * L]) as tf.Tensor1D;
  const words = tf.reshape(embed(P[`${e}word_embeddings.weight`], flat, c.padId), [B, L, D]);
  // token_type_ids default to zeros: row 0 for every token.
  const type0 = tf.slice(P[`${e}token_type_embeddings.weight`], [0, 0], [1, D]);
  let pos: tf.Tensor;
  if (c.positions === 'roberta') {
    const posIds = createPositionIds(ids, c.padId);
    pos = tf.reshape(
      embed(P[`${e}position_embeddings.weight`], tf.reshape(posIds, [B * L]) as tf.Tensor1D, c.padId),
      [B, L, D],
    );
  } else {
    pos = tf.slice(P[`${e}position_embeddings.weight`], [0, 0], [L, D]);
  }
  const sum = tf.add(tf.add(words, type0), pos);
  return layerNorm(sum, P[`${e}LayerNorm.weight`], P[`${e}LayerNorm.bias`], c.layerNormEps);
}

const LAYER_PARAMS = [
  'attention.self.query.weight',
  'attention.self.query.bias',
  'attention.self.key.weight',
  'attention.self.key.bias',
  'attention.self.value.weight',
  'attention.self.value.bias',
  'attention.output.dense.weight',
  'attention.output.dense.bias',
  'attention.output.LayerNorm.weight',
  'attention.output.LayerNorm.bias',
  'intermediate.dense.weight',
  'intermediate.dense.bias',
  'output.dense.weight',
  'output.dense.bias',
  'output.LayerNorm.weight',
  'output.LayerNorm.bias',
];

type LayerDropout = { attention: number; hidden: number; seeds: [number, number, number] } | null;

/** RobertaLayer on h [B, L, D]; `ext` is the extended mask [B, 1, 1, L]; `p` the layer's parameters by local name. */
function layer(
  c: EncoderConfig,
  p: Record<string, tf.Tensor>,
  h: tf.Tensor,
  ext: tf.Tensor,
  drop: LayerDropout,
): tf.Tensor {
  const [B, L, D] = h.shape as [number, number, number];
  const H = c.heads;
  const dh = D / H;
  const h2 = tf.reshape(h, [B * L, D]);
  const q = linear(h2, p['attention.self.query.weight'], p['attention.self.query.bias']);
  const k = linear(h2, p['attention.self.key.weight'], p['attention.self.key.bias']);
  const v = linear(h2, p['attention.self.value.weight'], p['attention.self.value.bias']);
  // Explicit transposes, no transpose flags: tfjs-wasm's flagged products are its slow path.
  const qh = tf.transpose(tf.reshape(tf.mul(q, 1 / Math.sqrt(dh)), [B, L, H, dh]), [0, 2, 1, 3]);
  const khT = tf.transpose(tf.reshape(k, [B, L, H, dh]), [0, 2, 3, 1]);
  const vh = tf.transpose(tf.reshape(v, [B, L, H, dh]), [0, 2, 1, 3]);
  const scores = tf.add(tf.matMul(qh as tf.Tensor4D, khT as tf.Tensor4D), ext); // [B, H, L, L]
  let probs = tf.softmax(scores);
  if (drop) probs = applyDropout(probs, drop.attention, drop.seeds[0]);
  const ctx = tf.reshape(tf.transpose(tf.matMul(probs as tf.Tensor4D, vh as tf.Tensor4D), [0, 2, 1, 3]), [
    B * L,
    D,
  ]);
  let a: tf.Tensor = linear(ctx, p['attention.output.dense.weight'], p['attention.output.dense.bias']);
  if (drop) a = applyDropout(a, drop.hidden, drop.seeds[1]);
  a = layerNorm(
    tf.add(a, h2),
    p['attention.output.LayerNorm.weight'],
    p['attention.output.LayerNorm.bias'],
    c.layerNormEps,
  );
  const i = gelu(linear(a, p['intermediate.dense.weight'], p['intermediate.dense.bias']));
  let o: tf.Tensor = linear(i, p['output.dense.weight'], p['output.dense.bias']);
  if (drop) o = applyDropout(o, drop.hidden, drop.seeds[2]);
  o = layerNorm(tf.add(o, a), p['output.LayerNorm.weight'], p['output.LayerNorm.bias'], c.layerNormEps);
  return tf.reshape(o, [B, L, D]);
}

/**
 * A layer with activation recomputation: the forward keeps only its input; the backward re-runs the
 * layer under its own tape (same masks: they come from fixed seeds). Memory then holds one layer's
 * intermediates, not twelve (§7.3: RoBERTa at 48 × 256 needs ≈ 12 GB otherwise). The pattern of
 * ftTransformer.ts's blockRecompute.
 */
function layerRecompute(
  c: EncoderConfig,
  names: readonly string[],
  P: Record<string, tf.Tensor>,
  pre: string,
  h: tf.Tensor,
  ext: tf.Tensor,
  drop: LayerDropout,
): tf.Tensor {
  const run = (hh: tf.Tensor, ps: tf.Tensor[], mask: tf.Tensor) =>
    layer(c, Object.fromEntries(names.map((nm, i) => [nm, ps[i]])), hh, mask, drop);
  const f = tf.customGrad(((...args: unknown[]) => {
    const save = args[args.length - 1] as tf.GradSaveFunc;
    const inputs = args.slice(0, -1) as tf.Tensor[];
    // The mask is saved too: the caller's tidy frees it before the backward pass runs.
    save([...inputs, ext]);
    return {
      value: run(inputs[0], inputs.slice(1), ext),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const m = saved[saved.length - 1];
        const xs0 = saved.slice(0, -1);
        return withOuterTapeKept(() => tf.grads((...xs: tf.Tensor[]) => run(xs[0], xs.slice(1), m))(xs0, dy));
      },
    };
  }) as unknown as Parameters<typeof tf.customGrad>[0]) as unknown as (...xs: tf.Tensor[]) => tf.Tensor;
  return f(h, ...names.map((nm) => P[pre + nm]));
}

/** tfjs keeps one active tape; a gradient taken inside another's backward pass must restore it (see ftTransformer.ts). */
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
 * The encoder's last hidden state [B, L, D] for int32 ids [B, L] and a 0/1 mask [B, L]. `P` holds
 * the weights under `pre` + checkpoint name (tfjs layout). Call inside tf.tidy or variableGrads.
 */
export function encoderForward(
  c: EncoderConfig,
  P: Record<string, tf.Tensor>,
  pre: string,
  ids: tf.Tensor2D,
  mask: tf.Tensor2D,
  opts: EncoderForwardOptions = {},
): tf.Tensor3D {
  const [B, L] = ids.shape;
  const longest = c.positions === 'roberta' ? c.maxPositions - c.padId - 1 : c.maxPositions;
  if (L > longest)
    throw new RangeError(
      `encoder: sequences of ${L} tokens exceed the ${longest} positions of the checkpoint.`,
    );
  const d = opts.dropout;
  const drop = d && (d.attention > 0 || d.hidden > 0) ? d : null;
  let h = embeddings(c, P, pre, ids);
  if (drop) h = applyDropout(h, drop.hidden, dropoutSeed(drop.seed, 0, 0));
  // get_extended_attention_mask: [B, 1, 1, L], 0 on kept keys, finfo.min on masked ones.
  const ext = tf.reshape(tf.mul(tf.sub(1, mask), FLOAT32_MIN), [B, 1, 1, L]);
  for (let l = 0; l < c.layers; l++) {
    const pl = `${pre}encoder.layer.${l}.`;
    const bd: LayerDropout = drop
      ? {
          attention: drop.attention,
          hidden: drop.hidden,
          seeds: [
            dropoutSeed(drop.seed, l + 1, 0),
            dropoutSeed(drop.seed, l + 1, 1),
            dropoutSeed(drop.seed, l + 1, 2),
          ],
        }
      : null;
    const hin = h;
    const local = () => Object.fromEntries(LAYER_PARAMS.map((nm) => [nm, P[pl + nm]]));
    if (opts.noGrad) h = tf.tidy(() => layer(c, local(), hin, ext, bd));
    else if (opts.recompute) h = layerRecompute(c, LAYER_PARAMS, P, pl, hin, ext, bd);
    else h = layer(c, local(), hin, ext, bd);
  }
  return h as tf.Tensor3D;
}

/** Weights as tensors under `pre` + name (kept until the caller disposes them). */
export function encoderTensors(w: EncoderWeights, pre = ''): Record<string, tf.Tensor> {
  const P: Record<string, tf.Tensor> = {};
  for (const [name, t] of w.tensors) P[pre + name] = tf.tensor(t.data, t.shape, 'float32');
  return P;
}

/** Loaded weights rather than a file (a SafetensorsFile has `tensors` too, but no `config`). */
export function isEncoderWeights(x: SafetensorsFile | EncoderWeights): x is EncoderWeights {
  return 'tensors' in x && 'config' in x;
}

/** Whether a config is exactly `base` (a named checkpoint's), for the backbone's id. */
export function sameConfig(c: EncoderConfig, base: EncoderConfig): boolean {
  return (Object.keys(base) as (keyof EncoderConfig)[]).every((k) => c[k] === base[k]);
}

export interface TextBackboneOptions extends EncoderLoadOptions {
  /** Tokens per row of the declared input shape (RoBERTa 256, §6.5); shorter batches also run. */
  seqLength?: number;
}

/**
 * The frozen RoBERTa encoder of the `features` tier (§7.1): eval mode, feature = the final hidden
 * state of `<s>` (position 0), `roberta-s-768` for roberta-base. Input [n, 2, L]: ids, mask.
 */
export function robertaBackbone(
  source: SafetensorsFile | EncoderWeights,
  opts: TextBackboneOptions = {},
): Backbone {
  const w = isEncoderWeights(source) ? source : loadRobertaWeights(source, opts);
  const c = w.config;
  const P = encoderTensors(w);
  const L = opts.seqLength ?? 256;
  return {
    id: sameConfig(c, ROBERTA_BASE) ? 'roberta-base' : `roberta-h${c.hidden}-l${c.layers}`,
    feature: `roberta-s-${c.hidden}`,
    dim: c.hidden,
    inputShape: [2, L],
    forward: (x) =>
      tf.tidy(() => {
        const { ids, mask } = splitTokens(x);
        const h = encoderForward(c, P, '', ids, mask, { noGrad: true });
        const n = ids.shape[0];
        return tf.reshape(tf.slice(h, [0, 0, 0], [n, 1, c.hidden]), [n, c.hidden]) as tf.Tensor2D;
      }),
    dispose: () => tf.dispose(Object.values(P)),
  };
}

export interface SequenceClassificationOptions extends EncoderLoadOptions {
  /** Tokens per row: the trainer's views are [n, 2 · seqLength] (§6.5: 256). */
  seqLength?: number;
}

/**
 * RobertaForSequenceClassification as a trainer network (`finetune`, §7.1): `roberta.*` from the
 * checkpoint, `classifier.*` = RobertaClassificationHead (head.ts's robertaHead: N(0, 0.02),
 * zero biases, from the init seed). Decay group §7.2: names containing neither `bias` nor `bn`,
 * so every weight including the embeddings and `LayerNorm.weight`. In training, `dropout.attention`
 * acts on attention probabilities and `dropout.ffn` on every hidden-state dropout of the encoder
 * and the head (transformers: both 0.1). Input rows [ids…, mask…] of width 2L (`tokenRows`).
 */
export function robertaForSequenceClassification(
  source: SafetensorsFile | EncoderWeights,
  classes: number,
  opts: SequenceClassificationOptions = {},
): DeepNetwork {
  const w = isEncoderWeights(source) ? source : loadRobertaWeights(source, opts);
  const c = w.config;
  const L = opts.seqLength ?? 256;
  const head = robertaHead(c.hidden, classes);
  const decays = (name: string) => !name.includes('bias') && !name.includes('bn');
  const specs: ParamSpec[] = [
    // Pretrained: init() returns the checkpoint's values, so the init kind is never drawn.
    ...[...w.tensors].map(([name, t]): ParamSpec => {
      const full = `roberta.${name}`;
      return { name: full, shape: t.shape.slice(), init: 'zeros', decay: decays(full) };
    }),
    ...head
      .specs()
      .map((s) => ({ ...s, name: `classifier.${s.name}`, decay: decays(`classifier.${s.name}`) })),
  ];
  return {
    id: `roberta-seqcls-${c.hidden}-${classes}`,
    inputDim: 2 * L,
    classes,
    specs: () => specs,
    init: (seed) => {
      const out = new Map<string, Float32Array>();
      for (const [name, t] of w.tensors) out.set(`roberta.${name}`, t.data);
      for (const [name, a] of head.init(seed)) out.set(`classifier.${name}`, a);
      return out;
    },
    forward: (P, x, o: NetworkForwardOptions = {}) =>
      tf.tidy(() => {
        const { ids, mask } = splitTokens(x);
        const d = o.dropout;
        const drop = d && (d.attention > 0 || d.ffn > 0) ? d : null;
        const h = encoderForward(c, P, 'roberta.', ids, mask, {
          dropout: drop ? { attention: drop.attention, hidden: drop.ffn, seed: drop.seed } : null,
          recompute: o.recompute,
          noGrad: o.noGrad,
        });
        const n = ids.shape[0];
        const s = tf.reshape(tf.slice(h, [0, 0, 0], [n, 1, c.hidden]), [n, c.hidden]) as tf.Tensor2D;
        const hp: Record<string, tf.Tensor> = {};
        for (const spec of head.specs()) hp[spec.name] = P[`classifier.${spec.name}`];
        // head.ts falls back to its own rate when ffn is 0; no hidden dropout must mean none there.
        const headDrop =
          drop && drop.ffn > 0 ? { ...drop, seed: dropoutSeed(drop.seed, c.layers + 1, 0) } : null;
        return head.forward(hp, s, { dropout: headDrop });
      }),
  };
}
