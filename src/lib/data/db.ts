/**
 * The one IndexedDB database of RAC Bench ('rac-bench'). Every store is created by a numbered
 * migration below; the database version is the number of migrations. To add a store (results,
 * run checkpoints, ...): APPEND a migration (never edit an old one) and use its store name.
 * Existing users then upgrade step by step from their version, keeping their data.
 */
import { openDB, type IDBPDatabase, type IDBPTransaction } from 'idb';
import { DatasetError, formatBytes } from './errors.ts';

export const RAC_DB_NAME = 'rac-bench';

export const STORE = {
  /** Full cached datasets (DatasetRecord), keyed by dataset id. */
  datasets: 'datasets',
  /** Small summaries of the same entries (DatasetMeta), so listing never reads the big arrays. */
  datasetMeta: 'dataset-meta',
  /** Datasets imported from the user's CSV files (UserDatasetRecord), keyed by 'user:<slug>'. */
  userDatasets: 'user-datasets',
  /** Small summaries of the same (UserDatasetMeta), for listing. */
  userDatasetMeta: 'user-dataset-meta',
  /** Downloaded files of image/text datasets, weights and tokenizers (FileRecord), keyed by URL. */
  files: 'files',
  /** Their summaries (FileMeta: size, SHA-256 recorded at the first download), for listing. */
  fileMeta: 'file-meta',
  /** Feature bank files (StoredBank), keyed by the bank's SHA-256. */
  banks: 'banks',
  /** Their summaries (BankMeta: key, size), for the Data page's storage view. */
  bankMeta: 'bank-meta',
} as const;

type Migration = (db: IDBPDatabase, tx: IDBPTransaction<unknown, string[], 'versionchange'>) => void;

/** MIGRATIONS[v] upgrades a database from version v to v+1. Append only. */
export const MIGRATIONS: readonly Migration[] = [
  (db) => {
    db.createObjectStore(STORE.datasets, { keyPath: 'id' });
    db.createObjectStore(STORE.datasetMeta, { keyPath: 'id' });
  },
  (db) => {
    db.createObjectStore(STORE.userDatasets, { keyPath: 'id' });
    db.createObjectStore(STORE.userDatasetMeta, { keyPath: 'id' });
  },
  (db) => {
    db.createObjectStore(STORE.files, { keyPath: 'key' });
    db.createObjectStore(STORE.fileMeta, { keyPath: 'key' });
    db.createObjectStore(STORE.banks, { keyPath: 'sha256' });
    db.createObjectStore(STORE.bankMeta, { keyPath: 'sha256' });
  },
];

export const RAC_DB_VERSION = MIGRATIONS.length;

/**
 * Opens (and upgrades) the database. A connection closes itself when another tab needs a newer
 * version, so an upgrade is never blocked forever; the next open gets the new version.
 */
export function openRacDb(name: string = RAC_DB_NAME): Promise<IDBPDatabase> {
  return openDB(name, RAC_DB_VERSION, {
    upgrade(db, oldVersion, newVersion, tx) {
      const target = newVersion ?? RAC_DB_VERSION;
      for (let v = oldVersion; v < target; v++)
        MIGRATIONS[v](db, tx as IDBPTransaction<unknown, string[], 'versionchange'>);
    },
    blocking(_current, _blocked, event) {
      (event.target as IDBDatabase).close();
    },
  });
}

/** A write the browser refused for lack of room (IndexedDB's QuotaExceededError, legacy code 22). */
export function isQuotaError(e: unknown): boolean {
  const name = (e as { name?: string } | null)?.name;
  return name === 'QuotaExceededError' || (e as { code?: number } | null)?.code === 22;
}

export type StorageEstimateFn = () => Promise<{ usage?: number; quota?: number }>;

/** The shared part of every store over the RAC Bench database: one lazy connection, the quota probe. */
export class RacDbClient {
  readonly #dbName: string | undefined;
  /** navigator.storage.estimate where the platform has it (for quota messages). */
  protected readonly estimate?: StorageEstimateFn;
  #db: Promise<IDBPDatabase> | null = null;

  constructor(opts: { dbName?: string; estimate?: StorageEstimateFn } = {}) {
    this.#dbName = opts.dbName;
    const storage = (globalThis as { navigator?: Navigator }).navigator?.storage as
      StorageManager | undefined;
    this.estimate =
      opts.estimate ?? (typeof storage?.estimate === 'function' ? () => storage.estimate() : undefined);
  }

  protected open(): Promise<IDBPDatabase> {
    this.#db ??= openRacDb(this.#dbName);
    return this.#db;
  }

  async close(): Promise<void> {
    if (this.#db) (await this.#db).close();
    this.#db = null;
  }

  /**
   * Runs a write; a full disk (QuotaExceededError) becomes the DatasetError `quota` builds from the
   * free-space note. The writes are single transactions, so a refused one changed nothing.
   */
  protected async guardQuota<T>(
    write: () => Promise<T>,
    quota: (freeNote: string) => DatasetError,
  ): Promise<T> {
    try {
      return await write();
    } catch (e) {
      if (!isQuotaError(e)) throw e;
      throw quota(await this.freeSpaceNote());
    }
  }

  /** A record and its listing summary, written together in one transaction (both or neither). */
  protected async putPair(
    stores: readonly [string, string],
    record: unknown,
    summary: unknown,
  ): Promise<void> {
    const db = await this.open();
    const tx = db.transaction([...stores], 'readwrite');
    await Promise.all([
      tx.objectStore(stores[0]).put(record),
      tx.objectStore(stores[1]).put(summary),
      tx.done,
    ]);
  }

  /** A record and its summary, deleted together. */
  protected async deletePair(stores: readonly [string, string], key: string): Promise<void> {
    const db = await this.open();
    const tx = db.transaction([...stores], 'readwrite');
    await Promise.all([
      tx.objectStore(stores[0]).delete(key),
      tx.objectStore(stores[1]).delete(key),
      tx.done,
    ]);
  }

  /** " About N MB is free for this site." for a quota message, or '' where the platform cannot tell. */
  protected async freeSpaceNote(): Promise<string> {
    try {
      const est = await this.estimate?.();
      if (est?.quota !== undefined)
        return ` About ${formatBytes(Math.max(0, est.quota - (est.usage ?? 0)))} is free for this site.`;
    } catch {
      // The estimate only improves the message.
    }
    return '';
  }
}
