import { describe, expect, it } from 'vitest';
import { parseSafetensors } from '../../../src/lib/weights/safetensors.ts';
import {
  globToRegExp,
  mapName,
  mapWeights,
  oihwToDepthwise,
  oihwToHwio,
  transpose2d,
  WeightMapError,
  type WeightMapSpec,
} from '../../../src/lib/weights/weightMap.ts';
import { writeSafetensors, type TensorSpec } from './helpers.ts';

const f32 = (shape: number[], start = 0): TensorSpec => ({
  dtype: 'F32',
  shape,
  data: Array.from({ length: shape.reduce((p, s) => p * s, 1) }, (_, i) => start + i),
});

/** A RoBERTa-shaped checkpoint in miniature (names as FacebookAI/roberta-base has them). */
function roberta(prefix = 'roberta.') {
  return parseSafetensors(
    writeSafetensors({
      [`${prefix}embeddings.word_embeddings.weight`]: f32([4, 2]),
      [`${prefix}embeddings.position_ids`]: { dtype: 'I64', shape: [1, 3], data: [0, 1, 2] },
      [`${prefix}encoder.layer.0.attention.self.query.weight`]: f32([2, 2], 10),
      [`${prefix}encoder.layer.0.attention.self.query.bias`]: f32([2], 20),
      [`${prefix}pooler.dense.weight`]: f32([2, 2]),
      'lm_head.dense.weight': f32([2, 2]),
      'lm_head.bias': f32([4]),
    }),
  );
}

const ROBERTA_SPEC: WeightMapSpec = {
  stripPrefixes: ['roberta.'],
  ignore: ['lm_head.*', 'pooler.*'],
};
const EXPECTED = [
  'embeddings.word_embeddings.weight',
  'encoder.layer.0.attention.self.query.weight',
  'encoder.layer.0.attention.self.query.bias',
];

