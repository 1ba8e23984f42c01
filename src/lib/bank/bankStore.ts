/**
 * Feature banks kept in the browser (PROTOCOL-IMAGE-TEXT.md §7.4): a finished bank file by its
 * hash, with a summary of its key for the Data page's storage view (size, delete). Every run on the
 * same dataset and backbone finds it by key; a bank imported from a file is checked (readBankFile)
 * before it is stored.
 */
import { RacDbClient, STORE } from '../data/db.ts';
import { DatasetError, formatBytes } from '../data/errors.ts';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import {
  BankBuilder,
  bankHeader,
  readBankFile,
  type Bank,
  type BankBuilderState,
  type BankKey,
} from './bankFile.ts';

/** Where an unfinished extraction of `key` is kept (in the banks store, beside finished banks). */
const partialId = (key: BankKey) =>
  `partial:${bytesToHex(sha256(new TextEncoder().encode(bankHeader(key))))}`;

export interface BankMeta {
  sha256: string;
  bytes: number;
  key: BankKey;
}

export class BankStore extends RacDbClient {
  /** Checks the file (magic, header, hash) and keeps it; returns its summary. */
  async put(file: Uint8Array): Promise<BankMeta> {
    const bank = readBankFile(file);
    const meta: BankMeta = { sha256: bank.sha256, bytes: file.length, key: bank.key };
    await this.guardQuota(
      () => this.putPair([STORE.banks, STORE.bankMeta], { sha256: meta.sha256, data: file }, meta),
      (free) =>
        new DatasetError({
          kind: 'quota',
          retryable: false,
          bytesNeeded: file.length,
          message: `The browser has no room to keep this feature bank (${formatBytes(file.length)}).${free} Delete other banks or datasets; they were kept.`,
        }),
    );
    return meta;
  }

  async get(sha256: string): Promise<Uint8Array | null> {
    const db = await this.open();
    const rec = (await db.get(STORE.banks, sha256)) as { data?: Uint8Array } | undefined;
    return rec?.data instanceof Uint8Array ? rec.data : null;
  }

  /** The stored bank whose key has every field of `want` (a run's dataset, backbone, views), or null. */
  async find(want: Partial<BankKey>): Promise<BankMeta | null> {
    const all = await this.list();
    return (
      all.find((m) =>
        Object.entries(want).every(
          ([f, v]) => JSON.stringify((m.key as unknown as Record<string, unknown>)[f]) === JSON.stringify(v),
        ),
      ) ?? null
    );
  }

  /** The finished bank of exactly this key, read and checked, or null. */
  async load(key: BankKey): Promise<Bank | null> {
    const want = bankHeader(key);
    for (const m of await this.list()) {
      if (bankHeader(m.key) !== want) continue;
      const bytes = await this.get(m.sha256);
      if (bytes) return readBankFile(bytes, key);
    }
    return null;
  }

  /**
   * Keeps an unfinished extraction so that a closed tab resumes it: the rows done so far. Not
   * listed among the banks; a full quota is reported like a bank's (the extraction goes on).
   */
  async savePartial(builder: BankBuilder): Promise<void> {
    const db = await this.open();
    await db.put(STORE.banks, { sha256: partialId(builder.key), state: builder.saveState() });
  }

  /** The unfinished extraction of `key`, or null (none, or one that no longer fits its key). */
  async loadPartial(key: BankKey): Promise<BankBuilder | null> {
    const db = await this.open();
    const rec = (await db.get(STORE.banks, partialId(key))) as { state?: BankBuilderState } | undefined;
    if (!rec?.state) return null;
    try {
      return BankBuilder.fromState(rec.state);
    } catch {
      await this.deletePartial(key);
      return null;
    }
  }

  async deletePartial(key: BankKey): Promise<void> {
    const db = await this.open();
    await db.delete(STORE.banks, partialId(key));
  }

  async list(): Promise<BankMeta[]> {
    const db = await this.open();
    return (await db.getAll(STORE.bankMeta)) as BankMeta[];
  }

  async delete(sha256: string): Promise<void> {
    await this.deletePair([STORE.banks, STORE.bankMeta], sha256);
  }
}
