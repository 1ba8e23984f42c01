/**
 * loadDataset: the one way to get a built-in dataset, in the page, a worker or Node.
 * Embedded (iris, wine): the site's own CSV. Remote (letter, covertype): the IndexedDB cache when
 * it holds a sound copy (no network at all), else each registry source in order until one gives
 * the registered content, which is then cached.
 */
import type { BuiltinDatasetId, Dataset } from '../types.ts';
import { DatasetCache, type DatasetMeta } from './cache.ts';
import { DatasetError, isAbortError, isDatasetError } from './errors.ts';
import { fetchWithProgress } from './fetch.ts';
import { parseBytes, type SourceFormat } from './parse.ts';
import { DATASETS, isBuiltinDatasetId, type DatasetInfo, type DatasetSource } from './registry.ts';
import { hashAndVerify, toCanonical, type DatasetSpec } from './verify.ts';

export { DatasetError, type DatasetErrorInfo, type DatasetErrorKind } from './errors.ts';
export { DatasetCache, type DatasetMeta } from './cache.ts';
export { fetchWithProgress, type DownloadProgress } from './fetch.ts';
export type { SourceFormat } from './parse.ts';
export type { DatasetSpec } from './verify.ts';

export type LoadPhase = 'download' | 'parse' | 'verify' | 'cache';

export interface LoadProgress {
  id: string;
  phase: LoadPhase;
  /** Host being downloaded from (phase 'download'). */
  source?: string;
  loaded?: number;
  total?: number | null;
  bytesPerSecond?: number;
}

export interface LoadOptions {
  onProgress?: (p: LoadProgress) => void;
  signal?: AbortSignal;
  /** The cache to read and fill; null for none. Default: a DatasetCache where IndexedDB exists. */
  cache?: DatasetCache | null;
  fetchImpl?: typeof fetch;
  /** Site base URL that embedded paths resolve against. Default: the current location. */
  baseUrl?: string;
  /** Told when the cache held a damaged copy (it was dropped and the dataset re-fetched). */
  onCacheCorrupt?: (e: DatasetError) => void;
  /** Test-only: override parts of the registry entry (shape, sources, hash). */
  override?: Partial<DatasetInfo>;
  /** Milliseconds since the epoch, stamped on cache entries. Default Date.now. */
  clock?: () => number;
  /** Monotonic ms for timings. Default performance.now. */
  now?: () => number;
}

export interface LoadReport {
  dataset: Dataset;
  origin: 'embedded' | 'cache' | 'network';
  /** URL the bytes came from ('indexeddb' for a cache hit). */
  source: string;
  downloadBytes: number;
  /** Milliseconds per phase (download, parse = parse + label encoding + shape checks, verify = hash, cache = write or read). */
  timings: Record<LoadPhase, number>;
  /** Errors from sources tried before the one that worked. */
  skipped: DatasetError[];
}

function defaultCache(): DatasetCache | null {
  return typeof globalThis.indexedDB === 'undefined' ? null : new DatasetCache();
}

function specOf(id: BuiltinDatasetId, override?: Partial<DatasetInfo>): DatasetInfo {
  return { ...DATASETS[id], ...override };
}

/** Bytes of one source to a verified Dataset. */
async function fromBytes(spec: DatasetSpec, bytes: Uint8Array, format: SourceFormat, source: string | undefined,
  phase: (p: LoadPhase) => void, timings: Record<LoadPhase, number>, now: () => number): Promise<Dataset> {
  phase('parse');
  let t = now();
  const raw = await parseBytes(spec.id, bytes, format, spec.labelColumn);
  const canonical = toCanonical(spec, raw);
  timings.parse = now() - t;
  phase('verify');
  t = now();
  const ds = await hashAndVerify(spec, canonical, source);
  timings.verify = now() - t;
  return ds;
}

/** Parses and verifies a file given as bytes (the CLI's --data-dir). No network, no cache. */
export async function loadDatasetFromBytes(id: string, bytes: Uint8Array, format: SourceFormat,
  override?: Partial<DatasetInfo>): Promise<Dataset> {
  assertKnown(id);
  const timings = { download: 0, parse: 0, verify: 0, cache: 0 };
  return fromBytes(specOf(id, override), bytes, format, undefined, () => {}, timings, () => 0);
}

