import 'fake-indexeddb/auto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { canonicalSha256, parseCanonicalCsv } from '../../../src/lib/data/canonical.ts';
import { DatasetCache } from '../../../src/lib/data/cache.ts';
import { DatasetError } from '../../../src/lib/data/errors.ts';
import { fetchWithProgress, type DownloadProgress } from '../../../src/lib/data/fetch.ts';
import { loadDatasetFromBytes, loadDatasetWithReport } from '../../../src/lib/data/index.ts';
import { encodeLabels, sortedDistinctLabels } from '../../../src/lib/data/labels.ts';
import { DATASETS } from '../../../src/lib/data/registry.ts';
import { fixture, MINIO, OPENML, publicFile, root, scriptedFetch } from './fakeNet.ts';

const LETTER_SHA = '56cd81c48b97e57b1ef8140b53839c2c78e7b3d7fbd197e03876c30a239307f8';
const LETTER_URL = 'https://data.openml.org/datasets/0000/0006/dataset_6.pq';
const COVER_SMALL = { N: 2000, classCounts: [743, 972, 111, 22, 40, 61, 51] };
let dbSeq = 0;
const freshCache = (opts: ConstructorParameters<typeof DatasetCache>[0] = {}) =>
  new DatasetCache({ dbName: `test-${process.pid}-${++dbSeq}`, ...opts });

async function expectDatasetError(p: Promise<unknown>, kind: string): Promise<DatasetError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(DatasetError);
  expect((e as DatasetError).kind).toBe(kind);
  return e as DatasetError;
}

describe('registry', () => {
  it('points letter and covertype at OpenML parquet, then the MinIO host', () => {
    expect(DATASETS.letter.sources.map((s) => s.url)).toEqual([
      LETTER_URL,
      'https://openml1.win.tue.nl/datasets/0000/0006/dataset_6.pq',
    ]);
    expect(DATASETS.covertype.sources[0].url).toBe(
      'https://data.openml.org/datasets/0000/1596/dataset_1596.pq',
    );
    expect(DATASETS.letter.sha256).toBe(LETTER_SHA);
  });
});

describe('labels', () => {
  it('sorts distinct labels as strings, or as numbers when all are numeric', () => {
    expect(sortedDistinctLabels(['b', 'B', 'a', 'A'])).toEqual(['A', 'B', 'a', 'b']);
    expect(sortedDistinctLabels(['10', '9', '2', '10'])).toEqual(['2', '9', '10']);
    expect(Array.from(encodeLabels(['7', '1', '3', '1']).y)).toEqual([2, 0, 1, 0]);
  });
});

