/**
 * Results in a link: `<format>.<base64url of raw-DEFLATE of JSON>`, e.g. `1.jZLL...`, carried in
 * the hash as `r=`. A registry maps each format to its decoder, so links made by older versions
 * keep opening after the format moves on.
 *
 * Links come from strangers. Before anything is parsed: the text is capped (MAX_LINK_PAYLOAD),
 * the unpacked size is capped (MAX_UNPACKED_BYTES, stops zip bombs), the cell count is capped,
 * and the rebuilt run goes through the full schema (parseRun) and the plan and registry checks
 * (cellProblem). Every failure is a LinkError whose
 * message is one plain sentence for the page.
 */
import { cellProblem } from '../suite/merge.ts';
import { SchemaError, type RunRecord } from '../suite/schema.ts';
import { decodeBase64Url, encodeBase64Url } from './base64url.ts';
import { deflateRaw, inflateRawCapped, InflateError } from './compress.ts';
import { packV1, unpackV1 } from './linkV1.ts';

/** The format new links are written in. */
export const LINK_FORMAT = 1;
/** Longest `r=` value accepted (characters). Links we write stay under ~8 000 for the whole URL. */
export const MAX_LINK_PAYLOAD = 16_000;
/** Largest unpacked JSON accepted (bytes). */
export const MAX_UNPACKED_BYTES = 2_000_000;
/** Most cells a link may hold. */
export const MAX_LINK_CELLS = 20_000;
/** Longest whole URL we offer as a link (browsers and chat apps cut longer ones). */
export const MAX_URL_CHARS = 8_000;

export class LinkError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LinkError';
  }
}

type Decoder = (json: unknown) => RunRecord;

/** Format → decoder. Append only: a format once published is never removed or changed. */
export const LINK_DECODERS: Readonly<Record<number, Decoder>> = {
  1: (json) => unpackV1(json, MAX_LINK_CELLS),
};

/** Packs a run into a link payload (format LINK_FORMAT). */
export async function encodeRunLink(
  run: RunRecord,
  prefer: 'platform' | 'fflate' = 'platform',
): Promise<string> {
  const json = JSON.stringify(packV1(run));
  const packed = await deflateRaw(new TextEncoder().encode(json), prefer);
  return `${LINK_FORMAT}.${encodeBase64Url(packed)}`;
}

/** Opens a link payload. Throws LinkError with a message meant for the page. */
export function decodeRunLink(payload: string): RunRecord {
  const broken = (why: string) =>
    new LinkError(
      `This results link is broken: ${why}. Ask for the link again, or open the run's JSON file instead.`,
    );
  if (typeof payload !== 'string' || payload === '') throw broken('it holds no results');
  if (payload.length > MAX_LINK_PAYLOAD) {
    throw new LinkError(
      `This results link is too long (${payload.length} characters; at most ${MAX_LINK_PAYLOAD} are read), so it was not opened.`,
    );
  }
  const m = /^(\d{1,4})\.(.*)$/s.exec(payload);
  if (!m) throw broken('it does not start with a format number like "1."');
  const format = Number(m[1]);
  const decode = LINK_DECODERS[format];
  if (!decode) {
    const known = Object.keys(LINK_DECODERS).join(', ');
    throw new LinkError(
      `This results link uses format ${format}, which this version of RAC Bench cannot read (it reads format ${known}). It may come from a newer version.`,
    );
  }
  let bytes: Uint8Array;
  try {
    bytes = decodeBase64Url(m[2]);
  } catch (e) {
    throw broken(`its text is damaged (${(e as Error).message})`);
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(inflateRawCapped(bytes, MAX_UNPACKED_BYTES));
  } catch (e) {
    if (e instanceof InflateError) throw broken(e.message);
    throw broken('its content is not text');
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw broken('its content is not valid JSON');
  }
  let run: RunRecord;
  try {
    run = decode(json);
  } catch (e) {
    if (e instanceof SchemaError) throw broken(`a value is invalid at ${e.message}`);
    throw broken(e instanceof Error ? e.message : String(e));
  }
  // Schema-valid is not enough: the cells must be ones their plan and the registries allow.
  const problem = cellProblem(run);
  if (problem) throw broken(problem.replace(/\.$/, ''));
  return run;
}
