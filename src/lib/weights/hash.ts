/**
 * SHA-256 of file bytes, lower-case hex, through WebCrypto (browser, worker and Node 20): the
 * `weights_sha256` and `tokenizer_sha256` of a result record (PROTOCOL-IMAGE-TEXT.md §4.5, §11).
 * The project's other hashes (indicesHash.ts, data/canonical.ts) hash their own canonical text or
 * arrays and inline the digest; this one takes bytes as they are.
 */

/** SHA-256 of the bytes (a view hashes only its own range), as 64 lower-case hex digits. */
export async function sha256Hex(bytes: Uint8Array | ArrayBuffer): Promise<string> {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  // WebCrypto refuses views on a SharedArrayBuffer; the digest itself does not copy.
  const digest = await crypto.subtle.digest('SHA-256', view as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** True for 64 lower-case hex digits, the form every recorded hash takes. */
export function isSha256Hex(s: string): boolean {
  return /^[0-9a-f]{64}$/.test(s);
}