describe('parse + hash', () => {
  it('letter.pq (OpenML layout) gives the canonical letter content and its pinned hash', async () => {
    const ds = await loadDatasetFromBytes('letter', fixture('letter.pq'), 'parquet');
    expect([ds.N, ds.d, ds.k]).toEqual([20000, 16, 26]);
    expect(Array.from(ds.X.subarray(0, 16))).toEqual([2, 8, 3, 5, 1, 8, 13, 0, 6, 6, 10, 8, 0, 8, 0, 8]);
    expect(Array.from(ds.y.subarray(0, 5))).toEqual([19, 8, 3, 13, 6]); // T I D N G
    expect(ds.featureNames).toEqual(DATASETS.letter.featureNames);
    expect(ds.sha256).toBe(LETTER_SHA);
    const canon = parseCanonicalCsv('letter', readFileSync(`${root}tests/fixtures/data/letter.csv`, 'utf8'));
    expect(ds.X).toEqual(canon.X);
    expect(ds.y).toEqual(canon.y);
  });

  it('the canonical CSV form (integer labels) hashes the same through the CSV parser', async () => {
    const ds = await loadDatasetFromBytes('letter', fixture('letter.csv'), 'csv');
    expect(ds.sha256).toBe(LETTER_SHA);
    expect(ds.classNames[19]).toBe('T');
  });

  it('embedded iris loads through fetch relative to the base URL and matches its pinned hash', async () => {
    const f = scriptedFetch({
      'http://site.test/app/data/iris.csv': { kind: 'ok', bytes: publicFile('data/iris.csv') },
    });
    const r = await loadDatasetWithReport('iris', {
      fetchImpl: f,
      baseUrl: 'http://site.test/app/index.html',
      cache: null,
    });
    expect(r.origin).toBe('embedded');
    expect(r.dataset.sha256).toBe(DATASETS.iris.sha256);
    expect(r.dataset.X[0]).toBe(5.1);
    expect(f.calls).toEqual(['http://site.test/app/data/iris.csv']);
  });

  it('embedded wine matches its pinned hash too', async () => {
    const f = scriptedFetch({
      'http://site.test/data/wine.csv': { kind: 'ok', bytes: publicFile('data/wine.csv') },
    });
    const ds = (
      await loadDatasetWithReport('wine', { fetchImpl: f, baseUrl: 'http://site.test/', cache: null })
    ).dataset;
    expect([ds.N, ds.d, ds.k, ds.sha256]).toEqual([178, 13, 3, DATASETS.wine.sha256]);
  });

  it('one changed value gives a hash error and caches nothing', async () => {
    const canon = parseCanonicalCsv('letter', readFileSync(`${root}tests/fixtures/data/letter.csv`, 'utf8'));
    const cols = DATASETS.letter.featureNames!.map((name, j) => ({
      name,
      type: 'DOUBLE' as const,
      data: Array.from({ length: canon.N }, (_, i) =>
        i === 123 && j === 4 ? canon.X[i * 16 + j] + 1 : canon.X[i * 16 + j],
      ),
    }));
    const bad = new Uint8Array(
      parquetWriteBuffer({
        columnData: [
          ...cols,
          { name: 'class', type: 'STRING', data: Array.from(canon.y, (c) => DATASETS.letter.classNames[c]) },
        ],
      }),
    );
    const cache = freshCache();
    const f = scriptedFetch({ [OPENML]: { kind: 'ok', bytes: bad }, [MINIO]: { kind: 'down' } });
    const e = await expectDatasetError(loadDatasetWithReport('letter', { fetchImpl: f, cache }), 'hash');
    expect(e.message).toMatch(/different content/);
    expect(await cache.list()).toEqual([]);
  });

  it('covertype validation: a file of the wrong shape is refused with a clear shape error', async () => {
    const e = await expectDatasetError(
      loadDatasetFromBytes('covertype', fixture('covertype_small.pq'), 'parquet'),
      'shape',
    );
    expect(e.message).toBe(
      "Dataset 'covertype': the file has 2000 rows x 54 features; expected 581012 x 54. It is not the registered copy.",
    );
    const e2 = await expectDatasetError(
      loadDatasetFromBytes('covertype', fixture('covertype_small.pq'), 'parquet', {
        N: 2000,
        classCounts: [743, 972, 111, 22, 40, 61, 52],
      }),
      'shape',
    );
    expect(e2.message).toMatch(/class counts are 743\/972\/111\/22\/40\/61\/51; expected .*\/52/);
  });
});

describe('fetchWithProgress', () => {
  const bytes = fixture('letter.pq');

  it('reports throttled progress ending at the full size', async () => {
    let t = 0;
    const seen: DownloadProgress[] = [];
    const f = scriptedFetch({ [OPENML]: { kind: 'ok', bytes, chunk: 1000 } });
    const out = await fetchWithProgress(LETTER_URL, {
      fetchImpl: f,
      now: () => (t += 10),
      throttleMs: 100,
      onProgress: (p) => seen.push(p),
    });
    expect(out).toEqual(bytes);
    const last = seen[seen.length - 1];
    expect(last.loaded).toBe(bytes.length);
    expect(last.total).toBe(bytes.length);
    expect(last.bytesPerSecond).toBeGreaterThan(0);
    // 180 chunks at 10 ms clock ticks (two per chunk) and a 100 ms throttle: about one report in 5.
    expect(seen.length).toBeGreaterThan(10);
    expect(seen.length).toBeLessThan(60);
    for (let i = 1; i < seen.length; i++) expect(seen[i].loaded).toBeGreaterThanOrEqual(seen[i - 1].loaded);
  });

  it('a stream that ends before Content-Length is truncated', async () => {
    const f = scriptedFetch({ [OPENML]: { kind: 'cut', bytes, at: 65536, error: false } });
    const e = await expectDatasetError(
      fetchWithProgress(LETTER_URL, { fetchImpl: f, datasetId: 'letter' }),
      'truncated',
    );
    expect(e.retryable).toBe(true);
    expect(e.message).toBe(
      `The download of dataset 'letter' from data.openml.org was cut off after 64.0 KiB of 175.7 KiB (the connection closed early). Try again.`,
    );
  });

  it('a reader error midway is truncated too', async () => {
    const f = scriptedFetch({ [OPENML]: { kind: 'cut', bytes, at: 32768, error: true } });
    const e = await expectDatasetError(fetchWithProgress(LETTER_URL, { fetchImpl: f }), 'truncated');
    expect(e.message).toMatch(/cut off after 32.0 KiB of 175.7 KiB \(network error: connection reset\)/);
  });

  it('HTTP errors say the status; 5xx is retryable, 404 is not; no answer is a network error', async () => {
    const e503 = await expectDatasetError(
      fetchWithProgress(LETTER_URL, {
        fetchImpl: scriptedFetch({ [OPENML]: { kind: 'status', status: 503 } }),
      }),
      'http',
    );
    expect([e503.status, e503.retryable]).toEqual([503, true]);
    expect(e503.message).toBe(
      `data.openml.org answered HTTP 503 Service Unavailable for the file (${LETTER_URL}).`,
    );
    const e404 = await expectDatasetError(
      fetchWithProgress(LETTER_URL, {
        fetchImpl: scriptedFetch({ [OPENML]: { kind: 'status', status: 404 } }),
      }),
      'http',
    );
    expect(e404.retryable).toBe(false);
    await expectDatasetError(
      fetchWithProgress(LETTER_URL, { fetchImpl: scriptedFetch({ [OPENML]: { kind: 'down' } }) }),
      'network',
    );
  });
});

