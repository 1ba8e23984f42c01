/**
 * The ag_news `feature` token drop (PROTOCOL-IMAGE-TEXT.md §6.7): the README's OOD sentences
 * "drop 50 % tokens" and fill the truncated part with "<pad>", the string LAMDA's PadSequence pads
 * with. Of n whitespace-split words the first ⌊n/2⌋ stay and each of the other n − ⌊n/2⌋ becomes the
 * literal pad word. Done once per O row, before augmentation (which never replaces a pad word).
 */
import { splitWords } from './words.ts';

/** RoBERTa's pad token, which its tokenizer maps to id 1; classroom's MiniLM uses `[PAD]` (id 0). */
export type PadWord = '<pad>' | '[PAD]';
export const ROBERTA_PAD_WORD: PadWord = '<pad>';
export const MINILM_PAD_WORD: PadWord = '[PAD]';

/** The `drop` variant of a text: its second half of words replaced by `padWord`, joined by single spaces. */
export function dropTokens(text: string, padWord: PadWord = ROBERTA_PAD_WORD): string {
  const words = splitWords(text);
  const keep = Math.floor(words.length / 2);
  return words.map((w, i) => (i < keep ? w : padWord)).join(' ');
}
