/**
 * `rac-bench estimate`: the plan's expected time on this machine before running it, per algorithm
 * × dataset, from the cost model (suite/costModel.ts) and this device's calibration (its
 * micro-benchmark). The same formula as the Run page's pre-start estimate (planEstimate.ts
 * `fitSeconds`: the registry's shape of each dataset), so the page and the CLI agree at the same
 * calibration. `--shards N` gives the wall time of N `rac-bench run --shard i/N` processes in parallel.
 */
import { parseArgs } from 'node:util';
import { isBaselineAlgorithm } from '../lib/models/catalogue.ts';
import { calibrate } from '../lib/suite/costModel.ts';
import { expandPlan, fitCells } from '../lib/suite/plan.ts';
import { fitSeconds, formatDuration, tabulateEstimate, type TimedFit } from '../lib/suite/planEstimate.ts';
import { CliError } from './args.ts';
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
  const fits = fitCells(expandPlan(plan, isBaselineAlgorithm));
  const { msPerUnit, benchMs } = calibrate(() => performance.now());
  const timed: TimedFit[] = fits.map((cell) => ({ cell, seconds: fitSeconds(cell, plan, msPerUnit) }));
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
  out.push('A model, not a measurement: compare with a run of one panel before planning around it.');
  process.stdout.write(`${out.join('\n')}\n`);
  return 0;
}
