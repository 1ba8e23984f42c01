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
import { isPanelDatasetId, PANEL_DATASETS, PANEL_DATASET_IDS } from '../lib/data/modal/panels.ts';
import {
  IMAGE_PRESET_METHODS,
  isPanelPresetId,
  PANEL_PRESET_IDS,
  panelPreset,
  TEXT_PRESET_METHODS,
  type PanelPresetPlan,
} from '../lib/suite/panelPresets.ts';
import {
  deviceSpeed,
  estimatePanelPlan,
  formatFlops,
  formatLongDuration,
} from '../lib/suite/panelEstimate.ts';
import { PANEL_METHODS, type PanelMethod } from '../lib/suite/panelPlan.ts';
import { parseNames, parseSeeds, parseSettings, parseTIndices } from '../lib/suite/selectors.ts';
import { TIERS, type Tier } from '../lib/suite/schemaV3.ts';

/** The value of `--flag V` or `--flag=V` in argv (before parsing, to pick the plan's suite). */
function flagValue(argv: string[], flag: string): string | undefined {
  const i = argv.findIndex((a) => a === `--${flag}` || a.startsWith(`--${flag}=`));
  if (i < 0) return undefined;
  return argv[i].includes('=') ? argv[i].slice(argv[i].indexOf('=') + 1) : argv[i + 1];
}

/** An image/text plan (a panel preset, or panel datasets) goes to the panel estimate. */
function isPanelEstimate(argv: string[]): boolean {
  const preset = flagValue(argv, 'preset');
  if (preset !== undefined) return isPanelPresetId(preset);
  return (flagValue(argv, 'dataset') ?? '').split(',').some((d) => isPanelDatasetId(d.trim()));
}