describe('loadDataset: sources, fallback and cache', () => {
  it('falls back to the second host when the first fails, then caches', async () => {
    const cache = freshCache();
    const f = scriptedFetch({
      [OPENML]: { kind: 'status', status: 503 },
      [MINIO]: { kind: 'ok', bytes: fixture('letter.pq') },
    });
    const phases: string[] = [];
    const r = await loadDatasetWithReport('letter', {
      fetchImpl: f,
      cache,
      onProgress: (p) => phases.push(p.phase),
    });
    expect(r.origin).toBe('network');
    expect(r.source).toBe('https://openml1.win.tue.nl/datasets/0000/0006/dataset_6.pq');
    expect(r.skipped.map((e) => e.kind)).toEqual(['http']);
    expect(r.dataset.sha256).toBe(LETTER_SHA);
    expect(f.calls.length).toBe(2);
    expect([...new Set(phases)]).toEqual(['cache', 'download', 'parse', 'verify']);
    const list = await cache.list();
    expect(list.map((m) => [m.id, m.sha256, m.bytes, m.source])).toEqual([
      ['letter', LETTER_SHA, 20000 * 16 * 4 + 20000 * 4, r.source],
    ]);
  });

  it('when every host fails the error names the most telling failure and all hosts', async () => {
    const f = scriptedFetch({
      [OPENML]: { kind: 'cut', bytes: fixture('letter.pq'), at: 1000, error: true },
      [MINIO]: { kind: 'down' },
    });
    const e = await expectDatasetError(
      loadDatasetWithReport('letter', { fetchImpl: f, cache: null }),
      'truncated',
    );
    expect(e.retryable).toBe(true);
    expect(e.message).toMatch(
      /data\.openml\.org was cut off.*Other sources failed too: Could not reach openml1\.win\.tue\.nl/,
    );
  });

  it('an abort stops the load at once: no fallback host, no cache entry', async () => {
    const cache = freshCache();
    const ctl = new AbortController();
    const f = scriptedFetch({
      [OPENML]: () => {
        ctl.abort(new DOMException('cancelled', 'AbortError'));
        return { kind: 'ok', bytes: fixture('letter.pq') };
      },
      [MINIO]: { kind: 'ok', bytes: fixture('letter.pq') },
    });
    const e = await loadDatasetWithReport('letter', { fetchImpl: f, cache, signal: ctl.signal }).catch(
      (err: unknown) => err,
    );
    expect((e as Error).name).toBe('AbortError');
    expect(f.calls).toEqual([LETTER_URL]);
    expect(await cache.list()).toEqual([]);
  });

  it('an unknown dataset id is refused by name', async () => {
    const e = await expectDatasetError(loadDatasetFromBytes('mnist', new Uint8Array(), 'csv'), 'shape');
    expect(e.message).toBe("Unknown dataset 'mnist'; expected one of iris, wine, letter, covertype.");
  });

  it('a cache hit touches no network', async () => {
    const cache = freshCache();
    await loadDatasetWithReport('letter', {
      fetchImpl: scriptedFetch({ [OPENML]: { kind: 'ok', bytes: fixture('letter.pq') } }),
      cache,
    });
    const offline = scriptedFetch({});
    const r = await loadDatasetWithReport('letter', { fetchImpl: offline, cache });
    expect(r.origin).toBe('cache');
    expect(offline.calls).toEqual([]);
    expect(r.dataset.sha256).toBe(LETTER_SHA);
    expect(r.dataset.X).toBeInstanceOf(Float64Array);
    expect(await canonicalSha256(r.dataset)).toBe(LETTER_SHA);
  });

  it('a corrupt cache entry is dropped, reported and re-fetched', async () => {
    const dbName = `test-${process.pid}-${++dbSeq}`;
    const cache = new DatasetCache({ dbName });
    const f = scriptedFetch({ [OPENML]: { kind: 'ok', bytes: fixture('letter.pq') } });
    await loadDatasetWithReport('letter', { fetchImpl: f, cache });
    // Flip one stored value behind the cache's back, as a damaged disk would.
    const { openRacDb } = await import('../../../src/lib/data/db.ts');
    const db = await openRacDb(dbName);
    const rec = await db.get('datasets', 'letter');
    rec.X[5] += 1;
    await db.put('datasets', rec);
    db.close();
    const corrupt: DatasetError[] = [];
    const r = await loadDatasetWithReport('letter', {
      fetchImpl: f,
      cache,
      onCacheCorrupt: (e) => corrupt.push(e),
    });
    expect(corrupt.map((e) => e.kind)).toEqual(['corrupt-cache']);
    expect(corrupt[0].message).toMatch(/checksum mismatch/);
    expect(r.origin).toBe('network');
    expect(f.calls.length).toBe(2);
    expect(await cache.verify('letter')).toBe(true);
  });

  it('a full disk gives a quota error with the size needed and keeps existing entries', async () => {
    const cache = freshCache({ estimate: async () => ({ usage: 9_000_000, quota: 10_000_000 }) });
    await loadDatasetWithReport('letter', {
      fetchImpl: scriptedFetch({ [OPENML]: { kind: 'ok', bytes: fixture('letter.pq') } }),
      cache,
    });
    const proto = (
      globalThis as unknown as { IDBObjectStore: { prototype: { put: (...a: unknown[]) => unknown } } }
    ).IDBObjectStore.prototype;
    const realPut = proto.put;
    proto.put = function (this: unknown, value: unknown, ...rest: unknown[]) {
      if ((value as { id?: string }).id === 'covertype')
        throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
      return realPut.call(this, value, ...rest);
    };
    try {
      const f = scriptedFetch({ [OPENML]: { kind: 'ok', bytes: fixture('covertype_small.pq') } });
      const e = await expectDatasetError(
        loadDatasetWithReport('covertype', { fetchImpl: f, cache, override: COVER_SMALL }),
        'quota',
      );
      // 2000 x 54 float32 + 2000 int32 labels.
      expect(e.bytesNeeded).toBe(2000 * 54 * 4 + 2000 * 4);
      expect(e.message).toBe(
        "The browser has no room to cache dataset 'covertype' (429.7 KiB needed). About 976.6 KiB is free for this site. Delete other cached datasets or allow more storage; other cached datasets were kept.",
      );
      expect(f.calls.length).toBe(1); // another host would not help
    } finally {
      proto.put = realPut;
    }
    expect((await cache.list()).map((m) => m.id)).toEqual(['letter']);
    expect(await cache.verify('letter')).toBe(true);
  });

  it('covertype (unpinned) records its hash at first download and is served from the cache after', async () => {
    const cache = freshCache();
    const f = scriptedFetch({ [OPENML]: { kind: 'ok', bytes: fixture('covertype_small.pq') } });
    const r = await loadDatasetWithReport('covertype', {
      fetchImpl: f,
      cache,
      override: COVER_SMALL,
      clock: () => 1_700_000_000_000,
    });
    expect(r.dataset.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(r.dataset.sha256).toBe(await canonicalSha256(r.dataset));
    // The binary columns come as strings '0'/'1' (OpenML nominal) and are parsed to numbers.
    expect(new Set(r.dataset.X.subarray(10, 54))).toEqual(new Set([0, 1]));
    const [meta] = await cache.list();
    expect([meta.id, meta.sha256, meta.fetchedAt]).toEqual([
      'covertype',
      r.dataset.sha256,
      1_700_000_000_000,
    ]);
    const again = await loadDatasetWithReport('covertype', {
      fetchImpl: scriptedFetch({}),
      cache,
      override: COVER_SMALL,
    });
    expect(again.origin).toBe('cache');
    expect(again.dataset.X).toEqual(r.dataset.X);
    await cache.delete('covertype');
    expect(await cache.list()).toEqual([]);
  });
});
