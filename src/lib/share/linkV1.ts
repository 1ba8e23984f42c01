/**
 * Results link format 1: a run record packed as columns for a URL. Records that repeat across
 * cells (protocol, dataset, algorithm less its seed, split shape, env, subsample, reasons) are
 * stored once in tables; each cell is one entry per column. Integers only: accuracy is rebuilt
 * exactly as n_correct / n_test, so scores are lossless.
 *
 * Not carried (to keep links short): per-cell split hashes (rebuilt as 64 zeros, see
 * NO_SPLIT_HASH), per-cell creation times (the run's time), and timings below 1 ms (rounded).
 *
 * FROZEN: links of this format are in the wild. Never change what `unpackV1` accepts or builds;
 * write a format 2 and keep this one decoding (tests/unit/share/fixtures/link-v1.txt).
 */
import { SETTINGS, T_GRID } from '../types.ts';
import { parseRun, SchemaError, type CellResult, type RunRecord } from '../suite/schema.ts';

/** The split hash written into cells rebuilt from a link (links do not carry them). */
export const NO_SPLIT_HASH = '0'.repeat(64);
// 'degenerate' (index 3) was appended in issue 12: links made before it never hold a 3, so they decode as before.
const STATUSES = ['ok', 'skipped', 'failed', 'degenerate'] as const;

/** Per-cell columns, in this order. Every value is an integer; -1 means "none" in index columns. */
export const V1_COLUMNS = [
  'dataset',
  'setting',
  'labels',
  'algorithm',
  'tIndex',
  'seed',
  'initSeed',
  'protocol',
  'split',
  'env',
  'subsample',
  'status',
  'reason',
  'nCorrect',
  'nTest',
  'nNan',
  'flat',
  'fitMs',
  'predictMs',
  'steps',
] as const;
type Column = (typeof V1_COLUMNS)[number];

const TABLES = ['protocol', 'dataset', 'algorithm', 'split', 'env', 'subsample', 'reason'] as const;
type Table = (typeof TABLES)[number];

export interface PackedV1 {
  id: string;
  created_at: string;
  finished_at: string | null;
  plan: unknown;
  env: unknown;
  tables: Record<Table, unknown[]>;
  /** Column-major: cols[c][i] is column V1_COLUMNS[c] of cell i. */
  cols: number[][];
}

class Interner {
  readonly items: unknown[] = [];
  readonly #index = new Map<string, number>();
  add(x: unknown): number {
    const key = JSON.stringify(x);
    let i = this.#index.get(key);
    if (i === undefined) {
      i = this.items.length;
      this.items.push(x);
      this.#index.set(key, i);
    }
    return i;
  }
}

/** Packs a (valid) run record into the format 1 object. */
export function packV1(run: RunRecord): PackedV1 {
  const tables = Object.fromEntries(TABLES.map((t) => [t, new Interner()])) as Record<Table, Interner>;
  const cols: number[][] = V1_COLUMNS.map(() => []);
  const put = (c: Column, x: number) => cols[V1_COLUMNS.indexOf(c)].push(x);
  for (const c of run.cells) {
    const { init_seed, ...algorithm } = c.algorithm;
    const split = c.split === null ? -1 : tables.split.add({ ...c.split, indices_sha256: undefined });
    put('dataset', tables.dataset.add(c.dataset));
    put('setting', SETTINGS.indexOf(c.setting));
    put('labels', c.labels);
    put('algorithm', tables.algorithm.add(algorithm));
    put('tIndex', c.t_index);
    put('seed', c.seed);
    put('initSeed', init_seed === null ? -1 : init_seed);
    put('protocol', tables.protocol.add(c.protocol));
    put('split', split);
    put('env', tables.env.add(c.env));
    put('subsample', c.subsample === null ? -1 : tables.subsample.add(c.subsample));
    put('status', STATUSES.indexOf(c.outcome.status));
    put('reason', c.outcome.reason === undefined ? -1 : tables.reason.add(c.outcome.reason));
    put('nCorrect', c.outcome.n_correct);
    put('nTest', c.outcome.n_test);
    put('nNan', c.outcome.n_nan_rows);
    put('flat', c.outcome.flattened_from_t0 ? 1 : 0);
    put('fitMs', Math.round(c.timing.fit_ms));
    put('predictMs', Math.round(c.timing.predict_ms));
    put('steps', c.timing.steps);
  }
  return {
    id: run.id,
    created_at: run.created_at,
    finished_at: run.finished_at,
    plan: run.plan,
    env: run.env,
    tables: Object.fromEntries(TABLES.map((t) => [t, tables[t].items])) as Record<Table, unknown[]>,
    cols,
  };
}