export async function estimateCommand(argv: string[]): Promise<number> {
  if (isPanelEstimate(argv)) return panelEstimateCommand(argv);
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

/**
 * `rac-bench estimate` of an image/text plan (`--preset image-features`, or `--dataset cifar10
 * --tier features …`): the same module and numbers as the Run page's estimate (panelEstimate.ts),
 * at this machine's calibration or a throughput given with --gflops.
 */
export async function panelEstimateCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      preset: { type: 'string' },
      dataset: { type: 'string' },
      setting: { type: 'string' },
      algorithms: { type: 'string' },
      seeds: { type: 'string' },
      t: { type: 'string' },
      tier: { type: 'string' },
      pair: { type: 'string' },
      steps: { type: 'string' },
      backbone: { type: 'string' },
      kw: { type: 'string' },
      ks: { type: 'string' },
      backend: { type: 'string', default: 'wasm' },
      gflops: { type: 'string' },
      'bench-ms': { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const plan = panelPlanFromFlags(values);
  const int = (name: string, raw: string | undefined, lo: number, hi: number): number | undefined => {
    if (raw === undefined) return undefined;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < lo || n > hi)
      throw new CliError(`--${name} must be a whole number from ${lo} to ${hi}; got "${raw}".`);
    return n;
  };
  const positive = (name: string, raw: string | undefined): number | undefined => {
    if (raw === undefined) return undefined;
    const n = Number(raw);
    if (!(Number.isFinite(n) && n > 0))
      throw new CliError(`--${name} must be a positive number; got "${raw}".`);
    return n;
  };
  if (!['wasm', 'cpu', 'webgpu'].includes(values.backend))
    throw new CliError(`--backend must be wasm, cpu or webgpu; got "${values.backend}".`);
  // --bench-ms replays a calibration (the page's, to compare); else this machine is measured.
  const benchMs = positive('bench-ms', values['bench-ms']) ?? calibrate(() => performance.now()).benchMs;
  const device = deviceSpeed({ benchMs }, values.backend, positive('gflops', values.gflops));
  const presetId = values.preset && isPanelPresetId(values.preset) ? values.preset : null;
  let est;
  try {
    est = estimatePanelPlan(plan, device, {
      ...(values.backbone
        ? { backbone: values.backbone }
        : presetId
          ? { backbone: panelPreset(presetId).backbone }
          : {}),
      ...(values.kw !== undefined ? { Kw: int('kw', values.kw, 1, 15) } : {}),
      ...(values.ks !== undefined ? { Ks: int('ks', values.ks, 0, 15) } : {}),
    });
  } catch (e) {
    throw new CliError((e as Error).message);
  }
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ preset: presetId, benchMs, plan, ...est }, null, 1)}\n`);
    return 0;
  }
  const out: string[] = [];
  out.push(
    `Estimate for ${presetId ? `preset ${presetId}` : 'an image/text plan'} (tier ${est.tier}, backbone ${est.backbone}), on this machine:`,
  );
  out.push('');
  out.push('dataset         cells   steps     views   extraction      training');
  for (const r of est.rows)
    out.push(
      `${r.dataset.padEnd(14)} ${String(r.cells).padStart(6)} ${String(r.steps).padStart(7)} ${r.views.toLocaleString('en').padStart(9)} ` +
        `${formatLongDuration(r.extractionSeconds).padStart(10)} ${formatLongDuration(r.trainingSeconds).padStart(13)}` +
        `   (${formatFlops(r.extractionFlops + r.trainingFlops)})`,
    );
  out.push('');
  out.push(...est.lines);
  process.stdout.write(`${out.join('\n')}\n`);
  return 0;
}

function panelPlanFromFlags(values: {
  preset?: string;
  dataset?: string;
  setting?: string;
  algorithms?: string;
  seeds?: string;
  t?: string;
  tier?: string;
  pair?: string;
  steps?: string;
}): PanelPresetPlan {
  try {
    if (values.tier !== undefined && !(TIERS as readonly string[]).includes(values.tier))
      throw new CliError(`--tier must be one of ${TIERS.join(', ')}; got "${values.tier}".`);
    const tier = values.tier as Tier | undefined;
    const base: PanelPresetPlan | null = values.preset
      ? structuredClone(panelPreset(values.preset).plan)
      : null;
    if (!base && !values.dataset)
      throw new CliError(`Name an image/text preset (${PANEL_PRESET_IDS.join(', ')}) or --dataset.`);
    const datasets = values.dataset
      ? parseNames('dataset', values.dataset, PANEL_DATASET_IDS)
      : (base?.datasets ?? []);
    const plan: PanelPresetPlan = {
      datasets,
      settings: values.setting
        ? parseSettings(values.setting)
        : (base?.settings ?? ['feature', 'label', 'distribution']),
      algorithms: values.algorithms
        ? parseNames<PanelMethod>('algorithms', values.algorithms, PANEL_METHODS)
        : (base?.algorithms ?? [
            ...(datasets.some((d) => PANEL_DATASETS[d].modality === 'text')
              ? TEXT_PRESET_METHODS
              : IMAGE_PRESET_METHODS),
          ]),
      seeds: values.seeds ? parseSeeds(values.seeds) : (base?.seeds ?? [0, 1, 2]),
      tIndices: values.t ? parseTIndices(values.t) : (base?.tIndices ?? [0, 1, 2, 3, 4, 5]),
      tier: tier ?? base?.tier ?? 'features',
      quirks: 'rsb',
      pairs: values.pair ? values.pair.split(',').map((p) => p.trim()) : (base?.pairs ?? []),
      ...(base?.caps && (tier ?? base.tier) === base.tier ? { caps: base.caps } : {}),
    };
    if (values.steps !== undefined) {
      const n = Number(values.steps);
      if (!Number.isInteger(n) || n < 1 || n > 1_000_000)
        throw new CliError(`--steps must be a whole number from 1 to 1000000; got "${values.steps}".`);
      plan.steps = n;
    }
    return plan;
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError((e as Error).message);
  }
}
