/* eslint-disable no-restricted-properties -- the I/O edge of the core: download timings and cache
   timestamps use the wall clock by default (callers may pass their own); no result depends on them. */
/** Streamed download with progress and cut-off detection (page, worker and Node 20 all have fetch). */
import { DatasetError, formatBytes, isAbortError } from './errors.ts';
import { after as hostAfter } from '../env/timer.ts';

export interface DownloadProgress {
  loaded: number;
  /** From Content-Length; null when unknown or when the body is content-encoded. */
  total: number | null;
  bytesPerSecond: number;
}

export interface FetchWithProgressOptions {
  signal?: AbortSignal;
  onProgress?: (p: DownloadProgress) => void;
  fetchImpl?: typeof fetch;
  /** Minimum milliseconds between progress reports (the last one always comes). Default 100. */
  throttleMs?: number;
  /** Monotonic clock in ms, for the rate; injectable for tests. */
  now?: () => number;
  /** Names the dataset in error messages. */
  datasetId?: string;
  /**
   * A download that receives nothing for this long (no response, or no bytes) is given up with a
   * retryable 'network' DatasetError instead of hanging for ever. Default 30 000 ms; 0 disables.
   */
  stallMs?: number;
  /** Timer (ms, fn) → cancel; injectable for tests. */
  after?: (ms: number, fn: () => void) => () => void;
}

export const DEFAULT_STALL_MS = 30_000;

function hostOf(url: string): string {
  try {
    return new URL(url).host || url;
  } catch {
    return url;
  }
}

/**
 * Fetches `url` and returns the whole body. Progress is throttled. Throws DatasetError:
 * 'network' (no response), 'http' (status not 2xx), 'truncated' (the stream broke or ended
 * before Content-Length). An abort rethrows the AbortError as is.
 */
export async function fetchWithProgress(
  url: string,
  opts: FetchWithProgressOptions = {},
): Promise<Uint8Array> {
  const fetchImpl = opts.fetchImpl ?? globalThis.fetch.bind(globalThis);
  const now = opts.now ?? (() => performance.now());
  const throttle = opts.throttleMs ?? 100;
  const what = opts.datasetId ? `dataset '${opts.datasetId}'` : 'the file';
  const host = hostOf(url);
  const stallMs = opts.stallMs ?? DEFAULT_STALL_MS;
  const after = opts.after ?? hostAfter;
  let received = 0;
  const stalled = () =>
    new DatasetError({
      kind: 'network',
      retryable: true,
      url,
      datasetId: opts.datasetId,
      message:
        `The download of ${what} from ${host} stalled: nothing arrived for ${Math.round(stallMs / 1000)} s` +
        `${received ? ` after ${formatBytes(received)}` : ''}. Check the connection and press Retry.`,
    });
  // Each wait (the response, then every chunk) gets the stall limit; `onStall` stops the transfer.
  const watch = <T>(p: Promise<T>, onStall: () => void): Promise<T> => {
    if (!(stallMs > 0)) return p;
    return new Promise<T>((resolve, reject) => {
      const cancel = after(stallMs, () => {
        onStall();
        reject(stalled());
      });
      p.then(
        (v) => {
          cancel();
          resolve(v);
        },
        (e) => {
          cancel();
          reject(e);
        },
      );
    });
  };
  const stallAbort = new AbortController();
  const signal =
    opts.signal && typeof AbortSignal.any === 'function'
      ? AbortSignal.any([opts.signal, stallAbort.signal])
      : (opts.signal ?? stallAbort.signal);
  let res: Response;
  try {
    res = await watch(fetchImpl(url, { signal }), () => stallAbort.abort());
  } catch (e) {
    if (e instanceof DatasetError) throw e;
    if (isAbortError(e)) throw e;
    throw new DatasetError({
      kind: 'network',
      retryable: true,
      url,
      datasetId: opts.datasetId,
      message:
        `Could not reach ${host} to download ${what}: ${e instanceof Error ? e.message : String(e)}. ` +
        'Check the connection and try again (a browser also reports a host that refuses cross-site downloads this way).',
    });
  }
  if (!res.ok) {
    throw new DatasetError({
      kind: 'http',
      url,
      status: res.status,
      datasetId: opts.datasetId,
      retryable: res.status >= 500 || res.status === 408 || res.status === 429,
      message: `${host} answered HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''} for ${what} (${url}).`,
    });
  }
  const lengthHeader = res.headers.get('content-length');
  const encoded = (res.headers.get('content-encoding') ?? 'identity') !== 'identity';
  // A compressed body's Content-Length counts compressed bytes, not what the reader yields.
  const total =
    lengthHeader !== null && !encoded && Number.isFinite(Number(lengthHeader)) ? Number(lengthHeader) : null;

  const chunks: Uint8Array[] = [];
  let loaded = 0;
  const t0 = now();
  let lastReport = -Infinity;
  const report = (force: boolean) => {
    const t = now();
    if (!opts.onProgress || (!force && t - lastReport < throttle)) return;
    lastReport = t;
    const secs = (t - t0) / 1000;
    opts.onProgress({ loaded, total, bytesPerSecond: secs > 0 ? loaded / secs : 0 });
  };
  const cutOff = (why: string) =>
    new DatasetError({
      kind: 'truncated',
      retryable: true,
      url,
      datasetId: opts.datasetId,
      message:
        `The download of ${what} from ${host} was cut off after ${formatBytes(loaded)}` +
        `${total !== null ? ` of ${formatBytes(total)}` : ''} (${why}). Try again.`,
    });

  if (!res.body) {
    const buf = new Uint8Array(await res.arrayBuffer());
    chunks.push(buf);
    loaded = buf.length;
  } else {
    const reader = res.body.getReader();
    report(true);
    for (;;) {
      let step: ReadableStreamReadResult<Uint8Array>;
      try {
        step = await watch(reader.read(), () => {
          stallAbort.abort();
          void reader.cancel().catch(() => {});
        });
      } catch (e) {
        if (e instanceof DatasetError) throw e;
        if (isAbortError(e) || opts.signal?.aborted) throw opts.signal?.reason ?? e;
        throw cutOff(e instanceof Error ? e.message : String(e));
      }
      if (step.done) break;
      // A fetch that ignores the signal (a test double, an old polyfill) still stops here.
      if (opts.signal?.aborted) {
        void reader.cancel().catch(() => {});
        throw opts.signal.reason ?? new DOMException('The download was aborted.', 'AbortError');
      }
      chunks.push(step.value);
      loaded += step.value.length;
      received = loaded;
      report(false);
    }
  }
  if (opts.signal?.aborted)
    throw opts.signal.reason ?? new DOMException('The download was aborted.', 'AbortError');
  if (total !== null && loaded < total) throw cutOff('the connection closed early');
  report(true);
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(loaded);
  let o = 0;
  for (const c of chunks) {
    out.set(c, o);
    o += c.length;
  }
  return out;
}
