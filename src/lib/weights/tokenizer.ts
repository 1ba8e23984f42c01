/**
 * Text → model inputs (PROTOCOL-IMAGE-TEXT.md §6.5): a Hugging Face `tokenizer.json` run by
 * `@huggingface/tokenizers` (a maintained pure-JS port of the Rust tokenizers: byte-level BPE for
 * RoBERTa, WordPiece for BERT/MiniLM), plus what that library leaves to its caller: truncation to
 * a maximum length that keeps the special tokens, and padding with an attention mask, as
 * `tokenizer(text, padding='max_length', truncation=True, max_length=256)` does in transformers.
 *
 * The attention mask marks positions, not ids: a `<pad>` written in the text itself (the dropped
 * words of §6.7) is a real token with attention 1; only the padding appended here gets 0.
 */
import { Tokenizer } from '@huggingface/tokenizers';

export type Padding = 'max_length' | 'longest' | 'none';

export interface EncodeOptions {
  /** Most tokens per text, special tokens included (RoBERTa's runs: 256). Required for truncation or 'max_length' padding. */
  maxLength?: number;
  /** Pad every text to maxLength ('max_length'), to the longest text of the batch ('longest'), or not at all ('none', one text only). Default 'max_length' when maxLength is given, else 'none'. */
  padding?: Padding;
  /** Cut the content (never the special tokens) to fit maxLength, keeping its head. Default true. */
  truncation?: boolean;
  /** Add the post-processor's special tokens (`<s> … </s>`, `[CLS] … [SEP]`). Default true. */
  addSpecialTokens?: boolean;
}

export interface EncodedText {
  ids: Int32Array;
  /** 1 on tokens, 0 on padding. */
  attentionMask: Int32Array;
  /** Tokens before padding. */
  length: number;
}

export interface EncodedBatch {
  /** batch × seqLength, row-major. */
  ids: Int32Array;
  attentionMask: Int32Array;
  batch: number;
  seqLength: number;
  /** Tokens before padding, per text. */
  lengths: Int32Array;
}

export class TokenizerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TokenizerError';
  }
}

/** Special tokens conventionally used for padding, when neither file names one. */
const PAD_TOKEN_GUESSES = ['<pad>', '[PAD]'];
/** A stand-in content token, to find where the post-processor puts the specials. */
const SENTINEL = '\u{10FFFD}sentinel';

export interface TokenizerOptions {
  /** Overrides the pad token (else: tokenizer.json `padding.pad_id`, tokenizer_config `pad_token`, `<pad>` / `[PAD]`). */
  padToken?: string;
}

/** A loaded tokenizer.json with truncation and padding. Build it with createTokenizer(). */
export class TextTokenizer {
  /** The underlying @huggingface/tokenizers instance. */
  readonly inner: Tokenizer;
  /** Id used for padding; null when the files define no pad token (then padding throws). */
  readonly padId: number | null;
  /** Ids the post-processor puts before and after the content of one text. */
  readonly prefixIds: readonly number[];
  readonly suffixIds: readonly number[];

  constructor(inner: Tokenizer, padId: number | null, prefixIds: number[], suffixIds: number[]) {
    this.inner = inner;
    this.padId = padId;
    this.prefixIds = prefixIds;
    this.suffixIds = suffixIds;
  }

  /** Content ids of a text: no special tokens, no truncation. */
  contentIds(text: string): number[] {
    return this.inner.encode(text, { add_special_tokens: false }).ids;
  }

  /** Token strings of a text, without special tokens. */
  tokenize(text: string): string[] {
    return this.inner.tokenize(text, { add_special_tokens: false });
  }

  tokenToId(token: string): number | undefined {
    return this.inner.token_to_id(token);
  }

  decode(ids: ArrayLike<number>, skipSpecialTokens = false): string {
    return this.inner.decode(Array.from(ids), { skip_special_tokens: skipSpecialTokens });
  }

  /** One text: ids and attention mask, truncated and padded as the options say. */
  encode(text: string, opts: EncodeOptions = {}): EncodedText {
    const padding = opts.padding ?? (opts.maxLength !== undefined ? 'max_length' : 'none');
    const row = this.#ids(text, opts);
    const L = padding === 'none' || padding === 'longest' ? row.length : this.#maxLength(opts, 'padding');
    const ids = new Int32Array(L);
    const attentionMask = new Int32Array(L);
    this.#fill(row, ids, attentionMask, 0, L);
    return { ids, attentionMask, length: row.length };
  }

