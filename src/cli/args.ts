/** Small argument helpers on top of node:util parseArgs. */
export class CliError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliError';
  }
}

/** Plain errors of the shared core as CLI errors (a message, exit code 2, no stack); others pass. */
export async function asCliError<T>(f: () => Promise<T> | T): Promise<T> {
  try {
    return await f();
  } catch (e) {
    if (e instanceof CliError || !(e instanceof Error) || e.name !== 'Error') throw e;
    throw new CliError(e.message);
  }
}

export function required(values: Record<string, unknown>, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new CliError(`Missing --${name}.`);
  return v;
}

/** The plan selector flags that `split` and `run` share (same grammar as the URL and presets). */
export const SELECTOR_OPTIONS = {
  dataset: { type: 'string' },
  setting: { type: 'string', default: 'all' },
  labels: { type: 'string', default: '5,10' },
  seeds: { type: 'string' },
  t: { type: 'string', default: 'all' },
  protocol: { type: 'string', default: 'rsb' },
  'data-dir': { type: 'string' },
} as const;
