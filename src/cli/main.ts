/**
 * rac-bench: the benchmark core from the command line (same code as the site).
 *   rac-bench datasets [--json]
 *   rac-bench split --dataset iris --setting all --labels 5,10 --seeds 0-4 --t all [--protocol rsb|readme]
 *   rac-bench run ...   (see `rac-bench help run`)
 *   rac-bench merge a.json b.json --out all.json
 */
import { parseArgs } from 'node:util';
import { CliError } from './args.ts';
import { datasetsCommand } from './datasetsCommand.ts';
import { splitCommand } from './splitCommand.ts';

const USAGE = `rac-bench: robust semi-supervised learning benchmark (RAC Bench) from the command line

Commands:
  datasets [--json] [--data-dir DIR]
      List the dataset registry (ids, shapes, classes, licence, SHA-256, sources).
  split --dataset IDS --setting SETTINGS --labels 5,10 --seeds 0-4 --t all
        [--protocol rsb|readme] [--data-dir DIR]
      Print one JSON array of {dataset, setting, labels, seed, t, labeled, unlabeled, test,
      maskedColumns} with dataset row indices in canonical order.
  run --dataset IDS --setting SETTINGS --labels 5,10 --algorithms all --seeds 0-4 --t all
      --out results.json [--protocol rsb|readme] [--data-dir DIR]
      [--shard i/n | --shard auto [--shard-count N]] [--backend wasm|cpu|webgpu]
  run --preset classroom|tabular-statistical|paper|custom [selector flags narrow it] --out FILE
      (paper = tabular-statistical: the browser's preset, same plan and options)
      Run benchmark cells and write the result schema (rsb-run/1).
  merge FILE... --out FILE
      Join shard result files into one run.
  published FILE [--panels]
      Compare a run with the original's published tables (Robust-SSL-Benchmark): per algorithm,
      points within noise (max(2·std, 2 pts)), exact points, mean signed difference.

Selectors: lists are comma-separated; "all" selects every value; seeds take ranges (0-4);
--t takes values of the grid 0,0.2,0.4,0.6,0.8,1 (or "all"), never indices.
letter and covertype are not embedded: pass --data-dir DIR holding <id>.pq (OpenML parquet) or <id>.csv.
`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'datasets':
        return await datasetsCommand(rest);
      case 'split':
        return await splitCommand(rest);
      case 'run': {
        const { runCommand } = await import('./runCommand.ts');
        return await runCommand(rest);
      }
      case 'merge': {
        const { mergeCommand } = await import('./mergeCommand.ts');
        return await mergeCommand(rest);
      }
      case 'published': {
        const { publishedCommand } = await import('./publishedCommand.ts');
        return await publishedCommand(rest);
      }
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        process.stdout.write(USAGE);
        return command === undefined ? 2 : 0;
      default:
        throw new CliError(`Unknown command "${command}". Run "rac-bench help" for the list.`);
    }
  } catch (err) {
    const e = err as Error;
    const known = ['CliError', 'SelectorError', 'ParamError', 'DatasetError', 'SchemaError'].includes(e.name);
    process.stderr.write(`rac-bench: ${known ? '' : `${e.name}: `}${e.message}\n`);
    if (!known && process.env.RAC_BENCH_DEBUG) process.stderr.write(`${e.stack}\n`);
    return 2;
  }
}

export { parseArgs };
