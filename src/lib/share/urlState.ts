/**
 * URL hash <-> app state. The hash is `#/<page>?v=1&key=value...`: the route first, then the
 * settings as query parameters, declared once in FIELDS (key, default, codec, pages). Enums go in
 * by name, lists in the CLI's selector grammar ("0-4", "iris,wine"). Unknown or invalid values
 * fall back to the default, and `readHash` says which ones, for a visible notice. Older hash
 * versions are upgraded step by step (MIGRATIONS). Pure: takes and returns strings.
 *
 * Keys (the Run page reads the plan ones to pre-fill its planner, see `planFromFields`):
 *   backend                         compute backend preference
 *   preset ds set labels alg        the run plan: preset id, datasets, settings, labels tags,
 *   seeds t mode quirks             algorithms, seeds ("0-2"), t values ("all" | "0,0.2"),
 *   take0 t0 scaler ssgmm           protocol mode and quirks, the four protocol options
 *   opt                             model options that differ from the catalogue's defaults
 *                                   ("lp.gamma:5,xgb.maxDepth:3"; the CLI's --option lp.gamma=5)
 *   sub                             PROTOCOL.md §9 subsampling ("test:2000,unlabeled:5000,seed:1";
 *                                   the CLI's --subsample test=2000,unlabeled=5000,seed=1)
 *   form pt hide explain sort pub   the results view (metric form, EA's P_T, hidden algorithms,
 *                                   explain overlays, table sort, published overlay "on")
 *                                                                       results/compare pages only
 *   run                             a run from this browser's history   results page only
 *   panel                           the image/text preset (panelPresets.ts)  run page only
 *   r                               the results themselves (`1.<payload>`, lib/share/permalink.ts)
 */
import { parseBackendPref, type BackendPref } from '../env/device.ts';
import {
  EXPLAIN_KEYS,
  parseViewState,
  SORT_COLUMNS,
  type ExplainKey,
  type MetricForm,
  type ResultsViewState,
} from '../charts/viewState.ts';
import { validatePT, type PT } from '../metrics/index.ts';
import { defaultPlanOptions, type PlanOptions, type RunPlanSpec } from '../suite/plan.ts';
import { parseOptionAssignment } from '../models/catalogue.ts';
import { applyOptionAssignments, formatModelOptions } from '../suite/modelOptions.ts';
import { formatSubsample, normalizeSubsample, parseSubsample } from '../suite/subsamplePlan.ts';
import type { SubsampleSpec } from '../protocol/subsample.ts';
import {
  formatIntegerList,
  parseLabels,
  parseSeeds,
  parseSettings,
  parseTIndices,
} from '../suite/selectors.ts';
import { SETTINGS, T_GRID, type ProtocolMode, type Quirks, type Setting } from '../types.ts';

export const URL_VERSION = 1;

export const PAGES = ['home', 'run', 'results', 'compare', 'data', 'learn', 'about'] as const;
export type Page = (typeof PAGES)[number];

export const PAGE_TITLES: Record<Page, string> = {
  home: 'Home',
  run: 'Run',
  results: 'Results',
  compare: 'Compare',
  data: 'Data',
  learn: 'Learn',
  about: 'About',
};

/** Settings carried in the hash. Add a field here and it is parsed and written everywhere. */
export interface UrlFields {
  backend: BackendPref;
  preset: string;
  ds: string[];
  set: Setting[];
  labels: number[];
  alg: string[];
  seeds: number[];
  t: number[];
  mode: ProtocolMode;
  quirks: Quirks;
  take0: PlanOptions['takeZero'];
  t0: PlanOptions['t0Stream'];
  /** 'default' = the mode's default (split for rsb, labeled for readme). */
  scaler: PlanOptions['scaler'] | 'default';
  ssgmm: PlanOptions['ssgmmSupport'] | 'default';
  /** Per-dataset t0 streams as `id:shared` / `id:per-class` (the paper preset: `iris:shared`). */
  t0ds: string[];
  /** PROTOCOL.md §3.5 model-stream offset; 'default' = the mode's. */
  offset: NonNullable<PlanOptions['modelStreamOffset']> | 'default';
  /** Model options as `algorithm.option=value` items (see suite/modelOptions.ts). */
  opt: string[];
  /** §9 caps per pool ({} = no subsampling; see suite/subsamplePlan.ts). */
  sub: SubsampleSpec;
  form: MetricForm;
  pt: PT;
  hide: string[];
  explain: ExplainKey[];
  sort: ResultsViewState['sort'];
  /** The published-reference overlay: 'on', or absent (off; links from before it read as off). */
  pub: 'off' | 'on';
  run: string;
  r: string;
  /** The Run page's image/text preset (suite/panelPresets.ts ids; '' = none chosen). */
  panel: string;
}

