/**
 * Downloaded files in IndexedDB (PROTOCOL-IMAGE-TEXT.md §4.1, §4.5): the parquet files of image and
 * text datasets, weights and tokenizers, kept as the bytes that were hashed. The SHA-256 recorded
 * at a file's first download is its pin from then on (the spec pins no hash in advance): a later
 * read re-hashes the bytes (weights/loader.ts) and a copy that differs is dropped, never used.
 * A full disk is a DatasetError 'quota' that leaves every other entry as it was.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import type { BytesCache } from '../weights/loader.ts';
import { RacDbClient, STORE } from './db.ts';
import { DatasetError, formatBytes } from './errors.ts';

export interface FileMeta {
  /** The URL the bytes came from (the cache key). */
  key: string;
  bytes: number;
  /** SHA-256 of the bytes, recorded at the first download: the pin of later reads. */
  sha256: string;
}

interface FileRecord extends FileMeta {
  data: Uint8Array;
}

export class FileStore extends RacDbClient implements BytesCache {
  async get(key: string): Promise<Uint8Array | null> {
    const db = await this.open();
    const rec = (await db.get(STORE.files, key)) as FileRecord | undefined;
    return rec?.data instanceof Uint8Array ? rec.data : null;
  }

  /** The SHA-256 recorded for `key` at its first download, or null. */
  async pin(key: string): Promise<string | null> {
    const db = await this.open();
    return ((await db.get(STORE.fileMeta, key)) as FileMeta | undefined)?.sha256 ?? null;
  }

  /** Keeps the bytes; `hash` is their SHA-256 where the caller has taken it (else it is taken here). */
  async put(key: string, bytes: Uint8Array, hash?: string): Promise<void> {
    const meta: FileMeta = { key, bytes: bytes.length, sha256: hash ?? bytesToHex(sha256(bytes)) };
    await this.guardQuota(
      () => this.putPair([STORE.files, STORE.fileMeta], { ...meta, data: bytes } satisfies FileRecord, meta),
      (free) =>
        new DatasetError({
          kind: 'quota',
          retryable: false,
          url: key,
          bytesNeeded: bytes.length,
          message:
            `The browser has no room to keep ${key.slice(key.lastIndexOf('/') + 1)} (${formatBytes(bytes.length)} needed).${free} ` +
            'Delete cached datasets or banks, or allow more storage; everything cached before was kept.',
        }),
    );
  }

  async delete(key: string): Promise<void> {
    await this.deletePair([STORE.files, STORE.fileMeta], key);
  }

  async list(): Promise<FileMeta[]> {
    const db = await this.open();
    return (await db.getAll(STORE.fileMeta)) as FileMeta[];
  }
}
