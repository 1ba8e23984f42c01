/**
 * DatasetCache: downloaded datasets in IndexedDB (db.ts). Every read is verified — a full
 * canonical re-hash where that is cheap, a stored checksum of the stored arrays otherwise — and
 * a corrupt entry is dropped (so the caller re-fetches it). Integer datasets are stored as
 * float32 (half the size; exact for integers up to 2^24) and read back as exact float64.
 */
import type { Dataset } from '../types.ts';
import { canonicalSha256 } from './canonical.ts';
import { RacDbClient, STORE } from './db.ts';
import { DatasetError, formatBytes } from './errors.ts';
import { DATASETS, isBuiltinDatasetId } from './registry.ts';

/** Entries up to this many X values are re-hashed in full on every read (letter: 320 000). */
export const FULL_REHASH_MAX_VALUES = 2_000_000;

export interface DatasetMeta {
  id: string;
  sha256: string;
  N: number;
  d: number;
  k: number;
  /** Bytes the entry takes in the cache (X as stored + y). */
  bytes: number;
  /** Bytes downloaded from the source. */
  downloadBytes: number;
  source: string;
  /** Milliseconds since the epoch. */
  fetchedAt: number;
}

export interface DatasetRecord extends DatasetMeta {
  xType: 'f32' | 'f64';
  X: Float32Array | Float64Array;
  y: Int32Array;
  featureNames: string[];
  classNames: string[];
  /** Checksum of the stored X and y bytes (checksum32x2). */
  checksum: string;
}

export interface PutMeta {
  source: string;
  downloadBytes: number;
  fetchedAt: number;
}

export interface DatasetCacheOptions {
  /** Database name (tests use their own). */
  dbName?: string;
  /** Told when a read finds a corrupt entry (it is dropped and the read returns null). */
  onCorrupt?: (error: DatasetError) => void;
  /** Storage estimate, for the quota message; defaults to navigator.storage.estimate. */
  estimate?: () => Promise<{ usage?: number; quota?: number }>;
}

/** A fast non-cryptographic checksum (two 32-bit multiply-xor lanes) over whole bytes. */
export function checksum32x2(parts: ArrayBufferView[]): string {
  let h1 = 0x811c9dc5;
  let h2 = 0x9747b28c;
  for (const p of parts) {
    const bytes = new Uint8Array(p.buffer, p.byteOffset, p.byteLength);
    const words = bytes.byteLength >>> 2;
    const w =
      p.byteOffset % 4 === 0
        ? new Uint32Array(p.buffer, p.byteOffset, words)
        : new Uint32Array(bytes.slice(0, words * 4).buffer);
    for (let i = 0; i < words; i++) {
      h1 = Math.imul(h1 ^ w[i], 0x01000193);
      h2 = Math.imul(h2 ^ w[i], 0x5bd1e995);
      h2 ^= h2 >>> 15;
    }
    for (let i = words * 4; i < bytes.length; i++) h1 = Math.imul(h1 ^ bytes[i], 0x01000193);
    h1 = Math.imul(h1 ^ bytes.length, 0x01000193);
  }
  return (h1 >>> 0).toString(16).padStart(8, '0') + (h2 >>> 0).toString(16).padStart(8, '0');
}

/** Float32 where that is exact for every value, else float64. */
export function compactX(X: Float64Array): { xType: 'f32' | 'f64'; X: Float32Array | Float64Array } {
  const f = new Float32Array(X.length);
  for (let i = 0; i < X.length; i++) {
    f[i] = X[i];
    if (f[i] !== X[i]) return { xType: 'f64', X: X.slice() };
  }
  return { xType: 'f32', X: f };
}

export class DatasetCache extends RacDbClient {
  readonly #onCorrupt?: (e: DatasetError) => void;

  constructor(opts: DatasetCacheOptions = {}) {
    super(opts);
    this.#onCorrupt = opts.onCorrupt;
  }