interface Field<T> {
  default: T;
  /** Throws (any Error) on an invalid value; the message goes into the notice. */
  decode: (raw: string) => T;
  encode: (value: T) => string;
  /** Pages that keep this field when navigating; absent = every page. */
  pages?: readonly Page[];
}

const ID = /^[A-Za-z0-9][A-Za-z0-9_.:+-]{0,199}$/;
const MAX_LIST = 64;

function oneOf<const T extends string>(options: readonly T[], fallback: T): Field<T> {
  return {
    default: fallback,
    decode: (raw) => {
      if (!(options as readonly string[]).includes(raw))
        throw new Error(`expected one of ${options.join(', ')}`);
      return raw as T;
    },
    encode: String,
  };
}

function idList(pages?: readonly Page[]): Field<string[]> {
  return {
    default: [],
    decode: (raw) => {
      const xs = raw.split(',').filter((s) => s !== '');
      if (xs.length > MAX_LIST) throw new Error(`expected at most ${MAX_LIST} names`);
      const bad = xs.find((s) => !ID.test(s));
      if (bad !== undefined) throw new Error('expected names of letters, digits and _ . : + -');
      return [...new Set(xs)];
    },
    encode: (xs) => xs.join(','),
    pages,
  };
}

function intList(parse: (s: string) => number[]): Field<number[]> {
  return { default: [], decode: (raw) => (raw === '' ? [] : parse(raw)), encode: formatIntegerList };
}

function encodePT(pt: PT): string {
  if (pt.kind === 'beta') return `beta:${pt.alpha},${pt.beta}`;
  if (pt.kind === 'grid') return `grid:${pt.weights.join(',')}`;
  return 'uniform';
}

function decodePT(raw: string): PT {
  const [kind, rest = ''] = raw.split(':', 2);
  const nums = rest.split(',').map(Number);
  const candidate =
    kind === 'beta'
      ? { kind, alpha: nums[0], beta: nums[1] }
      : kind === 'grid'
        ? { kind, weights: nums }
        : { kind };
  // Its message (the supported Beta range, a grid weight that is not a normal number) goes into the notice.
  if (kind === 'beta' || kind === 'grid') validatePT(candidate);
  const pt = parseViewState({ pt: candidate }).pt;
  if (pt.kind !== kind) throw new Error('expected uniform, beta:a,b or grid: and six weights');
  return pt;
}

const VIEW_PAGES: readonly Page[] = ['results', 'compare'];

