/* eslint-disable no-restricted-properties -- the I/O edge of the core: download timings and cache
   timestamps use the wall clock by default (callers may pass their own); no result depends on them. */
/**
 * loadDataset: the one way to get a dataset, in the page, a worker or Node.
 * Embedded (iris, wine): the site's own CSV. Remote (letter, covertype): the IndexedDB cache when
 * it holds a sound copy (no network at all), else each registry source in order until one gives
 * the registered content, which is then cached. User datasets ('user:<slug>', imported from a
 * CSV): the user store in IndexedDB only (userStore.ts), never the network.
 */
import type { BuiltinDatasetId, Dataset } from '../types.ts';
import { DatasetCache, type DatasetMeta } from './cache.ts';
import { DatasetError, isAbortError, isDatasetError } from './errors.ts';
import { fetchWithProgress } from './fetch.ts';
import { parseBytes, type SourceFormat } from './parse.ts';
import { DATASETS, isBuiltinDatasetId, type DatasetInfo, type DatasetSource } from './registry.ts';
import { hashAndVerify, toCanonical, type DatasetSpec } from './verify.ts';
import { canonicalSha256 } from './canonical.ts';
import { buildUserDataset, isUserDatasetId, UserCsvError, type UserCsvOptions } from './userCsv.ts';
import { UserDatasetExistsError, UserDatasetStore, type UserDatasetMeta } from './userStore.ts';

export { DatasetError, type DatasetErrorInfo, type DatasetErrorKind } from './errors.ts';
export { DatasetCache, type DatasetMeta } from './cache.ts';
export { fetchWithProgress, type DownloadProgress } from './fetch.ts';
export type { SourceFormat } from './parse.ts';
export type { DatasetSpec } from './verify.ts';
export { UserDatasetStore, type UserDatasetMeta } from './userStore.ts';
export {
  isUserDatasetId,
  userDatasetId,
  UserCsvError,
  USER_CSV_MAX_BYTES,
  type UserCsvErrorInfo,
} from './userCsv.ts';

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
  /** Where 'user:*' datasets live. Default: a UserDatasetStore where IndexedDB exists. */
  userStore?: UserDatasetStore | null;
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
  origin: 'embedded' | 'cache' | 'network' | 'user';
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

function defaultUserStore(): UserDatasetStore | null {
  return typeof globalThis.indexedDB === 'undefined' ? null : new UserDatasetStore();
}

function specOf(id: BuiltinDatasetId, override?: Partial<DatasetInfo>): DatasetInfo {
  return { ...DATASETS[id], ...override };
}

/** Bytes of one source to a verified Dataset. */
async function fromBytes(
  spec: DatasetSpec,
  bytes: Uint8Array,
  format: SourceFormat,
  source: string | undefined,
  phase: (p: LoadPhase) => void,
  timings: Record<LoadPhase, number>,
  now: () => number,
): Promise<Dataset> {
  phase('parse');
  let t = now();
  const raw = await parseBytes(spec.id, bytes, format, spec.labelColumn, { N: spec.N, d: spec.d });
  const canonical = toCanonical(spec, raw);
  timings.parse = now() - t;
  phase('verify');
  t = now();
  const ds = await hashAndVerify(spec, canonical, source);
  timings.verify = now() - t;
  return ds;
}

/** Parses and verifies a file given as bytes (the CLI's --data-dir). No network, no cache. */
export async function loadDatasetFromBytes(
  id: string,
  bytes: Uint8Array,
  format: SourceFormat,
  override?: Partial<DatasetInfo>,
): Promise<Dataset> {
  assertKnown(id);
  const timings = { download: 0, parse: 0, verify: 0, cache: 0 };
  return fromBytes(
    specOf(id, override),
    bytes,
    format,
    undefined,
    () => {},
    timings,
    () => 0,
  );
}

