/**
 * The synonym table of PROTOCOL-IMAGE-TEXT.md §6.6 rule 3, as scripts/synonyms/build.mjs writes it
 * (public/data/synonyms-wn31.txt, from WordNet 3.1): lines starting with `#` are comments, every
 * other non-empty line is `key<TAB>syn1|syn2|…`. Keys are lower-case ASCII words; a synonym is
 * lower-case a–z and spaces (it may hold several words, and WordNet names such as
 * "atomic number 89" leave a trailing space, which rule 3 keeps), sorted by code unit, so the
 * index a draw picks is the same in every implementation.
 */

export const SYNONYM_TABLE_FILE = 'data/synonyms-wn31.txt';

export interface SynonymTable {
  /** syn(w) for a lower-case core w, sorted by code unit; undefined when w has none. */
  get(word: string): readonly string[] | undefined;
  readonly size: number;
}

export class SynonymTableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SynonymTableError';
  }
}

const KEY = /^[a-z]+$/;
// Rule 3 keeps any non-empty string of a–z and spaces, even one without letters.
const SYNONYM = /^[a-z ]+$/;

class MapTable implements SynonymTable {
  readonly #map: ReadonlyMap<string, readonly string[]>;
  constructor(map: ReadonlyMap<string, readonly string[]>) {
    this.#map = map;
  }
  get(word: string): readonly string[] | undefined {
    return this.#map.get(word);
  }
  get size(): number {
    return this.#map.size;
  }
}

/**
 * Parses the table text. It checks what the replacement relies on (sorted, distinct synonyms that
 * are not the key) so that a damaged or hand-edited file fails here rather than drawing differently.
 */
export function parseSynonymTable(text: string, what = SYNONYM_TABLE_FILE): SynonymTable {
  const map = new Map<string, readonly string[]>();
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].endsWith('\r') ? lines[i].slice(0, -1) : lines[i];
    if (line === '' || line.startsWith('#')) continue;
    const bad = (why: string) => new SynonymTableError(`${what} line ${i + 1}: ${why}; got '${line}'.`);
    const tab = line.indexOf('\t');
    if (tab < 0) throw bad('expected key<TAB>syn|syn|…');
    const key = line.slice(0, tab);
    const syns = line.slice(tab + 1).split('|');
    if (!KEY.test(key)) throw bad('the key must be lower-case ASCII letters');
    if (map.has(key)) throw bad(`the key '${key}' is repeated`);
    for (let j = 0; j < syns.length; j++) {
      if (!SYNONYM.test(syns[j])) throw bad('a synonym must be a non-empty string of a–z and spaces');
      if (syns[j] === key) throw bad('a key is not its own synonym');
      if (j > 0 && !(syns[j - 1] < syns[j])) throw bad('synonyms must be distinct and sorted by code unit');
    }
    map.set(key, syns);
  }
  return new MapTable(map);
}

/** A table from a plain record (tests, small tables built in code); same checks as the parser. */
export function synonymTableFrom(entries: Readonly<Record<string, readonly string[]>>): SynonymTable {
  const text = Object.entries(entries)
    .map(([k, v]) => `${k}\t${v.join('|')}`)
    .join('\n');
  return parseSynonymTable(text, 'synonymTableFrom');
}
