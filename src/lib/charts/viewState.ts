/**
 * What the results view shows: metric form, EA's P_T, hidden algorithms, explain overlays, the
 * table's sort and the published-reference overlay. Plain JSON, so it travels in a permalink; `parseViewState` takes anything (a
 * decoded link, a stored record) and keeps each valid field, falling back to the default for the
 * rest. It never throws.
 */
import { validatePT, type PT } from '../metrics/index.ts';

export const EXPLAIN_KEYS = ['auc', 'ea', 'wa', 'evm', 'vs', 'rcc'] as const;
export type ExplainKey = (typeof EXPLAIN_KEYS)[number];
export type MetricForm = 'integral' | 'code';

/** Sortable table columns. */
export const SORT_COLUMNS = [
  'panel',
  'dataset',
  'setting',
  'labels',
  'algorithm',
  'auc',
  'ea',
  'wa',
  'evm',
  'vs',
  'rcc',
] as const;
export type SortColumn = (typeof SORT_COLUMNS)[number];

export interface ResultsViewState {
  /** PROTOCOL.md §8: README integrals or the original code's table forms. */
  metricForm: MetricForm;
  /** P_T of the integral EA. */
  pt: PT;
  /** Algorithm ids hidden by legend clicks. */
  hidden: string[];
  /** Metrics drawn on the charts, in EXPLAIN_KEYS order. */
  explain: ExplainKey[];
  sort: { column: string; dir: 'asc' | 'desc' };
  /**
   * The published-reference overlay (curves, legend entry and verdict badge) is on. Absent when
   * off, so views (and links) from before it existed read exactly as they did.
   */
  published?: boolean;
}

export const DEFAULT_VIEW: Readonly<ResultsViewState> = Object.freeze({
  metricForm: 'integral',
  pt: Object.freeze({ kind: 'uniform' }) as PT,
  hidden: Object.freeze([]) as unknown as string[],
  explain: Object.freeze([]) as unknown as ExplainKey[],
  sort: Object.freeze({ column: 'panel', dir: 'asc' }) as ResultsViewState['sort'],
});

/** Caps for hostile input: ids are short, and there are few algorithms. */
const MAX_HIDDEN = 64;
const MAX_ID = 200;

/** A fresh, mutable copy of the defaults. */
export function defaultView(): ResultsViewState {
  return {
    metricForm: 'integral',
    pt: { kind: 'uniform' },
    hidden: [],
    explain: [],
    sort: { column: 'panel', dir: 'asc' },
  };
}

function field(x: unknown, key: string): unknown {
  if (x === null || typeof x !== 'object' || Array.isArray(x)) return undefined;
  return Object.prototype.hasOwnProperty.call(x, key) ? (x as Record<string, unknown>)[key] : undefined;
}

function parsePT(x: unknown): PT {
  try {
    validatePT(x);
  } catch {
    return { kind: 'uniform' };
  }
  // Copy only the known fields (a link may carry extra keys).
  if (x.kind === 'beta') return { kind: 'beta', alpha: x.alpha, beta: x.beta };
  if (x.kind === 'grid') return { kind: 'grid', weights: [...x.weights] };
  return { kind: 'uniform' };
}

function parseHidden(x: unknown): string[] {
  if (!Array.isArray(x)) return [];
  const ids = x.filter((s): s is string => typeof s === 'string' && s.length > 0 && s.length <= MAX_ID);
  return [...new Set(ids)].slice(0, MAX_HIDDEN);
}

function parseExplain(x: unknown): ExplainKey[] {
  if (!Array.isArray(x)) return [];
  return EXPLAIN_KEYS.filter((k) => x.includes(k));
}

function parseSort(x: unknown): ResultsViewState['sort'] {
  const column = field(x, 'column');
  const dir = field(x, 'dir');
  return {
    column:
      typeof column === 'string' && (SORT_COLUMNS as readonly string[]).includes(column) ? column : 'panel',
    dir: dir === 'desc' ? 'desc' : 'asc',
  };
}

/** A valid view state from anything: each field is kept when valid, else its default. */
export function parseViewState(x: unknown): ResultsViewState {
  const safe = <T>(read: () => T, fallback: T): T => {
    try {
      return read();
    } catch {
      return fallback; // a throwing getter or proxy
    }
  };
  const base = defaultView();
  const view: ResultsViewState = {
    metricForm: safe(() => (field(x, 'metricForm') === 'code' ? 'code' : 'integral'), base.metricForm),
    pt: safe(() => parsePT(field(x, 'pt')), base.pt),
    hidden: safe(() => parseHidden(field(x, 'hidden')), base.hidden),
    explain: safe(() => parseExplain(field(x, 'explain')), base.explain),
    sort: safe(() => parseSort(field(x, 'sort')), base.sort),
  };
  if (safe(() => field(x, 'published') === true, false)) view.published = true;
  return view;
}
