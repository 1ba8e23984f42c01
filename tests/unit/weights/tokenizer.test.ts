/**
 * Two tokenizer.json files written here, in the layout of FacebookAI/roberta-base (byte-level BPE,
 * RobertaProcessing, no tokenizer_config.json) and of a BERT-uncased WordPiece (BertNormalizer,
 * TemplateProcessing, `padding.pad_id`). The expected ids were worked out by hand from the
 * vocabularies and merge ranks; the comments give the steps.
 */
import { describe, expect, it } from 'vitest';
import { createTokenizer, parseJsonFile, TokenizerError } from '../../../src/lib/weights/tokenizer.ts';
import { bytesToUnicode } from './helpers.ts';

const special = (id: number, content: string, lstrip = false) => ({
  id,
  content,
  single_word: false,
  lstrip,
  rstrip: false,
  normalized: !lstrip,
  special: true,
});

/** RoBERTa-style: 0 <s>, 1 <pad>, 2 </s>, 3 <unk>, 4 <mask>, then bytes and merges. */
function robertaJson(): Record<string, unknown> {
  const G = bytesToUnicode().get(0x20); // the byte-level space, 'Ġ'
  expect(G).toBe('Ġ');
  const vocab: Record<string, number> = { '<s>': 0, '<pad>': 1, '</s>': 2, '<unk>': 3, '<mask>': 4 };
  const pieces = ['h', 'e', 'l', 'o', 'w', 'r', 'd', 'Ġ', '!']; // 5..13
  pieces.forEach((p, i) => (vocab[p] = 5 + i));
  const merges = ['l l', 'h e', 'he ll', 'hell o', 'Ġ w', 'o r', 'Ġw or', 'l d', 'Ġwor ld']; // ranks 0..8
  merges.forEach((m, i) => (vocab[m.replace(' ', '')] = 14 + i)); // ll 14, he 15, hell 16, hello 17, Ġw 18, or 19, Ġwor 20, ld 21, Ġworld 22
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [
      special(0, '<s>'),
      special(1, '<pad>'),
      special(2, '</s>'),
      special(3, '<unk>'),
      special(4, '<mask>', true),
    ],
    normalizer: null,
    pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
    post_processor: {
      type: 'RobertaProcessing',
      sep: ['</s>', 2],
      cls: ['<s>', 0],
      trim_offsets: true,
      add_prefix_space: false,
    },
    decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: '',
      end_of_word_suffix: '',
      fuse_unk: false,
      byte_fallback: false,
      vocab,
      merges,
    },
  };
}

