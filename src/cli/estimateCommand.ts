/**
 * `rac-bench estimate`: the plan's expected time on this machine before running it, per algorithm
 * × dataset, from the cost model (suite/costModel.ts) and this device's calibration (its
 * micro-benchmark). Each fit's shape is the real split's (labeled, unlabeled and test rows of that
 * setting, labels, t and seed) when the dataset can be read, else the registry's rough shape.
 * `--shards N` gives the wall time of N `rac-bench run --shard i/N` processes in parallel.
 */
import { parseArgs } from 'node:util';
import { getAlgorithm, isBaselineAlgorithm } from '../lib/models/catalogue.ts';
import { makeSplit } from '../lib/protocol/index.ts';
import {
  calibrate,
  cappedShape,
  cellShape,
  datasetShape,
  fitCost,
  type CellShape,
} from '../lib/suite/costModel.ts';
import { planOptionsOf } from '../lib/suite/modelOptions.ts';
import { expandPlan, fitCells } from '../lib/suite/plan.ts';
import { formatDuration, tabulateEstimate, type TimedFit } from '../lib/suite/planEstimate.ts';
import type { Dataset } from '../lib/types.ts';
import { CliError } from './args.ts';
import { loadDatasetNode } from './nodeData.ts';
import { PLAN_FLAGS, planFromCliFlags } from './runCommand.ts';

export async function estimateCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      ...PLAN_FLAGS,
      shards: { type: 'string', default: '1' },
      json: { type: 'boolean', default: false },
    },
  });
  const shards = Number(values.shards);
  if (!Number.isInteger(shards) || shards < 1 || shards > 10_000)
    throw new CliError(`--shards must be an integer from 1 to 10000; got "${values.shards}".`);
  // The same plan as `run`, --option and --subsample included: options change some costs, caps shapes.
  const plan = planFromCliFlags(values);
  const options = planOptionsOf(plan);
  const fits = fitCells(expandPlan(plan, isBaselineAlgorithm));

  // Real split shapes where the data is at hand (iris and wine always; letter with --data-dir).
  const loaded = new Map<string, Dataset | null>();
  const notes: string[] = [];
  for (const id of plan.datasets) {
    try {
      loaded.set(id, await loadDatasetNode(id, values['data-dir']));
    } catch (e) {
      loaded.set(id, null);
      notes.push(`${id}: ${(e as Error).message} Its fits use the registry's rough shape.`);
    }
  }
  const shapes = new Map<string, CellShape>();
  const shapeOf = (c: (typeof fits)[number]): CellShape => {
    const id = `${c.dataset}|${c.setting}|${c.labels}|${c.tIndex}|${c.seed}`;
    let s = shapes.get(id);
    if (!s) {
      const ds = loaded.get(c.dataset);
      if (ds) {
        const split = makeSplit(ds, {
          setting: c.setting,
          labels: c.labels,
          tIndex: c.tIndex,
          seed: c.seed,
          mode: plan.mode,
        });
        s = {
          l: split.labeled.length,
          u: split.unlabeled.length,
          e: split.test.length,
          k: ds.k,
          d: ds.d,
          steps: 0,
        };
      } else s = cellShape(datasetShape(c.dataset), c.labels);
      shapes.set(id, s);
    }
    return s;
  };

  const { msPerUnit, benchMs } = calibrate(() => performance.now(), 7);
  const timed: TimedFit[] = fits.map((cell) => ({
    cell,
    seconds:
      (fitCost(
        cell.algorithm,
        cappedShape(shapeOf(cell), cell.algorithm, plan.subsample),
        familyOf(cell.algorithm),
        options(cell.algorithm),
      ) *
        msPerUnit) /
      1000,
  }));
  const est = tabulateEstimate(timed, shards);
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ plan: plan.preset, msPerUnit, benchMs, ...est }, null, 1)}\n`);
    return 0;
  }
  const out: string[] = [];
  out.push(
    `Estimate for ${plan.preset === 'custom' ? 'a custom plan' : `preset ${plan.preset}`}: ${est.fits} fits on this machine ` +
      `(calibration: micro-benchmark ${benchMs.toFixed(2)} ms, ${(msPerUnit * 1e6).toFixed(2)} ms per 10⁶ work units).`,
  );
  out.push('');
  out.push('algorithm      dataset     fits   per fit   longest      total');
  for (const r of est.rows) {
    out.push(
      `${r.algorithm.padEnd(14)} ${r.dataset.padEnd(10)} ${String(r.fits).padStart(5)} ` +
        `${formatDuration(r.seconds / r.fits).padStart(9)} ${formatDuration(r.longestSeconds).padStart(9)} ` +
        `${formatDuration(r.seconds).padStart(10)}`,
    );
  }
  out.push('');
  out.push(`One process: ${formatDuration(est.cpuSeconds)}.`);
  if (shards > 1)
    out.push(
      `${shards} shards in parallel (rac-bench run --shard i/${shards}): ${formatDuration(est.wallSeconds)} ` +
        `(shards: ${est.shardSeconds.map(formatDuration).join(', ')}).`,
    );
  for (const n of notes) out.push(`Note: ${n}`);
  out.push('A model, not a measurement: compare with a run of one panel before planning around it.');
  process.stdout.write(`${out.join('\n')}\n`);
  return 0;
}

function familyOf(algorithm: string): string | undefined {
  try {
    return getAlgorithm(algorithm).family;
  } catch {
    return undefined;
  }
}
