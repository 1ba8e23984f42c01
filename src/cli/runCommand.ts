import { writeFileSync } from 'node:fs';
import { cpus, platform, release } from 'node:os';
import { parseArgs } from 'node:util';
import { DATASET_IDS } from '../lib/data/registry.ts';
import { ALGORITHM_GROUPS, ALGORITHM_IDS, getAlgorithm, isBaselineAlgorithm } from '../lib/models/registry.ts';
import { defaultPlanOptions, expandPlan, fitCells, shardCells, type RunPlanSpec } from '../lib/suite/plan.ts';
import { presetPlan, resolvePresetId } from '../lib/suite/presets.ts';
import { deriveBaselineCell, runCell } from '../lib/suite/runCell.ts';
import type { CellResult, RunRecord } from '../lib/suite/schema.ts';
import { parseRun } from '../lib/suite/schema.ts';
import { parseLabels, parseNames, parseSeeds, parseSettings, parseTIndices } from '../lib/suite/selectors.ts';
import type { Dataset } from '../lib/types.ts';
import { CliError, required, SELECTOR_OPTIONS } from './args.ts';
import { loadDatasetNode } from './nodeData.ts';
import { parseProtocol } from './splitCommand.ts';
import { initNodeBackend, TFJS_VERSION } from './tfNode.ts';
import pkg from '../../package.json' with { type: 'json' };

export function parseShard(text: string | undefined): [number, number] {
  if (text === undefined) return [1, 1];
  const m = /^(\d+)\/(\d+)$/.exec(text);
  if (!m) throw new CliError(`--shard must look like i/n (e.g. 2/4); got "${text}".`);
  const [i, n] = [Number(m[1]), Number(m[2])];
  if (n < 1 || i < 1 || i > n) throw new CliError(`--shard ${text}: need 1 <= i <= n.`);
  return [i, n];
}

type RunFlags = Partial<Record<'dataset' | 'setting' | 'labels' | 'seeds' | 't' | 'protocol' | 'preset' | 'algorithms', string>>;

/**
 * The plan of `rac-bench run`: `--preset <id>` (classroom | tabular-statistical, alias paper | custom)
 * gives that preset's plan and options exactly as the browser runs it, and each selector flag that is
 * given replaces the preset's list; without a preset (or with `custom`) the flags make a custom plan.
 */
export function planFromFlags(values: RunFlags): RunPlanSpec {
  const presetId = values.preset === undefined ? 'custom' : wrapPreset(values.preset);
  if (presetId === 'custom') {
    const mode = parseProtocol(values.protocol ?? 'rsb');
    return {
      preset: 'custom',
      datasets: parseNames('dataset', required(values, 'dataset'), DATASET_IDS),
      settings: parseSettings(values.setting ?? 'all'),
      labels: parseLabels(values.labels ?? '5,10'),
      algorithms: parseNames('algorithms', values.algorithms ?? 'statistical', ALGORITHM_IDS, ALGORITHM_GROUPS),
      seeds: parseSeeds(values.seeds ?? (mode === 'rsb' ? '0-4' : '0-2')),
      tIndices: parseTIndices(values.t ?? 'all'),
      mode,
      quirks: mode === 'rsb' ? 'rsb' : 'fixed',
      options: defaultPlanOptions(mode),
    };
  }
  const base = presetPlan(presetId);
  if (values.protocol !== undefined && parseProtocol(values.protocol) !== base.mode) {
    throw new CliError(`--preset ${values.preset} runs protocol "${base.mode}"; drop --protocol ${values.protocol} or use a custom plan (no --preset).`);
  }
  return {
    ...base,
    datasets: values.dataset !== undefined ? parseNames('dataset', values.dataset, DATASET_IDS) : base.datasets,
    settings: values.setting !== undefined ? parseSettings(values.setting) : base.settings,
    labels: values.labels !== undefined ? parseLabels(values.labels) : base.labels,
    algorithms: values.algorithms !== undefined ? parseNames('algorithms', values.algorithms, ALGORITHM_IDS, ALGORITHM_GROUPS) : base.algorithms,
    seeds: values.seeds !== undefined ? parseSeeds(values.seeds) : base.seeds,
    tIndices: values.t !== undefined ? parseTIndices(values.t) : base.tIndices,
  };
}

