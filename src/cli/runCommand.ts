/**
 * `rac-bench run`: the plan through the run executor (src/lib/suite/executor.ts) in this process.
 * Crash-proof: `--out` is checked before the first fit; each finished fit is appended (fsynced) to
 * `<out>.journal`; a rerun of the same command resumes from the journal (and from a finished
 * `--out` of the same plan); the result file is written atomically, then the journal removed.
 * A deep fit saves its checkpoint to `<out>.checkpoint` as it trains (`--checkpoint-every`, 30 s of
 * training by default), so a rerun resumes a killed fit mid-way with the same weights and record.
 */
import { existsSync, readFileSync } from 'node:fs';
import { cpus, platform, release } from 'node:os';
import { parseArgs } from 'node:util';
import { DATASET_IDS } from '../lib/data/registry.ts';
import { algorithmGroups, algorithmIds, getAlgorithm, isBaselineAlgorithm } from '../lib/models/catalogue.ts';
import { applyOptionAssignments, planOptionsOf } from '../lib/suite/modelOptions.ts';
import { presetPlan, resolvePresetId } from '../lib/suite/presets.ts';
import { parseSubsample, SubsampleError, subsampleProblems } from '../lib/suite/subsamplePlan.ts';
import { calibrate, cellCost } from '../lib/suite/costModel.ts';
import { RunExecutor, type ExecutedCell, type FitGate, type Lane } from '../lib/suite/executor.ts';
import {
  assertPlanSize,
  cellKey,
  defaultPlanOptions,
  expandPlan,
  shardCells,
  type CellSpec,
  type RunPlanSpec,
} from '../lib/suite/plan.ts';
import { runCell, type CellEnv } from '../lib/suite/runCell.ts';
import type { CellResult, RunRecord } from '../lib/suite/schema.ts';
import { parseCellResult, parseRun, RUN_SCHEMA } from '../lib/suite/schema.ts';
import { parseLabels, parseNames, parseSeeds, parseSettings, parseTIndices } from '../lib/suite/selectors.ts';
import type { Dataset } from '../lib/types.ts';
import { CliError, required, SELECTOR_OPTIONS } from './args.ts';
import { checkOutPath, Journal, writeFileVerified } from './files.ts';
import { CheckpointFile } from './checkpointFile.ts';
import {
  DEFAULT_CHECKPOINT_POLICY,
  describePolicy,
  parseCheckpointPolicy,
  type CellCheckpoint,
  type CheckpointChannel,
  type CheckpointPolicy,
} from '../lib/suite/cellCheckpoint.ts';
import { loadDatasetNodeWithSource } from './nodeData.ts';
import { ProgressReporter } from './progress.ts';
import { parseProtocol } from './splitCommand.ts';
import { resolveShard } from './shard.ts';
import { initNodeBackend, liveTensors, nodeBackendInfo, parseNodeBackend, TFJS_VERSION } from './tfNode.ts';
import pkg from '../../package.json' with { type: 'json' };
import { after } from '../lib/env/timer.ts';
import { canonicalJson } from '../lib/suite/canonicalJson.ts';

type RunFlags = Partial<
  Record<'dataset' | 'setting' | 'labels' | 'seeds' | 't' | 'protocol' | 'preset' | 'algorithms', string>
>;

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
      algorithms: parseNames(
        'algorithms',
        values.algorithms ?? 'statistical',
        algorithmIds(),
        algorithmGroups(),
      ),
      seeds: parseSeeds(values.seeds ?? (mode === 'rsb' ? '0-4' : '0-2')),
      tIndices: parseTIndices(values.t ?? 'all'),
      mode,
      quirks: mode === 'rsb' ? 'rsb' : 'fixed',
      options: defaultPlanOptions(mode),
    };
  }
  const base = presetPlan(presetId);
  if (values.protocol !== undefined && parseProtocol(values.protocol) !== base.mode) {
    throw new CliError(
      `--preset ${values.preset} runs protocol "${base.mode}"; drop --protocol ${values.protocol} or use a custom plan (no --preset).`,
    );
  }
  return {
    ...base,
    datasets:
      values.dataset !== undefined ? parseNames('dataset', values.dataset, DATASET_IDS) : base.datasets,
    settings: values.setting !== undefined ? parseSettings(values.setting) : base.settings,
    labels: values.labels !== undefined ? parseLabels(values.labels) : base.labels,
    algorithms:
      values.algorithms !== undefined
        ? parseNames('algorithms', values.algorithms, algorithmIds(), algorithmGroups())
        : base.algorithms,
    seeds: values.seeds !== undefined ? parseSeeds(values.seeds) : base.seeds,
    tIndices: values.t !== undefined ? parseTIndices(values.t) : base.tIndices,
  };
}

