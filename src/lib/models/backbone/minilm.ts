/**
 * all-MiniLM-L6-v2 (PROTOCOL-IMAGE-TEXT.md §6.5, §7.1, `classroom` · text): a BERT encoder (absolute
 * positions 0…L−1, token type row 0, post-LayerNorm with ε 1e-12, exact GELU; roberta.ts's network
 * with BERT's conventions) followed by sentence-transformers' mean pooling, the attention-masked mean
 * of the final hidden states: sum(h·mask) / max(sum(mask), 1e-9) → 384-d (`minilm-mean-384`).
 *
 * Weights: sentence-transformers/all-MiniLM-L6-v2's model.safetensors, BertModel keys without a
 * prefix (`embeddings.word_embeddings.weight`, `encoder.layer.0.attention.self.query.weight`); the
 * pooler is ignored, and a `bert.` prefix is accepted. Input [n, 2, L] (ids, mask) as roberta.ts's
 * `tokenRows` packs it; `[PAD]` is id 0. The model's sentence-transformers pipeline ends in a
 * Normalize module, which §7.1's feature (the pooling output) does not include.
 */
import * as tf from '@tensorflow/tfjs';
import type { SafetensorsFile } from '../../weights/safetensors.ts';
import type { WeightMapSpec } from '../../weights/weightMap.ts';
import type { Backbone } from './backbone.ts';
import {
  encoderForward,
  encoderTensors,
  isEncoderWeights,
  loadEncoderWeights,
  sameConfig,
  splitTokens,
  type EncoderConfig,
  type EncoderConventions,
  type EncoderLoadOptions,
  type EncoderWeights,
  type TextBackboneOptions,
} from './roberta.ts';

export const MINILM_CONVENTIONS: Readonly<EncoderConventions> = Object.freeze({
  heads: 12,
  layerNormEps: 1e-12,
  positions: 'absolute',
  padId: 0,
});

/** all-MiniLM-L6-v2's config (§4.5 `minilm-l6`). */
export const MINILM_L6: Readonly<EncoderConfig> = Object.freeze({
  ...MINILM_CONVENTIONS,
  hidden: 384,
  layers: 6,
  intermediate: 1536,
  vocab: 30522,
  maxPositions: 512,
  typeVocab: 2,
});

export const MINILM_WEIGHT_MAP: Readonly<WeightMapSpec> = Object.freeze({
  stripPrefixes: ['bert.'],
  ignore: ['pooler.*', 'embeddings.position_ids', 'embeddings.token_type_ids'],
});

export function loadMiniLMWeights(file: SafetensorsFile, opts: EncoderLoadOptions = {}): EncoderWeights {
  return loadEncoderWeights(file, MINILM_WEIGHT_MAP, MINILM_CONVENTIONS, opts, 'minilm');
}

/** sentence-transformers' Pooling(mode='mean'): h [B, L, D], mask [B, L] → [B, D]. */
export function meanPool(h: tf.Tensor3D, mask: tf.Tensor2D): tf.Tensor2D {
  return tf.tidy(() => {
    const m = tf.expandDims(tf.cast(mask, 'float32'), 2); // [B, L, 1]
    const sum = tf.sum(tf.mul(h, m), 1);
    return tf.div(sum, tf.maximum(tf.sum(m, 1), 1e-9)) as tf.Tensor2D;
  });
}

/** The frozen MiniLM of the `classroom` tier: eval mode, masked mean of the final hidden states. */
export function minilmBackbone(
  source: SafetensorsFile | EncoderWeights,
  opts: TextBackboneOptions = {},
): Backbone {
  const w = isEncoderWeights(source) ? source : loadMiniLMWeights(source, opts);
  const c = w.config;
  const P = encoderTensors(w);
  return {
    id: sameConfig(c, MINILM_L6) ? 'minilm-l6' : `minilm-h${c.hidden}-l${c.layers}`,
    feature: `minilm-mean-${c.hidden}`,
    dim: c.hidden,
    // §6.5: classroom tokenises to 128, MiniLM's training length.
    inputShape: [2, opts.seqLength ?? 128],
    forward: (x) =>
      tf.tidy(() => {
        const { ids, mask } = splitTokens(x);
        return meanPool(encoderForward(c, P, '', ids, mask, { noGrad: true }), mask);
      }),
    dispose: () => tf.dispose(Object.values(P)),
  };
}