function wrapPreset(name: string) {
  try {
    return resolvePresetId(name);
  } catch (err) {
    throw new CliError((err as Error).message);
  }
}

export async function runCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      ...SELECTOR_OPTIONS,
      // No defaults here: with --preset, a flag that is given narrows the preset's list.
      setting: { type: 'string' },
      labels: { type: 'string' },
      t: { type: 'string' },
      protocol: { type: 'string' },
      preset: { type: 'string' },
      algorithms: { type: 'string' },
      out: { type: 'string' },
      shard: { type: 'string' },
      backend: { type: 'string', default: 'wasm' },
      quiet: { type: 'boolean', default: false },
    },
  });
  const plan = planFromFlags(values);
  const out = required(values, 'out');
  const [shardIndex, shardCount] = parseShard(values.shard);
  if (values.backend !== 'wasm' && values.backend !== 'cpu') {
    throw new CliError(`--backend must be "wasm" or "cpu"; got "${values.backend}".`);
  }
  const backend = await initNodeBackend(values.backend);

  const all = expandPlan(plan, isBaselineAlgorithm);
  const cells = shardCells(all, shardIndex, shardCount);
  const toFit = fitCells(cells);
  const datasets = new Map<string, Dataset>();
  const env = {
    backend,
    float_precision: 'float32',
    tfjs_version: TFJS_VERSION,
    app_version: pkg.version,
    device: `node ${process.version} ${platform()} ${release()} (${cpus()[0]?.model ?? 'cpu'})`,
  };
  const started = new Date().toISOString();
  const results = new Map<string, CellResult>();
  const t0 = performance.now();
  let done = 0;
  for (const cell of toFit) {
    let ds = datasets.get(cell.dataset);
    if (!ds) {
      ds = await loadDatasetNode(cell.dataset, values['data-dir']);
      datasets.set(cell.dataset, ds);
    }
    const res = await runCell(ds, 'embedded-or-data-dir', cell, plan, getAlgorithm(cell.algorithm), {
      now: () => performance.now(),
      isoTime: () => new Date().toISOString(),
      env,
    });
    results.set(cell.key, res);
    done++;
    if (!values.quiet) {
      const acc = res.outcome.accuracy === null ? res.outcome.status : res.outcome.accuracy.toFixed(3);
      const elapsed = (performance.now() - t0) / 1000;
      const eta = (elapsed / done) * (toFit.length - done);
      process.stderr.write(`[${done}/${toFit.length}] ${cell.key} ${acc}  (${elapsed.toFixed(1)} s, eta ${eta.toFixed(0)} s)\n`);
    }
  }
  const ordered: CellResult[] = [];
  for (const cell of cells) {
    if (cell.derivedFromKey) {
      const src = results.get(cell.derivedFromKey);
      if (src) ordered.push(deriveBaselineCell(src, cell));
    } else {
      const r = results.get(cell.key);
      if (r) ordered.push(r);
    }
  }
  const run: RunRecord = parseRun({
    schema: 'rsb-run/1',
    id: `cli-${started}`,
    created_at: started,
    finished_at: new Date().toISOString(),
    plan,
    env: { runtime: `node ${process.version}`, backends: [backend], adapter: null, shard: `${shardIndex}/${shardCount}` },
    cells: ordered,
  });
  writeFileSync(out, `${JSON.stringify(run)}\n`);
  const failed = ordered.filter((c) => c.outcome.status === 'failed').length;
  process.stderr.write(
    `Wrote ${ordered.length} cells (${toFit.length} fits, ${failed} failed) to ${out} in ${((performance.now() - t0) / 1000).toFixed(1)} s.\n`,
  );
  return 0;
}
