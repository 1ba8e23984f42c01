/** Small argument helpers on top of node:util parseArgs. */
export class CliError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliError';
  }
}

export function required(values: Record<string, unknown>, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new CliError(`Missing --${name}.`);
  return v;
}