/** BERT-uncased-style WordPiece with a dense little vocabulary. */
function bertJson(): Record<string, unknown> {
  const words = [
    '[PAD]',
    '[UNK]',
    '[CLS]',
    '[SEP]',
    '[MASK]',
    'the',
    'cat',
    'sat',
    'un',
    '##aff',
    '##able',
    '.',
    'caf',
    '##e',
    '!',
    'on',
    'mat',
  ];
  const vocab = Object.fromEntries(words.map((w, i) => [w, i]));
  const cls = { SpecialToken: { id: '[CLS]', type_id: 0 } };
  const sep = { SpecialToken: { id: '[SEP]', type_id: 0 } };
  return {
    version: '1.0',
    truncation: { direction: 'Right', max_length: 128, strategy: 'LongestFirst', stride: 0 },
    padding: {
      strategy: { Fixed: 128 },
      direction: 'Right',
      pad_to_multiple_of: null,
      pad_id: 0,
      pad_type_id: 0,
      pad_token: '[PAD]',
    },
    added_tokens: [
      special(0, '[PAD]'),
      special(1, '[UNK]'),
      special(2, '[CLS]'),
      special(3, '[SEP]'),
      special(4, '[MASK]'),
    ],
    normalizer: {
      type: 'BertNormalizer',
      clean_text: true,
      handle_chinese_chars: true,
      strip_accents: null,
      lowercase: true,
    },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [cls, { Sequence: { id: 'A', type_id: 0 } }, sep],
      pair: [
        cls,
        { Sequence: { id: 'A', type_id: 0 } },
        sep,
        { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: {
        '[CLS]': { id: '[CLS]', ids: [2], tokens: ['[CLS]'] },
        '[SEP]': { id: '[SEP]', ids: [3], tokens: ['[SEP]'] },
      },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab,
    },
  };
}

const arr = (a: ArrayLike<number>) => Array.from(a);

describe('byte-level BPE (RoBERTa layout)', () => {
  const tok = createTokenizer(robertaJson());

  it('finds <s> … </s> and the <pad> id without a tokenizer_config.json', () => {
    expect(tok.prefixIds).toEqual([0]);
    expect(tok.suffixIds).toEqual([2]);
    expect(tok.padId).toBe(1);
  });

  it('merges by rank', () => {
    // "hello" → h e l l o → (l,l) r0 → (h,e) r1 → (he,ll) r2 → (hell,o) r3 = hello 17.
    // " world" → Ġ w o r l d → (Ġ,w) r4 → (o,r) r5 → (Ġw,or) r6 → (l,d) r7 → (Ġwor,ld) r8 = Ġworld 22.
    expect(tok.tokenize('hello world!')).toEqual(['hello', 'Ġworld', '!']);
    expect(arr(tok.encode('hello world!').ids)).toEqual([0, 17, 22, 13, 2]);
    // "world" without its space: w o r l d → (o,r) r5 → (l,d) r7; (w,or) has no merge → w or ld.
    expect(tok.contentIds('world')).toEqual([9, 19, 21]);
    // "lower": no pair of l o w e r has a merge.
    expect(tok.contentIds('lower')).toEqual([7, 8, 9, 6, 10]);
    expect(tok.contentIds('hell')).toEqual([16]);
  });

  it('pads to maxLength with <pad> and mask 0', () => {
    const e = tok.encode('hello world!', { maxLength: 8 });
    expect(arr(e.ids)).toEqual([0, 17, 22, 13, 2, 1, 1, 1]);
    expect(arr(e.attentionMask)).toEqual([1, 1, 1, 1, 1, 0, 0, 0]);
    expect(e.length).toBe(5);
  });

  it('truncates the content, never <s> and </s>', () => {
    expect(arr(tok.encode('hello world!', { maxLength: 4 }).ids)).toEqual([0, 17, 22, 2]);
    expect(arr(tok.encode('hello world!', { maxLength: 2 }).ids)).toEqual([0, 2]);
    expect(() => tok.encode('hello', { maxLength: 1 })).toThrow(
      /maxLength 1 cannot hold the 2 special tokens/,
    );
    expect(() => tok.encode('hello world!', { maxLength: 3, truncation: false })).toThrow(
      /the text has 5 tokens, more than maxLength 3, and truncation is off/,
    );
  });

  it('a <pad> written in the text is the special token, with attention 1', () => {
    // Sections "hello ", "<pad>", " world": "hello " → hello, Ġ (a lone trailing space).
    const e = tok.encode('hello <pad> world', { maxLength: 8 });
    expect(arr(e.ids)).toEqual([0, 17, 12, 1, 22, 2, 1, 1]);
    expect(arr(e.attentionMask)).toEqual([1, 1, 1, 1, 1, 1, 0, 0]);
  });

  it('encodeBatch pads to the longest text, or to maxLength', () => {
    const b = tok.encodeBatch(['hello', 'hello world!']);
    expect(b.seqLength).toBe(5);
    expect(arr(b.ids)).toEqual([0, 17, 2, 1, 1, 0, 17, 22, 13, 2]);
    expect(arr(b.attentionMask)).toEqual([1, 1, 1, 0, 0, 1, 1, 1, 1, 1]);
    expect(arr(b.lengths)).toEqual([3, 5]);
    const m = tok.encodeBatch(['hello', 'hello world!'], { maxLength: 4 });
    expect(arr(m.ids)).toEqual([0, 17, 2, 1, 0, 17, 22, 2]);
  });

  it('without padding, the encoding has its own length; decode inverts it', () => {
    const e = tok.encode('hello world!');
    expect(e.ids.length).toBe(5);
    expect(tok.decode(e.ids, true)).toBe('hello world!');
  });
});

describe('WordPiece (BERT uncased layout)', () => {
  const tok = createTokenizer(bertJson());

  it('takes [CLS]/[SEP] from the template and the pad id from padding.pad_id', () => {
    expect(tok.prefixIds).toEqual([2]);
    expect(tok.suffixIds).toEqual([3]);
    expect(tok.padId).toBe(0);
  });

  it('lower-cases, splits punctuation, and splits words into longest pieces', () => {
    // "The cat sat." → the cat sat . → 5 6 7 11
    expect(arr(tok.encode('The cat sat.').ids)).toEqual([2, 5, 6, 7, 11, 3]);
    // "unaffable" → un + ##aff + ##able (longest match first, left to right)
    expect(arr(tok.encode('unaffable!').ids)).toEqual([2, 8, 9, 10, 14, 3]);
    // Lower-casing strips accents (strip_accents null): "Café" → cafe → caf ##e
    expect(tok.contentIds('Café')).toEqual([12, 13]);
    // A word with no pieces is [UNK]
    expect(tok.contentIds('the dog')).toEqual([5, 1]);
  });

  it('truncates and pads as transformers does with max_length', () => {
    const e = tok.encode('the cat sat on the mat', { maxLength: 5 });
    expect(arr(e.ids)).toEqual([2, 5, 6, 7, 3]);
    const p = tok.encode('the cat', { maxLength: 6 });
    expect(arr(p.ids)).toEqual([2, 5, 6, 3, 0, 0]);
    expect(arr(p.attentionMask)).toEqual([1, 1, 1, 1, 0, 0]);
  });

  it('tokenizer_config.json pad_token and an explicit padToken override the default', () => {
    expect(createTokenizer(bertJson(), {}, { padToken: '[MASK]' }).padId).toBe(4);
    const noPadding = { ...bertJson(), padding: null };
    expect(createTokenizer(noPadding, { pad_token: '[UNK]' }).padId).toBe(1);
    expect(createTokenizer(noPadding, { pad_token: { content: '[SEP]' } }).padId).toBe(3);
    expect(() => createTokenizer(noPadding, { pad_token: '<nope>' })).toThrow(
      /pad token '<nope>' \(tokenizer_config.json\) is not in the vocabulary/,
    );
  });
});

describe('errors', () => {
  it('a tokenizer with no pad token cannot pad', () => {
    const json = robertaJson();
    json.added_tokens = (json.added_tokens as { content: string }[]).filter((t) => t.content !== '<pad>');
    const tok = createTokenizer(json);
    expect(tok.padId).toBeNull();
    expect(tok.encode('hello').ids.length).toBe(3);
    expect(() => tok.encode('hello', { maxLength: 6 })).toThrow(/padding needs a pad token/);
  });

  it('bad files say what is wrong', () => {
    expect(() => parseJsonFile('{"model":', 'tokenizer.json')).toThrow(TokenizerError);
    expect(() => parseJsonFile('[1]', 'tokenizer.json')).toThrow(/tokenizer.json must be a JSON object/);
    expect(() => createTokenizer({ model: { type: 'BPE', vocab: {}, merges: [] } })).toThrow(
      /tokenizer.json could not be loaded: Tokenizer must contain a "decoder" property/,
    );
    expect(parseJsonFile(new TextEncoder().encode('{"a": 1}'), 'x')).toEqual({ a: 1 });
  });

  it('maxLength must be a positive integer when padding to it', () => {
    const tok = createTokenizer(robertaJson());
    expect(() => tok.encode('hello', { padding: 'max_length' })).toThrow(/padding needs maxLength/);
    expect(() => tok.encodeBatch(['hello'], { padding: 'none' })).toThrow(
      /padding 'none' cannot make a batch/,
    );
  });
});