/** Picks the error to show after every source failed: the first that says more than 'network'. */
function finalError(id: string, errors: DatasetError[]): DatasetError {
  const main = errors.find((e) => e.kind !== 'network') ?? errors[errors.length - 1];
  if (errors.length === 1) return main;
  // Offline (every host unreachable): one short sentence, not each host's two.
  if (errors.every((e) => e.kind === 'network')) {
    const hosts = errors.map((e) => (e.url ? new URL(e.url).host : '?'));
    return new DatasetError({
      kind: 'network',
      datasetId: id,
      url: main.url,
      retryable: true,
      message: `Could not reach ${hosts.join(' or ')} to download '${id}' (offline?).`,
    });
  }
  const others = errors
    .filter((e) => e !== main)
    .map((e) => e.message)
    .join(' ');
  return new DatasetError({
    kind: main.kind,
    datasetId: id,
    url: main.url,
    status: main.status,
    retryable: errors.some((e) => e.retryable),
    message: `${main.message} Other sources failed too: ${others}`,
  });
}

function assertKnown(id: string): asserts id is BuiltinDatasetId {
  if (!isBuiltinDatasetId(id)) {
    throw new DatasetError({
      kind: 'shape',
      retryable: false,
      datasetId: id,
      message: `Unknown dataset '${id}'; expected one of ${Object.keys(DATASETS).join(', ')}.`,
    });
  }
}

/** A user dataset from the user store: no network; absent or damaged is an error that says what to do. */
async function loadUserDataset(id: string, opts: LoadOptions): Promise<LoadReport> {
  const store = opts.userStore === undefined ? defaultUserStore() : opts.userStore;
  if (!store) {
    throw new DatasetError({
      kind: 'shape',
      retryable: false,
      datasetId: id,
      message: `Dataset '${id}' is a user dataset; those live in the browser's IndexedDB, which is not available here.`,
    });
  }
  const now = opts.now ?? (() => performance.now());
  const timings: Record<LoadPhase, number> = { download: 0, parse: 0, verify: 0, cache: 0 };
  opts.onProgress?.({ id, phase: 'cache' });
  const t = now();
  let damaged: DatasetError | null = null;
  const hit = await store.get(id, (e) => (damaged = e));
  timings.cache = now() - t;
  if (damaged) throw damaged;
  if (!hit) {
    throw new DatasetError({
      kind: 'shape',
      retryable: false,
      datasetId: id,
      message: `There is no user dataset '${id}' in this browser. Import its CSV on the Data page (user datasets stay in the browser that imported them).`,
    });
  }
  const { meta, ...dataset } = hit;
  return { dataset, origin: 'user', source: meta.source, downloadBytes: 0, timings, skipped: [] };
}

export async function loadDatasetWithReport(id: string, opts: LoadOptions = {}): Promise<LoadReport> {
  if (isUserDatasetId(id)) return loadUserDataset(id, opts);
  assertKnown(id);
  const info = specOf(id, opts.override);
  const now = opts.now ?? (() => performance.now());
  const timings: Record<LoadPhase, number> = { download: 0, parse: 0, verify: 0, cache: 0 };
  const phase = (p: LoadPhase, extra: Partial<LoadProgress> = {}) =>
    opts.onProgress?.({ id, phase: p, ...extra });
  const throwIfAborted = () => {
    if (opts.signal?.aborted)
      throw opts.signal.reason ?? new DOMException('The load was aborted.', 'AbortError');
  };

  if (info.embedded) {
    const base = opts.baseUrl ?? globalThis.location?.href;
    if (!base)
      throw new Error(`loadDataset('${id}'): baseUrl is required outside a browser (the site's base URL).`);
    const url = new URL(info.embeddedPath ?? `data/${id}.csv`, base).href;
    phase('download', { source: url });
    const t = now();
    const bytes = await fetchWithProgress(url, {
      signal: opts.signal,
      fetchImpl: opts.fetchImpl,
      datasetId: id,
      onProgress: (p) => phase('download', { source: url, ...p }),
    });
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
      return {
        dataset,
        origin: 'cache',
        source: 'indexeddb',
        downloadBytes: meta.downloadBytes,
        timings,
        skipped: [],
      };
    }
  }

  const errors: DatasetError[] = [];
  for (const src of info.sources as DatasetSource[]) {
    throwIfAborted();
    try {
      phase('download', { source: src.url });
      const t = now();
      const bytes = await fetchWithProgress(src.url, {
        signal: opts.signal,
        fetchImpl: opts.fetchImpl,
        datasetId: id,
        now,
        onProgress: (p) => phase('download', { source: src.url, ...p }),
      });
      timings.download = now() - t;
      throwIfAborted();
      const dataset = await fromBytes(info, bytes, src.format, src.url, phase, timings, now);
      throwIfAborted();
      if (cache) {
        phase('cache');
        const tc = now();
        await cache.put(dataset, {
          source: src.url,
          downloadBytes: bytes.length,
          fetchedAt: (opts.clock ?? Date.now)(),
        });
        timings.cache = now() - tc;
      }
      return {
        dataset,
        origin: 'network',
        source: src.url,
        downloadBytes: bytes.length,
        timings,
        skipped: errors,
      };
    } catch (e) {
      if (isAbortError(e)) throw e;
      // A full disk is not the host's fault: another host would not help.
      if (!isDatasetError(e) || e.kind === 'quota') throw e;
      errors.push(e);
    }
  }
  if (errors.length === 0) {
    throw new DatasetError({
      kind: 'network',
      retryable: false,
      datasetId: id,
      message: `Dataset '${id}' has no download source.`,
    });
  }
  throw finalError(id, errors);
}

