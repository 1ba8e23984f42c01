import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { mergeRuns } from '../lib/suite/merge.ts';
import { parseRun } from '../lib/suite/schema.ts';
import { CliError, required } from './args.ts';
import { checkOutPath, writeFileVerified } from './files.ts';

export async function mergeCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { out: { type: 'string' } },
  });
  const out = required(values, 'out');
  if (positionals.length === 0) throw new CliError('merge needs at least one result file.');
  checkOutPath(out);
  const runs = positionals.map((file) => {
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(file, 'utf8'));
    } catch (e) {
      throw new CliError(`${file}: not a readable JSON file (${(e as Error).message}).`);
    }
    try {
      return parseRun(json);
    } catch (e) {
      throw new CliError(`${file}: ${(e as Error).message}`);
    }
  });
  let merged;
  try {
    merged = mergeRuns(runs, positionals);
  } catch (e) {
    throw new CliError((e as Error).message);
  }
  // Read back and validated before "Merged" is printed: a full disk is an error, never a cut file.
  writeFileVerified(out, `${JSON.stringify(parseRun(merged))}\n`, parseRun);
  process.stderr.write(`Merged ${runs.length} files into ${merged.cells.length} cells: ${out}\n`);
  return 0;
}
