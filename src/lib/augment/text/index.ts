/**
 * Text augmentation (PROTOCOL-IMAGE-TEXT.md §6.5–§6.7): the ag_news `drop` variant, then per view
 * EDA-style synonym replacement over the WordNet 3.1 table (public/data/synonyms-wn31.txt, parsed by
 * parseSynonymTable; the site serves it, the CLI reads it from disk).
 */
export { textView, TEXT_VIEW_WORDS, type TextViewKind } from './textView.ts';
export { replaceSynonyms, eligibleSynonyms, wordParts, type ReplaceRng, type WordParts } from './synonyms.ts';
export { dropTokens, ROBERTA_PAD_WORD, MINILM_PAD_WORD, type PadWord } from './tokenDrop.ts';
export {
  parseSynonymTable,
  synonymTableFrom,
  SynonymTableError,
  SYNONYM_TABLE_FILE,
  type SynonymTable,
} from './synonymTable.ts';
export { EDA_STOP_WORDS, EDA_STOP_WORD_LIST } from './stopWords.ts';
export { splitWords } from './words.ts';
