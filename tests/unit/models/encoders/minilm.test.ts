/**
 * all-MiniLM-L6-v2's encoder (src/lib/models/backbone/minilm.ts) against the PyTorch oracle of
 * scripts/fixtures/make_encoder_fixtures.py (modeling_bert.py's BertModel written out, random tiny
 * weights, keys without prefix as sentence-transformers' model.safetensors), on cpu and wasm within
 * 1e-4 relative (fixture.ts):
 * 1. the last hidden state of a padded batch (absolute positions, LayerNorm ε 1e-12, `[PAD]` words
 *    inside a text attended as real tokens) and the masked mean pooled feature of the Backbone;
 * 2. pooling ignores padding: the batch cut to its longest row gives the same features, and
 *    meanPool matches a host computation;
 * 3. loading: pooler and position_ids skipped, a `bert.` prefix accepted, the id and feature name.
 * No test leaves a tensor behind.
 */
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadMiniLMWeights, meanPool, minilmBackbone } from '../../../../src/lib/models/backbone/minilm.ts';
import { parseSafetensors } from '../../../../src/lib/weights/safetensors.ts';
import { writeSafetensors, type TensorSpec } from '../../weights/helpers.ts';
import { minilmEvalParity } from './encoderParity.ts';
import { expectParity, MINILM_EVAL } from './expectParity.ts';
import { FIXTURES, loadFile, loadGoldens } from './fixture.ts';

const M = loadGoldens().minilm;
const FILE = loadFile(FIXTURES, M.file);
const TINY = { heads: M.config.num_attention_heads };

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

describe.each(['cpu', 'wasm'] as const)('MiniLM parity with PyTorch on %s', (backend) => {
  beforeEach(async () => {
    expect(await tf.setBackend(backend)).toBe(true);
    before = tf.memory().numTensors;
  });

  // The checks themselves live in encoderParity.ts, shared with the webgpu test.
  it('last hidden state and masked mean pooling', async () => {
    expectParity(`minilm eval ${backend}`, await minilmEvalParity(), ...MINILM_EVAL);
  });
});

describe('MiniLM pooling and loading (cpu)', () => {
  it('meanPool is the masked mean', async () => {
    const h = tf.tensor3d([1, 2, 3, 4, 100, 100, 5, 6, 7, 8, 9, 10], [2, 3, 2]);
    const m = tf.tensor2d([1, 1, 0, 1, 1, 1], [2, 3]);
    const p = meanPool(h, m);
    expect(Array.from(await p.data())).toEqual([2, 3, 7, 8]);
    tf.dispose([h, m, p]);
  });

  it('skips the pooler and position_ids, accepts a bert. prefix, names the feature', () => {
    expect(FILE.names).toContain('pooler.dense.weight');
    expect(FILE.info('embeddings.position_ids').dtype).toBe('I64');
    const w = loadMiniLMWeights(FILE, { config: TINY });
    expect(w.config).toMatchObject({
      hidden: 32,
      layers: 2,
      heads: 4,
      layerNormEps: 1e-12,
      positions: 'absolute',
      padId: 0,
    });
    const out: Record<string, TensorSpec> = {};
    for (const t of FILE.tensors) {
      const raw = FILE.raw(t.name);
      out[`bert.${t.name}`] = {
        dtype: t.dtype,
        shape: t.shape.slice(),
        data: raw instanceof BigInt64Array ? Array.from(raw) : Array.from(raw as Float32Array),
      };
    }
    const prefixed = loadMiniLMWeights(parseSafetensors(writeSafetensors(out)), { config: TINY });
    expect([...prefixed.tensors.keys()].sort()).toEqual([...w.tensors.keys()].sort());
    const bb = minilmBackbone(w);
    expect([bb.id, bb.feature, bb.dim, bb.inputShape]).toEqual([
      'minilm-h32-l2',
      'minilm-mean-32',
      32,
      [2, 128],
    ]);
    bb.dispose();
  });
});
