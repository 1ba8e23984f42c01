/**
 * Hub files in the page's IndexedDB (FileStore) through downloadHubSplit, with a scripted download:
 * 1. the first load downloads every file with progress and records each file's SHA-256 (its pin);
 *    the next reads the cache and downloads nothing;
 * 2. a damaged cached copy is dropped and fetched again; a download whose bytes differ from the pin
 *    fails with a hash error and is not cached;
 * 3. a full disk is a quota error naming the file and the size, and earlier files stay cached;
 * 4. a split of several files (amazon's four train shards) is joined in manifest order.
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { FileStore } from '../../../../src/lib/data/fileStore.ts';
import { downloadHubSplit, type HubDownloadProgress } from '../../../../src/lib/data/modal/hubDownload.ts';
import { HUB_DATASETS, hubFileUrl, type HubDatasetSpec } from '../../../../src/lib/data/modal/hubSources.ts';
import { textParquet } from '../../../helpers/hubFiles.ts';

let seq = 0;

/** One raw request on the test's database (to damage what the store keeps, as a disk would). */
async function raw(name: string, op: (db: IDBDatabase) => IDBRequest): Promise<void> {
  const db = await new Promise<IDBDatabase>((res, rej) => {
    const r = indexedDB.open(name);
    r.onsuccess = () => res(r.result);
    r.onerror = () => rej(r.error);
  });
  await new Promise<void>((res, rej) => {
    const req = op(db);
    req.transaction!.oncomplete = () => res();
    req.transaction!.onerror = () => rej(req.error);
  });
  db.close();
}
const store = () => new FileStore({ dbName: `files-${process.pid}-${++seq}` });

const textFile = (labels: number[], column = 'text') =>
  textParquet(labels, (i) => `text ${i} (${labels[i]})`, column);

/** ag_news with a 8-row train split (the manifest's shape check applies to it). */
const AG: HubDatasetSpec = {
  ...HUB_DATASETS.ag_news,
  splits: { train: { files: ['data/train-00000-of-00001.parquet'], rows: 8, perClass: 2 } },
};
const URL_AG = hubFileUrl(AG.repo, AG.splits.train.files[0]);

function scripted(files: Record<string, Uint8Array>) {
  const calls: string[] = [];
  const download = async (
    url: string,
    o: { onProgress?: (p: { loaded: number; total: number | null; bytesPerSecond: number }) => void },
  ) => {
    calls.push(url);
    const bytes = files[url];
    if (!bytes) throw new Error(`no route for ${url}`);
    o.onProgress?.({ loaded: bytes.length >> 1, total: bytes.length, bytesPerSecond: 1 });
    o.onProgress?.({ loaded: bytes.length, total: bytes.length, bytesPerSecond: 1 });
    return bytes.slice();
  };
  return { calls, download };
}