/** The plan's §9 caps from `--subsample`, or a CliError that names the problem. */
export function subsampleFromFlag(text: string, seeds: readonly number[]): RunPlanSpec['subsample'] {
  try {
    const spec = parseSubsample(text);
    const problems = subsampleProblems(spec, seeds);
    if (problems.length) throw new SubsampleError(problems[0]);
    return spec;
  } catch (err) {
    if (err instanceof SubsampleError) throw new CliError(`--subsample: ${err.message}`);
    throw err;
  }
}

function wrapPreset(name: string) {
  try {
    return resolvePresetId(name);
  } catch (err) {
    throw new CliError((err as Error).message);
  }
}

/** The key of a record (as plan cells are keyed). */
function resultKey(c: CellResult): string {
  return cellKey({
    dataset: c.dataset.id,
    setting: c.setting,
    labels: c.labels,
    algorithm: c.algorithm.name,
    tIndex: c.t_index,
    seed: c.seed,
  });
}

interface LoadedDataset {
  ds: Dataset;
  source: string;
}

/** The CLI's one lane: fits run in this process (tfjs on wasm or cpu); it cannot be restarted. */
class InProcessLane implements Lane {
  readonly index = 0;
  readonly resource = 'cpu' as const;
  readonly restartable = false;
  #controller: AbortController | null = null;

  constructor(
    readonly backend: string,
    readonly plan: RunPlanSpec,
    readonly datasets: Map<string, LoadedDataset>,
    readonly env: CellEnv,
  ) {}

  async run(
    cell: CellSpec,
    onProgress: (fraction: number, message?: string) => void,
    checkpoints?: CheckpointChannel,
  ): Promise<CellResult> {
    const { ds, source } = this.datasets.get(cell.dataset)!;
    const ac = new AbortController();
    this.#controller = ac;
    try {
      return await runCell(ds, source, cell, this.plan, getAlgorithm(cell.algorithm), {
        now: () => performance.now(),
        isoTime: () => new Date().toISOString(),
        env: this.env,
        signal: ac.signal,
        // Fraction and message only: the CLI draws no training curves.
        onProgress: (fraction, message) => onProgress(fraction, message),
        liveTensors,
        checkpoints,
      });
    } finally {
      this.#controller = null;
    }
  }

  async restart(): Promise<void> {}

  cancel(): void {
    this.#controller?.abort();
  }

  async close(): Promise<void> {}
}

/** The flags that make a plan, shared by `run` and `estimate`. */
export const PLAN_FLAGS = {
  ...SELECTOR_OPTIONS,
  // No defaults here: with --preset, a flag that is given narrows the preset's list.
  setting: { type: 'string' },
  labels: { type: 'string' },
  t: { type: 'string' },
  protocol: { type: 'string' },
  preset: { type: 'string' },
  algorithms: { type: 'string' },
  option: { type: 'string', multiple: true, default: [] as string[] },
  subsample: { type: 'string' },
} as const;

