/**
 * UserDatasetStore: datasets imported from the user's CSV files, in the rac-bench IndexedDB
 * (stores added by db.ts migration 2). Unlike the download cache this is the only copy, so a
 * read always re-hashes in full (user files are at most 50 MB) and a damaged entry is dropped
 * with a message that says to import the file again.
 */
import type { Dataset } from '../types.ts';
import { checksum32x2, compactX } from './cache.ts';
import { canonicalSha256 } from './canonical.ts';
import { isQuotaError, RacDbClient, STORE } from './db.ts';
import { DatasetError, formatBytes } from './errors.ts';

export interface UserDatasetMeta {
  /** 'user:<slug>'. */
  id: string;
  /** The name the user gave. */
  name: string;
  sha256: string;
  N: number;
  d: number;
  k: number;
  labelColumn: string;
  classNames: string[];
  classCounts: number[];
  /** Largest labels tag the class sizes were checked for. */
  labels: number;
  /** File name or URL it came from. */
  source: string;
  /** Size of the CSV. */
  fileBytes: number;
  /** Bytes the entry takes (X as stored + y). */
  bytes: number;
  /** Milliseconds since the epoch. */
  createdAt: number;
  /**
   * Contents this id held before a confirmed replacement, newest first (at most 20): runs record
   * the SHA-256 they used, so a run on an earlier content stays identifiable.
   */
  replaced?: ReplacedContent[];
}

export interface ReplacedContent {
  sha256: string;
  name: string;
  createdAt: number;
  replacedAt: number;
}

/** What saving over an existing id with different content found there (the caller asks the user). */
export class UserDatasetExistsError extends Error {
  readonly existing: UserDatasetMeta;
  constructor(existing: UserDatasetMeta) {
    super(
      `A dataset with the id ${existing.id} is already stored ('${existing.name}', SHA-256 ${existing.sha256.slice(0, 12)}…, ` +
        `${existing.N} rows × ${existing.d} features) with different content. Replace it, or give the new one another name. ` +
        'Runs made on the stored content keep its SHA-256, so they stay identifiable.',
    );
    this.name = 'UserDatasetExistsError';
    this.existing = existing;
  }
}

export interface UserPutOptions {
  /** Replace a stored dataset of the same id with different content (the user confirmed). Default false. */
  replace?: boolean;
}

interface UserDatasetRecord extends UserDatasetMeta {
  xType: 'f32' | 'f64';
  X: Float32Array | Float64Array;
  y: Int32Array;
  featureNames: string[];
  checksum: string;
}

export type UserPutMeta = Pick<
  UserDatasetMeta,
  'name' | 'labelColumn' | 'classCounts' | 'labels' | 'source' | 'fileBytes' | 'createdAt'
>;

function metaOf(r: UserDatasetMeta): UserDatasetMeta {
  const {
    id,
    name,
    sha256,
    N,
    d,
    k,
    labelColumn,
    classNames,
    classCounts,
    labels,
    source,
    fileBytes,
    bytes,
    createdAt,
  } = r;
  const meta: UserDatasetMeta = {
    id,
    name,
    sha256,
    N,
    d,
    k,
    labelColumn,
    classNames: classNames.slice(),
    classCounts: classCounts.slice(),
    labels,
    source,
    fileBytes,
    bytes,
    createdAt,
  };
  if (r.replaced?.length) meta.replaced = r.replaced.map((e) => ({ ...e }));
  return meta;
}

const MAX_REPLACED = 20;

