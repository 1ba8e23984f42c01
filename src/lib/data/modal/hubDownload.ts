/**
 * A Hub dataset split in the page or the CLI: each parquet file fetched whole (§4.1: no HEAD, no
 * Range) with progress, hashed, kept in a cache and pinned at its first download, then read into
 * canonical rows (loadHub.ts). A file already cached is read from there and re-hashed.
 */
import type { DownloadProgress } from '../fetch.ts';
import { loadHashedFile, type BytesCache, type DownloadFn } from '../../weights/loader.ts';
import { loadHubSplit, type LoadedHubSplit } from './loadHub.ts';
import { hubFileUrl, type HubDatasetSpec } from './hubSources.ts';

export interface HubDownloadProgress {
  /** File index (0-based) of the split, and their count. */
  file: number;
  files: number;
  path: string;
  loaded: number;
  total: number | null;
}

export interface HubDownloadOptions {
  cache?: (BytesCache & { pin?(key: string): Promise<string | null> }) | null;
  download?: DownloadFn;
  signal?: AbortSignal;
  onProgress?(p: HubDownloadProgress): void;
}

export async function downloadHubSplit(
  spec: HubDatasetSpec,
  split: string,
  o: HubDownloadOptions = {},
): Promise<LoadedHubSplit & { fromCache: boolean[] }> {
  const files = spec.splits[split]?.files ?? [];
  const fromCache: boolean[] = [];
  const read = async (path: string) => {
    const i = files.indexOf(path);
    const url = hubFileUrl(spec.repo, path);
    const pinned = (await o.cache?.pin?.(url)) ?? null;
    const loaded = await loadHashedFile({
      url,
      sha256: pinned,
      cache: o.cache,
      download: o.download,
      signal: o.signal,
      onProgress: (p: DownloadProgress) =>
        o.onProgress?.({ file: i, files: files.length, path, loaded: p.loaded, total: p.total ?? null }),
    });
    fromCache.push(loaded.from === 'cache');
    return { bytes: loaded.bytes, sha256: loaded.sha256 };
  };
  const loaded = await loadHubSplit(spec, split, read);
  return { ...loaded, fromCache };
}