  /** Several texts padded to one length ('max_length' or 'longest'), as a row-major batch. */
  encodeBatch(texts: readonly string[], opts: EncodeOptions = {}): EncodedBatch {
    const padding = opts.padding ?? (opts.maxLength !== undefined ? 'max_length' : 'longest');
    if (padding === 'none') {
      throw new TokenizerError(
        "encodeBatch: padding 'none' cannot make a batch; use 'longest' or 'max_length'.",
      );
    }
    const rows = texts.map((t) => this.#ids(t, opts));
    const L =
      padding === 'max_length'
        ? this.#maxLength(opts, 'padding')
        : rows.reduce((m, r) => Math.max(m, r.length), 0);
    const ids = new Int32Array(texts.length * L);
    const attentionMask = new Int32Array(texts.length * L);
    rows.forEach((r, b) => this.#fill(r, ids, attentionMask, b * L, L));
    return {
      ids,
      attentionMask,
      batch: texts.length,
      seqLength: L,
      lengths: Int32Array.from(rows, (r) => r.length),
    };
  }

  #maxLength(opts: EncodeOptions, why: string): number {
    const m = opts.maxLength;
    if (m === undefined || !Number.isInteger(m) || m < 1) {
      throw new TokenizerError(`encode: ${why} needs maxLength, a positive integer; got ${m}.`);
    }
    return m;
  }

  /** Special tokens plus content, the content cut to fit maxLength when truncating. */
  #ids(text: string, opts: EncodeOptions): number[] {
    const special = opts.addSpecialTokens ?? true;
    const pre = special ? this.prefixIds : [];
    const post = special ? this.suffixIds : [];
    let content = this.contentIds(text);
    if ((opts.truncation ?? true) && opts.maxLength !== undefined) {
      const room = this.#maxLength(opts, 'truncation') - pre.length - post.length;
      if (room < 0) {
        throw new TokenizerError(
          `encode: maxLength ${opts.maxLength} cannot hold the ${pre.length + post.length} special tokens.`,
        );
      }
      if (content.length > room) content = content.slice(0, room);
    }
    return [...pre, ...content, ...post];
  }

  #fill(row: number[], ids: Int32Array, mask: Int32Array, at: number, L: number): void {
    if (row.length > L) {
      throw new TokenizerError(
        `encode: the text has ${row.length} tokens, more than maxLength ${L}, and truncation is off.`,
      );
    }
    if (row.length < L && this.padId === null) {
      throw new TokenizerError(
        'encode: padding needs a pad token, and the tokenizer files name none; pass padToken.',
      );
    }
    for (let i = 0; i < L; i++) {
      ids[at + i] = i < row.length ? row[i] : (this.padId as number);
      mask[at + i] = i < row.length ? 1 : 0;
    }
  }
}

/** Parses tokenizer.json (or tokenizer_config.json) from its bytes or text. */
export function parseJsonFile(
  data: Uint8Array | ArrayBuffer | string,
  what: string,
): Record<string, unknown> {
  let json: unknown;
  try {
    const text = typeof data === 'string' ? data : new TextDecoder('utf-8', { fatal: true }).decode(data);
    json = JSON.parse(text);
  } catch (e) {
    throw new TokenizerError(`${what} is not UTF-8 JSON (${e instanceof Error ? e.message : String(e)}).`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new TokenizerError(`${what} must be a JSON object.`);
  }
  return json as Record<string, unknown>;
}

/**
 * Builds a tokenizer from a parsed tokenizer.json and, optionally, tokenizer_config.json (whose
 * `pad_token` and flags the library reads). Throws a TokenizerError when the library refuses it.
 */
export function createTokenizer(
  tokenizerJson: Record<string, unknown>,
  tokenizerConfig: Record<string, unknown> = {},
  opts: TokenizerOptions = {},
): TextTokenizer {
  let inner: Tokenizer;
  try {
    inner = new Tokenizer({ added_tokens: [], ...tokenizerJson }, tokenizerConfig);
  } catch (e) {
    throw new TokenizerError(
      `tokenizer.json could not be loaded: ${e instanceof Error ? e.message : String(e)}.`,
    );
  }
  const padId = resolvePadId(inner, tokenizerJson, tokenizerConfig, opts);
  const [prefixIds, suffixIds] = specialIds(inner);
  return new TextTokenizer(inner, padId, prefixIds, suffixIds);
}

function resolvePadId(
  inner: Tokenizer,
  json: Record<string, unknown>,
  config: Record<string, unknown>,
  opts: TokenizerOptions,
): number | null {
  const idOf = (token: string, from: string) => {
    const id = inner.token_to_id(token);
    if (id === undefined)
      throw new TokenizerError(`The pad token '${token}' (${from}) is not in the vocabulary.`);
    return id;
  };
  if (opts.padToken !== undefined) return idOf(opts.padToken, 'padToken');
  const padding = json.padding as { pad_id?: unknown } | null | undefined;
  if (padding && typeof padding.pad_id === 'number') return padding.pad_id;
  const fromConfig = config.pad_token;
  if (typeof fromConfig === 'string') return idOf(fromConfig, 'tokenizer_config.json');
  // An added-token object ({content, ...}) is how newer configs write it.
  if (fromConfig && typeof (fromConfig as { content?: unknown }).content === 'string') {
    return idOf((fromConfig as { content: string }).content, 'tokenizer_config.json');
  }
  // roberta-base has no tokenizer_config.json: transformers takes '<pad>' from RobertaTokenizer's defaults.
  const added = [...inner.get_added_tokens_decoder()];
  for (const guess of PAD_TOKEN_GUESSES) {
    const hit = added.find(([, token]) => token.special && token.content === guess);
    if (hit) return hit[0];
  }
  return null;
}

/** The ids the post-processor adds around one text's content (none without a post-processor). */
function specialIds(inner: Tokenizer): [number[], number[]] {
  const pp = inner.post_processor;
  if (!pp) return [[], []];
  const tokens = pp.post_process([SENTINEL], null, true).tokens;
  const at = tokens.indexOf(SENTINEL);
  if (at < 0 || tokens.indexOf(SENTINEL, at + 1) >= 0) {
    throw new TokenizerError('tokenizer.json: the post-processor does not keep the text as one sequence.');
  }
  const toId = (t: string) => {
    const id = inner.token_to_id(t);
    if (id === undefined) throw new TokenizerError(`tokenizer.json: special token '${t}' has no id.`);
    return id;
  };
  return [tokens.slice(0, at).map(toId), tokens.slice(at + 1).map(toId)];
}
