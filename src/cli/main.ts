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
import { isPanelDatasetId } from '../lib/data/modal/panels.ts';
import { algorithmGroups, algorithmIds } from '../lib/models/catalogue.ts';
import { NODE_ACTIVATION_BUDGET_BYTES, setActivationBudget } from '../lib/models/deep/activationBudget.ts';
import { PRESET_ALIASES, PRESET_IDS } from '../lib/suite/presets.ts';

/** The catalogue and presets as the help text lists them (never a stale hand-written list). */
const PRESETS = [...PRESET_IDS, ...Object.keys(PRESET_ALIASES)].join('|');
const ALGORITHM_IDS = wrapList(algorithmIds(), 22, 74);
const GROUPS = Object.keys(algorithmGroups()).join(', ');

/** "a, b, c" broken into lines that fit `width`, continuation lines indented by `indent`. */
function wrapList(items: string[], indent: number, width: number): string {
  const lines: string[] = [];
  let line = '';
  for (const item of items) {
    const next = line ? `${line}, ${item}` : item;
    if (next.length + indent > width && line) {
      lines.push(`${line},`);
      line = item;
    } else line = next;
  }
  lines.push(line);
  return lines.join(`\n${' '.repeat(indent)}`);
}

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
  bank --dataset cifar10|cifar100|imdb|…|image-clef|visda [--split train|<domain>] [--pair i->p]
       [--variants colour,grey] [--kw 2] --weights W.safetensors --data-dir DIR|ZIP --out FILE.bank|FOLDER
      A feature bank (PROTOCOL-IMAGE-TEXT §7.4) of a Hub split or a local domain (--pair: both
      domains of a pair, into the --out folder) through a frozen backbone.
  run --dataset cifar10|ag_news|image-clef|visda|imdb-amazon --tier features|classroom --bank-dir DIR
      --data-dir DIR|ZIP --algorithms supervised,pseudolabel,… --out run.json [--pair i->p,p->i
      --amazon-pool train|test --setting --labels --seeds --t --steps --batch --lr]
      Image/text panel cells from those banks, one head each (rsb-run/3); Image-CLEF and VisDA from
      their folder or zip (class-folder layout, checked), one bank per domain shared by its pairs.
  run --dataset cifar10|cifar100|ag_news|imdb-amazon|image-clef|visda --tier finetune
      --backbone resnet50|roberta-base|tiny-resnet|tiny-roberta
      --weights W.safetensors [--tokenizer tokenizer.json] --data-dir DIR|ZIP --out run.json
      [--backend webgpu|wasm|cpu] [--shard i/n|auto] [--pair i->p,… --amazon-pool train|test]
      [--algorithms --setting --labels --seeds --t --steps --batch --lr]
      The whole network trains per cell on fresh augmentations (PROTOCOL-IMAGE-TEXT §7.3); prints
      its budget first (the published grid: hundreds of GPU-hours). For GPU servers.
  run --preset ${PRESETS} [selector flags narrow it] --out FILE
      (paper = tabular-statistical: the browser's preset, same plan and options)
      Run benchmark cells and write the result schema (rsb-run/2).
      [--option ALG.OPTION=VALUE ...]  model options, e.g. --option lp.gamma=5 (repeatable)
      [--subsample test=N,unlabeled=N,graph=N[,seed=S]]  PROTOCOL.md §9 pool caps (never paper)
  merge FILE... --out FILE
      Join shard result files into one run.
  estimate --preset ID | selector flags [--shards N] [--json]
      The plan's expected time on this machine, per algorithm × dataset (cost model + calibration).
  published FILE [--panels]
      Compare a run (tabular or image/text) with the original's published curves: a verdict per
      panel (points agree within 2 standard errors of the means; no curve leans, by a sign test).

Selectors: lists are comma-separated; "all" selects every value; seeds take ranges (0-4);
--t takes values of the grid 0,0.2,0.4,0.6,0.8,1 (or "all"), never indices.
letter and covertype are not embedded: pass --data-dir DIR holding <id>.pq (OpenML parquet) or <id>.csv.
`;

/** Each subcommand's own help (`rac-bench run --help`, `rac-bench help run`). */
const COMMAND_HELP: Record<string, string> = {
  datasets: `Usage: rac-bench datasets [--json] [--data-dir DIR]

List the dataset registry: ids, shapes, classes, licence, SHA-256 and sources.
  --json          print one JSON array instead of a table
  --data-dir DIR  also check the local copies <id>.pq or <id>.csv in DIR
`,
  split: `Usage: rac-bench split --dataset IDS --setting SETTINGS --labels 5,10 --seeds 0-4 --t all
                       [--protocol rsb|readme] [--data-dir DIR]

Print one JSON array of {dataset, setting, labels, seed, t, labeled, unlabeled, test,
maskedColumns} with dataset row indices in canonical order.
  --dataset IDS       iris, wine, letter, covertype or a comma list
  --setting SETTINGS  distribution, feature, label or all (default all)
  --labels LIST       labeled examples per class: 5, 10 or 5,10 (default 5,10)
  --seeds RANGE       e.g. 0-4 (default: the protocol's seeds)
  --t VALUES          grid values 0,0.2,0.4,0.6,0.8,1 or all (default all)
  --protocol MODE     rsb (the original code, default) or readme
  --data-dir DIR      folder with letter.pq / covertype.pq (not embedded)

Image and text panels (PROTOCOL-IMAGE-TEXT.md §5): --dataset cifar10, cifar100, ag_news,
imdb-amazon, image-clef or visda prints {dataset, pair, setting, labels, seed, t, sizes, files,
labeled, test, unlabeledIn, unlabeledOut} with row ids of the file each list indexes.
  --labels TOTAL      the labeled total (default the panel's: 200/2000 CIFAR feature, 100/1000
                      CIFAR label, 100 elsewhere)
  --seeds RANGE       default 0-2
  --pair LIST         distribution pairs, e.g. i->p,c->i or train->validation (default all)
  --amazon-pool P     train (3.6 M rows, default) or test (400 000 rows), imdb-amazon's target
  --data-dir DIR      Hub files as DIR/{owner}/{name}/{path} or DIR/{id}/{path} (huggingface-cli
                      download ... --local-dir); image-clef and visda as DIR/{id}/ or DIR/{id}.zip
`,
  run: `Usage: rac-bench run --dataset IDS --setting SETTINGS --labels 5,10 --algorithms all --seeds 0-4 --t all
                     --out results.json [--protocol rsb|readme] [--shard i/n] [--data-dir DIR]
                     [--backend wasm|cpu|webgpu] [--verbose | --quiet]
       rac-bench run --preset ${PRESETS}
                     [selector flags narrow it] --out FILE

Run benchmark cells and write the result schema (rsb-run/2).
  --preset ID         the browser's preset, same plan and options (paper = tabular-statistical)
  --algorithms LIST   ids (${ALGORITHM_IDS}),
                      a group (${GROUPS}; default statistical) or all
  --out FILE          where to write the run (required)
  --shard i/n|auto    run the i-th of n equal parts (join them with rac-bench merge); auto reads
                      the Slurm array / Kubernetes Indexed Job / RAC_SHARD index (with --shard-count)
  --backend NAME      tfjs backend under Node: wasm (default), cpu or webgpu (Dawn)
  --option A.O=V      a model option, e.g. lp.gamma=5 (repeatable; the run is then custom)
  --subsample CAPS    PROTOCOL.md §9 subsampling, e.g. test=2000,unlabeled=5000,graph=3000[,seed=S]:
                      keep at most N rows of a pool, stratified by true labels, seeded by
                      seed' = run seed + 1000003 (+ S); graph = the unlabeled rows LP, LS, TSVM and
                      SSGMM see. Each record lists the caps applied; the run is never labelled paper.
  --verbose           one line per fit, in words ("wine · distribution · 5 labels · SSGMM · t 1.0
                      · seed 0: 0.933"), instead of the progress bar with its ETA
  --quiet             no progress at all (failures and the summary only)
  --checkpoint-every  when a deep fit saves its checkpoint to FILE.checkpoint: 30s (default), 5m,
                      100 (steps) or off; a rerun of a killed run resumes the fit from it
  Other flags as for rac-bench split.
`,
  published: `Usage: rac-bench published RUN.json [--panels]

Compare a run (tabular, or image/text rsb-run/3) with the original's published curves
(Robust-SSL-Benchmark), in the words of the Results page's badge: per panel "Reproduced" when every
point agrees (|Δ| ≤ 2·√(s_pub²/n_pub + s_ours²/n_ours) + 1e-6) and no curve leans to one side (a
two-sided sign test at 5 %), else "Not reproduced"; image/text runs outside the finetune tier are
"Different protocol" (no verdict). Then per algorithm: points that agree, the sign test, seeds on
both sides, exactly equal points (with the original's seeds), and the mean difference. Warns when
the run is in readme mode or has overrides.
  --panels  also one line per panel × algorithm with the points that are not exactly equal
`,
  estimate: `Usage: rac-bench estimate --preset ID [selector flags narrow it] [--shards N] [--json]
       rac-bench estimate --dataset IDS --setting ... --algorithms ... (a custom plan, flags as for run)

The plan's expected time on this machine before running it: per algorithm × dataset the fits,
the time per fit, the longest fit and the total, from the cost model calibrated on this device
(a short micro-benchmark). The same formula as the Run page's estimate before Start (each fit on
the registry's shape of its dataset), so both give the same numbers at the same calibration.
  --shards N    also the wall time of N \`rac-bench run --shard i/N\` processes in parallel
  --option, --subsample  as for run (options and §9 caps change the costs)
  --json        the table as JSON

Image and text plans (the Run page's estimate, suite/panelEstimate.ts):
       rac-bench estimate --preset image-features|image-classroom|image-finetune|text-… [--json]
       rac-bench estimate --dataset cifar10 --tier features|classroom|finetune [--setting, --algorithms,
                          --seeds, --t, --pair, --steps, --backbone, --kw, --ks]
  one-time bank extraction + head training from the backbone's FLOPs (finetune: GPU-hours)
  --backend wasm|webgpu  this machine's CPU rate from its calibration, or WebGPU's assumed 1 TFLOP/s
  --gflops N    a measured throughput instead (e.g. a GPU server's)
  --bench-ms X  replay a calibration (the page's) instead of measuring
`,
  merge: `Usage: rac-bench merge FILE... --out FILE

Join shard result files (rac-bench run --shard) into one run; refuses files of different plans.
  --out FILE  where to write the merged run (required)
`,
};

/** The ids after --dataset (or --dataset=…), for routing `run` to the image/text runner. */
function datasetsOf(args: string[]): string[] {
  const i = args.findIndex((a) => a === '--dataset' || a.startsWith('--dataset='));
  if (i < 0) return [];
  const value = args[i].includes('=') ? args[i].slice(args[i].indexOf('=') + 1) : (args[i + 1] ?? '');
  return value.split(',').map((d) => d.trim());
}

/** Printed when `--help` or `-h` follows a subcommand. */
function wantsHelp(args: string[]): boolean {
  return args.includes('--help') || args.includes('-h');
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  // One fit per process: deep steps keep their activations up to 1 GiB (activationBudget.ts), so
  // `estimate` and the ETA count what `run` will do (initNodeBackend raises it on WebGPU).
  setActivationBudget(NODE_ACTIVATION_BUDGET_BYTES);
  if (command !== undefined && command in COMMAND_HELP && wantsHelp(rest)) {
    process.stdout.write(COMMAND_HELP[command]);
    return 0;
  }
  if (command === 'help' && rest[0] !== undefined && rest[0] in COMMAND_HELP) {
    process.stdout.write(COMMAND_HELP[rest[0]]);
    return 0;
  }
  try {
    switch (command) {
      case 'datasets':
        return await datasetsCommand(rest);
      case 'split':
        return await splitCommand(rest);
      case 'run': {
        if (datasetsOf(rest).some((d) => isPanelDatasetId(d))) {
          const { panelRunCommand } = await import('./panelCommands.ts');
          return await panelRunCommand(rest);
        }
        const { runCommand } = await import('./runCommand.ts');
        return await runCommand(rest);
      }
      case 'bank': {
        const { bankCommand } = await import('./panelCommands.ts');
        return await bankCommand(rest);
      }
      case 'merge': {
        const { mergeCommand } = await import('./mergeCommand.ts');
        return await mergeCommand(rest);
      }
      case 'estimate': {
        const { estimateCommand } = await import('./estimateCommand.ts');
        return await estimateCommand(rest);
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
