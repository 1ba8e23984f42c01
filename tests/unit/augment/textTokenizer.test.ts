/**
 * A dropped text through the tokenizer (PROTOCOL-IMAGE-TEXT.md §6.7): the literal `<pad>` words are
 * RoBERTa's special token (id 1) with attention 1, each preceding space becomes its own `Ġ` token
 * (roberta's tokenizer.json has no `lstrip` on `<pad>`), and only the padding appended after the
 * text gets attention 0. MiniLM's `[PAD]` (id 0) likewise. Tiny tokenizer.json files in the layout of
 * FacebookAI/roberta-base and of a BERT uncased WordPiece are written here.
 */
import { describe, expect, it } from 'vitest';
import { createTokenizer } from '../../../src/lib/weights/tokenizer.ts';
import { dropTokens } from '../../../src/lib/augment/text/tokenDrop.ts';
import { textView } from '../../../src/lib/augment/text/textView.ts';
import { synonymTableFrom } from '../../../src/lib/augment/text/synonymTable.ts';
import { MT19937 } from '../../../src/lib/protocol/rng.ts';
import { bytesToUnicode } from '../weights/helpers.ts';

/** An added special token as roberta-base's tokenizer.json writes `<pad>`: no lstrip, no rstrip. */
const special = (id: number, content: string) => ({
  id,
  content,
  single_word: false,
  lstrip: false,
  rstrip: false,
  normalized: false,
  special: true,
});

/** 0 <s>, 1 <pad>, 2 </s>, 3 <unk>, 4 <mask>; bytes o 5, i 6, l 7, Ġ 8; merges oi 9, oil 10, Ġoil 11. */
function robertaJson(): Record<string, unknown> {
  expect(bytesToUnicode().get(0x20)).toBe('Ġ');
  const vocab: Record<string, number> = { '<s>': 0, '<pad>': 1, '</s>': 2, '<unk>': 3, '<mask>': 4 };
  ['o', 'i', 'l', 'Ġ'].forEach((p, i) => (vocab[p] = 5 + i));
  const merges = ['o i', 'oi l', 'Ġ oil'];
  merges.forEach((m, i) => (vocab[m.replace(' ', '')] = 9 + i));
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: ['<s>', '<pad>', '</s>', '<unk>', '<mask>'].map((t, i) => special(i, t)),
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

/** 0 [PAD], 1 [UNK], 2 [CLS], 3 [SEP], 4 [MASK], 5 oil, 6 crude. */
function bertJson(): Record<string, unknown> {
  const words = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]', 'oil', 'crude'];
  const cls = { SpecialToken: { id: '[CLS]', type_id: 0 } };
  const sep = { SpecialToken: { id: '[SEP]', type_id: 0 } };
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: words.slice(0, 5).map((t, i) => special(i, t)),
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
      pair: [cls, { Sequence: { id: 'A', type_id: 0 } }, sep, { Sequence: { id: 'B', type_id: 1 } }, sep],
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
      vocab: Object.fromEntries(words.map((w, i) => [w, i])),
    },
  };
}

const arr = (a: ArrayLike<number>) => Array.from(a);

describe('the dropped text through RoBERTa’s byte-level BPE', () => {
  const tok = createTokenizer(robertaJson());

  it('maps each literal <pad> to id 1 with attention 1, its space to a lone Ġ', () => {
    const dropped = dropTokens('oil oil oil oil');
    expect(dropped).toBe('oil oil <pad> <pad>');
    // Sections "oil oil ", "<pad>", " ", "<pad>": "oil oil " → oil, Ġoil, Ġ (the trailing space alone).
    expect(tok.tokenize(dropped)).toEqual(['oil', 'Ġoil', 'Ġ', '<pad>', 'Ġ', '<pad>']);
    const e = tok.encode(dropped, { maxLength: 10 });
    expect(arr(e.ids)).toEqual([0, 10, 11, 8, 1, 8, 1, 2, 1, 1]);
    expect(arr(e.attentionMask)).toEqual([1, 1, 1, 1, 1, 1, 1, 1, 0, 0]);
    expect(e.length).toBe(8);
  });

  it('keeps the pad tokens through truncation of the content and through an augmented view', () => {
    const view = textView(
      'strong',
      dropTokens('oil oil oil oil'),
      new MT19937(0),
      synonymTableFrom({ oil: ['oi'] }),
    );
    expect(view).toBe('oi oi <pad> <pad>');
    expect(arr(tok.encode(view).ids)).toEqual([0, 9, 8, 9, 8, 1, 8, 1, 2]);
    expect(arr(tok.encode('oil <pad> <pad>', { maxLength: 5 }).ids)).toEqual([0, 10, 8, 1, 2]);
  });
});

describe('the dropped text through MiniLM’s WordPiece', () => {
  const tok = createTokenizer(bertJson());

  it('maps each literal [PAD] to id 0 with attention 1, before lower-casing', () => {
    const dropped = dropTokens('Crude oil crude oil', '[PAD]');
    expect(dropped).toBe('Crude oil [PAD] [PAD]');
    const e = tok.encode(dropped, { maxLength: 8 });
    expect(arr(e.ids)).toEqual([2, 6, 5, 0, 0, 3, 0, 0]);
    expect(arr(e.attentionMask)).toEqual([1, 1, 1, 1, 1, 1, 0, 0]);
  });
});
