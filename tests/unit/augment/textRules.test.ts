/**
 * PROTOCOL-IMAGE-TEXT.md §6.6 rules 1–5 and §6.7, one at a time, on small hand-made tables; the
 * draw order is checked with a recording generator, so a change in what is drawn, or when, fails here
 * even where the goldens' outputs happen not to move.
 */
import { describe, expect, it } from 'vitest';
import { EDA_STOP_WORD_LIST, EDA_STOP_WORDS } from '../../../src/lib/augment/text/stopWords.ts';
import {
  parseSynonymTable,
  synonymTableFrom,
  SynonymTableError,
} from '../../../src/lib/augment/text/synonymTable.ts';
import {
  eligibleSynonyms,
  replaceSynonyms,
  wordParts,
  type ReplaceRng,
} from '../../../src/lib/augment/text/synonyms.ts';
import { MT19937 } from '../../../src/lib/protocol/rng.ts';
import { dropTokens } from '../../../src/lib/augment/text/tokenDrop.ts';
import { TEXT_VIEW_WORDS, textView } from '../../../src/lib/augment/text/textView.ts';
import { splitWords } from '../../../src/lib/augment/text/words.ts';

const TABLE = synonymTableFrom({
  car: ['auto', 'motorcar'],
  dd: [' d'],
  fast: ['quick'],
  oil: ['crude oil', 'petroleum', 'vegetable oil'],
  pad: ['tablet'],
  very: ['really'],
  x: ['ex'],
});

/** A generator that records its calls: `permuted` reverses, `randomInterval` returns `pick(max)`. */
function recorder(pick: (max: number) => number = (max) => max) {
  const calls: string[] = [];
  const rng: ReplaceRng = {
    permuted<T>(list: readonly T[]): T[] {
      calls.push(`permuted(${list.join(',')})`);
      return list.slice().reverse();
    },
    randomInterval(max: number): number {
      calls.push(`randomInterval(${max})`);
      return pick(max);
    },
  };
  return { rng, calls };
}

const noDraws: ReplaceRng = {
  permuted: () => {
    throw new Error('drew a permutation');
  },
  randomInterval: () => {
    throw new Error('drew an integer');
  },
};

describe('EDA stop words', () => {
  it("are eda.py's 127 words plus ''", () => {
    expect(EDA_STOP_WORD_LIST.length).toBe(128);
    expect(EDA_STOP_WORDS.size).toBe(128);
    expect(EDA_STOP_WORD_LIST[0]).toBe('i');
    expect(EDA_STOP_WORD_LIST.at(-1)).toBe('');
    for (const w of ['don', 's', 't', 'very', 'again', 'ourselves', 'whom'])
      expect(EDA_STOP_WORDS.has(w)).toBe(true);
    for (const w of ['us', 'would', 'could', 'also']) expect(EDA_STOP_WORDS.has(w)).toBe(false);
  });
});

describe('rule 1: words are Python str.split()', () => {
  it('splits on runs of exactly the code points Python calls whitespace', () => {
    const py = [0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680];
    for (let c = 0x2000; c <= 0x200a; c++) py.push(c);
    py.push(0x2028, 0x2029, 0x202f, 0x205f, 0x3000);
    expect(py.length).toBe(29);
    for (const c of py)
      expect(splitWords(`a${String.fromCodePoint(c)}b`), c.toString(16)).toEqual(['a', 'b']);
    // Not whitespace in Python (JS's \s has U+FEFF; U+200B and U+180E are format characters).
    for (const c of [0xfeff, 0x200b, 0x180e, 0x00ad]) {
      expect(splitWords(`a${String.fromCodePoint(c)}b`), c.toString(16)).toHaveLength(1);
    }
    expect(splitWords(' \t a  b\n\n')).toEqual(['a', 'b']);
    expect(splitWords('')).toEqual([]);
    expect(splitWords(' \r\n ')).toEqual([]);
  });
});

