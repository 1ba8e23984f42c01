/**
 * The one versioned result schema (PROTOCOL.md §10): a cell result `rsb-cell/1` and a run record
 * `rsb-run/1`, used by IndexedDB, JSON export/import, permalinks and the headless runner.
 *
 * Runs also arrive from files and links written by strangers, so every way in goes through
 * `parseCellResult` / `parseRun`: unknown fields and versions are refused, numbers are bounded,
 * strings and arrays are capped, and free-form values (hyperparameters, overrides) must be small
 * plain JSON. Strings are NOT sanitised here: HTML in a reason is kept as text, and rendering
 * escapes it. Errors name the path and the problem in plain words.
 */
import * as v from 'valibot';
import { SETTINGS, T_GRID } from '../types.ts';

export const CELL_SCHEMA = 'rsb-cell/2';
export const RUN_SCHEMA = 'rsb-run/2';
/** Older versions this reader upgrades (every stored record, file and link stays readable). */
export const LEGACY_CELL_SCHEMAS = ['rsb-cell/1'] as const;
export const LEGACY_RUN_SCHEMAS = ['rsb-run/1'] as const;
/** The most cells one run record may hold. */
export const MAX_RUN_CELLS = 100_000;
const MAX_NAME = 200;
const MAX_TEXT = 2000;
const MAX_SEED = 0xffffffff;
const MAX_COUNT = 1e9;

/** A result failed validation. `path` is like `cells[3].outcome.accuracy` ('' for the root). */
export class SchemaError extends Error {
  readonly path: string;
  constructor(path: string, problem: string) {
    super(`${path || '(root)'}: ${problem}`);
    this.name = 'SchemaError';
    this.path = path;
  }
}

// ---------------------------------------------------------------------------------------------
// Building blocks. Each message says what was expected; the formatter appends what came.

function int(min: number, max: number, what = `an integer between ${min} and ${max}`) {
  const m = `expected ${what}`;
  return v.pipe(v.number(m), v.integer(m), v.minValue(min, m), v.maxValue(max, m));
}

function count() {
  return int(0, MAX_COUNT, 'a whole number ≥ 0');
}

function num(min: number, max: number, what = `a number between ${min} and ${max}`) {
  const m = `expected ${what}`;
  return v.pipe(v.number(m), v.finite(m), v.minValue(min, m), v.maxValue(max, m));
}

function text(max = MAX_TEXT, min = 0) {
  const m = `expected a string of ${min > 0 ? `${min} to ` : 'at most '}${max} characters`;
  return v.pipe(v.string(m), v.minLength(min, m), v.maxLength(max, m));
}

/** Ids (datasets, algorithms): they end up in cell keys and URLs, so a plain alphabet only. */
function id() {
  const m = `expected an id of 1 to ${MAX_NAME} letters, digits or _ . : + - (starting with a letter or digit)`;
  return v.pipe(v.string(m), v.maxLength(MAX_NAME, m), v.regex(/^[A-Za-z0-9][A-Za-z0-9_.:+-]*$/, m));
}

function oneOf<const T extends readonly (string | number)[]>(options: T) {
  return v.picklist(options, `expected one of ${options.map((o) => JSON.stringify(o)).join(', ')}`);
}

function list<T extends v.GenericSchema>(item: T, max: number, what: string) {
  const m = `expected a list of at most ${max} ${what}`;
  return v.pipe(v.array(item, m), v.maxLength(max, m));
}

function isoTime() {
  const m = 'expected an ISO 8601 timestamp like "2025-01-31T12:00:00.000Z"';
  return v.pipe(v.string(m), v.maxLength(64, m), v.isoTimestamp(m));
}

const sha256Hex = () =>
  v.pipe(
    v.string('expected a SHA-256 as 64 lower-case hex digits'),
    v.regex(/^[0-9a-f]{64}$/, 'expected a SHA-256 as 64 lower-case hex digits'),
  );

