/** Test helpers: fixture bytes and a scripted fetch (no real network in unit tests). */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../../../', import.meta.url));
export const fixture = (name: string): Uint8Array =>
  new Uint8Array(readFileSync(`${root}tests/fixtures/data/${name}`));
export const publicFile = (path: string): Uint8Array => new Uint8Array(readFileSync(`${root}public/${path}`));

export type Behaviour =
  | { kind: 'ok'; bytes: Uint8Array; chunk?: number }
  | { kind: 'cut'; bytes: Uint8Array; at: number; error: boolean }
  | { kind: 'status'; status: number }
  | { kind: 'down' };

/** A body streamed in chunks; 'cut' ends (or errors) after `at` bytes while announcing the full length. */
export function respond(b: Behaviour): Response {
  if (b.kind === 'down') throw new TypeError('fetch failed');
  if (b.kind === 'status')
    return new Response('nope', {
      status: b.status,
      statusText: b.status === 404 ? 'Not Found' : 'Service Unavailable',
    });
  const bytes = b.bytes;
  const end = b.kind === 'cut' ? b.at : bytes.length;
  const chunk = b.kind === 'ok' && b.chunk ? b.chunk : 16384;
  let o = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      if (o >= end) {
        if (b.kind === 'cut' && b.error) c.error(new TypeError('network error: connection reset'));
        else c.close();
        return;
      }
      c.enqueue(bytes.slice(o, Math.min(end, o + chunk)));
      o += chunk;
    },
  });
  return new Response(body, { status: 200, headers: { 'content-length': String(bytes.length) } });
}

/** A fetch that answers by URL prefix and records every URL it was asked for. */
export function scriptedFetch(
  routes: Record<string, Behaviour | (() => Behaviour)>,
): typeof fetch & { calls: string[] } {
  const calls: string[] = [];
  const f = (async (input: RequestInfo | URL) => {
    const url = String(input instanceof Request ? input.url : input);
    calls.push(url);
    for (const [prefix, b] of Object.entries(routes)) {
      if (url.startsWith(prefix)) return respond(typeof b === 'function' ? b() : b);
    }
    throw new TypeError(`fetch failed (no route for ${url})`);
  }) as typeof fetch & { calls: string[] };
  f.calls = calls;
  return f;
}

export const OPENML = 'https://data.openml.org/';
export const MINIO = 'https://openml1.win.tue.nl/';
