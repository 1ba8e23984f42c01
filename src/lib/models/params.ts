/**
 * Hyperparameter validation tables (scikit-learn's `_parameter_constraints`). A standalone
 * validator so that the URL decoder and the CLI can check values before anything runs.
 * Messages follow one pattern: which parameter, which estimator, what was expected, what came.
 */
export type Constraint =
  | {
      kind: 'interval';
      min?: number;
      max?: number;
      closed?: 'both' | 'left' | 'right' | 'neither';
      integer?: boolean;
    }
  | { kind: 'oneOf'; values: readonly (string | number | boolean)[] }
  /** A nested parameter object (e.g. an ensemble's `base` learner params), checked against its own table. */
  | { kind: 'params'; table: ConstraintTable };

export type ConstraintTable = Record<string, Constraint>;

export class ParamError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ParamError';
  }
}

export const interval = (
  min: number | undefined,
  max: number | undefined,
  closed: 'both' | 'left' | 'right' | 'neither' = 'both',
  integer = false,
): Constraint => ({ kind: 'interval', min, max, closed, integer });
export const integerIn = (min?: number, max?: number): Constraint => interval(min, max, 'both', true);
export const oneOf = (...values: (string | number | boolean)[]): Constraint => ({ kind: 'oneOf', values });
export const nestedParams = (table: ConstraintTable): Constraint => ({ kind: 'params', table });

/** `finite`: say so outright, for ±Infinity (a range written "[0, inf]" seems to admit it). */
function describe(c: Constraint, finite = false): string {
  if (c.kind === 'params') return 'an object of parameters';
  if (c.kind === 'oneOf') return `one of {${c.values.map((v) => JSON.stringify(v)).join(', ')}}`;
  const lo = c.min === undefined ? '-inf' : String(c.min);
  const hi = c.max === undefined ? 'inf' : String(c.max);
  const l = c.closed === 'both' || c.closed === 'left' ? '[' : '(';
  const r = c.closed === 'both' || c.closed === 'right' ? ']' : ')';
  const what = c.integer
    ? finite
      ? 'a finite integer'
      : 'an integer'
    : finite
      ? 'a finite number'
      : 'a number';
  return `${what} in the range ${l}${lo}, ${hi}${r}`;
}

/** What a constraint accepts, in words ("a number in the range (0, inf)"): the planner's option hints. */
export function describeConstraint(c: Constraint): string {
  return describe(c);
}

function satisfies(c: Constraint, v: unknown): boolean {
  if (c.kind === 'params') return v !== null && typeof v === 'object' && !Array.isArray(v);
  if (c.kind === 'oneOf') return c.values.includes(v as never);
  // Never ±Infinity or NaN, whatever the range: no estimator can use them, and the record schema
  // (JSON) cannot hold them, so a run with one could never be written.
  if (typeof v !== 'number' || !Number.isFinite(v)) return false;
  if (c.integer && !Number.isInteger(v)) return false;
  const closed = c.closed ?? 'both';
  if (c.min !== undefined && (closed === 'both' || closed === 'left' ? v < c.min : v <= c.min)) return false;
  if (c.max !== undefined && (closed === 'both' || closed === 'right' ? v > c.max : v >= c.max)) return false;
  return true;
}

/** The value as a message shows it: NaN and ±Infinity by name (JSON would say null), strings quoted. */
export function describeGot(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'bigint' || value === undefined) return String(value);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * The sklearn-style message when `value` breaks `c` (null when it is fine). `got`: how the value
 * is shown, where the caller knows the text it came from (`1e400`, read as Infinity).
 */
export function paramProblem(
  estimator: string,
  key: string,
  c: Constraint,
  value: unknown,
  got: string = describeGot(value),
): string | null {
  if (satisfies(c, value)) return null;
  const infinite = value === Infinity || value === -Infinity;
  return `The '${key}' parameter of ${estimator} must be ${describe(c, infinite)}. Got ${got} instead.`;
}

/** Throws a ParamError for the first unknown or invalid parameter. */
export function validateParams(
  estimator: string,
  table: ConstraintTable,
  params: Record<string, unknown>,
): void {
  for (const [key, value] of Object.entries(params)) {
    // Own keys only: 'constructor' or 'toString' must be unknown, not Object.prototype's members.
    const c = Object.hasOwn(table, key) ? table[key] : undefined;
    if (!c) {
      throw new ParamError(
        `'${key}' is not a parameter of ${estimator}. Valid parameters: ${Object.keys(table).join(', ')}.`,
      );
    }
    const problem = paramProblem(estimator, key, c, value);
    if (problem) throw new ParamError(problem);
    if (c.kind === 'params') validateParams(`${estimator}.${key}`, c.table, value as Record<string, unknown>);
  }
}
