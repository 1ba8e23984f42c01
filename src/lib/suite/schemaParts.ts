/**
 * Building blocks of the result schemas (schema.ts: `rsb-cell/2`, `rsb-run/2`; schemaV3.ts:
 * `rsb-cell/3`, `rsb-run/3`): bounded numbers, strings, ids and lists whose messages say what was
 * expected, bounded plain JSON, and the conversion of a valibot issue into a SchemaError that names
 * the path. Records come from files and links written by strangers, so every block is capped.
 */
import * as v from 'valibot';

export const MAX_NAME = 200;
export const MAX_TEXT = 2000;
export const MAX_SEED = 0xffffffff;
export const MAX_COUNT = 1e9;

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

export function int(min: number, max: number, what = `an integer between ${min} and ${max}`) {
  const m = `expected ${what}`;
  return v.pipe(v.number(m), v.integer(m), v.minValue(min, m), v.maxValue(max, m));
}

export function count() {
  return int(0, MAX_COUNT, 'a whole number ≥ 0');
}

export function num(min: number, max: number, what = `a number between ${min} and ${max}`) {
  const m = `expected ${what}`;
  return v.pipe(v.number(m), v.finite(m), v.minValue(min, m), v.maxValue(max, m));
}

export function text(max = MAX_TEXT, min = 0) {
  const m = `expected a string of ${min > 0 ? `${min} to ` : 'at most '}${max} characters`;
  return v.pipe(v.string(m), v.minLength(min, m), v.maxLength(max, m));
}

/** Ids (datasets, algorithms): they end up in cell keys and URLs, so a plain alphabet only. */
export function id() {
  const m = `expected an id of 1 to ${MAX_NAME} letters, digits or _ . : + - (starting with a letter or digit)`;
  return v.pipe(v.string(m), v.maxLength(MAX_NAME, m), v.regex(/^[A-Za-z0-9][A-Za-z0-9_.:+-]*$/, m));
}

export function oneOf<const T extends readonly (string | number)[]>(options: T) {
  return v.picklist(options, `expected one of ${options.map((o) => JSON.stringify(o)).join(', ')}`);
}

export function list<T extends v.GenericSchema>(item: T, max: number, what: string) {
  const m = `expected a list of at most ${max} ${what}`;
  return v.pipe(v.array(item, m), v.maxLength(max, m));
}

export function isoTime() {
  const m = 'expected an ISO 8601 timestamp like "2025-01-31T12:00:00.000Z"';
  return v.pipe(v.string(m), v.maxLength(64, m), v.isoTimestamp(m));
}

export const sha256Hex = () =>
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

export function isPlainObject(x: unknown): x is Record<string, unknown> {
  return (
    x !== null &&
    typeof x === 'object' &&
    !Array.isArray(x) &&
    [Object.prototype, null].includes(Object.getPrototypeOf(x))
  );
}

/** A plain JSON object of bounded size (hyperparameters, overrides). */
export function jsonObject() {
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

export function parseWith<T extends v.GenericSchema>(schema: T, x: unknown): v.InferOutput<T> {
  const result = v.safeParse(schema, x, { abortEarly: true }); // run-level checks throw SchemaError directly
  if (result.success) return result.output;
  throw toSchemaError(result.issues[0]);
}

/** The `schema` field of a record, or undefined; a list is refused at once ("expected {what} object"). */
export function versionOf(x: unknown, what: string): unknown {
  if (Array.isArray(x)) throw new SchemaError('', `expected ${what} object, got ${describeValue(x)}`);
  return x !== null && typeof x === 'object' && !Array.isArray(x)
    ? (x as { schema?: unknown }).schema
    : undefined;
}
