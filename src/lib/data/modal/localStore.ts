/**
 * A local image dataset kept in the browser (IndexedDB's file store, data/fileStore.ts), so that a
 * reload, a run and a resumed run find the folder the user loaded once on the Data page. Each
 * domain is one entry, `local:<id>/<domain>`: its rows as an uncompressed zip (fflate, level 0:
 * JPEGs do not compress, and the bytes stay exactly those hashed by §4.4). Reading one back runs the
 * same layout reader as the import, so a kept dataset is what a fresh pick of the same files gives.
 */
import { zipSync } from 'fflate';
import {
  LOCAL_IMAGE_DATASETS,
  readLocalImages,
  zipEntries,
  type LocalDataset,
  type LocalEntry,
  type LocalImageSpec,
} from './localImages.ts';

/** What the file store offers (FileStore; a Map-backed stand-in in tests). */
export interface BytesStore {
  get(key: string): Promise<Uint8Array | null>;
  put(key: string, bytes: Uint8Array): Promise<void>;
  delete(key: string): Promise<void>;
}

export const localDomainKey = (id: LocalImageSpec['id'], domain: string): string => `local:${id}/${domain}`;

/** Keeps every domain of `ds` (and drops kept domains the new pick lacks: one dataset, one pick). */
export async function saveLocalDataset(store: BytesStore, ds: LocalDataset): Promise<void> {
  const spec = LOCAL_IMAGE_DATASETS[ds.id];
  for (const domain of spec.domains) {
    const d = ds.domains[domain];
    if (!d) {
      await store.delete(localDomainKey(ds.id, domain));
      continue;
    }
    const files: Record<string, [Uint8Array, { level: 0 }]> = {};
    for (const r of d.rows) files[r.path] = [r.bytes, { level: 0 }];
    await store.put(localDomainKey(ds.id, domain), zipSync(files));
  }
}

/** The kept dataset, or null when none of its domains is kept. */
export async function loadLocalDataset(
  store: BytesStore,
  id: LocalImageSpec['id'],
): Promise<LocalDataset | null> {
  const entries: LocalEntry[] = [];
  for (const domain of LOCAL_IMAGE_DATASETS[id].domains) {
    const zip = await store.get(localDomainKey(id, domain));
    if (zip) entries.push(...zipEntries(zip));
  }
  return entries.length ? readLocalImages(LOCAL_IMAGE_DATASETS[id], entries) : null;
}

export async function deleteLocalDataset(store: BytesStore, id: LocalImageSpec['id']): Promise<void> {
  for (const domain of LOCAL_IMAGE_DATASETS[id].domains) await store.delete(localDomainKey(id, domain));
}

/** The domains of `id` kept in the store, from its listing alone (nothing is read). */
export async function keptLocalDomains(
  store: { list(): Promise<{ key: string }[]> },
  id: LocalImageSpec['id'],
): Promise<string[]> {
  const keys = new Set((await store.list()).map((m) => m.key));
  return LOCAL_IMAGE_DATASETS[id].domains.filter((d) => keys.has(localDomainKey(id, d)));
}