describe('Hub files in IndexedDB', () => {
  it('downloads once with progress, pins each file, then reads the cache', async () => {
    const cache = store();
    const file = textFile([0, 1, 2, 3, 3, 2, 1, 0]);
    const net = scripted({ [URL_AG]: file });
    const progress: HubDownloadProgress[] = [];
    const first = await downloadHubSplit(AG, 'train', {
      cache,
      download: net.download,
      onProgress: (p) => progress.push(p),
    });
    expect(first.fromCache).toEqual([false]);
    expect(Array.from(first.rows.labels)).toEqual([0, 1, 2, 3, 3, 2, 1, 0]);
    expect(first.files[0]).toMatchObject({ repo: 'fancyzhx/ag_news', bytes: file.length });
    expect(progress.at(-1)).toMatchObject({ file: 0, files: 1, loaded: file.length, total: file.length });
    expect(await cache.pin(URL_AG)).toBe(first.files[0].sha256);
    expect(await cache.list()).toEqual([{ key: URL_AG, bytes: file.length, sha256: first.files[0].sha256 }]);
    const again = await downloadHubSplit(AG, 'train', { cache, download: net.download });
    expect(again.fromCache).toEqual([true]);
    expect(net.calls).toHaveLength(1);
    expect(again.rows.texts).toEqual(first.rows.texts);
  });

  it('drops a damaged copy and fetches again; refuses a download that differs from the pin', async () => {
    const cache = store();
    const dbName = `files-${process.pid}-${seq}`;
    const file = textFile([0, 1, 2, 3, 0, 1, 2, 3]);
    const net = scripted({ [URL_AG]: file });
    await downloadHubSplit(AG, 'train', { cache, download: net.download });
    const pin = await cache.pin(URL_AG);
    // A flipped byte on disk, behind the store's back (the pin stays the first download's).
    const damaged = file.slice();
    damaged[damaged.length >> 1] ^= 0xff;
    await raw(dbName, (db) =>
      db
        .transaction('files', 'readwrite')
        .objectStore('files')
        .put({ key: URL_AG, bytes: file.length, sha256: pin, data: damaged }),
    );
    const healed = await downloadHubSplit(AG, 'train', { cache, download: net.download });
    expect(healed.fromCache).toEqual([false]);
    expect(net.calls).toHaveLength(2);
    expect(await cache.get(URL_AG)).toEqual(file);
    expect(await cache.pin(URL_AG)).toBe(pin);
    // Upstream now serves other bytes while the pin stands: refused, and not cached in its place.
    await raw(dbName, (db) => db.transaction('files', 'readwrite').objectStore('files').delete(URL_AG));
    const other = scripted({ [URL_AG]: textFile([3, 2, 1, 0, 3, 2, 1, 0]) });
    await expect(downloadHubSplit(AG, 'train', { cache, download: other.download })).rejects.toMatchObject({
      name: 'DatasetError',
      kind: 'hash',
      message: expect.stringMatching(/was not used or cached/),
    });
    expect(await cache.get(URL_AG)).toBeNull();
  });

  it('a full disk is a quota error naming the file; files cached before stay', async () => {
    const cache = store();
    const shards = [0, 1, 2, 3].map((i) =>
      textFile(
        [0, 1, 0, 1].map((v) => (v + i) % 2),
        'content',
      ),
    );
    const AMAZON: HubDatasetSpec = {
      ...HUB_DATASETS.amazon_polarity,
      splits: { train: { ...HUB_DATASETS.amazon_polarity.splits.train, rows: 16, perClass: 8 } },
    };
    const urls = AMAZON.splits.train.files.map((p) => hubFileUrl(AMAZON.repo, p));
    const net = scripted(Object.fromEntries(urls.map((u, i) => [u, shards[i]])));
    // Joined in manifest order: shard 0's rows first.
    const whole = await downloadHubSplit(AMAZON, 'train', { cache, download: net.download });
    expect(whole.rows.texts!.slice(0, 5)).toEqual([
      'text 0 (0)',
      'text 1 (1)',
      'text 2 (0)',
      'text 3 (1)',
      'text 0 (1)',
    ]);
    await cache.delete(urls[2]);
    const proto = (
      globalThis as unknown as { IDBObjectStore: { prototype: { put: (...a: unknown[]) => unknown } } }
    ).IDBObjectStore.prototype;
    const realPut = proto.put;
    proto.put = function (this: unknown, value: unknown, ...rest: unknown[]) {
      if ((value as { key?: string }).key === urls[2]) throw new DOMException('full', 'QuotaExceededError');
      return realPut.call(this, value, ...rest);
    };
    try {
      // loadHashedFile reports a cache failure without failing the load…
      const r = await downloadHubSplit(AMAZON, 'train', { cache, download: net.download });
      expect(r.fromCache).toEqual([true, true, false, true]);
      // …and the store's own put says what happened.
      await expect(cache.put(urls[2], shards[2])).rejects.toMatchObject({
        kind: 'quota',
        message: expect.stringMatching(/no room to keep train-00002-of-00004\.parquet .* needed/),
      });
    } finally {
      proto.put = realPut;
    }
    expect((await cache.list()).map((m) => m.key).sort()).toEqual([urls[0], urls[1], urls[3]].sort());
  });
});