describe('rule 2: the core and eligibility', () => {
  it('the core drops leading and trailing non-letters (Unicode letters)', () => {
    expect(wordParts('"Good",')).toEqual({ prefix: '"', core: 'Good', suffix: '",' });
    expect(wordParts('123car456')).toEqual({ prefix: '123', core: 'car', suffix: '456' });
    expect(wordParts("car's")).toEqual({ prefix: '', core: "car's", suffix: '' });
    expect(wordParts('café!')).toEqual({ prefix: '', core: 'café', suffix: '!' });
    // A combining mark is not a letter: it is stripped as the suffix (Python's isalpha agrees).
    expect(wordParts('cafe\u0301')).toEqual({ prefix: '', core: 'cafe', suffix: '\u0301' });
    expect(wordParts('car\u{1F600}')).toEqual({ prefix: '', core: 'car', suffix: '\u{1F600}' });
    expect(wordParts('...')).toEqual({ prefix: '...', core: '', suffix: '' });
    expect(wordParts('')).toEqual({ prefix: '', core: '', suffix: '' });
  });

  it('eligible: ≥ 2 ASCII letters and nothing else, not a stop word, not the pad word, has synonyms', () => {
    expect(eligibleSynonyms('(Car),', TABLE)).toEqual(['auto', 'motorcar']);
    expect(eligibleSynonyms('X', TABLE)).toBeUndefined(); // one letter, though 'x' has a synonym
    expect(eligibleSynonyms('VERY', TABLE)).toBeUndefined(); // a stop word in any case, even with synonyms
    expect(eligibleSynonyms('car-pad', TABLE)).toBeUndefined(); // a hyphen inside the core
    expect(eligibleSynonyms("car's", TABLE)).toBeUndefined();
    expect(eligibleSynonyms('cär', TABLE)).toBeUndefined(); // non-ASCII letter inside
    expect(eligibleSynonyms('𝐜ar', TABLE)).toBeUndefined(); // an astral letter at the edge stays in the core
    expect(eligibleSynonyms('cars', TABLE)).toBeUndefined(); // no lemmatiser: 'cars' is not 'car'
    expect(eligibleSynonyms('<pad>', TABLE)).toBeUndefined();
    expect(eligibleSynonyms('<pad>', TABLE, '[PAD]')).toEqual(['tablet']); // MiniLM: '<pad>' is text
    expect(eligibleSynonyms('[PAD]', TABLE, '[PAD]')).toBeUndefined();
    expect(eligibleSynonyms('(pad)', TABLE)).toEqual(['tablet']); // only the exact pad word is protected
  });
});

describe('rule 4: positions from one permutation, then synonyms in position order', () => {
  it('draws permuted(eligible positions) once, then randomInterval(|syn| − 1) per chosen position, ascending', () => {
    const { rng, calls } = recorder((max) => max);
    // positions: 0 oil, 1 the, 2 fast, 3 car, 4 is, 5 oil.
    const out = replaceSynonyms('Oil the fast car is oil', 2, rng, TABLE);
    // reversed permutation [5, 3, 2, 0] → first 2 = {5, 3} → processed as 3, then 5.
    expect(calls).toEqual(['permuted(0,2,3,5)', 'randomInterval(1)', 'randomInterval(2)']);
    expect(out).toBe('Oil the fast motorcar is vegetable oil');
  });

  it('takes min(n, #eligible) and draws the whole permutation even when n is smaller', () => {
    const a = recorder();
    expect(replaceSynonyms('car oil car', 10, a.rng, TABLE)).toBe('motorcar vegetable oil motorcar');
    expect(a.calls).toEqual([
      'permuted(0,1,2)',
      'randomInterval(1)',
      'randomInterval(2)',
      'randomInterval(1)',
    ]);
    const b = recorder();
    expect(replaceSynonyms('car oil car', 0, b.rng, TABLE)).toBe('car oil car');
    expect(b.calls).toEqual(['permuted(0,1,2)']);
  });

  it('a single synonym is P§3.2 randomInterval(0): the MT generator gives it without a draw', () => {
    const { rng, calls } = recorder(() => 0);
    expect(replaceSynonyms('fast', 1, rng, TABLE)).toBe('quick');
    expect(calls).toEqual(['permuted(0)', 'randomInterval(0)']);
  });

  it('keeps punctuation and upper-cases the first letter when the core starts upper case', () => {
    const first = recorder(() => 0).rng;
    expect(replaceSynonyms('"Car," (OIL) fAST dd! Dd.', 5, first, TABLE)).toBe(
      '"Auto," (Crude oil) quick  d!  D.',
    );
  });

  it("the module's @example", () => {
    const table = synonymTableFrom({ car: ['auto'] });
    expect(replaceSynonyms('The car stopped.', 1, new MT19937(0), table)).toBe('The auto stopped.');
  });

  it('rejects a bad n', () => {
    expect(() => replaceSynonyms('car', -1, noDraws, TABLE)).toThrow(/non-negative integer; got -1/);
    expect(() => replaceSynonyms('car', 1.5, noDraws, TABLE)).toThrow(RangeError);
  });
});

