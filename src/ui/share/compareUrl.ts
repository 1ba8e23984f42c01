/**
 * The Compare page's runs in the link: `runs=<entry>,<entry>` next to the usual view fields, where
 * an entry is a results-link payload (`1.<base64url>`, self-contained: opens in any browser) or
 * `run:<id>` (a run saved in this browser, for runs too big for a link). Pure string functions.
 */
export const RUNS_KEY = 'runs';

export type CompareEntry = { kind: 'link'; payload: string } | { kind: 'history'; id: string };

/** The entries of the hash's `runs=` value, in order; unknown shapes are returned as `bad`. */
export function readCompareRuns(hash: string): { entries: CompareEntry[]; bad: string[] } {
  const q = hash.indexOf('?');
  const raw = new URLSearchParams(q < 0 ? '' : hash.slice(q + 1)).get(RUNS_KEY);
  const entries: CompareEntry[] = [];
  const bad: string[] = [];
  for (const part of (raw ?? '').split(',').filter((s) => s !== '')) {
    if (/^\d+\.[A-Za-z0-9_-]+$/.test(part)) entries.push({ kind: 'link', payload: part });
    else if (/^run:[A-Za-z0-9_.:+-]{1,200}$/.test(part)) entries.push({ kind: 'history', id: part.slice(4) });
    else bad.push(part.length > 40 ? `${part.slice(0, 40)}…` : part);
  }
  return { entries, bad };
}

/** The same hash with `runs=` set to these entries (removed when empty); other keys are kept. */
export function writeCompareRuns(hash: string, entries: readonly CompareEntry[]): string {
  const q = hash.indexOf('?');
  const path = q < 0 ? hash : hash.slice(0, q);
  const params = new URLSearchParams(q < 0 ? '' : hash.slice(q + 1));
  const value = entries.map((e) => (e.kind === 'link' ? e.payload : `run:${e.id}`)).join(',');
  if (value) params.set(RUNS_KEY, value);
  else params.delete(RUNS_KEY);
  if (params.size && !params.has('v')) params.set('v', '1');
  // v first, as formatHash writes it; commas and colons stay readable.
  const pairs = [...params].sort(([a], [b]) => (a === 'v' ? -1 : b === 'v' ? 1 : 0));
  const text = pairs
    .map(([k, v]) => `${k}=${encodeURIComponent(v).replace(/%2C/gi, ',').replace(/%3A/gi, ':')}`)
    .join('&');
  return text ? `${path}?${text}` : path;
}
