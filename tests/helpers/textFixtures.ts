/**
 * Text fixtures shared by the CLI and browser tests of the text panels: AG-News-like rows whose
 * classes use different words (each word has WordNet synonyms, so views change them), and a tiny
 * RoBERTa-style tokenizer.json that fits tests/fixtures/encoders/roberta-tiny.safetensors.
 */
import { mt } from '../../src/lib/protocol/rng.ts';
import { textParquet } from './hubFiles.ts';

/** Words per class (each with WordNet synonyms, so the views change them). */
const WORDS = [
  ['war', 'army', 'leader', 'nation'],
  ['game', 'team', 'player', 'score'],
  ['market', 'stock', 'money', 'trade'],
  ['computer', 'science', 'space', 'data'],
];
/** Row i's text, of class y: three of the class's words. */
export const agNewsText = (y: number, i: number): string => {
  const w = WORDS[y];
  return `${w[i % 4]} ${w[(i >> 2) % 4]} ${w[(i >> 4) % 4]}`;
};

/**
 * RoBERTa-style byte-level BPE over single characters: <s> 0, <pad> 1, </s> 2, <unk> 3, <mask> 4,
 * then 'Ġ' and a–z (vocabulary 32 ≤ the tiny encoder's 100); other bytes are <unk>.
 */
export function tinyRobertaTokenizerJson(): string {
  const special = (id: number, content: string) => ({
    id,
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: true,
    special: true,
  });
  const vocab: Record<string, number> = { '<s>': 0, '<pad>': 1, '</s>': 2, '<unk>': 3, '<mask>': 4, Ġ: 5 };
  for (let c = 0; c < 26; c++) vocab[String.fromCharCode(97 + c)] = 6 + c;
  return JSON.stringify({
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
      unk_token: '<unk>',
      continuing_subword_prefix: '',
      end_of_word_suffix: '',
      fuse_unk: false,
      byte_fallback: false,
      vocab,
      merges: [],
    },
  });
}

/** Review words per polarity (negative, positive), for the IMDB → Amazon pair. */
const REVIEW_WORDS = [
  ['awful', 'boring', 'poor', 'dull'],
  ['great', 'superb', 'fine', 'good'],
];
const reviewText = (y: number, i: number) =>
  `${REVIEW_WORDS[y][i % 4]} ${REVIEW_WORDS[y][(i >> 2) % 4]} movie`;

/**
 * The IMDB → Amazon pair as Hub-layout parquet files at their real row counts (imdb train 25 000;
 * amazon_polarity test 400 000, its `content` column), by path under a --data-dir.
 */
export function imdbAmazonHubFiles(): Record<string, Uint8Array> {
  const imdb = Int32Array.from(mt(301).permutation(25_000), (v) => v % 2);
  const amazon = Int32Array.from(mt(302).permutation(400_000), (v) => v % 2);
  return {
    'stanfordnlp/imdb/plain_text/train-00000-of-00001.parquet': textParquet(imdb, (i) =>
      reviewText(imdb[i], i),
    ),
    'fancyzhx/amazon_polarity/amazon_polarity/test-00000-of-00001.parquet': textParquet(
      amazon,
      (i) => reviewText(amazon[i], i),
      'content',
    ),
  };
}
