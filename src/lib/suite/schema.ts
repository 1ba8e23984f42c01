/**
 * The versioned result schema of tabular runs (PROTOCOL.md §10): a cell result `rsb-cell/2` and a
 * run record `rsb-run/2`, used by IndexedDB, JSON export/import, permalinks and the headless runner.
 * `parseCellResult` / `parseRun` read /1 and /2 and return the /2 form, which the tabular writers
 * and pages use. The image/text record `rsb-cell/3` (PROTOCOL-IMAGE-TEXT.md §11), in which tabular
 * cells carry `modality: 'tabular'`, and its readers `parseCellV3` / `parseRunV3` are in
 * schemaV3.ts; they build on the pieces exported here.
 *
 * Runs also arrive from files and links written by strangers, so every way in goes through
 * `parseCellResult` / `parseRun`: unknown fields and versions are refused, numbers are bounded,
 * strings and arrays are capped, and free-form values (hyperparameters, overrides) must be small
 * plain JSON. Strings are NOT sanitised here: HTML in a reason is kept as text, and rendering
 * escapes it. Errors name the path and the problem in plain words.
 */
import * as v from 'valibot';
import { SETTINGS, T_GRID } from '../types.ts';
import {
  count,
  describeValue,
  id,
  int,
  isoTime,
  isPlainObject,
  jsonObject,
  list,
  MAX_COUNT,
  MAX_NAME,
  MAX_SEED,
  MAX_TEXT,
  num,
  oneOf,
  parseWith,
  SchemaError,
  sha256Hex,
  text,
  versionOf,
} from './schemaParts.ts';

export { describeValue, SchemaError, type JsonValue } from './schemaParts.ts';

/** What the tabular writers emit and the form `parseCellResult` / `parseRun` return. */
export const CELL_SCHEMA = 'rsb-cell/2';
export const RUN_SCHEMA = 'rsb-run/2';
/** Older versions this reader upgrades (every stored record, file and link stays readable). */
export const LEGACY_CELL_SCHEMAS = ['rsb-cell/1'] as const;
export const LEGACY_RUN_SCHEMAS = ['rsb-run/1'] as const;
/** The most cells one run record may hold. */
export const MAX_RUN_CELLS = 100_000;

// ---------------------------------------------------------------------------------------------
// Cell result `rsb-cell/1` (PROTOCOL.md §10)

const ProtocolModeSchema = oneOf(['rsb', 'readme'] as const);
export const QuirksSchema = oneOf(['rsb', 'fixed'] as const);
export const SettingSchema = oneOf(SETTINGS as readonly ('distribution' | 'feature' | 'label')[]);
const BackendSchema = oneOf(['webgpu', 'webgl', 'wasm', 'cpu'] as const);
// Cell coordinates (shared with rsb-cell/3).
export const LabelsTagSchema = int(1, 100_000, 'a labels tag: an integer ≥ 1');
export const TSchema = num(0, 1, `a value of the grid t ∈ {${T_GRID.join(', ')}}`);
export const TIndexSchema = int(0, T_GRID.length - 1);
export const SeedSchema = int(0, MAX_SEED, 'an integer seed between 0 and 4294967295');

export const ProtocolOptionsSchema = v.strictObject({
  takeZero: oneOf(['one-per-class', 'empty'] as const),
  t0Stream: oneOf(['per-class', 'shared'] as const),
  scaler: oneOf(['split', 'labeled'] as const),
  ssgmmSupport: oneOf(['zero', 'ignore'] as const),
  /** PROTOCOL.md 1.1.0 §3.5 (absent in records made under 1.0.0). */
  modelStreamOffset: v.optional(oneOf(['none', 'paper'] as const)),
  /** A run plan's per-dataset t0 stream (cells record the resolved `t0Stream`). */
  t0StreamByDataset: v.optional(
    v.pipe(
      v.record(id(), oneOf(['per-class', 'shared'] as const)),
      v.check((m) => Object.keys(m).length <= 256, 'expected at most 256 datasets'),
    ),
  ),
});

