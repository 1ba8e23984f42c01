/**
 * The data worker: downloads, parses, verifies and caches datasets off the main thread
 * (covertype's parquet decode and hash take seconds). Results cross as plain records; a
 * requested Dataset comes back with its typed arrays transferred, not copied. Errors come back
 * as values (comlink would keep only an Error's message, not its kind).
 */
import { expose, transfer } from 'comlink';
import { DatasetError, type DatasetErrorInfo } from '../src/lib/data/errors.ts';
import { DatasetCache, deleteCachedDataset, listCachedDatasets, loadDatasetWithReport, type DatasetMeta, type LoadPhase, type LoadProgress } from '../src/lib/data/index.ts';
import type { Dataset } from '../src/lib/types.ts';

export interface LoadRequest {
  id: string;
  /** Each load has its own id, for cancel(). */
  loadId: number;
  /** The page's base URL (document.baseURI): embedded files resolve against it, not the worker's URL. */
  baseUrl: string;
  /** Send the Dataset itself back (transferred); otherwise only the summary. */
  withData?: boolean;
}

export interface LoadSummary {
  id: string;
  origin: 'embedded' | 'cache' | 'network';
  source: string;
  sha256: string;
  N: number;
  d: number;
  k: number;
  downloadBytes: number;
  timings: Record<LoadPhase, number>;
  /** Sources that failed before one worked. */
  skipped: DatasetErrorInfo[];
  /** For example a damaged cache entry that was dropped and re-fetched. */
  notices: DatasetErrorInfo[];
  dataset?: Dataset;
}

export type Outcome<T> = { ok: true; value: T } | { ok: false; aborted: boolean; error: DatasetErrorInfo };

function failure(e: unknown): Outcome<never> {
  if (e instanceof DatasetError) return { ok: false, aborted: false, error: e.toJSON() };
  const aborted = (e as { name?: string } | null)?.name === 'AbortError';
  const message = aborted ? 'The load was cancelled.' : `Unexpected error: ${e instanceof Error ? e.message : String(e)}`;
  return { ok: false, aborted, error: { kind: 'network', message, retryable: true } };
}

const cache = typeof indexedDB === 'undefined' ? null : new DatasetCache();
const controllers = new Map<number, AbortController>();

const api = {
  async load(req: LoadRequest, onProgress?: (p: LoadProgress) => void): Promise<Outcome<LoadSummary>> {
    const ctl = new AbortController();
    controllers.set(req.loadId, ctl);
    const notices: DatasetErrorInfo[] = [];
    try {
      const r = await loadDatasetWithReport(req.id, {
        baseUrl: req.baseUrl, cache, signal: ctl.signal, onProgress,
        onCacheCorrupt: (e) => notices.push(e.toJSON()),
      });
      const ds = r.dataset;
      const value: LoadSummary = {
        id: ds.id, origin: r.origin, source: r.source, sha256: ds.sha256, N: ds.N, d: ds.d, k: ds.k,
        downloadBytes: r.downloadBytes, timings: r.timings, skipped: r.skipped.map((e) => e.toJSON()), notices,
      };
      if (!req.withData) return { ok: true, value };
      value.dataset = ds;
      return transfer({ ok: true, value }, [ds.X.buffer, ds.y.buffer]);
    } catch (e) {
      return failure(e);
    } finally {
      controllers.delete(req.loadId);
    }
  },

  cancel(loadId: number): void {
    controllers.get(loadId)?.abort(new DOMException('The load was cancelled.', 'AbortError'));
  },

  async list(): Promise<DatasetMeta[]> {
    return listCachedDatasets(cache);
  },

  async remove(id: string): Promise<void> {
    await deleteCachedDataset(id, cache);
  },
};

export type DataWorkerApi = typeof api;

expose(api);