export class UserDatasetStore extends RacDbClient {
  /**
   * Stores a dataset. An id that holds different content is refused with UserDatasetExistsError
   * unless `replace` (checked in the same transaction as the write, so two tabs cannot race);
   * a replacement remembers the old SHA-256 in `replaced`. Same content: the entry is updated.
   * A full disk gives DatasetError 'quota' and changes nothing.
   */
  async put(ds: Dataset, meta: UserPutMeta, opts: UserPutOptions = {}): Promise<UserDatasetMeta> {
    const { xType, X } = compactX(ds.X);
    const y = ds.y.slice();
    const rec: UserDatasetRecord = {
      ...meta,
      id: ds.id,
      sha256: ds.sha256,
      N: ds.N,
      d: ds.d,
      k: ds.k,
      classNames: ds.classNames.slice(),
      bytes: X.byteLength + y.byteLength,
      xType,
      X,
      y,
      featureNames: ds.featureNames.slice(),
      checksum: checksum32x2([X, y]),
    };
    const db = await this.open();
    try {
      const tx = db.transaction([STORE.userDatasets, STORE.userDatasetMeta], 'readwrite');
      const metaStore = tx.objectStore(STORE.userDatasetMeta);
      const old = (await metaStore.get(ds.id)) as UserDatasetMeta | undefined;
      if (old && old.sha256 !== ds.sha256) {
        if (!opts.replace) {
          tx.abort();
          await tx.done.catch(() => undefined);
          throw new UserDatasetExistsError(metaOf(old));
        }
        const entry: ReplacedContent = {
          sha256: old.sha256,
          name: old.name,
          createdAt: old.createdAt,
          replacedAt: meta.createdAt,
        };
        rec.replaced = [entry, ...(old.replaced ?? [])].slice(0, MAX_REPLACED);
      } else if (old?.replaced) {
        rec.replaced = old.replaced;
      }
      await Promise.all([tx.objectStore(STORE.userDatasets).put(rec), metaStore.put(metaOf(rec)), tx.done]);
    } catch (e) {
      if (!isQuotaError(e)) throw e;
      const free = await this.freeSpaceNote();
      throw new DatasetError({
        kind: 'quota',
        retryable: false,
        datasetId: ds.id,
        bytesNeeded: rec.bytes,
        message:
          `The browser has no room to store '${meta.name}' (${formatBytes(rec.bytes)} needed).${free} ` +
          'Delete cached or imported datasets, or allow more storage; nothing was changed.',
      });
    }
    return metaOf(rec);
  }

  /** Why the record is unusable, or null when it is sound (full re-hash). */
  async #check(rec: UserDatasetRecord): Promise<string | null> {
    const n = rec.N * rec.d;
    const XOk = rec.xType === 'f32' ? rec.X instanceof Float32Array : rec.X instanceof Float64Array;
    if (!XOk || rec.X.length !== n || !(rec.y instanceof Int32Array) || rec.y.length !== rec.N)
      return 'wrong array sizes';
    if (checksum32x2([rec.X, rec.y]) !== rec.checksum) return 'checksum mismatch';
    const X = rec.xType === 'f64' ? (rec.X as Float64Array) : Float64Array.from(rec.X);
    const sha = await canonicalSha256({ id: rec.id, N: rec.N, d: rec.d, k: rec.k, X, y: rec.y });
    return sha === rec.sha256 ? null : 'content hash mismatch';
  }

  /** The stored dataset, verified; null when absent. A damaged entry is deleted and reported through onCorrupt. */
  async get(
    id: string,
    onCorrupt?: (e: DatasetError) => void,
  ): Promise<(Dataset & { meta: UserDatasetMeta }) | null> {
    const db = await this.open();
    const rec = (await db.get(STORE.userDatasets, id)) as UserDatasetRecord | undefined;
    if (!rec) return null;
    const problem = await this.#check(rec);
    if (problem === null) {
      const X = rec.xType === 'f64' ? (rec.X as Float64Array) : Float64Array.from(rec.X);
      const { sha256, N, d, k, y, featureNames, classNames } = rec;
      return { id, sha256, N, d, k, X, y, featureNames, classNames, meta: metaOf(rec) };
    }
    await this.delete(id);
    onCorrupt?.(
      new DatasetError({
        kind: 'corrupt-cache',
        retryable: false,
        datasetId: id,
        message: `The stored copy of your dataset '${rec.name}' (${id}) is damaged (${problem}); it was removed. Import the CSV again.`,
      }),
    );
    return null;
  }

  async list(): Promise<UserDatasetMeta[]> {
    const db = await this.open();
    return ((await db.getAll(STORE.userDatasetMeta)) as UserDatasetMeta[]).map(metaOf);
  }

  async delete(id: string): Promise<void> {
    await this.deletePair([STORE.userDatasets, STORE.userDatasetMeta], id);
  }
}
