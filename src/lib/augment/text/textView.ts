/**
 * One view of a text (PROTOCOL-IMAGE-TEXT.md §6.5–§6.6): `clean` is the text itself (test texts are
 * never augmented), `weak` replaces 1 word by a synonym and `strong` 5. The generator is the view's
 * own (bank/viewSeed.ts for the features tier), so the draws of one view never move another's.
 */
import type { SynonymTable } from './synonymTable.ts';
import { replaceSynonyms, type ReplaceRng } from './synonyms.ts';
import { ROBERTA_PAD_WORD, type PadWord } from './tokenDrop.ts';

export type TextViewKind = 'clean' | 'weak' | 'strong';

/** Words replaced per view (§6.6 rule 5). */
export const TEXT_VIEW_WORDS: Readonly<Record<TextViewKind, number>> = { clean: 0, weak: 1, strong: 5 };

/** The text as the model sees it in this view; `clean` draws nothing and leaves the text untouched. */
export function textView(
  view: TextViewKind,
  text: string,
  rng: ReplaceRng,
  table: SynonymTable,
  padWord: PadWord = ROBERTA_PAD_WORD,
): string {
  if (view === 'clean') return text;
  return replaceSynonyms(text, TEXT_VIEW_WORDS[view], rng, table, padWord);
}
