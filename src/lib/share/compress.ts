/**
 * Raw DEFLATE for link payloads. Compression uses the platform's CompressionStream('deflate-raw')
 * where there is one (browsers, Node ≥ 21) and fflate otherwise. Decompression always goes
 * through fflate's streaming inflater, fed in small slices so that a "zip bomb" is stopped as
 * soon as its output passes the cap, before it can fill memory.
 */
import { deflateSync, Inflate } from 'fflate';

/** Input slice fed to the inflater: DEFLATE expands at most ~1032×, so one slice adds ≤ ~1 MB. */
const SLICE = 1024;

export class InflateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InflateError';
  }
}

async function viaStream(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as BlobPart])
    .stream()
    .pipeThrough(new CompressionStream('deflate-raw' as CompressionFormat));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function hasDeflateRawStream(): boolean {
  try {
    if (typeof CompressionStream !== 'function') return false;
    new CompressionStream('deflate-raw' as CompressionFormat);
    return true;
  } catch {
    return false;
  }
}

/** Raw DEFLATE of `bytes`. `prefer: 'fflate'` skips the platform stream (tests compare both). */
export async function deflateRaw(
  bytes: Uint8Array,
  prefer: 'platform' | 'fflate' = 'platform',
): Promise<Uint8Array> {
  if (prefer === 'platform' && hasDeflateRawStream()) return viaStream(bytes);
  return deflateSync(bytes, { level: 9 });
}

/**
 * Inflates raw DEFLATE, refusing output over `maxBytes`. Throws InflateError for corrupt or
 * truncated data and for output over the cap.
 */
export function inflateRawCapped(bytes: Uint8Array, maxBytes: number): Uint8Array {
  const chunks: Uint8Array[] = [];
  let total = 0;
  let ended = false;
  const inflater = new Inflate((chunk, final) => {
    total += chunk.length;
    if (total > maxBytes)
      throw new InflateError(`it unpacks to more than ${maxBytes} bytes (the limit), so it was refused`);
    chunks.push(chunk);
    if (final) ended = true;
  });
  try {
    for (let i = 0; i < bytes.length; i += SLICE) {
      inflater.push(bytes.subarray(i, Math.min(i + SLICE, bytes.length)), i + SLICE >= bytes.length);
    }
    if (bytes.length === 0) inflater.push(new Uint8Array(0), true);
  } catch (e) {
    if (e instanceof InflateError) throw e;
    throw new InflateError(
      `its compressed data is damaged or cut short (${e instanceof Error ? e.message : String(e)})`,
    );
  }
  if (!ended) throw new InflateError('its compressed data is cut short');
  const out = new Uint8Array(total);
  let o = 0;
  for (const c of chunks) {
    out.set(c, o);
    o += c.length;
  }
  return out;
}