const ProtocolSchema = v.strictObject({
  mode: ProtocolModeSchema,
  version: v.pipe(text(20), v.regex(/^\d+\.\d+\.\d+$/, 'expected a version like "1.0.0"')),
  quirks: QuirksSchema,
  preset: v.nullable(text(MAX_NAME)),
  options: ProtocolOptionsSchema,
  overrides: jsonObject(),
});

const DatasetRecordSchema = v.strictObject({
  id: id(),
  source: text(MAX_TEXT),
  sha256: sha256Hex(),
  N: int(1, MAX_COUNT),
  d: int(1, 1_000_000),
  k: int(1, 100_000),
});

const AlgorithmRecordSchema = v.strictObject({
  name: id(),
  family: oneOf(['statistical', 'deep', 'baseline'] as const),
  hyper: jsonObject(),
  /** rsb-cell/2: the model options of the catalogue, resolved ({} in records upgraded from /1). */
  options: jsonObject(),
  init_seed: v.nullable(int(0, MAX_SEED, 'an integer seed between 0 and 4294967295, or null')),
  tsvm_multiclass: v.optional(text(MAX_NAME)),
  ssgmmSupport: v.optional(oneOf(['zero', 'ignore'] as const)),
  /** Tri-Training restarted after a one-class SVC bootstrap (PROTOCOL.md §7.1). */
  tt_restart: v.optional(v.literal(true)),
});

export const intList = (max: number, what: string) => list(count(), max, what);

const SplitRecordSchema = v.pipe(
  v.strictObject({
    n_labeled: count(),
    labeled_per_class: intList(100_000, 'class counts'),
    n_test: count(),
    n_unlabeled: count(),
    n_unlabeled_ood: count(),
    kept_classes: v.optional(intList(100_000, 'class ids')),
    masked_columns: v.optional(intList(1_000_000, 'column ids')),
    indices_sha256: sha256Hex(),
  }),
  v.forward(
    v.check(
      (s) => s.labeled_per_class.reduce((a, b) => a + b, 0) === s.n_labeled,
      (issue) => {
        const s = issue.input as { labeled_per_class: number[]; n_labeled: number };
        return `the class counts sum to ${s.labeled_per_class.reduce((a, b) => a + b, 0)}, but n_labeled is ${s.n_labeled}`;
      },
    ),
    ['labeled_per_class'],
  ),
  v.forward(
    v.check(
      (s) => s.n_unlabeled_ood <= s.n_unlabeled,
      (i) =>
        `n_unlabeled_ood (${(i.input as { n_unlabeled_ood: number }).n_unlabeled_ood}) exceeds n_unlabeled (${(i.input as { n_unlabeled: number }).n_unlabeled})`,
    ),
    ['n_unlabeled_ood'],
  ),
);

type OutcomeShape = {
  status: string;
  reason?: string;
  accuracy: number | null;
  n_correct: number;
  n_test: number;
  n_nan_rows: number;
};

