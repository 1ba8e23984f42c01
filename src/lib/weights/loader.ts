/**
 * Streamed, hashed, cached loading of weight and tokenizer files (PROTOCOL-IMAGE-TEXT.md §4.5):
 * download `https://huggingface.co/{repo}/resolve/main/{file}` with progress (data/fetch.ts), take
 * the SHA-256 of the bytes, insist on it where it is pinned, and keep the bytes in a cache so the
 * next run does not download half a gigabyte again. A cached copy is re-hashed on every read: a
 * corrupt or stale entry is dropped and downloaded afresh, never used.
 *
 * The cache is an interface: memoryBytesCache() for tests and one process, cacheStorageBytesCache()
 * for the browser's Cache Storage; the CLI may give its own on disk.
 */
import { DatasetError } from '../data/errors.ts';
import { fetchWithProgress, type DownloadProgress } from '../data/fetch.ts';
import { sha256Hex } from './hash.ts';
import { parseSafetensors, type SafetensorsFile } from './safetensors.ts';
import { createTokenizer, parseJsonFile, type TextTokenizer, type TokenizerOptions } from './tokenizer.ts';

/** Where file bytes are kept between runs, by key (the URL). */
export interface BytesCache {
  get(key: string): Promise<Uint8Array | null>;
  /** `sha256`: the bytes' hash, already taken by the loader, for a cache that records it. */
  put(key: string, bytes: Uint8Array, sha256?: string): Promise<void>;
  delete(key: string): Promise<void>;
}

export type DownloadFn = (
  url: string,
  opts: { signal?: AbortSignal; onProgress?: (p: DownloadProgress) => void },
) => Promise<Uint8Array>;

export interface LoadFileOptions {
  url: string;
  /** Pinned SHA-256 (lower-case hex): the bytes must have it. Absent or null: computed and returned, to be pinned by the caller. */
  sha256?: string | null;
  cache?: BytesCache | null;
  /** The download; default fetchWithProgress (streamed, with progress and stall detection). */
  download?: DownloadFn;
  signal?: AbortSignal;
  onProgress?: (p: DownloadProgress) => void;
}

export interface LoadedFile {
  url: string;
  bytes: Uint8Array;
  sha256: string;
  from: 'cache' | 'network';
  /** Why the bytes could not be cached (a full quota, say); the load itself succeeded. */
  cacheError: string | null;
}

/** The file's bytes from the cache or the network, with their SHA-256 checked against the pin. */
export async function loadHashedFile(opts: LoadFileOptions): Promise<LoadedFile> {
  const { url, cache } = opts;
  const pinned = opts.sha256 ?? null;
  if (cache) {
    const hit = await cache.get(url);
    if (hit) {
      const sha256 = await sha256Hex(hit);
      if (pinned === null || sha256 === pinned) {
        return { url, bytes: hit, sha256, from: 'cache', cacheError: null };
      }
      await cache.delete(url); // stale or corrupt: fetch again
    }
  }
  const download =
    opts.download ??
    ((u: string, o: { signal?: AbortSignal; onProgress?: (p: DownloadProgress) => void }) =>
      fetchWithProgress(u, o));
  const bytes = await download(url, { signal: opts.signal, onProgress: opts.onProgress });
  const sha256 = await sha256Hex(bytes);
  if (pinned !== null && sha256 !== pinned) {
    throw new DatasetError({
      kind: 'hash',
      retryable: false,
      url,
      message:
        `${url} has SHA-256 ${sha256.slice(0, 12)}…, expected ${pinned.slice(0, 12)}… ` +
        '(the file changed upstream, or the download is corrupt). It was not used or cached.',
    });
  }
  let cacheError: string | null = null;
  if (cache) {
    try {
      await cache.put(url, bytes, sha256);
    } catch (e) {
      cacheError = e instanceof Error ? e.message : String(e);
    }
  }
  return { url, bytes, sha256, from: 'network', cacheError };
}

/** A `.safetensors` file, loaded as loadHashedFile does and parsed (views on the loaded bytes). */
export async function loadSafetensors(
  opts: LoadFileOptions,
): Promise<{ file: SafetensorsFile } & Omit<LoadedFile, 'bytes'>> {
  const { bytes, ...rest } = await loadHashedFile(opts);
  return { file: parseSafetensors(bytes), ...rest };
}

export interface LoadTokenizerOptions extends Omit<LoadFileOptions, 'url' | 'sha256'> {
  /** tokenizer.json */
  url: string;
  sha256?: string | null;
  /** tokenizer_config.json, where the repository has one. */
  configUrl?: string | null;
  configSha256?: string | null;
  tokenizer?: TokenizerOptions;
}

/** tokenizer.json (+ tokenizer_config.json), hashed and cached; `sha256` is tokenizer.json's (`tokenizer_sha256`). */
export async function loadTokenizer(
  opts: LoadTokenizerOptions,
): Promise<{ tokenizer: TextTokenizer; sha256: string; configSha256: string | null }> {
  const main = await loadHashedFile(opts);
  const config = opts.configUrl
    ? await loadHashedFile({ ...opts, url: opts.configUrl, sha256: opts.configSha256 ?? null })
    : null;
  const tokenizer = createTokenizer(
    parseJsonFile(main.bytes, opts.url),
    config ? parseJsonFile(config.bytes, config.url) : {},
    opts.tokenizer,
  );
  return { tokenizer, sha256: main.sha256, configSha256: config?.sha256 ?? null };
}

/** A cache in memory (tests; one process). */
export function memoryBytesCache(): BytesCache & { readonly size: number } {
  const map = new Map<string, Uint8Array>();
  return {
    get size() {
      return map.size;
    },
    get: async (key) => map.get(key) ?? null,
    put: async (key, bytes) => {
      map.set(key, bytes);
    },
    delete: async (key) => {
      map.delete(key);
    },
  };
}

/**
 * The browser's Cache Storage (window or worker; `caches`), one named cache. Entries are stored
 * as responses keyed by URL; the bytes are re-hashed on read by loadHashedFile, so no checksum is
 * kept here.
 */
export function cacheStorageBytesCache(
  name = 'rac-bench-weights',
  storage: CacheStorage = globalThis.caches,
): BytesCache {
  if (!storage) throw new Error('cacheStorageBytesCache: this environment has no Cache Storage (caches).');
  const open = () => storage.open(name);
  return {
    get: async (key) => {
      const res = await (await open()).match(key);
      return res ? new Uint8Array(await res.arrayBuffer()) : null;
    },
    put: async (key, bytes) => {
      const body = bytes as Uint8Array<ArrayBuffer>;
      await (
        await open()
      ).put(key, new Response(body, { headers: { 'content-type': 'application/octet-stream' } }));
    },
    delete: async (key) => {
      await (await open()).delete(key);
    },
  };
}
