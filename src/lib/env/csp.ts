/**
 * The site's Content-Security-Policy (issue 12, row 11), one source for the build's meta tag, the
 * `_headers` file for static hosts and the preview server. What the app needs, and why:
 * - script-src 'self' 'wasm-unsafe-eval': bundled modules only (no inline script, no eval);
 *   tfjs-backend-wasm compiles its .wasm with WebAssembly.instantiate, which CSP gates behind
 *   'wasm-unsafe-eval' (it allows wasm compilation only, not JS eval).
 * - worker-src 'self': the bench, probe, data and toy workers are same-origin module scripts.
 * - connect-src 'self' https:: the wasm binaries and embedded CSVs ('self'), OpenML's parquet
 *   (data.openml.org, openml1.win.tue.nl) and a CSV URL the user types on the Data page, which
 *   may be any https host — so https: rather than a fixed list; no http:, no ws:.
 * - img-src 'self' data: blob:: the data: favicon and exported chart images (object URLs).
 * - style-src 'self' 'unsafe-inline': Svelte and d3 set style attributes on elements; styles
 *   cannot run code, and scripts stay strict.
 * - object-src, base-uri, form-action 'none'; frame-ancestors 'none' (headers only: a meta tag
 *   cannot carry it). WebGPU and IndexedDB need no directive.
 */
export const CSP_DIRECTIVES: readonly (readonly [string, string])[] = [
  ['default-src', "'self'"],
  ['script-src', "'self' 'wasm-unsafe-eval'"],
  ['worker-src', "'self'"],
  ['connect-src', "'self' https:"],
  ['img-src', "'self' data: blob:"],
  ['style-src', "'self' 'unsafe-inline'"],
  ['font-src', "'self'"],
  ['object-src', "'none'"],
  ['base-uri', "'none'"],
  ['form-action', "'none'"],
];

/** Directives a <meta> policy may not carry (browsers ignore them there, with a console error). */
const HEADER_ONLY: readonly (readonly [string, string])[] = [['frame-ancestors', "'none'"]];

const join = (ds: readonly (readonly [string, string])[]) => ds.map(([k, v]) => `${k} ${v}`).join('; ');

/** The policy for `<meta http-equiv="Content-Security-Policy">` in index.html. */
export const CSP_META = join(CSP_DIRECTIVES);
/** The policy as an HTTP header (adds frame-ancestors). */
export const CSP_HEADER = join([...CSP_DIRECTIVES, ...HEADER_ONLY]);

/** Response headers for every file of the site (Netlify / Cloudflare Pages `_headers`, preview server). */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CSP_HEADER,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

/** The `_headers` file: one rule for every path. */
export function headersFile(): string {
  return `/*\n${Object.entries(SECURITY_HEADERS)
    .map(([k, v]) => `  ${k}: ${v}`)
    .join('\n')}\n`;
}