describe('mapWeights', () => {
  it('strips the prefix, ignores the heads, skips the int64 buffer', () => {
    const m = mapWeights(roberta(), ROBERTA_SPEC, { expected: EXPECTED });
    expect([...m.weights.keys()].sort()).toEqual([...EXPECTED].sort());
    expect(m.ignored.sort()).toEqual(['lm_head.bias', 'lm_head.dense.weight', 'roberta.pooler.dense.weight']);
    expect(m.nonFloat).toEqual([{ name: 'roberta.embeddings.position_ids', dtype: 'I64' }]);
    expect(m.missing).toEqual([]);
    expect(m.unused).toEqual([]);
    const q = m.weights.get('encoder.layer.0.attention.self.query.weight');
    expect(q?.shape).toEqual([2, 2]);
    expect(Array.from(q?.data ?? [])).toEqual([10, 11, 12, 13]);
    expect(q?.source).toBe('roberta.encoder.layer.0.attention.self.query.weight');
  });

  it('loads the same checkpoint saved without the prefix', () => {
    const m = mapWeights(roberta(''), ROBERTA_SPEC, { expected: EXPECTED });
    expect([...m.weights.keys()].sort()).toEqual([...EXPECTED].sort());
  });

  it('missing names are an error that lists them (and the unused ones, as a hint)', () => {
    const spec: WeightMapSpec = { ignore: ['lm_head.*', 'roberta.pooler.*'] }; // forgot to strip 'roberta.'
    let caught: unknown;
    try {
      mapWeights(roberta(), spec, { expected: EXPECTED });
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(WeightMapError);
    const err = caught as WeightMapError;
    expect(err.message).toMatch(
      /lacks 3 expected tensor\(s\): 'embeddings.word_embeddings.weight', 'encoder.layer.0.attention.self.query.weight', 'encoder.layer.0.attention.self.query.bias'\. Unused checkpoint tensors \(a prefix or rename problem\?\): 'roberta.embeddings.word_embeddings.weight'/,
    );
    expect(err.missing).toEqual(EXPECTED);
    expect(err.unused).toHaveLength(3);
  });

  it('unused names are an error unless allowed; missing ones can be allowed too', () => {
    expect(() =>
      mapWeights(roberta(), { stripPrefixes: ['roberta.'], ignore: ['lm_head.*'] }, { expected: EXPECTED }),
    ).toThrow(/1 checkpoint tensor\(s\) map to no expected name: 'roberta.pooler.dense.weight'/);
    const m = mapWeights(
      roberta(),
      { stripPrefixes: ['roberta.'], ignore: ['lm_head.*'] },
      { expected: [...EXPECTED, 'classifier.weight'], allowUnused: true, allowMissing: true },
    );
    expect(m.unused).toEqual(['roberta.pooler.dense.weight']);
    expect(m.missing).toEqual(['classifier.weight']);
  });

  it('without expected names, returns everything mapped', () => {
    const m = mapWeights(roberta(), ROBERTA_SPEC);
    expect(m.weights.size).toBe(3);
  });

  it('checks shapes when expected carries them', () => {
    const file = parseSafetensors(writeSafetensors({ 'conv_head.weight': f32([4, 3, 1, 1]) }));
    expect(
      mapWeights(file, {}, { expected: new Map([['conv_head.weight', [4, 3, 1, 1]]]) }).weights.size,
    ).toBe(1);
    expect(() =>
      mapWeights(file, {}, { expected: new Map([['conv_head.weight', [1024, 576, 1, 1]]]) }),
    ).toThrow(
      /'conv_head.weight' \(checkpoint 'conv_head.weight'\) has shape \[4,3,1,1\]; the network expects \[1024,576,1,1\]/,
    );
  });

  it('an expected tensor of an integer dtype is an error naming it', () => {
    expect(() =>
      mapWeights(roberta(), ROBERTA_SPEC, { expected: [...EXPECTED, 'embeddings.position_ids'] }),
    ).toThrow(/'embeddings.position_ids' \(checkpoint 'roberta.embeddings.position_ids'\) has dtype I64/);
  });

  it('two checkpoint names mapping to one is an error', () => {
    const file = parseSafetensors(writeSafetensors({ 'roberta.a': f32([1]), a: f32([1]) }));
    expect(() => mapWeights(file, { stripPrefixes: ['roberta.'] })).toThrow(
      /checkpoint tensors 'roberta.a' and 'a' both map to 'a'/,
    );
  });

  it('renames and adds a prefix (string and RegExp rules)', () => {
    const spec: WeightMapSpec = {
      stripPrefixes: ['module.'],
      rename: [
        { from: '.gamma', to: '.weight' },
        { from: /^layer(\d)\./, to: 'stage$1.' },
      ],
      addPrefix: 'backbone.',
    };
    expect(mapName('module.layer1.0.bn1.gamma', spec)).toBe('backbone.stage1.0.bn1.weight');
    expect(mapName('fc.weight', spec)).toBe('backbone.fc.weight');
  });

  it('globs match whole names, with regex characters taken literally', () => {
    expect(globToRegExp('lm_head.*').test('lm_head.dense.weight')).toBe(true);
    expect(globToRegExp('lm_head.*').test('lm_headXdense')).toBe(false);
    expect(globToRegExp('lm_head.*').test('x.lm_head.bias')).toBe(false);
    expect(globToRegExp('*.num_batches_tracked').test('layer1.0.bn1.num_batches_tracked')).toBe(true);
    expect(globToRegExp(/bias$/).test('a.bias')).toBe(true);
  });
});

describe('layout changes', () => {
  it('transpose2d: Linear [out, in] → [in, out]', () => {
    // [[0 1 2], [3 4 5]] (2 out × 3 in) → [[0 3], [1 4], [2 5]]
    const t = transpose2d(Float32Array.of(0, 1, 2, 3, 4, 5), [2, 3]);
    expect(t.shape).toEqual([3, 2]);
    expect(Array.from(t.data)).toEqual([0, 3, 1, 4, 2, 5]);
  });

  it('oihwToHwio: [out, in, kh, kw] → [kh, kw, in, out]', () => {
    // O=2, I=1, KH=1, KW=2: w[o][0][0][x] = 10o + x
    const t = oihwToHwio(Float32Array.of(0, 1, 10, 11), [2, 1, 1, 2]);
    expect(t.shape).toEqual([1, 2, 1, 2]);
    // [h][w][i][o]: (0,0,0,0)=0, (0,0,0,1)=10, (0,1,0,0)=1, (0,1,0,1)=11
    expect(Array.from(t.data)).toEqual([0, 10, 1, 11]);

    // O=2, I=2, KH=2, KW=1: value = 1000o + 100i + 10h
    const src: number[] = [];
    for (let o = 0; o < 2; o++)
      for (let i = 0; i < 2; i++) for (let h = 0; h < 2; h++) src.push(1000 * o + 100 * i + 10 * h);
    const u = oihwToHwio(Float32Array.from(src), [2, 2, 2, 1]);
    expect(u.shape).toEqual([2, 1, 2, 2]);
    // order h, w, i, o
    expect(Array.from(u.data)).toEqual([0, 1000, 100, 1100, 10, 1010, 110, 1110]);
  });

  it('oihwToDepthwise: [C·M, 1, kh, kw] → [kh, kw, C, M]', () => {
    // C=2, M=1, KH=1, KW=2: w[c][0][0][x] = 10c + x
    const t = oihwToDepthwise(Float32Array.of(0, 1, 10, 11), [2, 1, 1, 2]);
    expect(t.shape).toEqual([1, 2, 2, 1]);
    expect(Array.from(t.data)).toEqual([0, 10, 1, 11]);
    // C=1, M=2, KH=1, KW=1: PyTorch out channel m → TF [0, 0, 0, m]
    const m = oihwToDepthwise(Float32Array.of(5, 6), [2, 1, 1, 1], 2);
    expect(m.shape).toEqual([1, 1, 1, 2]);
    expect(Array.from(m.data)).toEqual([5, 6]);
  });

  it('shape errors say what was expected', () => {
    expect(() => transpose2d(Float32Array.of(1, 2, 3), [2, 2])).toThrow(
      /shape \[2,2\] has 4 elements; the data has 3/,
    );
    expect(() => oihwToHwio(Float32Array.of(1), [1, 1])).toThrow(/expected a rank-4 conv weight/);
    expect(() => oihwToDepthwise(Float32Array.of(1, 2), [1, 2, 1, 1])).toThrow(
      /expected shape \[in\*multiplier, 1, kh, kw\]/,
    );
    expect(() => oihwToDepthwise(Float32Array.of(1, 2, 3), [3, 1, 1, 1], 2)).toThrow(/multiplier 2/);
  });
});