export const OutcomeSchema = v.pipe(
  v.strictObject({
    /**
     * ok: scored. skipped: not run (empty U, §5.5). failed: the fit or predict threw.
     * degenerate: ran to the end but nothing can be scored (e.g. no test rows). Every status but
     * ok carries its reason.
     */
    status: oneOf(['ok', 'skipped', 'failed', 'degenerate'] as const),
    reason: v.optional(text(MAX_TEXT)),
    accuracy: v.nullable(num(0, 1, 'a number between 0 and 1 (or null when the cell did not score)')),
    n_correct: count(),
    n_test: count(),
    n_nan_rows: count(),
    flattened_from_t0: v.boolean('expected true or false'),
  }),
  v.forward(
    v.check(
      (o) => o.n_correct <= o.n_test,
      (i) =>
        `n_correct (${(i.input as OutcomeShape).n_correct}) exceeds n_test (${(i.input as OutcomeShape).n_test})`,
    ),
    ['n_correct'],
  ),
  v.forward(
    v.check(
      (o) => o.n_nan_rows <= o.n_test,
      (i) =>
        `n_nan_rows (${(i.input as OutcomeShape).n_nan_rows}) exceeds n_test (${(i.input as OutcomeShape).n_test})`,
    ),
    ['n_nan_rows'],
  ),
  v.forward(
    v.check(
      (o) => (o.status === 'ok' ? o.accuracy !== null : o.accuracy === null),
      (i) => {
        const o = i.input as OutcomeShape;
        return o.status === 'ok'
          ? 'expected a number for a cell with status "ok", got null'
          : `expected null for a cell with status "${o.status}", got ${describeValue(o.accuracy)}`;
      },
    ),
    ['accuracy'],
  ),
  v.forward(
    v.check(
      (o) => o.status === 'ok' || (o.reason !== undefined && o.reason.trim() !== ''),
      (i) => `expected a reason for a cell with status "${(i.input as OutcomeShape).status}"`,
    ),
    ['reason'],
  ),
  v.forward(
    v.check(
      (o) => o.accuracy === null || (o.n_test > 0 && Math.abs(o.accuracy - o.n_correct / o.n_test) <= 1e-9),
      (i) => {
        const o = i.input as OutcomeShape;
        return `accuracy ${o.accuracy} does not equal n_correct / n_test = ${o.n_correct}/${o.n_test}`;
      },
    ),
    ['accuracy'],
  ),
);

export const TimingSchema = v.strictObject({
  fit_ms: num(0, 1e12, 'a duration in ms ≥ 0'),
  predict_ms: num(0, 1e12, 'a duration in ms ≥ 0'),
  steps: count(),
});

export const CellEnvSchema = v.strictObject({
  backend: BackendSchema,
  float_precision: text(50, 1),
  tfjs_version: text(50),
  app_version: text(50),
  prng: text(MAX_NAME, 1),
  device: text(MAX_TEXT),
});

/**
 * `subsample` (PROTOCOL.md §9): null, or one record per capped pool, each pool at most once.
 * @internal shared with schemaV3.ts (whose pools are test, unlabeled_in and unlabeled_out)
 */
export function subsampleList<const P extends readonly [string, ...string[]]>(pools: P) {
  const names = pools.join(', ');
  const record = v.pipe(
    v.strictObject({
      pool: oneOf(pools),
      n_before: count(),
      n_after: count(),
      method: v.literal('stratified-split', 'expected "stratified-split"'),
      seed: int(0, MAX_SEED),
    }),
    v.forward(
      v.check(
        (s) => s.n_after <= s.n_before,
        (i) =>
          `n_after (${(i.input as { n_after: number }).n_after}) exceeds n_before (${(i.input as { n_before: number }).n_before})`,
      ),
      ['n_after'] as never, // every record has n_after; TypeScript cannot see that through P
    ),
  );
  return v.nullable(
    v.pipe(
      list(record, pools.length, `subsample records (${names})`),
      v.check(
        (xs) => new Set(xs.map((x) => x.pool)).size === xs.length,
        `expected each pool (${names}) at most once`,
      ),
    ),
  );
}

/**
 * The fields of a tabular cell after `schema` (rsb-cell/2; a tabular rsb-cell/3 adds `modality`).
 * @internal shared with schemaV3.ts
 */
export const TABULAR_CELL_ENTRIES = {
  protocol: ProtocolSchema,
  dataset: DatasetRecordSchema,
  setting: SettingSchema,
  labels: LabelsTagSchema,
  t: TSchema,
  t_index: TIndexSchema,
  seed: SeedSchema,
  algorithm: AlgorithmRecordSchema,
  split: v.nullable(SplitRecordSchema),
  outcome: OutcomeSchema,
  timing: TimingSchema,
  env: CellEnvSchema,
  subsample: subsampleList(['test', 'unlabeled', 'graph'] as const),
  created_at: isoTime(),
};

