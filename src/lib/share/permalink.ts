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
import { packV2, unpackV2 } from './linkV2.ts';
import type { ModalRunRecord } from '../suite/schemaV3.ts';
import type { AnyRun } from './runFile.ts';

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

/** Image/text runs (`rsb-run/3`, PROTOCOL-IMAGE-TEXT.md §11): format → decoder. Append only. */
export const MODAL_LINK_DECODERS: Readonly<Record<number, (json: unknown) => ModalRunRecord>> = {
  2: (json) => unpackV2(json, MAX_LINK_CELLS),
};
/** The format image/text links are written in. */
export const MODAL_LINK_FORMAT = 2;

/** Packs an image/text run into a link payload (format MODAL_LINK_FORMAT). */
export async function encodeModalRunLink(
  run: ModalRunRecord,
  prefer: 'platform' | 'fflate' = 'platform',
): Promise<string> {
  const json = JSON.stringify(packV2(run));
  const packed = await deflateRaw(new TextEncoder().encode(json), prefer);
  return `${MODAL_LINK_FORMAT}.${encodeBase64Url(packed)}`;
}

/** A link payload of either suite's run. */
export function encodeAnyRunLink(run: AnyRun): Promise<string> {
  return run.kind === 'modal' ? encodeModalRunLink(run.run) : encodeRunLink(run.run);
}

/**
 * Opens a link payload of either suite: a tabular run (format 1) or an image/text run (format 2).
 * Throws LinkError with a message meant for the page.
 */
export function decodeAnyRunLink(payload: string): AnyRun {
  const format = /^(\d{1,4})\./.exec(typeof payload === 'string' ? payload : '')?.[1];
  if (format !== undefined && MODAL_LINK_DECODERS[Number(format)])
    return { kind: 'modal', run: decodeWith(payload, MODAL_LINK_DECODERS) };
  return { kind: 'tabular', run: decodeRunLink(payload) };
}

/** Opens a tabular link payload. Throws LinkError with a message meant for the page. */
export function decodeRunLink(payload: string): RunRecord {
  const format = /^(\d{1,4})\./.exec(typeof payload === 'string' ? payload : '')?.[1];
  if (format !== undefined && MODAL_LINK_DECODERS[Number(format)])
    throw new LinkError(
      'This link holds an image/text run; this view takes tabular runs only (the Results and Compare pages open it).',
    );
  return decodeWith(payload, LINK_DECODERS);
}

function decodeWith<R extends RunRecord | ModalRunRecord>(
  payload: string,
  decoders: Readonly<Record<number, (json: unknown) => R>>,
): R {
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
  const decode = decoders[format];
  if (!decode) {
    const formats = [...Object.keys(LINK_DECODERS), ...Object.keys(MODAL_LINK_DECODERS)];
    const known =
      formats.length === 1
        ? `format ${formats[0]}`
        : `formats ${formats.slice(0, -1).join(', ')} and ${formats.at(-1)}`;
    throw new LinkError(
      `This results link uses format ${format}, which this version of RAC Bench cannot read (it reads ${known}). It may come from a newer version.`,
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
  let run: R;
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
