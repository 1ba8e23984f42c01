/** Canonical in-memory dataset: parse the embedded CSV form and hash it (PROTOCOL.md §4). */
import type { Dataset } from '../types.ts';

/**
 * Parses the canonical CSV written by scripts/fixtures/make_datasets.py: a header with feature
 * names and a last `class` column holding integer labels 0..k-1. Decimal text goes straight
 * to float64 (`Number()` is correctly rounded, like Python's float()).
 */
export function parseCanonicalCsv(id: string, text: string, classNames?: string[]): Omit<Dataset, 'sha256'> {
  const lines = text.split(/\r?\n/).filter((l) => l.length > 0);
  if (lines.length < 2) throw new Error(`Dataset '${id}': the file has no data rows.`);
  const header = lines[0].split(',');
  const d = header.length - 1;
  const N = lines.length - 1;
  const X = new Float64Array(N * d);
  const y = new Int32Array(N);
  for (let r = 0; r < N; r++) {
    const cells = lines[r + 1].split(',');
    if (cells.length !== d + 1) {
      throw new Error(`Dataset '${id}': row ${r + 2} has ${cells.length} cells; expected ${d + 1}.`);
    }
    for (let f = 0; f < d; f++) {
      const v = Number(cells[f]);
      if (cells[f].trim() === '' || !Number.isFinite(v)) {
        throw new Error(
          `Dataset '${id}': row ${r + 2}, column '${header[f]}' is not a number: ${JSON.stringify(cells[f])}.`,
        );
      }
      X[r * d + f] = v;
    }
    const label = Number(cells[d]);
    if (!Number.isInteger(label) || label < 0) {
      throw new Error(
        `Dataset '${id}': row ${r + 2} has label ${JSON.stringify(cells[d])}; expected an integer >= 0.`,
      );
    }
    y[r] = label;
  }
  let k = 0;
  for (let i = 0; i < N; i++) k = Math.max(k, y[i] + 1);
  return {
    id,
    N,
    d,
    k,
    X,
    y,
    featureNames: header.slice(0, d),
    classNames: classNames ?? Array.from({ length: k }, (_, c) => String(c)),
  };
}

/** The bytes that PROTOCOL.md §4 hashes: header line, X as float64 LE row-major, y as int32 LE. */
export function canonicalBytes(ds: Pick<Dataset, 'id' | 'N' | 'd' | 'k' | 'X' | 'y'>): Uint8Array[] {
  const head = new TextEncoder().encode(`rsb-ds/1|${ds.id}|${ds.N}|${ds.d}|${ds.k}\n`);
  const xb = new Uint8Array(ds.N * ds.d * 8);
  const xv = new DataView(xb.buffer);
  for (let i = 0; i < ds.N * ds.d; i++) xv.setFloat64(i * 8, ds.X[i], true);
  const yb = new Uint8Array(ds.N * 4);
  const yv = new DataView(yb.buffer);
  for (let i = 0; i < ds.N; i++) yv.setInt32(i * 4, ds.y[i], true);
  return [head, xb, yb];
}

/** SHA-256 via WebCrypto (browser, worker and Node 20 all have `crypto.subtle`). */
export async function sha256Hex(parts: Uint8Array[]): Promise<string> {
  let total = 0;
  for (const p of parts) total += p.length;
  const all = new Uint8Array(total);
  let o = 0;
  for (const p of parts) {
    all.set(p, o);
    o += p.length;
  }
  const digest = await crypto.subtle.digest('SHA-256', all);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * The same bytes as canonicalBytes, in one buffer. On little-endian hosts (all browsers and
 * Node here) the typed arrays' own bytes are the canonical bytes, so they are copied once
 * (covertype's X is 251 MB: one copy, not two).
 */
export function canonicalBuffer(ds: Pick<Dataset, 'id' | 'N' | 'd' | 'k' | 'X' | 'y'>): Uint8Array {
  if (!LITTLE_ENDIAN) {
    const parts = canonicalBytes(ds);
    const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let o = 0;
    for (const p of parts) {
      all.set(p, o);
      o += p.length;
    }
    return all;
  }
  const head = new TextEncoder().encode(`rsb-ds/1|${ds.id}|${ds.N}|${ds.d}|${ds.k}\n`);
  const nx = ds.N * ds.d * 8;
  const all = new Uint8Array(head.length + nx + ds.N * 4);
  all.set(head, 0);
  all.set(new Uint8Array(ds.X.buffer, ds.X.byteOffset, nx), head.length);
  all.set(new Uint8Array(ds.y.buffer, ds.y.byteOffset, ds.N * 4), head.length + nx);
  return all;
}

export async function canonicalSha256(
  ds: Pick<Dataset, 'id' | 'N' | 'd' | 'k' | 'X' | 'y'>,
): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', canonicalBuffer(ds) as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}
