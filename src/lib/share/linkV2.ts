/**
 * Results link format 2: an image/text run (`rsb-run/3`, PROTOCOL-IMAGE-TEXT.md §11) packed for a
 * URL. The run's own fields are kept as they are; each cell is written as the top-level fields in
 * which it differs from the cell before it (`~` lists the fields it lacks), so the provenance that
 * repeats across cells (protocol, dataset files and hashes, backbone, input, bank, env) is written
 * once and DEFLATE sees short, similar records.
 *
 * Not carried, as in format 1 (linkV1.ts): per-cell split hashes (`split.indices_sha256`, rebuilt as
 * NO_SPLIT_HASH) and per-cell creation times (the run's `finished_at`, else its `created_at`); an
 * accuracy equal to n_correct / n_test is rebuilt from them. Every value the charts, metrics and
 * exports read travels exactly.
 *
 * FROZEN once published: never change what `unpackV2` accepts or builds; write a format 3.
 */
import { SchemaError } from '../suite/schema.ts';
import { parseRunV3, type ModalCellResult, type ModalRunRecord } from '../suite/schemaV3.ts';
import { NO_SPLIT_HASH } from './linkV1.ts';

type Json = Record<string, unknown>;

const isObject = (x: unknown): x is Json => typeof x === 'object' && x !== null && !Array.isArray(x);

/**
 * The cell as the link carries it: no split hash, no creation time, and no accuracy where it is
 * exactly n_correct / n_test (rebuilt so on opening: the same float, half of a cell's digits).
 */
function linkCell(c: ModalCellResult): Json {
  const { created_at: _created, ...rest } = c as unknown as Json;
  const { indices_sha256: _hash, ...split } = rest.split as Json;
  const outcome = { ...(rest.outcome as Json) };
  if (typeof outcome.accuracy === 'number' && outcome.accuracy === rebuiltAccuracy(outcome))
    delete outcome.accuracy;
  return { ...rest, split, outcome };
}

function rebuiltAccuracy(outcome: Json): number | undefined {
  const { n_correct: k, n_test: n } = outcome;
  return typeof k === 'number' && typeof n === 'number' && n > 0 ? k / n : undefined;
}

/** A modal run → the JSON of format 2. */
export function packV2(run: ModalRunRecord): Json {
  const { cells, ...head } = run as unknown as Json & { cells: ModalCellResult[] };
  let prev: Json = {};
  const packed = cells.map((c) => {
    const cur = linkCell(c);
    const out: Json = {};
    for (const [k, v] of Object.entries(cur)) if (JSON.stringify(v) !== JSON.stringify(prev[k])) out[k] = v;
    const gone = Object.keys(prev).filter((k) => !(k in cur));
    if (gone.length) out['~'] = gone;
    prev = cur;
    return out;
  });
  return { f: 2, run: head, cells: packed };
}

/**
 * Format 2's JSON → the run, through the full rsb-run/3 schema. Throws SchemaError (a bad value,
 * at its path) or Error (a shape that is not format 2).
 */
export function unpackV2(json: unknown, maxCells: number): ModalRunRecord {
  if (!isObject(json) || json.f !== 2 || !isObject(json.run) || !Array.isArray(json.cells))
    throw new Error('its content is not an image/text run of link format 2');
  if (json.cells.length > maxCells)
    throw new Error(`it holds ${json.cells.length} results; at most ${maxCells} are read from a link`);
  const head = json.run;
  const createdAt = typeof head.finished_at === 'string' ? head.finished_at : head.created_at;
  let prev: Json = {};
  const cells = json.cells.map((raw, i) => {
    if (!isObject(raw)) throw new SchemaError(`cells[${i}]`, 'expected an object');
    const { '~': gone, ...changed } = raw;
    const cur: Json = { ...prev, ...changed };
    if (gone !== undefined) {
      if (!Array.isArray(gone) || gone.some((k) => typeof k !== 'string'))
        throw new SchemaError(`cells[${i}].~`, 'expected a list of field names');
      for (const k of gone as string[]) delete cur[k];
    }
    prev = cur;
    const split = isObject(cur.split) ? { ...cur.split, indices_sha256: NO_SPLIT_HASH } : cur.split;
    const outcome =
      isObject(cur.outcome) && !('accuracy' in cur.outcome)
        ? { ...cur.outcome, accuracy: rebuiltAccuracy(cur.outcome) }
        : cur.outcome;
    return { ...cur, split, outcome, created_at: createdAt };
  });
  const run = parseRunV3({ ...head, cells });
  if (!('spec' in run.plan)) throw new Error('it holds a tabular run, which links write in format 1');
  return run as ModalRunRecord;
}