/** A cell's t must be the grid's value at t_index (a literal double: 3 * 0.2 is not 0.6). */
export function tOnGrid<T extends { t: number; t_index: number }>() {
  return v.forward<T, v.CheckIssue<T>, ['t']>(
    v.check<T, v.ErrorMessage<v.CheckIssue<T>>>(
      (c) => T_GRID[c.t_index] === c.t,
      (i) => {
        const c = i.input as { t: number; t_index: number };
        return `t_index ${c.t_index} means t = ${T_GRID[c.t_index]}, but t is ${c.t}`;
      },
    ),
    ['t'] as never, // every T has `t`; TypeScript cannot see that through the generic
  );
}

/** A cell with status "ok" has its split record. */
export function splitWhenOk<T extends { split: unknown; outcome: { status: string } }>() {
  return v.forward<T, v.CheckIssue<T>, ['split']>(
    v.check<T, v.ErrorMessage<v.CheckIssue<T>>>(
      (c) => c.split !== null || c.outcome.status !== 'ok',
      'expected the split record of a cell with status "ok", got null',
    ),
    ['split'] as never,
  );
}

export const CellResultSchema = v.pipe(
  v.strictObject(
    {
      schema: v.literal(
        CELL_SCHEMA,
        `expected the schema version "${CELL_SCHEMA}" (other versions are not supported)`,
      ),
      ...TABULAR_CELL_ENTRIES,
    },
    'expected a cell result object',
  ),
  tOnGrid(),
  splitWhenOk(),
);

export type CellResult = v.InferOutput<typeof CellResultSchema>;
export type ProtocolOptions = v.InferOutput<typeof ProtocolOptionsSchema>;

// ---------------------------------------------------------------------------------------------
// Run record `rsb-run/1`

const OptionValueSchema = v.union(
  [text(MAX_TEXT), v.pipe(v.number(), v.finite()), v.boolean()],
  'expected an option value (a string, a finite number, true or false)',
);

export const PoolCapSchema = v.optional(
  v.strictObject({
    max: int(1, 1_000_000_000, 'the most rows kept: an integer ≥ 1'),
    seed: v.optional(int(0, MAX_SEED)),
  }),
);

export const RunPlanSchema = v.strictObject({
  preset: v.nullable(text(MAX_NAME)),
  datasets: list(id(), 64, 'dataset ids'),
  settings: list(SettingSchema, 3, 'settings'),
  labels: list(int(1, 100_000, 'a labels tag: an integer ≥ 1'), 64, 'labels tags'),
  algorithms: list(id(), 256, 'algorithm ids'),
  seeds: list(int(0, MAX_SEED, 'an integer seed between 0 and 4294967295'), MAX_RUN_CELLS, 'seeds'),
  tIndices: list(int(0, T_GRID.length - 1), T_GRID.length, 't indices'),
  mode: ProtocolModeSchema,
  quirks: QuirksSchema,
  options: ProtocolOptionsSchema,
  /** rsb-run/2: algorithm id → model options that differ from the catalogue's defaults. */
  modelOptions: v.optional(
    v.pipe(
      v.record(
        id(),
        v.pipe(
          v.record(id(), OptionValueSchema, 'expected an object of option values'),
          v.check((o) => Object.keys(o).length <= 64, 'expected at most 64 options'),
        ),
      ),
      v.check((o) => Object.keys(o).length <= 256, 'expected options of at most 256 algorithms'),
    ),
  ),
  /** PROTOCOL.md §9: a cap per pool (absent = no subsampling). */
  subsample: v.optional(
    v.strictObject(
      { test: PoolCapSchema, unlabeled: PoolCapSchema, graph: PoolCapSchema },
      'expected subsample caps { test?, unlabeled?, graph? }',
    ),
  ),
});