/** Picks the error to show after every source failed: the first that says more than 'network'. */
function finalError(id: string, errors: DatasetError[]): DatasetError {
  const main = errors.find((e) => e.kind !== 'network') ?? errors[errors.length - 1];
  if (errors.length === 1) return main;
  const others = errors.filter((e) => e !== main).map((e) => e.message).join(' ');
  return new DatasetError({
    kind: main.kind, datasetId: id, url: main.url, status: main.status,
    retryable: errors.some((e) => e.retryable),
    message: `${main.message} Other sources failed too: ${others}`,
  });
}

function assertKnown(id: string): asserts id is BuiltinDatasetId {
  if (!isBuiltinDatasetId(id)) {
    throw new DatasetError({ kind: 'shape', retryable: false, datasetId: id, message: `Unknown dataset '${id}'; expected one of ${Object.keys(DATASETS).join(', ')}.` });
  }
}

export async function loadDatasetWithReport(id: string, opts: LoadOptions = {}): Promise<LoadReport> {
  assertKnown(id);
  const info = specOf(id, opts.override);
  const now = opts.now ?? (() => performance.now());
  const timings: Record<LoadPhase, number> = { download: 0, parse: 0, verify: 0, cache: 0 };
  const phase = (p: LoadPhase, extra: Partial<LoadProgress> = {}) => opts.onProgress?.({ id, phase: p, ...extra });
  const throwIfAborted = () => {
    if (opts.signal?.aborted) throw opts.signal.reason ?? new DOMException('The load was aborted.', 'AbortError');
  };

  if (info.embedded) {
    const base = opts.baseUrl ?? globalThis.location?.href;
    if (!base) throw new Error(`loadDataset('${id}'): baseUrl is required outside a browser (the site's base URL).`);
    const url = new URL(info.embeddedPath ?? `data/${id}.csv`, base).href;
    phase('download', { source: url });
    let t = now();
    const bytes = await fetchWithProgress(url, { signal: opts.signal, fetchImpl: opts.fetchImpl, datasetId: id,
      onProgress: (p) => phase('download', { source: url, ...p }) });
    timings.download = now() - t;
    const dataset = await fromBytes(info, bytes, 'csv', url, phase, timings, now);
    return { dataset, origin: 'embedded', source: url, downloadBytes: bytes.length, timings, skipped: [] };
  }

  const cache = opts.cache === undefined ? defaultCache() : opts.cache;
  if (cache) {
    phase('cache');
    const t = now();
    const hit = await cache.get(id, opts.onCacheCorrupt);
    timings.cache = now() - t;
    // A cached copy of an unpinned dataset counts only if the caller did not ask for other content.
    if (hit && (info.sha256 === null || hit.sha256 === info.sha256)) {
      const { meta, ...dataset } = hit;
      return { dataset, origin: 'cache', source: 'indexeddb', downloadBytes: meta.downloadBytes, timings, skipped: [] };
    }
  }

  const errors: DatasetError[] = [];
  for (const src of info.sources as DatasetSource[]) {
    throwIfAborted();
    try {
      phase('download', { source: src.url });
      const t = now();
      const bytes = await fetchWithProgress(src.url, { signal: opts.signal, fetchImpl: opts.fetchImpl, datasetId: id, now,
        onProgress: (p) => phase('download', { source: src.url, ...p }) });
      timings.download = now() - t;
      throwIfAborted();
      const dataset = await fromBytes(info, bytes, src.format, src.url, phase, timings, now);
      throwIfAborted();
      if (cache) {
        phase('cache');
        const tc = now();
        await cache.put(dataset, { source: src.url, downloadBytes: bytes.length, fetchedAt: (opts.clock ?? Date.now)() });
        timings.cache = now() - tc;
      }
      return { dataset, origin: 'network', source: src.url, downloadBytes: bytes.length, timings, skipped: errors };
    } catch (e) {
      if (isAbortError(e)) throw e;
      // A full disk is not the host's fault: another host would not help.
      if (!isDatasetError(e) || e.kind === 'quota') throw e;
      errors.push(e);
    }
  }
  if (errors.length === 0) {
    throw new DatasetError({ kind: 'network', retryable: false, datasetId: id, message: `Dataset '${id}' has no download source.` });
  }
  throw finalError(id, errors);
}

export async function loadDataset(id: string, opts: LoadOptions = {}): Promise<Dataset> {
  return (await loadDatasetWithReport(id, opts)).dataset;
}

export async function listCachedDatasets(cache: DatasetCache | null = defaultCache()): Promise<DatasetMeta[]> {
  return cache ? cache.list() : [];
}

export async function deleteCachedDataset(id: string, cache: DatasetCache | null = defaultCache()): Promise<void> {
  await cache?.delete(id);
}