/** The plan of the flags, with --option model options and --subsample caps applied. */
export function planFromCliFlags(values: RunFlags & { option?: string[]; subsample?: string }): RunPlanSpec {
  const plan = planFromFlags(values);
  // --option lp.gamma=5 (repeatable): model options, or protocol-bound ones such as ssgmm.support.
  Object.assign(plan, applyOptionAssignments(plan, values.option ?? []));
  // --subsample test=2000,unlabeled=5000,graph=3000[,seed=S]: PROTOCOL.md §9 caps (the run is then custom).
  if (values.subsample !== undefined) {
    const subsample = subsampleFromFlag(values.subsample, plan.seeds);
    // §9 rule 1: a suite with any subsampling is never labelled with a preset (its options are kept).
    if (subsample) Object.assign(plan, { subsample, preset: 'custom' });
  }
  return plan;
}

export async function runCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      ...PLAN_FLAGS,
      out: { type: 'string' },
      shard: { type: 'string' },
      'shard-count': { type: 'string' },
      backend: { type: 'string', default: 'wasm' },
      quiet: { type: 'boolean', default: false },
      verbose: { type: 'boolean', default: false },
      'checkpoint-every': { type: 'string' },
    },
  });
  const plan = planFromCliFlags(values);
  const checkpointPolicy = checkpointPolicyFromFlag(values['checkpoint-every']);
  const out = required(values, 'out');
  const {
    index: shardIndex,
    count: shardCount,
    source: shardSource,
  } = resolveShard(values.shard, process.env, values['shard-count']);
  const wanted = parseNodeBackend(values.backend);
  assertPlanSize(plan, shardCount);
  // Before any work: a bad --out must not cost a run.
  checkOutPath(out);
  const shard = `${shardIndex}/${shardCount}`;
  const planCells = expandPlan(plan, isBaselineAlgorithm);
  const cells = shardCells(planCells, shardIndex, shardCount);
  if (cells.length === 0) {
    // Cells that copy another's fit (derivedFromKey) go with it: those groups are what shards share.
    const units = new Set(planCells.map((c) => c.derivedFromKey ?? c.key)).size;
    throw new CliError(
      `--shard ${shard}: this plan can be cut into at most ${units} shard${units === 1 ? '' : 's'}, so shard ${shardIndex} would hold no cell.`,
    );
  }
  const planKeys = new Set(cells.map((c) => c.key));
  const signature = canonicalJson({ plan, shard });

  // Resume: the journal of an interrupted run, then a finished --out file of the same plan.
  const journal = new Journal(out);
  const checkCell = (c: ExecutedCell): ExecutedCell => {
    if (typeof c?.key !== 'string' || !planKeys.has(c.key)) throw new Error('not a cell of this plan');
    const result = c.result === null ? null : parseCellResult(c.result);
    if (result && resultKey(result) !== c.key) throw new Error('record does not match its key');
    return {
      key: c.key,
      status: result ? result.outcome.status : 'failed',
      result,
      error: c.error ?? null,
      attempts: c.attempts ?? 1,
    };
  };
  const resumed = new Map<string, ExecutedCell>();
  const previous = readPreviousOut(out, signature);
  for (const r of previous)
    resumed.set(resultKey(r), {
      key: resultKey(r),
      status: r.outcome.status,
      result: r,
      error: r.outcome.reason ?? null,
      attempts: 1,
    });
  const { cells: journalled, dropped } = journal.read(signature, checkCell);
  for (const c of journalled) resumed.set(c.key, c);
  // A run file names one backend: cells already done on another must not be mixed in under it.
  const doneOn = new Set<string>();
  for (const c of resumed.values()) if (c.result) doneOn.add(c.result.env.backend);
  const doneIn = [journalled.length ? journal.path : null, previous.length ? out : null]
    .filter((w) => w !== null)
    .join(' and ');
  const mixed = (on: string) =>
    new CliError(
      `The ${resumed.size} cells already done (${doneIn}) ran on ${[...doneOn].join(' and ')}, not ${on}; ` +
        `resume with --backend ${[...doneOn][0]}, or move ${doneIn} away to start over on ${on}.`,
    );
  // Before the backend starts where the flag decides it (wasm alone may fall back to cpu).
  const reachable = wanted === 'wasm' ? ['wasm', 'cpu'] : [wanted];
  if (doneOn.size && !reachable.some((b) => doneOn.has(b))) throw mixed(wanted);
  if (!values.quiet && resumed.size) {
    process.stderr.write(
      `Resuming: ${resumed.size} of ${cells.length} cells already done (${journal.path}${previous.length ? ` and ${out}` : ''}).\n`,
    );
  }
  if (dropped)
    process.stderr.write(
      `${dropped} unreadable journal entr${dropped === 1 ? 'y was' : 'ies were'} dropped; those cells run again.\n`,
    );

  const compute = (a: string) => getAlgorithm(a).compute;
  const checkpoints = new CheckpointFile(out);
  const backend = await initNodeBackend(wanted);
  if (doneOn.size && !doneOn.has(backend)) throw mixed(backend);
  const adapter = nodeBackendInfo()?.adapter ?? null;
  if (!values.quiet) {
    const where = shardSource === 'default' ? '' : ` · shard ${shard} (${shardSource})`;
    const on = nodeBackendInfo()?.adapterText;
    process.stderr.write(
      `Backend ${backend}${on ? ` on ${on}` : ''}${nodeBackendInfo()?.software ? ' (software adapter: slow)' : ''}${where}\n`,
    );
    if (plan.algorithms.some((a) => compute(a) === 'deep'))
      process.stderr.write(
        `Deep fits save a checkpoint ${describePolicy(checkpointPolicy)}${checkpointPolicy ? ` to ${checkpoints.path}` : ''} (--checkpoint-every).\n`,
      );
  }
  // Every dataset is loaded before the first fit: one that cannot load stops here, with its reason.
  const datasets = new Map<string, LoadedDataset>();
  for (const id of plan.datasets) {
    datasets.set(id, await loadDatasetNodeWithSource(id, values['data-dir']));
  }
  const env: CellEnv = {
    backend,
    float_precision: 'float32',
    tfjs_version: TFJS_VERSION,
    app_version: pkg.version,
    device: `node ${process.version} ${platform()} ${release()} (${cpus()[0]?.model ?? 'cpu'})`,
  };
  const started = new Date().toISOString();
  const t0 = performance.now();
  const { msPerUnit } = calibrate(() => performance.now());
  const shapes = (id: string) => {
    const d = datasets.get(id)?.ds;
    return d ? { N: d.N, d: d.d, k: d.k } : undefined;
  };
  const ac = new AbortController();
  const lane = new InProcessLane(backend, plan, datasets, env);
  const executor = new RunExecutor({
    cells,
    stored: [...resumed.values()],
    lanes: [lane],
    put: async (batch) => journal.append(batch),
    compute,
    cost: (c) => cellCost(c, compute, shapes, planOptionsOf(plan), plan.subsample),
    msPerUnit,
    validate: parseCellResult,
    clock: {
      now: () => performance.now(),
      after,
    },
    signal: ac.signal,
    gate: holdGate(process.env.RAC_BENCH_HOLD_AFTER_FITS),
    checkpoints: {
      store: checkpoints,
      policy: checkpointPolicy,
      saved: checkpointHold(process.env.RAC_BENCH_HOLD_AT_CHECKPOINT),
    },
  });
  const stop = () => {
    ac.abort();
    lane.cancel();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const all = new Map(resumed);
  journal.open(signature);
  // A bar with the ETA by default; one line per fit in words with --verbose; nothing with --quiet.
  const progress = values.quiet
    ? null
    : new ProgressReporter(process.stderr, values.verbose, () => executor.snapshot());
  let outcome;
  try {
    outcome = await executor.run({
      onStored: (batch) => {
        for (const c of batch) all.set(c.key, c);
        progress?.stored(batch);
      },
      onNotice: (text) => (progress ? progress.note(text) : process.stderr.write(`${text}\n`)),
    });
  } finally {
    progress?.finish();
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    journal.close();
  }
  if (outcome.status !== 'done') {
    process.stderr.write(
      `Stopped (${outcome.reason ?? outcome.status}); ${all.size} of ${cells.length} cells are saved in ${journal.path}. Run the same command again to resume.\n`,
    );
    return 130;
  }
  const ordered: CellResult[] = [];
  for (const cell of cells) {
    const r = all.get(cell.key)?.result;
    if (r) ordered.push(r);
  }
  const run: RunRecord = parseRun({
    schema: RUN_SCHEMA,
    id: `cli-${started}`,
    created_at: started,
    finished_at: new Date().toISOString(),
    plan,
    env: { runtime: `node ${process.version}`, backends: [backend], adapter, shard },
    cells: ordered,
  });
  try {
    writeFileVerified(out, `${JSON.stringify(run)}\n`, parseRun);
  } catch (e) {
    // The journal is the only other copy of these cells: it goes only once the file is sound.
    throw new CliError(
      `${(e as Error).message} The ${all.size} finished cells stay in ${journal.path}; free some space if the disk is full, then run the same command again to write the file.`,
    );
  }
  journal.remove();
  checkpoints.clear();
  const failed = [...all.values()].filter((c) => c.status === 'failed').length;
  process.stderr.write(
    `Wrote ${ordered.length} cells (${executor.scheduler.fitsTotal} fits, ${failed} failed) to ${out} in ${((performance.now() - t0) / 1000).toFixed(1)} s.\n`,
  );
  return 0;
}

