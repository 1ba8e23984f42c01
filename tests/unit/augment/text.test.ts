/**
 * Goldens of the text augmentation (PROTOCOL-IMAGE-TEXT.md §6.6–§6.7) from an independent Python
 * port over numpy's legacy RandomState (scripts/fixtures/make_text_aug_fixtures.py), on committed
 * sentences and the tiny committed table tests/fixtures/augment/synonyms-tiny.txt: word splitting,
 * eligibility, the token drop, and weak/strong views under the §7.4 view generators.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MT19937 } from '../../../src/lib/protocol/rng.ts';
import { viewRng, viewSeed, type ViewKind } from '../../../src/lib/bank/viewSeed.ts';
import { parseSynonymTable } from '../../../src/lib/augment/text/synonymTable.ts';
import { eligibleSynonyms, replaceSynonyms } from '../../../src/lib/augment/text/synonyms.ts';
import { dropTokens, type PadWord } from '../../../src/lib/augment/text/tokenDrop.ts';
import { textView } from '../../../src/lib/augment/text/textView.ts';
import { splitWords } from '../../../src/lib/augment/text/words.ts';

interface View {
  sentence: number;
  bankSeed: number;
  row: number;
  kind: ViewKind;
  k: number;
  seed: number;
  text: string;
}

const fixture = (name: string) =>
  readFileSync(new URL(`../../fixtures/augment/${name}`, import.meta.url), 'utf8');
const GOLD = JSON.parse(fixture('text.json')) as {
  table: string;
  sentences: string[];
  words: string[][];
  eligible: number[][];
  drop: Record<PadWord, string[]>;
  views: View[];
  dropViews: Record<PadWord, View[]>;
  counts: { sentence: number; seed: number; n: number; text: string }[];
};
const TABLE = parseSynonymTable(fixture(GOLD.table), GOLD.table);
const PADS: PadWord[] = ['<pad>', '[PAD]'];

describe('text augmentation goldens (Python port)', () => {
  it('splits words as Python str.split()', () => {
    expect(GOLD.sentences.map(splitWords)).toEqual(GOLD.words);
  });

  it('finds the same eligible words', () => {
    const eligible = GOLD.words.map((ws) => ws.flatMap((w, i) => (eligibleSynonyms(w, TABLE) ? [i] : [])));
    expect(eligible).toEqual(GOLD.eligible);
  });

  it('drops the second half of the words, with either pad word', () => {
    for (const pad of PADS) expect(GOLD.sentences.map((s) => dropTokens(s, pad))).toEqual(GOLD.drop[pad]);
  });

  it('weak and strong views of the sentences', () => {
    expect(GOLD.views.length).toBeGreaterThan(100);
    for (const v of GOLD.views) {
      expect(viewSeed(v.bankSeed, v.row, v.kind, v.k)).toBe(v.seed);
      const rng = viewRng(v.bankSeed, v.row, v.kind, v.k);
      expect(textView(v.kind, GOLD.sentences[v.sentence], rng, TABLE), JSON.stringify(v)).toBe(v.text);
    }
  });

  it('views of the dropped texts never replace the variant’s pad word', () => {
    for (const pad of PADS) {
      for (const v of GOLD.dropViews[pad]) {
        const rng = viewRng(v.bankSeed, v.row, v.kind, v.k);
        const out = textView(v.kind, GOLD.drop[pad][v.sentence], rng, TABLE, pad);
        expect(out, JSON.stringify(v)).toBe(v.text);
        const pads = (s: string) => splitWords(s).filter((w) => w === pad).length;
        expect(pads(out)).toBe(pads(GOLD.drop[pad][v.sentence]));
      }
    }
  });

  it('any n on plain MT seeds: n = 0 changes nothing, larger n takes more of one permutation', () => {
    for (const c of GOLD.counts) {
      const out = replaceSynonyms(GOLD.sentences[c.sentence], c.n, new MT19937(c.seed), TABLE);
      expect(out, JSON.stringify(c)).toBe(c.text);
    }
  });
});
