/**
 * URL hash <-> app state. The hash is `#/<page>?v=1&key=value...`: the route first, then the
 * settings as query parameters, declared once in FIELDS (name, default, codec). Unknown or
 * invalid values fall back to the default. Pure: takes and returns strings.
 */
import { parseBackendPref, type BackendPref } from '../lib/env/device.ts';

export const URL_VERSION = 1;

export const PAGES = ['home', 'run', 'results', 'compare', 'data', 'learn', 'about'] as const;
export type Page = (typeof PAGES)[number];

export const PAGE_TITLES: Record<Page, string> = {
  home: 'Home', run: 'Run', results: 'Results', compare: 'Compare', data: 'Data', learn: 'Learn', about: 'About',
};

/** Settings carried in the hash. Add a field here and it is parsed and written everywhere. */
export interface UrlFields {
  backend: BackendPref;
}

interface Field<T> {
  default: T;
  decode: (raw: string) => T;
  encode: (value: T) => string;
}

const FIELDS: { [K in keyof UrlFields]: Field<UrlFields[K]> } = {
  backend: { default: 'auto', decode: parseBackendPref, encode: String },
};

export interface HashState {
  page: Page;
  /** Only the fields present (and valid) in the hash. */
  fields: Partial<UrlFields>;
}

function isPage(s: string): s is Page {
  return (PAGES as readonly string[]).includes(s);
}

/** Parse `#/about?v=1&backend=wasm`. An unknown page is home. */
export function parseHash(hash: string): HashState {
  const body = hash.replace(/^#/, '');
  const q = body.indexOf('?');
  const path = (q < 0 ? body : body.slice(0, q)).replace(/^\/+|\/+$/g, '').toLowerCase();
  const params = new URLSearchParams(q < 0 ? '' : body.slice(q + 1));
  const fields: Partial<UrlFields> = {};
  for (const key of Object.keys(FIELDS) as (keyof UrlFields)[]) {
    const raw = params.get(key);
    if (raw !== null) fields[key] = FIELDS[key].decode(raw);
  }
  return { page: isPage(path) ? path : 'home', fields };
}

/** Write a hash; fields equal to their default are left out, `v` comes first when any remain. */
export function formatHash(state: HashState): string {
  const params = new URLSearchParams();
  for (const key of Object.keys(FIELDS) as (keyof UrlFields)[]) {
    const value = state.fields[key];
    if (value !== undefined && value !== FIELDS[key].default) params.set(key, FIELDS[key].encode(value));
  }
  const path = state.page === 'home' ? '#/' : `#/${state.page}`;
  const qs = params.toString();
  return qs ? `${path}?v=${URL_VERSION}&${qs}` : path;
}

/** The same hash with one field changed (other fields and the page are kept). */
export function withField<K extends keyof UrlFields>(hash: string, key: K, value: UrlFields[K]): string {
  const s = parseHash(hash);
  return formatHash({ page: s.page, fields: { ...s.fields, [key]: value } });
}

/** The same hash on another page, keeping the fields. */
export function withPage(hash: string, page: Page): string {
  return formatHash({ page, fields: parseHash(hash).fields });
}