const FIELDS: { [K in keyof UrlFields]: Field<UrlFields[K]> } = {
  backend: { default: 'auto', decode: parseBackendPref, encode: String },
  preset: {
    default: '',
    decode: (raw) => {
      if (!ID.test(raw)) throw new Error('expected a preset id');
      return raw;
    },
    encode: String,
  },
  ds: idList(),
  set: {
    default: [],
    decode: (raw) => (raw === '' ? [] : parseSettings(raw)),
    encode: (xs) => (xs.length === SETTINGS.length ? 'all' : xs.join(',')),
  },
  labels: intList(parseLabels),
  alg: idList(),
  seeds: intList(parseSeeds),
  t: {
    default: [],
    decode: (raw) => (raw === '' ? [] : parseTIndices(raw)),
    encode: (xs) => (xs.length === T_GRID.length ? 'all' : xs.map((i) => T_GRID[i]).join(',')),
  },
  mode: oneOf(['rsb', 'readme'] as const, 'rsb'),
  quirks: oneOf(['rsb', 'fixed'] as const, 'rsb'),
  take0: oneOf(['one-per-class', 'empty'] as const, 'one-per-class'),
  t0: oneOf(['per-class', 'shared'] as const, 'per-class'),
  scaler: oneOf(['default', 'split', 'labeled'] as const, 'default'),
  ssgmm: oneOf(['default', 'zero', 'ignore'] as const, 'default'),
  t0ds: {
    ...idList(),
    decode: (raw) => {
      const xs = idList().decode(raw);
      if (xs.some((x) => !/^[^:]+:(shared|per-class)$/.test(x)))
        throw new Error('expected dataset:shared or dataset:per-class');
      return xs;
    },
  },
  offset: oneOf(['default', 'none', 'paper'] as const, 'default'),
  opt: {
    default: [],
    // In the hash an item is `lp.gamma:5` (`=` would be escaped); `lp.gamma=5` is read too.
    decode: (raw) => {
      const xs = raw
        .split(',')
        .filter((s) => s !== '')
        .map((s) => s.replace(/^([^=:]*):/, '$1='));
      if (xs.length > MAX_LIST) throw new Error(`expected at most ${MAX_LIST} options`);
      for (const x of xs) parseOptionAssignment(x); // throws a ParamError that names the problem
      return xs;
    },
    encode: (xs) => xs.map((x) => x.replace('=', ':')).join(','),
  },
  sub: {
    default: {},
    // In the hash an item is `test:2000` (`=` would be escaped); `test=2000` is read too.
    decode: (raw) => parseSubsample(raw) ?? {}, // a SubsampleError names the problem
    encode: (spec) => formatSubsample(spec, ':'),
  },
  form: { ...oneOf(['integral', 'code'] as const, 'integral'), pages: VIEW_PAGES },
  pt: { default: { kind: 'uniform' }, decode: decodePT, encode: encodePT, pages: VIEW_PAGES },
  hide: idList(VIEW_PAGES),
  explain: {
    default: [],
    decode: (raw) => {
      const xs = raw.split(',').filter((s) => s !== '');
      const bad = xs.find((s) => !(EXPLAIN_KEYS as readonly string[]).includes(s));
      if (bad !== undefined) throw new Error(`expected names among ${EXPLAIN_KEYS.join(', ')}`);
      return EXPLAIN_KEYS.filter((k) => xs.includes(k));
    },
    encode: (xs) => xs.join(','),
    pages: VIEW_PAGES,
  },
  sort: {
    default: { column: 'panel', dir: 'asc' },
    decode: (raw) => {
      const [column, dir = 'asc'] = raw.split(':');
      if (!(SORT_COLUMNS as readonly string[]).includes(column) || (dir !== 'asc' && dir !== 'desc')) {
        throw new Error(`expected a column (${SORT_COLUMNS.join(', ')}) and :asc or :desc`);
      }
      return { column, dir };
    },
    encode: (s) => `${s.column}:${s.dir}`,
    pages: VIEW_PAGES,
  },
  pub: { ...oneOf(['off', 'on'] as const, 'off'), pages: VIEW_PAGES },
  run: {
    default: '',
    decode: (raw) => {
      // eslint-disable-next-line no-control-regex -- refusing control characters is the point
      if (raw.length > 200 || /[\u0000-\u001f\u007f]/.test(raw)) throw new Error('expected a run id');
      return raw;
    },
    encode: String,
    pages: ['results'],
  },
  // Checked and decoded by lib/share/permalink.ts (with its own caps and messages).
  r: { default: '', decode: String, encode: String, pages: ['results'] },
  // Checked against the preset list by the Run page (an unknown id gets a notice there).
  panel: {
    default: '',
    decode: (raw) => {
      if (!ID.test(raw)) throw new Error('expected an image/text preset id');
      return raw;
    },
    encode: String,
    pages: ['run'],
  },
};

/** Upgrades, append only: MIGRATIONS[v] turns a version-v query into version v+1 in place. */
const MIGRATIONS: Readonly<Record<number, (params: URLSearchParams) => void>> = {};

export interface HashState {
  page: Page;
  /** Only the fields present (and valid) in the hash. */
  fields: Partial<UrlFields>;
}

export interface HashReading extends HashState {
  /** Plain sentences about values that were ignored (invalid, or from a newer version). */
  notices: string[];
}

function isPage(s: string): s is Page {
  return (PAGES as readonly string[]).includes(s);
}

const KEYS = Object.keys(FIELDS) as (keyof UrlFields)[];

