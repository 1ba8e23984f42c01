/**
 * The data worker: downloads, parses, verifies and caches datasets off the main thread
 * (covertype's parquet decode and hash take seconds). Results cross as plain records; a
 * requested Dataset comes back with its typed arrays transferred, not copied. Errors come back
 * as values (comlink would keep only an Error's message, not its kind).
 */
import { expose, transfer } from 'comlink';
import { DatasetError, type DatasetErrorInfo } from '../src/lib/data/errors.ts';
import {
  DatasetCache,
  deleteCachedDataset,
  deleteUserDataset,
  importDatasetFile,
  listCachedDatasets,
  listUserDatasets,
  loadDatasetWithReport,
  saveUserCsv,
  UserDatasetStore,
  verifyStoredDataset,
  type DatasetMeta,
  type LoadPhase,
  type LoadProgress,
  type UserDatasetMeta,
  type VerifyReport,
} from '../src/lib/data/index.ts';
import { fetchWithProgress, type DownloadProgress } from '../src/lib/data/fetch.ts';
import {
  checkUserCsvSize,
  parseUserCsv,
  UserCsvError,
  USER_CSV_MAX_BYTES,
  type UserCsvErrorInfo,
} from '../src/lib/data/userCsv.ts';
import type { Dataset } from '../src/lib/types.ts';
import { FileStore } from '../src/lib/data/fileStore.ts';
import { BankStore, type BankMeta } from '../src/lib/bank/bankStore.ts';
import {
  downloadHubDataset,
  hubStatus,
  type HubDatasetStatus,
  type HubSplitSummary,
} from '../src/lib/data/modal/hubDatasets.ts';
import type { HubDownloadProgress } from '../src/lib/data/modal/hubDownload.ts';
import { HUB_DATASETS, hubFileUrl } from '../src/lib/data/modal/hubSources.ts';

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
  origin: 'embedded' | 'cache' | 'network' | 'user';
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
  const message = aborted
    ? 'The load was cancelled.'
    : `Unexpected error: ${e instanceof Error ? e.message : String(e)}`;
  return { ok: false, aborted, error: { kind: 'network', message, retryable: true } };
}

const cache = typeof indexedDB === 'undefined' ? null : new DatasetCache();
const userStore = typeof indexedDB === 'undefined' ? null : new UserDatasetStore();
const fileStore = typeof indexedDB === 'undefined' ? null : new FileStore();
const bankStore = typeof indexedDB === 'undefined' ? null : new BankStore();

/** A user's CSV as it crosses from the page: a File (read here, off the main thread) or fetched bytes. */
export interface CsvRequest {
  source: File | Uint8Array;
  /** File name or URL, recorded with the dataset. */
  sourceName: string;
  name: string;
  labelColumn: string;
  /** Largest labels tag the dataset must support. */
  labels: number;
  /** The user confirmed replacing a stored dataset of the same id with other content. */
  replace?: boolean;
}

export interface CsvCheck {
  id: string;
  N: number;
  d: number;
  k: number;
  classNames: string[];
  classCounts: number[];
  /** Warnings that did not stop the import (e.g. label forms unified). */
  warnings: string[];
}

export type CsvOutcome<T> = { ok: true; value: T } | { ok: false; error: UserCsvErrorInfo };

function csvFailure(e: unknown): CsvOutcome<never> {
  if (e instanceof UserCsvError) return { ok: false, error: e.toInfo() };
  if (e instanceof DatasetError)
    return {
      ok: false,
      error: { problem: e.kind === 'quota' ? 'storage' : 'unexpected', message: e.message },
    };
  return {
    ok: false,
    error: {
      problem: 'unexpected',
      message: `Unexpected error: ${e instanceof Error ? e.message : String(e)}`,
    },
  };
}

async function csvText(source: File | Uint8Array): Promise<{ text: string; bytes: number }> {
  const bytes = source instanceof Uint8Array ? source.length : source.size;
  checkUserCsvSize(bytes, source instanceof Uint8Array ? 'The download' : `'${source.name}'`);
  const text = source instanceof Uint8Array ? new TextDecoder().decode(source) : await source.text();
  return { text, bytes };
}
const controllers = new Map<number, AbortController>();

