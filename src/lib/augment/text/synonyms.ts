/**
 * EDA-style synonym replacement (PROTOCOL-IMAGE-TEXT.md §6.6; Wei & Zou 2019,
 * @see https://arxiv.org/abs/1901.11196), which replaces the original's space-dropping augmentation
 * (§6.8). Draws, from the view's generator: one P§3.2 permutation of the eligible positions, then
 * one P§3.2 `randomInterval` per chosen position in position order. Nothing else is drawn.
 *
 * @example
 *   replaceSynonyms('The car stopped.', 1, new MT19937(0), synonymTableFrom({ car: ['auto'] }))
 *   // → 'The auto stopped.' (the only eligible word; one synonym, so no draw at all)
 */
import type { MT19937 } from '../../protocol/rng.ts';
import { EDA_STOP_WORDS } from './stopWords.ts';
import type { SynonymTable } from './synonymTable.ts';
import { ROBERTA_PAD_WORD, type PadWord } from './tokenDrop.ts';
import { splitWords } from './words.ts';

/** What the replacement draws from: the numpy-legacy primitives of P§3.2. */
export type ReplaceRng = Pick<MT19937, 'randomInterval' | 'permuted'>;

/** A word cut into its core and the non-letters around it. */
export interface WordParts {
  prefix: string;
  core: string;
  suffix: string;
}

// "Non-letters" are Unicode non-letters (Python's `not str.isalpha()`, JS `\P{L}`), so "café" keeps
// its é in the core and is ineligible instead of becoming an eligible "caf" plus a suffix "é".
const LETTER = /^\p{L}$/u;
const ASCII_CORE = /^[A-Za-z]{2,}$/;

/** The core of a word: the word without its leading and trailing non-letters (rule 2). */
export function wordParts(word: string): WordParts {
  // A scan by code point, linear in the word (a lazy regex would be quadratic on long non-letter runs).
  const cps = Array.from(word);
  let i = 0;
  while (i < cps.length && !LETTER.test(cps[i])) i++;
  let j = cps.length;
  while (j > i && !LETTER.test(cps[j - 1])) j--;
  return { prefix: cps.slice(0, i).join(''), core: cps.slice(i, j).join(''), suffix: cps.slice(j).join('') };
}

/**
 * syn(core) when the word may be replaced (rule 2): the core is ≥ 2 ASCII letters and nothing else,
 * its lower case is not an EDA stop word, the word is not the pad word, and the core has synonyms.
 */
export function eligibleSynonyms(
  word: string,
  table: SynonymTable,
  padWord: PadWord = ROBERTA_PAD_WORD,
): readonly string[] | undefined {
  if (word === padWord) return undefined;
  const { core } = wordParts(word);
  if (!ASCII_CORE.test(core)) return undefined;
  const w = core.toLowerCase();
  if (EDA_STOP_WORDS.has(w)) return undefined;
  const syn = table.get(w);
  return syn && syn.length > 0 ? syn : undefined;
}

/** Rule 4: the synonym with its first letter upper-cased when the core's first letter is. */
function matchCase(synonym: string, core: string): string {
  if (!(core[0] >= 'A' && core[0] <= 'Z')) return synonym;
  // The first letter, not the first character: a few WordNet names begin with a space (" d" from "3-D").
  const at = synonym.search(/[a-z]/);
  return at < 0 ? synonym : synonym.slice(0, at) + synonym[at].toUpperCase() + synonym.slice(at + 1);
}

/**
 * Replaces min(n, #eligible) distinct eligible words of `text` by a synonym (rules 1–5) and joins
 * all words with single spaces (so the whitespace is normalised even when nothing is replaced).
 * `padWord` is the drop variant's pad word, never replaced: `<pad>` (RoBERTa) or `[PAD]` (MiniLM).
 */
export function replaceSynonyms(
  text: string,
  n: number,
  rng: ReplaceRng,
  table: SynonymTable,
  padWord: PadWord = ROBERTA_PAD_WORD,
): string {
  if (!Number.isInteger(n) || n < 0) {
    throw new RangeError(`replaceSynonyms: n must be a non-negative integer; got ${n}.`);
  }
  const words = splitWords(text);
  const synonyms = words.map((w) => eligibleSynonyms(w, table, padWord));
  const eligible: number[] = [];
  synonyms.forEach((s, i) => s && eligible.push(i));
  // The whole permutation is drawn even when n < #eligible: "the first entries of a permutation".
  const chosen = rng
    .permuted(eligible)
    .slice(0, Math.min(n, eligible.length))
    .sort((a, b) => a - b);
  for (const i of chosen) {
    const syn = synonyms[i] as readonly string[];
    const { prefix, core, suffix } = wordParts(words[i]);
    words[i] = prefix + matchCase(syn[rng.randomInterval(syn.length - 1)], core) + suffix;
  }
  return words.join(' ');
}