// ---------------------------------------------------------------------------------------------
// Free-form JSON (hyperparameters, overrides): plain values, small and shallow.

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
const JSON_LIMITS = { depth: 8, nodes: 10_000, keyLength: MAX_NAME, stringLength: MAX_TEXT };
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** What is wrong with `x` as bounded plain JSON, or null. `where` is a path suffix for the message. */
function jsonProblem(x: unknown, where: string, depth: number, budget: { nodes: number }): string | null {
  if (--budget.nodes < 0) return `${where}: too many values (over ${JSON_LIMITS.nodes})`;
  if (x === null || typeof x === 'boolean') return null;
  if (typeof x === 'number')
    return Number.isFinite(x) ? null : `${where}: expected a finite number, got ${describeValue(x)}`;
  if (typeof x === 'string') {
    return x.length <= JSON_LIMITS.stringLength
      ? null
      : `${where}: expected a string of at most ${JSON_LIMITS.stringLength} characters, got ${describeValue(x)}`;
  }
  if (depth >= JSON_LIMITS.depth) return `${where}: nested deeper than ${JSON_LIMITS.depth} levels`;
  if (Array.isArray(x)) {
    for (let i = 0; i < x.length; i++) {
      const p = jsonProblem(x[i], `${where}[${i}]`, depth + 1, budget);
      if (p) return p;
    }
    return null;
  }
  if (isPlainObject(x)) {
    for (const [k, val] of Object.entries(x)) {
      if (k.length > JSON_LIMITS.keyLength || FORBIDDEN_KEYS.has(k)) {
        return `${where}: key ${describeValue(k)} is not allowed (keys: at most ${JSON_LIMITS.keyLength} characters, not __proto__/constructor/prototype)`;
      }
      const p = jsonProblem(val, `${where}.${k}`, depth + 1, budget);
      if (p) return p;
    }
    return null;
  }
  return `${where}: expected a plain JSON value, got ${describeValue(x)}`;
}

function isPlainObject(x: unknown): x is Record<string, unknown> {
  return (
    x !== null &&
    typeof x === 'object' &&
    !Array.isArray(x) &&
    [Object.prototype, null].includes(Object.getPrototypeOf(x))
  );
}

/** A plain JSON object of bounded size (hyperparameters, overrides). */
function jsonObject() {
  return v.pipe(
    v.custom<Record<string, JsonValue>>(isPlainObject, 'expected an object of plain JSON values'),
    v.rawCheck(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      const problem = jsonProblem(dataset.value, '', 0, { nodes: JSON_LIMITS.nodes });
      if (problem) addIssue({ message: `contains a bad value at ${problem.replace(/^\./, '')}` });
    }),
  );
}

// ---------------------------------------------------------------------------------------------
// Cell result `rsb-cell/1` (PROTOCOL.md §10)

const ProtocolModeSchema = oneOf(['rsb', 'readme'] as const);
const QuirksSchema = oneOf(['rsb', 'fixed'] as const);
const SettingSchema = oneOf(SETTINGS as readonly ('distribution' | 'feature' | 'label')[]);
const BackendSchema = oneOf(['webgpu', 'webgl', 'wasm', 'cpu'] as const);

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

const intList = (max: number, what: string) => list(count(), max, what);

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