const api = {
  async load(req: LoadRequest, onProgress?: (p: LoadProgress) => void): Promise<Outcome<LoadSummary>> {
    const ctl = new AbortController();
    controllers.set(req.loadId, ctl);
    const notices: DatasetErrorInfo[] = [];
    try {
      const r = await loadDatasetWithReport(req.id, {
        baseUrl: req.baseUrl,
        cache,
        signal: ctl.signal,
        onProgress,
        onCacheCorrupt: (e) => notices.push(e.toJSON()),
      });
      const ds = r.dataset;
      const value: LoadSummary = {
        id: ds.id,
        origin: r.origin,
        source: r.source,
        sha256: ds.sha256,
        N: ds.N,
        d: ds.d,
        k: ds.k,
        downloadBytes: r.downloadBytes,
        timings: r.timings,
        skipped: r.skipped.map((e) => e.toJSON()),
        notices,
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

  /** A built-in remote dataset from the user's own file, verified like a download and cached. */
  async loadFile(
    req: { id: string; file: File },
    onProgress?: (p: LoadProgress) => void,
  ): Promise<Outcome<LoadSummary>> {
    try {
      const bytes = new Uint8Array(await req.file.arrayBuffer());
      const r = await importDatasetFile(req.id, bytes, req.file.name, { cache, onProgress });
      const ds = r.dataset;
      return {
        ok: true,
        value: {
          id: ds.id,
          origin: r.origin,
          source: r.source,
          sha256: ds.sha256,
          N: ds.N,
          d: ds.d,
          k: ds.k,
          downloadBytes: r.downloadBytes,
          timings: r.timings,
          skipped: [],
          notices: [],
        },
      };
    } catch (e) {
      return failure(e);
    }
  },

  cancel(loadId: number): void {
    controllers.get(loadId)?.abort(new DOMException('The load was cancelled.', 'AbortError'));
  },

  async list(): Promise<DatasetMeta[]> {
    return listCachedDatasets(cache);
  },

  /** The Hub image and text datasets: their files and which of them this browser holds. */
  async hubStatus(): Promise<HubDatasetStatus[]> {
    return hubStatus(fileStore ? await fileStore.list() : []);
  },

  /** Downloads (or reads from the cache) every split of a Hub dataset, checks and hashes it. */
  async hubDownload(
    req: { id: string; loadId: number },
    onProgress?: (p: HubDownloadProgress & { split: string }) => void,
  ): Promise<Outcome<HubSplitSummary[]>> {
    const spec = HUB_DATASETS[req.id];
    if (!spec) return failure(new Error(`Unknown image or text dataset '${req.id}'.`));
    const ctl = new AbortController();
    controllers.set(req.loadId, ctl);
    try {
      return {
        ok: true,
        value: await downloadHubDataset(spec, { cache: fileStore, signal: ctl.signal, onProgress }),
      };
    } catch (e) {
      return failure(e);
    } finally {
      controllers.delete(req.loadId);
    }
  },

  /** Deletes every cached file of a Hub dataset. */
  async hubDelete(id: string): Promise<void> {
    const spec = HUB_DATASETS[id];
    if (!spec || !fileStore) return;
    for (const s of Object.values(spec.splits))
      for (const path of s.files) await fileStore.delete(hubFileUrl(spec.repo, path));
  },

  async bankList(): Promise<BankMeta[]> {
    return bankStore ? bankStore.list() : [];
  },

  async bankDelete(sha256: string): Promise<void> {
    await bankStore?.delete(sha256);
  },

  /** A bank file made elsewhere (the CLI on a GPU server): kept only after its header and hash check out. */
  async bankImport(file: File): Promise<Outcome<BankMeta>> {
    try {
      if (!bankStore) throw new Error('This browser has no IndexedDB: banks cannot be kept.');
      return { ok: true, value: await bankStore.put(new Uint8Array(await file.arrayBuffer())) };
    } catch (e) {
      if (e instanceof DatasetError) return failure(e);
      return {
        ok: false,
        aborted: false,
        error: { kind: 'parse', retryable: false, message: (e as Error).message },
      };
    }
  },

  async remove(id: string): Promise<void> {
    await deleteCachedDataset(id, cache);
  },

  async listUser(): Promise<UserDatasetMeta[]> {
    return listUserDatasets(userStore);
  },

  async removeUser(id: string): Promise<void> {
    await deleteUserDataset(id, userStore);
  },

  /** Hashes in full what this browser holds for the dataset; a damaged entry is removed. */
  async verify(id: string, baseUrl: string): Promise<Outcome<VerifyReport>> {
    try {
      return { ok: true, value: await verifyStoredDataset(id, { cache, userStore, baseUrl }) };
    } catch (e) {
      return failure(e);
    }
  },

  /** Parses and checks a whole CSV without storing it. */
  async checkCsv(req: CsvRequest): Promise<CsvOutcome<CsvCheck>> {
    try {
      const { text } = await csvText(req.source);
      const {
        dataset: ds,
        classCounts,
        warnings,
      } = parseUserCsv(text, { name: req.name, labelColumn: req.labelColumn, labels: req.labels });
      return {
        ok: true,
        value: { id: ds.id, N: ds.N, d: ds.d, k: ds.k, classNames: ds.classNames, classCounts, warnings },
      };
    } catch (e) {
      return csvFailure(e);
    }
  },

  /** Parses, checks, hashes and stores a CSV as user dataset 'user:<slug of name>'. */
  async importCsv(req: CsvRequest): Promise<CsvOutcome<UserDatasetMeta>> {
    try {
      const { text, bytes } = await csvText(req.source);
      const meta = await saveUserCsv(
        text,
        {
          name: req.name,
          labelColumn: req.labelColumn,
          labels: req.labels,
          source: req.sourceName,
          fileBytes: bytes,
          replace: req.replace === true,
        },
        userStore,
      );
      return { ok: true, value: meta };
    } catch (e) {
      return csvFailure(e);
    }
  },

  /** Downloads a CSV (stops as soon as it is known to be over the size limit); bytes come back transferred. */
  async fetchCsv(
    url: string,
    loadId: number,
    onProgress?: (p: DownloadProgress) => void,
  ): Promise<Outcome<Uint8Array>> {
    const ctl = new AbortController();
    controllers.set(loadId, ctl);
    let tooBig: number | null = null;
    try {
      const bytes = await fetchWithProgress(url, {
        signal: ctl.signal,
        onProgress: (p) => {
          onProgress?.(p);
          const size = Math.max(p.loaded, p.total ?? 0);
          if (size > USER_CSV_MAX_BYTES && tooBig === null) {
            tooBig = size;
            ctl.abort(new DOMException('over the size limit', 'AbortError'));
          }
        },
      });
      checkUserCsvSize(bytes.length, 'The download');
      return transfer({ ok: true, value: bytes }, [bytes.buffer]);
    } catch (e) {
      if (tooBig !== null) {
        try {
          checkUserCsvSize(tooBig, `The file at ${url}`);
        } catch (big) {
          return failure(
            new DatasetError({ kind: 'quota', retryable: false, url, message: (big as Error).message }),
          );
        }
      }
      return failure(e);
    } finally {
      controllers.delete(loadId);
    }
  },
};

export type DataWorkerApi = typeof api;

expose(api);
