/**
 * The Data page's view of the Hub datasets: what each split's files are, which are in this
 * browser (with the size and SHA-256 recorded at their first download), and a whole dataset's
 * download: every split fetched and checked, its canonical content hashed (§4.4: decoded pixels
 * for images, UTF-8 for texts) so the page can show what a result over it will record.
 */
import type { FileMeta } from '../fileStore.ts';
import { imageContentHash, textContentHash } from './contentHash.ts';
import { downloadHubSplit, type HubDownloadOptions, type HubDownloadProgress } from './hubDownload.ts';
import { HUB_DATASETS, hubFileUrl, type HubDatasetSpec } from './hubSources.ts';
import { decodePngRgb } from './png.ts';

export interface HubFileStatus {
  path: string;
  url: string;
  cached: boolean;
  bytes: number | null;
  sha256: string | null;
}

export interface HubDatasetStatus {
  id: string;
  title: string;
  modality: HubDatasetSpec['modality'];
  k: number;
  licence: string;
  splits: { split: string; rows: number; files: HubFileStatus[] }[];
}

export function hubStatus(cached: readonly FileMeta[]): HubDatasetStatus[] {
  const byUrl = new Map(cached.map((m) => [m.key, m]));
  return Object.values(HUB_DATASETS).map((spec) => ({
    id: spec.id,
    title: spec.title,
    modality: spec.modality,
    k: spec.k,
    licence: spec.licence,
    splits: Object.entries(spec.splits).map(([split, s]) => ({
      split,
      rows: s.rows,
      files: s.files.map((path) => {
        const url = hubFileUrl(spec.repo, path);
        const m = byUrl.get(url);
        return { path, url, cached: !!m, bytes: m?.bytes ?? null, sha256: m?.sha256 ?? null };
      }),
    })),
  }));
}

export interface HubSplitSummary {
  split: string;
  rows: number;
  classCounts: number[];
  /** §4.4 content hash of the split in canonical order. */
  contentSha256: string;
  rowOrder: string;
  files: { path: string; bytes: number; sha256: string; fromCache: boolean }[];
}

/** Downloads (or reads from the cache) every split of a Hub dataset and hashes its content. */
export async function downloadHubDataset(
  spec: HubDatasetSpec,
  o: Omit<HubDownloadOptions, 'onProgress'> & {
    onProgress?(p: HubDownloadProgress & { split: string }): void;
  },
): Promise<HubSplitSummary[]> {
  const out: HubSplitSummary[] = [];
  for (const split of Object.keys(spec.splits)) {
    const loaded = await downloadHubSplit(spec, split, {
      ...o,
      onProgress: (p) => o.onProgress?.({ ...p, split }),
    });
    const { labels, images, texts } = loaded.rows;
    const classCounts = new Array<number>(spec.k).fill(0);
    for (const y of labels) classCounts[y]++;
    let contentSha256: string;
    if (texts) contentSha256 = textContentHash(spec.id, split, labels, texts);
    else {
      const size = spec.imageSize ?? 32;
      contentSha256 = imageContentHash(spec.id, split, labels, size, (i) => {
        const img = decodePngRgb(images![i]);
        if (img.width !== size || img.height !== size)
          throw new Error(
            `${spec.title} ${split} row ${i}: a ${img.width}×${img.height} image, expected ${size}×${size}.`,
          );
        return img.rgb;
      });
    }
    out.push({
      split,
      rows: labels.length,
      classCounts,
      contentSha256,
      rowOrder: loaded.rowOrder,
      files: loaded.files.map((f, i) => ({
        path: f.path,
        bytes: f.bytes,
        sha256: f.sha256,
        fromCache: loaded.fromCache[i],
      })),
    });
  }
  return out;
}