function isRecord(x: unknown): x is Record<string, unknown> {
  return x !== null && typeof x === 'object' && !Array.isArray(x);
}

/**
 * Rebuilds and fully validates the run record of a format 1 object (anything JSON.parse gave).
 * Throws SchemaError with a path into the packed object or into the rebuilt run.
 */
export function unpackV1(x: unknown, maxCells: number): RunRecord {
  if (!isRecord(x)) throw new SchemaError('', 'expected a packed run object');
  const known = new Set(['id', 'created_at', 'finished_at', 'plan', 'env', 'tables', 'cols']);
  for (const k of Object.keys(x))
    if (!known.has(k)) throw new SchemaError(k.slice(0, 40), 'unknown field (not part of link format 1)');
  const { tables, cols } = x;
  if (!isRecord(tables)) throw new SchemaError('tables', 'expected an object of tables');
  for (const t of TABLES)
    if (!Array.isArray(tables[t])) throw new SchemaError(`tables.${t}`, 'expected a list');
  if (!Array.isArray(cols) || cols.length !== V1_COLUMNS.length) {
    throw new SchemaError(
      'cols',
      `expected ${V1_COLUMNS.length} columns, got ${Array.isArray(cols) ? cols.length : typeof cols}`,
    );
  }
  const n = Array.isArray(cols[0]) ? cols[0].length : -1;
  if (n > maxCells) throw new SchemaError('cols', `holds ${n} cells; a link may hold at most ${maxCells}`);
  cols.forEach((col, ci) => {
    if (!Array.isArray(col) || col.length !== n)
      throw new SchemaError(`cols.${V1_COLUMNS[ci]}`, `expected a list of ${n} values`);
    for (let i = 0; i < n; i++) {
      if (!Number.isSafeInteger(col[i]) || col[i] < -1)
        throw new SchemaError(
          `cols.${V1_COLUMNS[ci]}[${i}]`,
          `expected an integer ≥ -1, got ${String(col[i]).slice(0, 20)}`,
        );
    }
  });
  const col = (c: Column) => cols[V1_COLUMNS.indexOf(c)] as number[];
  const pick = (t: Table, i: number, where: string, nullable: boolean): unknown => {
    if (i === -1 && nullable) return null;
    const items = tables[t] as unknown[];
    if (i < 0 || i >= items.length)
      throw new SchemaError(where, `refers to entry ${i} of table "${t}", which has ${items.length}`);
    return items[i];
  };
  const cells: unknown[] = [];
  for (let i = 0; i < n; i++) {
    const at = (c: Column) => col(c)[i];
    const where = (c: Column) => `cols.${c}[${i}]`;
    const status = STATUSES[at('status')];
    if (status === undefined)
      throw new SchemaError(where('status'), `expected 0, 1, 2 or 3, got ${at('status')}`);
    const setting = SETTINGS[at('setting')];
    if (setting === undefined)
      throw new SchemaError(where('setting'), `expected 0, 1 or 2, got ${at('setting')}`);
    const split = pick('split', at('split'), where('split'), true);
    const algorithm = pick('algorithm', at('algorithm'), where('algorithm'), false);
    const reason = pick('reason', at('reason'), where('reason'), true);
    const nCorrect = at('nCorrect');
    const nTest = at('nTest');
    cells.push({
      schema: 'rsb-cell/1',
      protocol: pick('protocol', at('protocol'), where('protocol'), false),
      dataset: pick('dataset', at('dataset'), where('dataset'), false),
      setting,
      labels: at('labels'),
      t: T_GRID[at('tIndex')] ?? -1,
      t_index: at('tIndex'),
      seed: at('seed'),
      algorithm: isRecord(algorithm)
        ? { ...algorithm, init_seed: at('initSeed') === -1 ? null : at('initSeed') }
        : algorithm,
      split: isRecord(split) ? { ...split, indices_sha256: NO_SPLIT_HASH } : split,
      outcome: {
        status,
        ...(reason === null ? {} : { reason }),
        accuracy: status === 'ok' && nTest > 0 ? nCorrect / nTest : null,
        n_correct: nCorrect,
        n_test: nTest,
        n_nan_rows: at('nNan'),
        flattened_from_t0: at('flat') === 1,
      },
      timing: { fit_ms: at('fitMs'), predict_ms: at('predictMs'), steps: at('steps') },
      env: pick('env', at('env'), where('env'), false),
      subsample: pick('subsample', at('subsample'), where('subsample'), true),
      created_at: x.created_at,
    } satisfies Record<keyof CellResult, unknown>);
  }
  return parseRun({
    schema: 'rsb-run/1',
    id: x.id,
    created_at: x.created_at,
    finished_at: x.finished_at,
    plan: x.plan,
    env: x.env,
    cells,
  });
}