  /** The cached dataset, verified; null when absent or corrupt (a corrupt entry is deleted). */
  async get(
    id: string,
    onCorrupt?: (e: DatasetError) => void,
  ): Promise<(Dataset & { meta: DatasetMeta }) | null> {
    const db = await this.open();
    const rec = (await db.get(STORE.datasets, id)) as DatasetRecord | undefined;
    if (!rec) return null;
    const problem = await this.#check(rec);
    if (problem === null) {
      const X = rec.xType === 'f64' ? (rec.X as Float64Array) : Float64Array.from(rec.X);
      const { id: _id, sha256, N, d, k, y, featureNames, classNames } = rec;
      return { id, sha256, N, d, k, X, y, featureNames, classNames, meta: this.#meta(rec) };
    }
    await this.delete(id);
    const err = new DatasetError({
      kind: 'corrupt-cache',
      retryable: true,
      datasetId: id,
      message: `The cached copy of dataset '${id}' is damaged (${problem}); it was removed and will be downloaded again.`,
    });
    (onCorrupt ?? this.#onCorrupt)?.(err);
    return null;
  }

  /** Why the record is unusable, or null when it is sound. */
  async #check(rec: DatasetRecord): Promise<string | null> {
    const n = rec.N * rec.d;
    const XOk = rec.xType === 'f32' ? rec.X instanceof Float32Array : rec.X instanceof Float64Array;
    if (!XOk || rec.X.length !== n || !(rec.y instanceof Int32Array) || rec.y.length !== rec.N)
      return 'wrong array sizes';
    const pinned = isBuiltinDatasetId(rec.id) ? DATASETS[rec.id].sha256 : null;
    if (pinned !== null && rec.sha256 !== pinned) return 'not the registered content';
    if (checksum32x2([rec.X, rec.y]) !== rec.checksum) return 'checksum mismatch';
    if (n <= FULL_REHASH_MAX_VALUES) {
      const X = rec.xType === 'f64' ? (rec.X as Float64Array) : Float64Array.from(rec.X);
      const sha = await canonicalSha256({ id: rec.id, N: rec.N, d: rec.d, k: rec.k, X, y: rec.y });
      if (sha !== rec.sha256) return 'content hash mismatch';
    }
    return null;
  }

  #meta(rec: DatasetMeta): DatasetMeta {
    const { id, sha256, N, d, k, bytes, downloadBytes, source, fetchedAt } = rec;
    return { id, sha256, N, d, k, bytes, downloadBytes, source, fetchedAt };
  }

  /**
   * Stores a verified dataset. A full disk gives DatasetError 'quota' with the size needed; the
   * write is one transaction, so a failed put leaves every existing entry as it was.
   */
  async put(ds: Dataset, meta: PutMeta): Promise<DatasetMeta> {
    const { xType, X } = compactX(ds.X);
    const y = ds.y.slice();
    const rec: DatasetRecord = {
      id: ds.id,
      sha256: ds.sha256,
      N: ds.N,
      d: ds.d,
      k: ds.k,
      bytes: X.byteLength + y.byteLength,
      downloadBytes: meta.downloadBytes,
      source: meta.source,
      fetchedAt: meta.fetchedAt,
      xType,
      X,
      y,
      featureNames: ds.featureNames.slice(),
      classNames: ds.classNames.slice(),
      checksum: checksum32x2([X, y]),
    };
    await this.guardQuota(
      () => this.putPair([STORE.datasets, STORE.datasetMeta], rec, this.#meta(rec)),
      (free) =>
        new DatasetError({
          kind: 'quota',
          retryable: false,
          datasetId: ds.id,
          bytesNeeded: rec.bytes,
          message:
            `The browser has no room to cache dataset '${ds.id}' (${formatBytes(rec.bytes)} needed).${free} ` +
            'Delete other cached datasets or allow more storage; other cached datasets were kept.',
        }),
    );
    return this.#meta(rec);
  }

  async list(): Promise<DatasetMeta[]> {
    const db = await this.open();
    return ((await db.getAll(STORE.datasetMeta)) as DatasetMeta[]).map((m) => this.#meta(m));
  }

  async delete(id: string): Promise<void> {
    await this.deletePair([STORE.datasets, STORE.datasetMeta], id);
  }

  /** True when the entry exists and is sound; a corrupt entry is dropped (false). */
  async verify(id: string): Promise<boolean> {
    return (await this.get(id)) !== null;
  }
}
