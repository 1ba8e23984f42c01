/** `indices_sha256` of a result record (PROTOCOL.md §10). */
import type { CellSplit } from './cellSplit.ts';

/** The exact text that is hashed: JSON of [L, E, U] (row ids in produced order, no spaces). */
export function indicesJson(split: Pick<CellSplit, 'labeled' | 'test' | 'unlabeled'>): string {
  return JSON.stringify([split.labeled, split.test, split.unlabeled]);
}

/** SHA-256 of indicesJson(split), lower-case hex (WebCrypto: browser, worker and Node 20). */
export async function indicesSha256(
  split: Pick<CellSplit, 'labeled' | 'test' | 'unlabeled'>,
): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(indicesJson(split)));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}
