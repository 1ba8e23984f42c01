/**
 * Run records as files: export (pretty JSON of `rsb-run/2`, or `rsb-run/3` for image/text runs)
 * and import with full validation. Import errors are ImportError with one plain sentence: not
 * JSON, wrong schema version, the path of the first invalid field, or (cellProblem) the first
 * cell its plan and the registries say cannot be (outside the plan, iris with N 151, mnist).
 */
import { cellProblem } from '../suite/merge.ts';
import { parseRun, RUN_SCHEMA, SchemaError, type RunRecord } from '../suite/schema.ts';
import { parseRunV3, RUN_SCHEMA_V3, type ModalRunRecord } from '../suite/schemaV3.ts';

/** A run file of either suite: tabular (`rsb-run/1`, `/2`) or image/text (`rsb-run/3`). */
export type AnyRun = { kind: 'tabular'; run: RunRecord } | { kind: 'modal'; run: ModalRunRecord };

/** An rsb-run/3 whose plan is an image/text plan. */
function isModalRunJson(json: unknown): boolean {
  const r = json as { schema?: unknown; plan?: { spec?: unknown } } | null;
  return r !== null && typeof r === 'object' && r.schema === RUN_SCHEMA_V3 && r.plan?.spec === 'image-text';
}

/** Largest run file read (bytes). A full paper run is ~70 MB of JSON. */
export const MAX_RUN_FILE_BYTES = 200 * 1024 * 1024;

export class ImportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImportError';
  }
}

export function runToJson(run: RunRecord): string {
  return `${JSON.stringify(run, null, 1)}\n`;
}

/** A file name for a run's exports: the run id made safe for file systems. */
export function runFileName(run: Pick<RunRecord, 'id'>, ext: string): string {
  const base =
    run.id
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/^[-.]+/, '')
      .slice(0, 80) || 'run';
  return `rac-bench-${base}.${ext}`;
}

/** Parses and validates a run file of either suite. `name` is for messages. */
export function parseAnyRunFile(text: string, name = 'the file'): AnyRun {
  const got = parseAnyRunSchema(text, name);
  // Schema-valid is not enough: the cells must be ones their plan and the registries allow.
  const problem = cellProblem(got.run);
  if (problem) throw new ImportError(`${name} is not a run RAC Bench could have made: ${problem}`);
  return got;
}

function parseAnyRunSchema(text: string, name: string): AnyRun {
  if (text.length > MAX_RUN_FILE_BYTES) {
    throw new ImportError(
      `${name} is too large (${(text.length / 1e6).toFixed(0)} MB; at most ${MAX_RUN_FILE_BYTES / 1e6} MB is read).`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new ImportError(
      `${name} is not JSON (${(e as Error).message.replace(/\s+/g, ' ').slice(0, 120)}). Expected a run exported from RAC Bench ("${RUN_SCHEMA}" or "${RUN_SCHEMA_V3}").`,
    );
  }
  if (isModalRunJson(json)) {
    try {
      const run = parseRunV3(json);
      if ('spec' in run.plan) return { kind: 'modal', run: run as ModalRunRecord };
    } catch (e) {
      if (!(e instanceof SchemaError)) throw e;
      throw new ImportError(`${name} is not a valid image/text run: ${e.message}.`);
    }
  }
  try {
    return { kind: 'tabular', run: parseRun(json) };
  } catch (e) {
    if (!(e instanceof SchemaError)) throw e;
    if (
      e.path === 'schema' ||
      (e.path === '' && json !== null && typeof json === 'object' && !('schema' in json))
    ) {
      throw new ImportError(`${name} is not a RAC Bench run of a version this page reads: ${e.message}.`);
    }
    throw new ImportError(`${name} is not a valid run: ${e.message}.`);
  }
}

/** Parses and validates a tabular run file (Compare and the tabular views). `name` is for messages. */
export function parseRunFile(text: string, name = 'the file'): RunRecord {
  const got = parseAnyRunFile(text, name);
  if (got.kind === 'modal')
    throw new ImportError(
      `${name} is an image/text run ("${RUN_SCHEMA_V3}", ${got.run.cells.length} cells); this view takes tabular ` +
        'runs only (the Results page draws image and text runs).',
    );
  return got.run;
}

/** The JSON of an image/text run, as `rac-bench run` writes it. */
export function modalRunToJson(run: ModalRunRecord): string {
  return `${JSON.stringify(run, null, 1)}\n`;
}

async function readRunFile(file: Blob & { name?: string }): Promise<{ text: string; name: string }> {
  const name = file.name ? `"${file.name.slice(0, 80)}"` : 'the file';
  if (file.size > MAX_RUN_FILE_BYTES) {
    throw new ImportError(
      `${name} is too large (${(file.size / 1e6).toFixed(0)} MB; at most ${MAX_RUN_FILE_BYTES / 1e6} MB is read).`,
    );
  }
  return { text: await file.text(), name };
}

/** Reads and validates a run file of either suite chosen by the user. */
export async function importAnyRunFile(file: Blob & { name?: string }): Promise<AnyRun> {
  const { text, name } = await readRunFile(file);
  return parseAnyRunFile(text, name);
}

/** Reads and validates a tabular run file (or Blob) chosen by the user. */
export async function importRunFile(file: Blob & { name?: string }): Promise<RunRecord> {
  const { text, name } = await readRunFile(file);
  return parseRunFile(text, name);
}