export const RunEnvSchema = v.strictObject({
  /** 'browser' or 'node vX.Y.Z' and the like. */
  runtime: text(MAX_NAME, 1),
  user_agent: v.optional(text(MAX_TEXT)),
  backends: list(text(50, 1), 8, 'backend names'),
  adapter: v.nullable(
    v.strictObject({
      vendor: v.optional(text(MAX_NAME)),
      architecture: v.optional(text(MAX_NAME)),
      device: v.optional(text(MAX_NAME)),
      description: v.optional(text(MAX_TEXT)),
    }),
  ),
  hardware_concurrency: v.optional(int(1, 100_000)),
  /** "i/n" when the run is one shard of a plan. */
  shard: v.optional(v.pipe(text(24), v.regex(/^\d+\/\d+$/, 'expected a shard like "2/4"'))),
});

/** The fields that identify a tabular cell (and a tabular rsb-cell/3). */
type CellCoordinates = Pick<
  CellResult,
  'dataset' | 'setting' | 'labels' | 'algorithm' | 't' | 't_index' | 'seed'
>;

/** One record per cell: the key of a tabular cell in a run. @internal shared with schemaV3.ts */
export function cellKeyOf(c: CellCoordinates): string {
  return JSON.stringify([c.dataset.id, c.setting, c.labels, c.algorithm.name, c.t_index, c.seed]);
}

/** A run's id (shared with rsb-run/3). */
export const RunIdSchema = v.pipe(
  text(MAX_NAME, 1),
  // eslint-disable-next-line no-control-regex -- refusing control characters is the point
  v.regex(/^[^\u0000-\u001f\u007f]*$/, 'expected an id without control characters'),
);

/** Plan cells that have no record, with the reason (e.g. "not run: letter unavailable (…)"). */
export const RunFailuresSchema = v.optional(
  list(v.strictObject({ key: text(400, 1), reason: text() }), MAX_RUN_CELLS, 'failures'),
);

export const RunRecordSchema = v.pipe(
  v.strictObject(
    {
      schema: v.literal(
        RUN_SCHEMA,
        `expected the schema version "${RUN_SCHEMA}" (other versions are not supported)`,
      ),
      id: RunIdSchema,
      created_at: isoTime(),
      finished_at: v.nullable(isoTime()),
      plan: RunPlanSchema,
      env: RunEnvSchema,
      cells: list(CellResultSchema, MAX_RUN_CELLS, 'cells'),
      failures: RunFailuresSchema,
    },
    'expected a run record object',
  ),
  // Results that differ in mode or quirks must not be pooled (PROTOCOL.md §2); one cell, one record.
  // These run-level problems throw a SchemaError (with the cell's path) instead of adding an issue.
  v.rawCheck(({ dataset }) => {
    if (!dataset.typed) return;
    const run = dataset.value;
    checkRunCells(run.cells, run.plan, ['mode', 'quirks'], cellKeyOf, describeCell);
  }),
);

/** @internal shared with schemaV3.ts */
export function describeCell(c: CellCoordinates): string {
  return `${c.dataset.id}, ${c.setting}, labels ${c.labels}, ${c.algorithm.name}, t=${c.t}, seed ${c.seed}`;
}

/**
 * The run-level rules: every cell agrees with the plan on the protocol fields `keys` (results
 * that differ in them must not be pooled), and no two cells have the same key. Throws a
 * SchemaError with the cell's path. @internal shared with schemaV3.ts
 */
export function checkRunCells<C extends { protocol: object }>(
  cells: readonly C[],
  plan: object,
  keys: readonly string[],
  keyOf: (c: C) => string,
  describe: (c: C) => string,
): void {
  const seen = new Map<string, number>();
  for (let i = 0; i < cells.length; i++) {
    const c = cells[i];
    for (const key of keys) {
      const mine = (c.protocol as Record<string, unknown>)[key];
      const planned = (plan as Record<string, unknown>)[key];
      if (mine !== planned) {
        throw new SchemaError(
          `cells[${i}].protocol.${key}`,
          `is "${String(mine)}" but the run's plan says "${String(planned)}"; results that differ in ${key} must not be pooled`,
        );
      }
    }
    const k = keyOf(c);
    const j = seen.get(k);
    if (j !== undefined)
      throw new SchemaError(`cells[${i}]`, `repeats the cell of cells[${j}] (${describe(c)})`);
    seen.set(k, i);
  }
}