/** Records of a finished earlier run at `out` with the same plan and shard (none otherwise). */
function readPreviousOut(out: string, signature: string): CellResult[] {
  if (!existsSync(out)) return [];
  try {
    const run = parseRun(JSON.parse(readFileSync(out, 'utf8')));
    return canonicalJson({ plan: run.plan, shard: run.env.shard ?? '1/1' }) === signature ? run.cells : [];
  } catch {
    return []; // not ours, or unreadable: it is replaced (atomically) at the end
  }
}

/** `--checkpoint-every` (default every 30 s of training), or a CliError naming the problem. */
function checkpointPolicyFromFlag(text: string | undefined): CheckpointPolicy {
  if (text === undefined) return DEFAULT_CHECKPOINT_POLICY;
  try {
    return parseCheckpointPolicy(text);
  } catch (e) {
    throw new CliError(`--checkpoint-every: ${(e as Error).message}`);
  }
}

/**
 * Test hook RAC_BENCH_HOLD_AT_CHECKPOINT=n: once n checkpoints are written, the fit that wrote the
 * n-th waits there (its checkpoint on disk, mid-fit), so a test kills the run at a known point of
 * a fit instead of racing its speed. Ignored unless a whole number ≥ 1.
 */
function checkpointHold(text: string | undefined): ((c: CellCheckpoint) => Promise<void>) | undefined {
  if (text === undefined || !/^[1-9]\d*$/.test(text)) return undefined;
  const n = Number(text);
  let count = 0;
  return async (c) => {
    if (++count < n) return;
    process.stderr.write(
      `rac-bench: holding at checkpoint ${count} (${c.key}, step ${c.step} of ${c.steps}; RAC_BENCH_HOLD_AT_CHECKPOINT)\n`,
    );
    // Never resolves; the interval keeps the process alive until it is killed.
    return new Promise<void>(() => setInterval(() => {}, 60_000));
  };
}

/**
 * Test hook RAC_BENCH_HOLD_AFTER_FITS=n: the run stops taking fits once n are taken and waits
 * (their records journaled, nothing in flight), so a test can kill it at a known point instead of
 * racing the machine's speed. Ignored unless a whole number.
 */
function holdGate(text: string | undefined): FitGate | undefined {
  if (text === undefined || !/^\d+$/.test(text)) return undefined;
  const n = Number(text);
  return {
    limit: () => n,
    opened: () => {
      process.stderr.write(`rac-bench: holding after ${n} fits (RAC_BENCH_HOLD_AFTER_FITS)\n`);
      // Never opens; the interval keeps the process alive until it is killed.
      return new Promise<void>(() => setInterval(() => {}, 60_000));
    },
  };
}