/**
 * A built-in remote dataset from a file the user gives (the browser's --data-dir): parsed and
 * verified against the registry (pinned SHA-256, or shape and class counts) exactly like a
 * download, then stored in the same cache. Throws DatasetError (wrong content, unknown format).
 */
export async function importDatasetFile(
  id: string,
  bytes: Uint8Array,
  fileName: string,
  opts: Pick<LoadOptions, 'cache' | 'clock' | 'now' | 'onProgress'> = {},
): Promise<LoadReport> {
  assertKnown(id);
  const info = DATASETS[id];
  const format: SourceFormat | null = /\.(pq|parquet)$/i.test(fileName)
    ? 'parquet'
    : /\.csv$/i.test(fileName)
      ? 'csv'
      : null;
  if (!format) {
    throw new DatasetError({
      kind: 'parse',
      retryable: false,
      datasetId: id,
      message: `'${fileName}' is neither a parquet file (.pq, .parquet) nor a CSV (.csv); give ${id}.pq from OpenML or a canonical ${id}.csv.`,
    });
  }
  const now = opts.now ?? (() => performance.now());
  const timings: Record<LoadPhase, number> = { download: 0, parse: 0, verify: 0, cache: 0 };
  const source = `file:${fileName}`;
  const dataset = await fromBytes(
    info,
    bytes,
    format,
    source,
    (p) => opts.onProgress?.({ id, phase: p }),
    timings,
    now,
  );
  const cache = opts.cache === undefined ? defaultCache() : opts.cache;
  if (cache) {
    opts.onProgress?.({ id, phase: 'cache' });
    const t = now();
    await cache.put(dataset, { source, downloadBytes: bytes.length, fetchedAt: (opts.clock ?? Date.now)() });
    timings.cache = now() - t;
  }
  return { dataset, origin: 'network', source, downloadBytes: bytes.length, timings, skipped: [] };
}

/** Bytes a dataset takes in the cache once stored (float32 features, int32 labels, as cache.ts stores them): what a download costs in space. */
export function expectedStoredBytes(id: string): number | null {
  if (!isBuiltinDatasetId(id)) return null;
  const { N, d } = DATASETS[id];
  return N * d * 4 + N * 4;
}

export async function loadDataset(id: string, opts: LoadOptions = {}): Promise<Dataset> {
  return (await loadDatasetWithReport(id, opts)).dataset;
}

export async function listCachedDatasets(
  cache: DatasetCache | null = defaultCache(),
): Promise<DatasetMeta[]> {
  return cache ? cache.list() : [];
}

export async function deleteCachedDataset(
  id: string,
  cache: DatasetCache | null = defaultCache(),
): Promise<void> {
  await cache?.delete(id);
}

/** The user datasets stored in this browser (summaries only). */
export async function listUserDatasets(
  store: UserDatasetStore | null = defaultUserStore(),
): Promise<UserDatasetMeta[]> {
  return store ? store.list() : [];
}

export async function deleteUserDataset(
  id: string,
  store: UserDatasetStore | null = defaultUserStore(),
): Promise<void> {
  await store?.delete(id);
}