export type RunRecord = v.InferOutput<typeof RunRecordSchema>;
export type RunPlan = v.InferOutput<typeof RunPlanSchema>;
export type RunEnv = v.InferOutput<typeof RunEnvSchema>;

// ---------------------------------------------------------------------------------------------
// Parsing and messages

/**
 * `rsb-cell/1` → `/2`: the only change is the required `algorithm.options` (the resolved model
 * options), which a /1 record did not carry: it becomes {} ("not recorded"). Anything that is not a
 * /1 cell is returned as it came (the schema then says what is wrong with it).
 */
export function upgradeCell(x: unknown): unknown {
  if (!isPlainObject(x) || x.schema !== 'rsb-cell/1') return x;
  const algorithm = isPlainObject(x.algorithm)
    ? { ...x.algorithm, options: x.algorithm.options ?? {} }
    : x.algorithm;
  return { ...x, schema: CELL_SCHEMA, algorithm };
}

/**
 * `rsb-run/1` → `/2`: the plan's `modelOptions` is optional (absent = defaults). The cells are
 * upgraded in runs of either version: a /2 run rebuilt from IndexedDB may hold cells stored as /1.
 */
export function upgradeRun(x: unknown): unknown {
  if (!isPlainObject(x) || (x.schema !== 'rsb-run/1' && x.schema !== RUN_SCHEMA)) return x;
  return { ...x, schema: RUN_SCHEMA, cells: Array.isArray(x.cells) ? x.cells.map(upgradeCell) : x.cells };
}

/** Validates one cell result (e.g. from IndexedDB or an import); reads /1 and /2. Throws a SchemaError. */
export function parseCellResult(x: unknown): CellResult {
  refuseUnknownVersion(versionOf(x, 'a cell result'), CELL_SCHEMA, LEGACY_CELL_SCHEMAS);
  return parseWith(CellResultSchema, upgradeCell(x));
}

/** Validates a run record (a file, a permalink, the CLI's output); reads /1 and /2. Throws a SchemaError. */
export function parseRun(x: unknown): RunRecord {
  const version = versionOf(x, 'a run record');
  refuseOversizedRun(x);
  refuseUnknownVersion(version, RUN_SCHEMA, LEGACY_RUN_SCHEMAS);
  return parseWith(RunRecordSchema, upgradeRun(x));
}

/**
 * Refuses a run of more than MAX_RUN_CELLS cells from the length alone, before upgrading (and
 * validating) 100 000+ cells one by one. @internal shared with schemaV3.ts
 */
export function refuseOversizedRun(x: unknown): void {
  const rawCells = x !== null && typeof x === 'object' ? (x as { cells?: unknown }).cells : undefined;
  if (Array.isArray(rawCells) && rawCells.length > MAX_RUN_CELLS) {
    throw new SchemaError(
      'cells',
      `expected a list of at most ${MAX_RUN_CELLS} cells, got ${describeValue(rawCells)}`,
    );
  }
}

/**
 * Refuses a `schema` string that is neither `current` nor one of `older` (a missing or non-string
 * version is left to the schema, which says so). @internal shared with schemaV3.ts
 */
export function refuseUnknownVersion(version: unknown, current: string, older: readonly string[]): void {
  if (typeof version === 'string' && version !== current && !older.includes(version)) {
    throw new SchemaError(
      'schema',
      `unsupported schema version ${describeValue(version)}; this version of RAC Bench reads "${current}" (and upgrades ${older.map((s) => `"${s}"`).join(', ')})`,
    );
  }
}