describe('rule 5 and the views', () => {
  it('joins with single spaces even when nothing is replaced', () => {
    const { rng, calls } = recorder();
    expect(replaceSynonyms('  the\t\tvery \n end ', 1, rng, TABLE)).toBe('the very end');
    expect(calls).toEqual(['permuted()']);
  });

  it('weak replaces 1 word, strong 5, clean returns the text as it is without drawing', () => {
    expect(TEXT_VIEW_WORDS).toEqual({ clean: 0, weak: 1, strong: 5 });
    expect(textView('clean', '  Car\toil ', noDraws, TABLE)).toBe('  Car\toil ');
    // Count the synonym draws: one per replaced word ('crude oil' adds a word, so words can't be compared).
    const draws = (view: 'weak' | 'strong') => {
      const r = recorder(() => 0);
      textView(view, 'car oil fast car oil fast car', r.rng, TABLE);
      return r.calls.filter((c) => c.startsWith('randomInterval')).length;
    };
    expect(draws('weak')).toBe(1);
    expect(draws('strong')).toBe(5);
    expect(textView('weak', 'fast car', recorder(() => 0).rng, TABLE)).toBe('fast auto');
  });
});

describe('§6.7 token drop', () => {
  it('keeps the first ⌊n/2⌋ words and pads the rest', () => {
    expect(dropTokens('')).toBe('');
    expect(dropTokens('one')).toBe('<pad>');
    expect(dropTokens('one two')).toBe('one <pad>');
    expect(dropTokens(' one\ttwo three\n four five ')).toBe('one two <pad> <pad> <pad>');
    expect(dropTokens('one two three four', '[PAD]')).toBe('one two [PAD] [PAD]');
  });

  it('a dropped text keeps its pad words through any view', () => {
    const dropped = dropTokens('pad car oil fast pad car oil fast');
    const out = textView('strong', dropped, recorder(() => 0).rng, TABLE);
    expect(out).toBe('tablet auto crude oil quick <pad> <pad> <pad> <pad>');
  });
});

describe('synonym table format', () => {
  it('parses comments, CRLF and multi-word synonyms', () => {
    const t = parseSynonymTable('# header\r\ncar\tauto|motor car\r\n\r\nfast\tquick\r\n');
    expect(t.size).toBe(2);
    expect(t.get('car')).toEqual(['auto', 'motor car']);
    expect(t.get('fast')).toEqual(['quick']);
    expect(t.get('oil')).toBeUndefined();
  });

  it('refuses what would change the draws, naming the line', () => {
    const bad = (text: string, why: RegExp) => {
      expect(() => parseSynonymTable(text, 't.txt')).toThrow(SynonymTableError);
      expect(() => parseSynonymTable(text, 't.txt')).toThrow(why);
    };
    bad('car auto', /t.txt line 1: expected key<TAB>syn/);
    bad('# x\nCar\tauto', /line 2: the key must be lower-case ASCII letters/);
    bad('car\tmotorcar|auto', /distinct and sorted by code unit/);
    bad('car\tauto|auto', /distinct and sorted/);
    bad('car\tauto|car', /not its own synonym/);
    bad('car\tauto||motorcar', /non-empty string of a–z and spaces/);
    bad('car\tAuto', /a–z and spaces/);
    bad('car\tauto\ncar\tmotorcar', /'car' is repeated/);
  });
});