/**
 * Parses, checks, hashes and stores a user's CSV under userDatasetId(opts.name). A dataset of the
 * same id with other content is replaced only with `replace: true`; otherwise UserCsvError
 * 'exists' (carrying the stored entry). Throws UserCsvError (what is wrong, with row and column)
 * or DatasetError 'quota'.
 */
export async function saveUserCsv(
  text: string,
  opts: UserCsvOptions & { source: string; fileBytes: number; clock?: () => number; replace?: boolean },
  store: UserDatasetStore | null = defaultUserStore(),
): Promise<UserDatasetMeta> {
  const built = await buildUserDataset(text, opts);
  if (!store) throw new Error('saveUserCsv: no IndexedDB here to store the dataset in.');
  try {
    return await store.put(
      built.dataset,
      {
        name: opts.name,
        labelColumn: built.labelColumn,
        classCounts: built.classCounts,
        labels: built.labels,
        source: opts.source,
        fileBytes: opts.fileBytes,
        createdAt: (opts.clock ?? Date.now)(),
      },
      { replace: opts.replace },
    );
  } catch (e) {
    if (!(e instanceof UserDatasetExistsError)) throw e;
    const { id, name, sha256, N, d, createdAt } = e.existing;
    throw new UserCsvError('exists', e.message, {
      existing: { id, name, sha256, N, d, createdAt, newSha256: built.dataset.sha256 },
    });
  }
}

export interface VerifyReport {
  id: string;
  /** ok: sound; dropped: damaged, removed; absent: nothing stored; mismatch: the embedded file is not the pinned content. */
  status: 'ok' | 'dropped' | 'absent' | 'mismatch';
  /** SHA-256 just computed (status ok). */
  sha256?: string;
  message: string;
}

/**
 * Re-verifies what this browser holds for a dataset by hashing it in full: the cached download,
 * the stored user dataset, or the site's embedded file. A damaged entry is removed.
 */
export async function verifyStoredDataset(
  id: string,
  opts: Pick<LoadOptions, 'cache' | 'userStore' | 'baseUrl' | 'fetchImpl'> = {},
): Promise<VerifyReport> {
  if (isUserDatasetId(id)) {
    try {
      const r = await loadUserDataset(id, { userStore: opts.userStore });
      return {
        id,
        status: 'ok',
        sha256: r.dataset.sha256,
        message: `OK: SHA-256 ${r.dataset.sha256.slice(0, 12)}… matches the recorded hash.`,
      };
    } catch (e) {
      if (!isDatasetError(e)) throw e;
      return { id, status: e.kind === 'corrupt-cache' ? 'dropped' : 'absent', message: e.message };
    }
  }
  assertKnown(id);
  const info = DATASETS[id];
  if (info.embedded) {
    try {
      const r = await loadDatasetWithReport(id, {
        cache: null,
        baseUrl: opts.baseUrl,
        fetchImpl: opts.fetchImpl,
      });
      return {
        id,
        status: 'ok',
        sha256: r.dataset.sha256,
        message: `OK: SHA-256 ${r.dataset.sha256.slice(0, 12)}… matches the pinned hash.`,
      };
    } catch (e) {
      if (!isDatasetError(e)) throw e;
      return { id, status: 'mismatch', message: e.message };
    }
  }
  const cache = opts.cache === undefined ? defaultCache() : opts.cache;
  let damaged: DatasetError | null = null;
  const hit = cache ? await cache.get(id, (e) => (damaged = e)) : null;
  if (damaged) return { id, status: 'dropped', message: (damaged as DatasetError).message };
  if (!hit || !cache)
    return {
      id,
      status: 'absent',
      message: `Dataset '${id}' is not cached in this browser; download it first.`,
    };
  // cache.get re-hashes entries up to FULL_REHASH_MAX_VALUES only; a re-verify always hashes in full.
  const sha256 = await canonicalSha256(hit);
  if (sha256 !== hit.meta.sha256) {
    await cache.delete(id);
    return {
      id,
      status: 'dropped',
      message: `The cached copy of dataset '${id}' is damaged (content hash mismatch); it was removed and will be downloaded again.`,
    };
  }
  const against = info.sha256 === null ? 'the hash recorded at download' : 'the pinned hash';
  return { id, status: 'ok', sha256, message: `OK: SHA-256 ${sha256.slice(0, 12)}… matches ${against}.` };
}