/** Parse `#/about?v=1&backend=wasm`, with notices for the values that fell back. */
export function readHash(hash: string): HashReading {
  const body = hash.replace(/^#/, '');
  const q = body.indexOf('?');
  const path = (q < 0 ? body : body.slice(0, q)).replace(/^\/+|\/+$/g, '').toLowerCase();
  const params = new URLSearchParams(q < 0 ? '' : body.slice(q + 1));
  const notices: string[] = [];
  const version = Number(params.get('v') ?? URL_VERSION);
  if (!Number.isInteger(version) || version < 1) {
    notices.push(
      `The link's version "${String(params.get('v')).slice(0, 20)}" is not valid; its settings were read as version ${URL_VERSION}.`,
    );
  } else if (version > URL_VERSION) {
    notices.push(
      `This link comes from a newer version of RAC Bench (v=${version}); settings this version does not know were ignored.`,
    );
  } else {
    for (let v = version; v < URL_VERSION; v++) MIGRATIONS[v]?.(params);
  }
  const fields: Partial<UrlFields> = {};
  for (const key of KEYS) {
    const raw = params.get(key);
    if (raw === null) continue;
    try {
      (fields as Record<string, unknown>)[key] = FIELDS[key].decode(raw);
    } catch (e) {
      const shown = raw.length > 40 ? `${raw.slice(0, 40)}…` : raw;
      notices.push(
        `Ignored ${key}=${JSON.stringify(shown)} (${e instanceof Error ? e.message : 'invalid'}); using the default.`,
      );
      (fields as Record<string, unknown>)[key] = FIELDS[key].default;
    }
  }
  // `#classroom` is an alias of the Learn page (which reads the mode from the hash itself).
  return { page: isPage(path) ? path : path === 'classroom' ? 'learn' : 'home', fields, notices };
}

/** Parse `#/about?v=1&backend=wasm`. An unknown page is home; an invalid value its default. */
export function parseHash(hash: string): HashState {
  const { page, fields } = readHash(hash);
  return { page, fields };
}

/** Query encoding that keeps `,` and `:` readable (both are legal in a fragment). */
function enc(s: string): string {
  return encodeURIComponent(s).replace(/%2C/gi, ',').replace(/%3A/gi, ':');
}

/** Write a hash; fields equal to their default are left out, `v` comes first when any remain. */
export function formatHash(state: HashState): string {
  const parts: string[] = [];
  for (const key of KEYS) {
    const value = state.fields[key];
    if (value === undefined) continue;
    const field = FIELDS[key] as Field<unknown>;
    const text = field.encode(value);
    if (text !== field.encode(field.default)) parts.push(`${key}=${enc(text)}`);
  }
  const path = state.page === 'home' ? '#/' : `#/${state.page}`;
  return parts.length ? `${path}?v=${URL_VERSION}&${parts.join('&')}` : path;
}

/** The same hash with one field changed (other fields and the page are kept). */
export function withField<K extends keyof UrlFields>(hash: string, key: K, value: UrlFields[K]): string {
  return withFields(hash, { [key]: value } as Partial<UrlFields>);
}

/**
 * The same hash with some fields changed (a field set to undefined is removed). Keys this table
 * does not know (another module's, e.g. the Learn page's `toy_*`) are kept as they were.
 */
export function withFields(hash: string, changes: Partial<UrlFields>): string {
  const s = parseHash(hash);
  const out = formatHash({ page: s.page, fields: { ...s.fields, ...changes } });
  const q = hash.indexOf('?');
  const foreign = [...new URLSearchParams(q < 0 ? '' : hash.slice(q + 1))].filter(
    ([k]) => k !== 'v' && !(k in FIELDS),
  );
  if (foreign.length === 0) return out;
  const rest = foreign.map(([k, v]) => `${enc(k)}=${enc(v)}`).join('&');
  return out.includes('?') ? `${out}&${rest}` : `${out}?v=${URL_VERSION}&${rest}`;
}

/** The same hash on another page, keeping the fields that page uses (results stay on Results). */
export function withPage(hash: string, page: Page): string {
  const fields = { ...parseHash(hash).fields };
  for (const key of KEYS) {
    const pages = FIELDS[key].pages;
    if (pages && !pages.includes(page)) delete fields[key];
  }
  return formatHash({ page, fields });
}

// ---------------------------------------------------------------------------------------------
// Plan and view <-> fields

/** The hash fields of a run plan (the Run page's "re-run this plan"). */
export function planToFields(
  plan: Omit<RunPlanSpec, 'preset'> & { preset: string | null },
): Partial<UrlFields> {
  const modeScaler = plan.mode === 'readme' ? 'labeled' : 'split';
  return {
    preset: plan.preset ?? '',
    ds: [...plan.datasets],
    set: [...plan.settings],
    labels: [...plan.labels],
    alg: [...plan.algorithms],
    seeds: [...plan.seeds],
    t: [...plan.tIndices],
    mode: plan.mode,
    quirks: plan.quirks,
    take0: plan.options.takeZero,
    t0: plan.options.t0Stream,
    scaler: plan.options.scaler === modeScaler ? 'default' : plan.options.scaler,
    ssgmm:
      plan.options.ssgmmSupport === defaultPlanOptions(plan.mode).ssgmmSupport
        ? 'default'
        : plan.options.ssgmmSupport,
    t0ds: Object.entries(plan.options.t0StreamByDataset ?? {}).map(([id, stream]) => `${id}:${stream}`),
    offset:
      (plan.options.modelStreamOffset ?? 'none') === defaultPlanOptions(plan.mode).modelStreamOffset
        ? 'default'
        : (plan.options.modelStreamOffset ?? 'none'),
    opt: formatModelOptions(plan.modelOptions),
    sub: normalizeSubsample(plan.subsample) ?? {},
  };
}

/** The hash fields that describe a plan (all of planToFields' keys). */
const PLAN_KEYS = [
  'preset',
  'ds',
  'set',
  'labels',
  'alg',
  'seeds',
  't',
  'mode',
  'quirks',
  'take0',
  't0',
  'scaler',
  'ssgmm',
  't0ds',
  'offset',
  'opt',
  'sub',
] as const satisfies readonly (keyof UrlFields)[];

/**
 * The hash fields of the planner's plan, for `withFields`: a preset by its name alone (its other
 * plan fields removed), a custom plan in full. The Run page writes them at every planner change.
 */
export function planUrlFields(
  preset: string,
  plan: Omit<RunPlanSpec, 'preset'> & { preset: string | null },
): Partial<UrlFields> {
  if (preset !== 'custom') {
    const cleared: Partial<UrlFields> = {};
    for (const k of PLAN_KEYS) (cleared as Record<string, undefined>)[k] = undefined;
    return { ...cleared, preset };
  }
  return { ...planToFields(plan), preset: 'custom' };
}

/**
 * The plan in the hash, or null when the hash names none (no `ds`, `alg` or `preset`). Lists
 * missing from the hash are empty; the planner reports them (validatePlan).
 */
export function planFromFields(f: Partial<UrlFields>): RunPlanSpec | null {
  if (!f.ds?.length && !f.alg?.length && !f.preset) return null;
  const plan: RunPlanSpec = {
    preset: f.preset || 'custom',
    datasets: f.ds ?? [],
    settings: f.set ?? [],
    labels: f.labels ?? [],
    algorithms: f.alg ?? [],
    seeds: f.seeds ?? [],
    tIndices: f.t ?? [],
    mode: f.mode ?? 'rsb',
    quirks: f.quirks ?? 'rsb',
    options: {
      takeZero: f.take0 ?? 'one-per-class',
      t0Stream: f.t0 ?? 'per-class',
      scaler: f.scaler && f.scaler !== 'default' ? f.scaler : f.mode === 'readme' ? 'labeled' : 'split',
      ssgmmSupport:
        f.ssgmm && f.ssgmm !== 'default' ? f.ssgmm : defaultPlanOptions(f.mode ?? 'rsb').ssgmmSupport,
      modelStreamOffset:
        f.offset && f.offset !== 'default' ? f.offset : defaultPlanOptions(f.mode ?? 'rsb').modelStreamOffset,
      ...(f.t0ds?.length
        ? {
            t0StreamByDataset: Object.fromEntries(
              f.t0ds.map((x) => x.split(':') as [string, 'per-class' | 'shared']),
            ),
          }
        : {}),
    },
  };
  const subsample = normalizeSubsample(f.sub);
  if (subsample) plan.subsample = subsample;
  return f.opt?.length ? { ...plan, ...applyOptionAssignments(plan, f.opt, { strict: false }) } : plan;
}

export function viewToFields(view: ResultsViewState): Partial<UrlFields> {
  return {
    form: view.metricForm,
    pt: view.pt,
    hide: [...view.hidden],
    explain: [...view.explain],
    sort: { ...view.sort },
    pub: view.published ? 'on' : 'off',
  };
}

export function viewFromFields(f: Partial<UrlFields>): ResultsViewState {
  return parseViewState({
    metricForm: f.form,
    pt: f.pt,
    hidden: f.hide,
    explain: f.explain,
    sort: f.sort,
    published: f.pub === 'on',
  });
}