const OutcomeSchema = v.pipe(
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

const TimingSchema = v.strictObject({
  fit_ms: num(0, 1e12, 'a duration in ms ≥ 0'),
  predict_ms: num(0, 1e12, 'a duration in ms ≥ 0'),
  steps: count(),
});

const CellEnvSchema = v.strictObject({
  backend: BackendSchema,
  float_precision: text(50, 1),
  tfjs_version: text(50),
  app_version: text(50),
  prng: text(MAX_NAME, 1),
  device: text(MAX_TEXT),
});

const SubsampleRecordSchema = v.pipe(
  v.strictObject({
    pool: oneOf(['test', 'unlabeled', 'graph'] as const),
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
    ['n_after'],
  ),
);

export const CellResultSchema = v.pipe(
  v.strictObject(
    {
      schema: v.literal(
        CELL_SCHEMA,
        `expected the schema version "${CELL_SCHEMA}" (other versions are not supported)`,
      ),
      protocol: ProtocolSchema,
      dataset: DatasetRecordSchema,
      setting: SettingSchema,
      labels: int(1, 100_000, 'a labels tag: an integer ≥ 1'),
      t: num(0, 1, `a value of the grid t ∈ {${T_GRID.join(', ')}}`),
      t_index: int(0, T_GRID.length - 1),
      seed: int(0, MAX_SEED, 'an integer seed between 0 and 4294967295'),
      algorithm: AlgorithmRecordSchema,
      split: v.nullable(SplitRecordSchema),
      outcome: OutcomeSchema,
      timing: TimingSchema,
      env: CellEnvSchema,
      subsample: v.nullable(
        v.pipe(
          list(SubsampleRecordSchema, 3, 'subsample records (test, unlabeled, graph)'),
          v.check(
            (xs) => new Set(xs.map((x) => x.pool)).size === xs.length,
            'expected each pool (test, unlabeled, graph) at most once',
          ),
        ),
      ),
      created_at: isoTime(),
    },
    'expected a cell result object',
  ),
  v.forward(
    v.check(
      (c) => T_GRID[c.t_index] === c.t,
      (i) => {
        const c = i.input as { t: number; t_index: number };
        return `t_index ${c.t_index} means t = ${T_GRID[c.t_index]}, but t is ${c.t}`;
      },
    ),
    ['t'],
  ),
  v.forward(
    v.check(
      (c) => c.split !== null || c.outcome.status !== 'ok',
      'expected the split record of a cell with status "ok", got null',
    ),
    ['split'],
  ),
);

export type CellResult = v.InferOutput<typeof CellResultSchema>;
export type ProtocolOptions = v.InferOutput<typeof ProtocolOptionsSchema>;

// ---------------------------------------------------------------------------------------------
// Run record `rsb-run/1`

const OptionValueSchema = v.union(
  [text(MAX_TEXT), v.pipe(v.number(), v.finite()), v.boolean()],
  'expected an option value (a string, a finite number, true or false)',
);

const PoolCapSchema = v.optional(
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

const RunEnvSchema = v.strictObject({
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

function cellKeyOf(c: CellResult): string {
  return JSON.stringify([c.dataset.id, c.setting, c.labels, c.algorithm.name, c.t_index, c.seed]);
}

export const RunRecordSchema = v.pipe(
  v.strictObject(
    {
      schema: v.literal(
        RUN_SCHEMA,
        `expected the schema version "${RUN_SCHEMA}" (other versions are not supported)`,
      ),
      id: v.pipe(
        text(MAX_NAME, 1),
        // eslint-disable-next-line no-control-regex -- refusing control characters is the point
        v.regex(/^[^\u0000-\u001f\u007f]*$/, 'expected an id without control characters'),
      ),
      created_at: isoTime(),
      finished_at: v.nullable(isoTime()),
      plan: RunPlanSchema,
      env: RunEnvSchema,
      cells: list(CellResultSchema, MAX_RUN_CELLS, 'cells'),
      /** Plan cells that have no record, with the reason (e.g. "not run: letter unavailable (…)"). */
      failures: v.optional(
        list(v.strictObject({ key: text(400, 1), reason: text() }), MAX_RUN_CELLS, 'failures'),
      ),
    },
    'expected a run record object',
  ),
  // Results that differ in mode or quirks must not be pooled (PROTOCOL.md §2); one cell, one record.
  // These run-level problems throw a SchemaError (with the cell's path) instead of adding an issue.
  v.rawCheck(({ dataset }) => {
    if (!dataset.typed) return;
    const run = dataset.value;
    const seen = new Map<string, number>();
    for (let i = 0; i < run.cells.length; i++) {
      const c = run.cells[i];
      for (const key of ['mode', 'quirks'] as const) {
        if (c.protocol[key] !== run.plan[key]) {
          throw new SchemaError(
            `cells[${i}].protocol.${key}`,
            `is "${c.protocol[key]}" but the run's plan says "${run.plan[key]}"; results that differ in ${key} must not be pooled`,
          );
        }
      }
      const k = cellKeyOf(c);
      const j = seen.get(k);
      if (j !== undefined) {
        throw new SchemaError(
          `cells[${i}]`,
          `repeats the cell of cells[${j}] (${c.dataset.id}, ${c.setting}, labels ${c.labels}, ${c.algorithm.name}, t=${c.t}, seed ${c.seed})`,
        );
      }
      seen.set(k, i);
    }
  }),
);

export type RunRecord = v.InferOutput<typeof RunRecordSchema>;
export type RunPlan = v.InferOutput<typeof RunPlanSchema>;
export type RunEnv = v.InferOutput<typeof RunEnvSchema>;

// ---------------------------------------------------------------------------------------------
// Parsing and messages

/** A short, safe description of a received value (never echoes a long string). */
export function describeValue(x: unknown): string {
  if (x === undefined) return 'nothing (the field is missing)';
  if (x === null) return 'null';
  if (typeof x === 'string') return x.length <= 60 ? JSON.stringify(x) : `a string of ${x.length} characters`;
  if (typeof x === 'number' || typeof x === 'boolean') return String(x);
  if (Array.isArray(x)) return `a list of ${x.length} item${x.length === 1 ? '' : 's'}`;
  if (typeof x === 'object') return 'an object';
  return `a ${typeof x}`;
}

function formatPath(path: readonly { key: unknown }[] | undefined): string {
  let out = '';
  for (const item of path ?? []) {
    const key = item.key;
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key === 'string' && /^[A-Za-z_$][\w$]*$/.test(key)) out += out ? `.${key}` : key;
    else out += `[${JSON.stringify(String(key)).slice(0, 80)}]`;
  }
  return out;
}

function toSchemaError(issue: v.BaseIssue<unknown>): SchemaError {
  const path = formatPath(issue.path as { key: unknown }[] | undefined);
  const isObjectIssue = issue.type === 'strict_object' || issue.type === 'object';
  if (isObjectIssue && issue.expected === 'never')
    return new SchemaError(path, 'unknown field (not part of the schema)');
  if (isObjectIssue && path && issue.input === undefined) {
    // valibot lets a list through as an object; name the list, not its first "missing" key.
    const items = (issue.path ?? []) as { key: unknown; input: unknown }[];
    const parent = items[items.length - 1]?.input;
    if (Array.isArray(parent))
      return new SchemaError(
        formatPath(items.slice(0, -1)),
        `expected an object, got ${describeValue(parent)}`,
      );
    return new SchemaError(path, 'required field is missing');
  }
  if (issue.type === 'check' || issue.type === 'raw_check') return new SchemaError(path, issue.message);
  return new SchemaError(path, `${issue.message}, got ${describeValue(issue.input)}`);
}

function parseWith<T extends v.GenericSchema>(schema: T, x: unknown): v.InferOutput<T> {
  const result = v.safeParse(schema, x, { abortEarly: true }); // run-level checks throw SchemaError directly
  if (result.success) return result.output;
  throw toSchemaError(result.issues[0]);
}

function versionOf(x: unknown, what: string): unknown {
  if (Array.isArray(x)) throw new SchemaError('', `expected ${what} object, got ${describeValue(x)}`);
  return x !== null && typeof x === 'object' && !Array.isArray(x)
    ? (x as { schema?: unknown }).schema
    : undefined;
}

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
  const version = versionOf(x, 'a cell result');
  if (
    typeof version === 'string' &&
    version !== CELL_SCHEMA &&
    !(LEGACY_CELL_SCHEMAS as readonly string[]).includes(version)
  ) {
    throw new SchemaError(
      'schema',
      `unsupported schema version ${describeValue(version)}; this version of RAC Bench reads "${CELL_SCHEMA}" (and upgrades ${LEGACY_CELL_SCHEMAS.map((s) => `"${s}"`).join(', ')})`,
    );
  }
  return parseWith(CellResultSchema, upgradeCell(x));
}

/** Validates a run record (a file, a permalink, the CLI's output); reads /1 and /2. Throws a SchemaError. */
export function parseRun(x: unknown): RunRecord {
  const version = versionOf(x, 'a run record');
  // Refuse oversized runs before upgrading (and validating) 100 000+ cells one by one.
  const rawCells = x !== null && typeof x === 'object' ? (x as { cells?: unknown }).cells : undefined;
  if (Array.isArray(rawCells) && rawCells.length > MAX_RUN_CELLS) {
    throw new SchemaError(
      'cells',
      `expected a list of at most ${MAX_RUN_CELLS} cells, got ${describeValue(rawCells)}`,
    );
  }
  if (
    typeof version === 'string' &&
    version !== RUN_SCHEMA &&
    !(LEGACY_RUN_SCHEMAS as readonly string[]).includes(version)
  ) {
    throw new SchemaError(
      'schema',
      `unsupported schema version ${describeValue(version)}; this version of RAC Bench reads "${RUN_SCHEMA}" (and upgrades ${LEGACY_RUN_SCHEMAS.map((s) => `"${s}"`).join(', ')})`,
    );
  }
  return parseWith(RunRecordSchema, upgradeRun(x));
}
