/**
 * One cell: split → scale → fit → predict → score → result record (PROTOCOL.md §1, §10).
 * Pure apart from the injected clock; used by the browser workers and the CLI alike.
 */
import {
  buildCellData,
  hasSubsample,
  indicesSha256,
  makeSplit,
  subsampleSplit,
  type SubsampleRecord,
} from '../protocol/index.ts';
import { modelStream } from '../protocol/modelStream.ts';
import {
  optionOverrides,
  resolveModelOptions,
  type AlgorithmSpec,
  type OptionValue,
} from '../models/catalogue.ts';
import { argmaxRows, type Estimator, type Progress } from '../models/estimator.ts';
import { createFitContext } from '../models/fitContext.ts';
import type { Dataset, ProtocolMode } from '../types.ts';
import type { CellSpec, RunPlanSpec } from './plan.ts';
import { defaultPlanOptions, t0StreamFor, tValue } from './plan.ts';
import { PRESET_IDS, presetPlan, type PresetId } from './presets.ts';
import { CELL_SCHEMA, type CellResult } from './schema.ts';
import { subsampleOverrides } from './subsamplePlan.ts';
import {
  arrayBytes,
  CELL_CHECKPOINT_FORMAT,
  checkpointClock,
  checkpointProblem,
  describePolicy,
  type CheckpointChannel,
  type CheckpointFingerprint,
} from './cellCheckpoint.ts';
import type { DeepContextExtras } from '../models/deep/context.ts';

/** 1.1.0: Tri-Training's learners and stream, SSGMM's rsb default, the model-stream offset (PROTOCOL.md). */
export const PROTOCOL_VERSION = '1.1.0';
export const PRNG_NAME = 'mt19937-numpy-legacy';

export interface CellEnv {
  backend: 'webgpu' | 'webgl' | 'wasm' | 'cpu';
  float_precision: string;
  tfjs_version: string;
  app_version: string;
  device: string;
}

/** What runCell needs of a catalogue entry. */
export type AlgorithmEntry = Pick<
  AlgorithmSpec,
  'id' | 'family' | 'options' | 'recordExtras' | 'create' | 'graphPool'
> &
  Partial<Pick<AlgorithmSpec, 'suite'>>;

export interface RunCellContext {
  /** Milliseconds from any monotonic origin (performance.now in a worker). */
  now(): number;
  /** ISO time for created_at. */
  isoTime(): string;
  env: CellEnv;
  signal?: AbortSignal;
  onProgress?: (fraction: number, message?: string, event?: Progress) => void;
  /**
   * Live tensors of the tfjs engine (tf.memory().numTensors). When given, a fit that leaves
   * tensors behind after dispose fails its cell with a TensorLeak reason instead of passing.
   */
  liveTensors?: () => number;
  /**
   * A deep fit's checkpoints: the one to resume from (checked here against the cell), when and
   * where to save, where to say why one was not used. Ignored by statistical fits.
   */
  checkpoints?: CheckpointChannel;
}

/** The protocol options that shape one dataset's splits and scaling (ssgmmSupport is a model option). */
function splitOptions(plan: RunPlanSpec, dataset: string) {
  const { takeZero, scaler } = plan.options;
  return { takeZero, t0Stream: t0StreamFor(plan.options, dataset), scaler };
}

/** The options a cell ran under: the per-dataset t0 stream resolved (PROTOCOL.md §3.5). */
function cellOptions(plan: RunPlanSpec, dataset: string) {
  const { t0StreamByDataset: _perDataset, ...options } = plan.options;
  return { ...options, t0Stream: t0StreamFor(plan.options, dataset) };
}

function perClass(y: Int32Array, k: number): number[] {
  const counts = new Array(k).fill(0);
  for (const c of y) counts[c]++;
  return counts;
}

function datasetRecord(ds: Dataset, source: string) {
  return { id: ds.id, source, sha256: ds.sha256, N: ds.N, d: ds.d, k: ds.k };
}

/** The default quirks of a mode (PROTOCOL.md §7.5). */
export function defaultQuirks(mode: ProtocolMode): 'rsb' | 'fixed' {
  return mode === 'rsb' ? 'rsb' : 'fixed';
}

/** The plan a plan is measured against: its named preset (e.g. paper's provenance), else null. */
function referencePlan(plan: RunPlanSpec): RunPlanSpec | null {
  const named = plan.preset !== 'custom' && (PRESET_IDS as readonly string[]).includes(plan.preset);
  const ref = named ? presetPlan(plan.preset as PresetId) : null;
  return ref && ref.mode === plan.mode ? ref : null;
}

/** The options a plan is measured against: its named preset's, else the mode's defaults. */
function referenceOptions(plan: RunPlanSpec): RunPlanSpec['options'] {
  return referencePlan(plan)?.options ?? defaultPlanOptions(plan.mode);
}

/**
 * Every deviation of this cell's plan from its reference (its named preset, else the mode's
 * defaults; PROTOCOL.md §1 "explicit overrides"): quirks, protocol options as this dataset's cells
 * use them (`options.<key>`), the algorithm's model options (`<id>.<option>`) and the plan's §9 caps
 * (`subsample.<pool>.max`, `.seed`). Empty for a preset run.
 */
export function planOverrides(
  plan: RunPlanSpec,
  dataset: string,
  algorithm: AlgorithmEntry,
  resolved: Record<string, OptionValue>,
): Record<string, OptionValue> {
  const out: Record<string, OptionValue> = {};
  if (plan.quirks !== defaultQuirks(plan.mode)) out.quirks = plan.quirks;
  const reference = cellOptions({ ...plan, options: referenceOptions(plan) }, dataset) as Record<
    string,
    unknown
  >;
  for (const [k, v] of Object.entries(cellOptions(plan, dataset)))
    if (reference[k] !== v) out[`options.${k}`] = v as OptionValue;
  // A preset's own model options (classroom-deep's tiny loop) are its reference, not overrides.
  const presetModel = referencePlan(plan)?.modelOptions?.[algorithm.id];
  return {
    ...out,
    ...optionOverrides(algorithm as AlgorithmSpec, plan.mode, resolved, presetModel),
    ...subsampleOverrides(plan.subsample),
  };
}

function protocolRecord(plan: RunPlanSpec, dataset: string, overrides: Record<string, OptionValue>) {
  const modified = Object.keys(overrides).length > 0;
  return {
    mode: plan.mode,
    version: PROTOCOL_VERSION,
    quirks: plan.quirks,
    // A run that deviates from its preset is not that preset any more (never labelled `paper`).
    preset: modified && plan.preset !== 'custom' ? 'custom' : plan.preset,
    options: cellOptions(plan, dataset),
    overrides: { ...overrides } as Record<string, unknown>,
  };
}

/**
 * PROTOCOL.md §7.2: deep networks start from `init_seed` 0 in `rsb` (shared), the run seed in
 * `readme`. The deep suite's baseline (FT-Transformer) is one of them.
 */
function initSeedOf(algorithm: AlgorithmEntry, plan: RunPlanSpec, seed: number): number {
  const deep = algorithm.family === 'deep' || algorithm.suite === 'deep';
  return deep && plan.mode === 'rsb' ? 0 : seed;
}

function isDeepEntry(algorithm: Pick<AlgorithmEntry, 'family'> & Partial<Pick<AlgorithmSpec, 'suite'>>) {
  return algorithm.family === 'deep' || algorithm.suite === 'deep';
}

/**
 * The fit context's checkpoint members for a deep cell: the checkpoint to resume from when it
 * matches this cell exactly (else a notice says why it is ignored, and the fit starts at step 0),
 * when to save (the channel's policy, on the injected clock) and each save wrapped with the cell's
 * key and fingerprint. Empty without a channel.
 */
function deepCheckpointing(
  channel: CheckpointChannel | undefined,
  key: string,
  fingerprint: CheckpointFingerprint,
  steps: number,
  ctx: RunCellContext,
): { extras: DeepContextExtras; fromStep: number } {
  if (!channel) return { extras: {}, fromStep: 0 };
  let resume = channel.resumeFrom;
  if (resume) {
    const why = checkpointProblem(resume, key, fingerprint, steps);
    if (why) {
      channel.notice(`${key}: its saved checkpoint is not used (${why}); the fit starts from step 0.`);
      resume = null;
    } else
      channel.notice(
        `${key}: resuming from its checkpoint at step ${resume.step} of ${steps} (saved ${resume.savedAt}).`,
      );
  }
  const clock = checkpointClock(channel.policy, ctx.now);
  const policy = describePolicy(channel.policy);
  return {
    fromStep: resume?.step ?? 0,
    extras: {
      ...(resume ? { resumeFrom: resume.deep } : {}),
      onResumeRejected: (reason) =>
        channel.notice(
          `${key}: its saved checkpoint could not be restored (${reason}); the fit starts from step 0.`,
        ),
      ...(channel.policy === null
        ? {}
        : {
            checkpointDue: clock.due,
            onCheckpoint: async (deep) => {
              await channel.save({
                format: CELL_CHECKPOINT_FORMAT,
                key,
                fingerprint,
                step: deep.step,
                steps,
                policy,
                savedAt: ctx.isoTime(),
                bytes: arrayBytes(deep),
                deep,
              });
              clock.saved();
            },
          }),
    },
  };
}

/**
 * A deep fit's progress from its first step: the trainer ticks once per step but reports its
 * losses every `progressEvery` steps (25), which on a slow backend (WebGPU on a software adapter)
 * is minutes of 0 %. Each tick moves the fit's fraction and says its step, so the page shows it
 * alive, the ETA moves and the watchdog hears it. Not for statistical fits (their ticks are not
 * steps of a known count).
 */
export function stepTicker(
  algorithm: Pick<AlgorithmEntry, 'family'> & Partial<Pick<AlgorithmSpec, 'suite'>>,
  options: Record<string, unknown>,
  onProgress: RunCellContext['onProgress'],
  /** The step a resumed fit starts at. */
  fromStep = 0,
): (() => void) | undefined {
  const deep = isDeepEntry(algorithm);
  const steps = options.steps;
  if (!deep || !onProgress || typeof steps !== 'number' || !(steps > 0)) return undefined;
  let step = fromStep;
  return () => {
    step++;
    // The last step's own report (with its losses) says "done"; ticks stop short of it.
    if (step < steps) onProgress(step / steps, `step ${step} of ${steps}`);
  };
}

export async function runCell(
  ds: Dataset,
  datasetSource: string,
  cell: CellSpec,
  plan: RunPlanSpec,
  algorithm: AlgorithmEntry,
  ctx: RunCellContext,
): Promise<CellResult> {
  const t = tValue(cell.tIndex);
  const options = resolveModelOptions(
    algorithm as AlgorithmSpec,
    plan.mode,
    plan.modelOptions?.[algorithm.id],
    plan.options,
  );
  const initSeed = initSeedOf(algorithm, plan, cell.seed);
  const base = {
    schema: CELL_SCHEMA,
    protocol: protocolRecord(plan, cell.dataset, planOverrides(plan, cell.dataset, algorithm, options)),
    dataset: datasetRecord(ds, datasetSource),
    setting: cell.setting,
    labels: cell.labels,
    t,
    t_index: cell.tIndex,
    seed: cell.seed,
    env: { ...ctx.env, prng: PRNG_NAME },
    // §10: the caps applied to this cell (set below, after the split), null without subsampling.
    subsample: null as SubsampleRecord[] | null,
  };
  const algoRecord = (model: Estimator | null) => ({
    name: algorithm.id,
    family: algorithm.family,
    hyper: model ? { ...model.hyper } : {},
    options: { ...options },
    init_seed: initSeed,
    // The catalogue entry says which fit facts the record carries (tsvm_multiclass, ssgmmSupport, tt_restart).
    ...(model && algorithm.recordExtras ? algorithm.recordExtras(model.info()) : {}),
  });

  const split = makeSplit(ds, {
    setting: cell.setting,
    labels: cell.labels,
    tIndex: cell.tIndex,
    seed: cell.seed,
    mode: plan.mode,
    options: splitOptions(plan, cell.dataset),
  });
  // §9: pools capped after the split and before scaling; the split record stays the split's.
  const sub = hasSubsample(plan.subsample)
    ? subsampleSplit(ds.y, split, plan.subsample, cell.seed, algorithm.graphPool === true)
    : null;
  const used = sub ? sub.split : split;
  if (sub && sub.records.length) base.subsample = sub.records;
  const data = buildCellData(ds, used, plan.mode, splitOptions(plan, cell.dataset));
  const splitRecord = {
    n_labeled: split.labeled.length,
    labeled_per_class: perClass(data.yl, data.numClasses),
    n_test: split.test.length,
    n_unlabeled: split.unlabeled.length,
    n_unlabeled_ood: split.nUnlabeledOod,
    ...(split.keptClasses ? { kept_classes: split.keptClasses } : {}),
    ...(split.maskedColumns ? { masked_columns: split.maskedColumns } : {}),
    indices_sha256: await indicesSha256(split),
  };
  const emptyOutcome = {
    accuracy: null,
    n_correct: 0,
    n_test: used.test.length,
    n_nan_rows: 0,
    flattened_from_t0: false,
  };

  if (used.unlabeled.length === 0 && algorithm.family !== 'baseline') {
    return {
      ...base,
      algorithm: algoRecord(null),
      split: splitRecord,
      outcome: {
        status: 'skipped',
        reason: 'The unlabeled pool is empty for this cell (PROTOCOL.md §5.5).',
        ...emptyOutcome,
      },
      timing: { fit_ms: 0, predict_ms: 0, steps: 0 },
      created_at: ctx.isoTime(),
    } as CellResult;
  }

  if (used.test.length === 0) {
    return {
      ...base,
      algorithm: algoRecord(null),
      split: splitRecord,
      outcome: {
        status: 'degenerate',
        reason: noTestReason(cell.labels, splitRecord.n_labeled, splitRecord.n_unlabeled),
        ...emptyOutcome,
      },
      timing: { fit_ms: 0, predict_ms: 0, steps: 0 },
      created_at: ctx.isoTime(),
    } as CellResult;
  }

  let model: Estimator | null = null;
  // A backend that is going away (a lost GPU device) cannot count: skip the check then, the
  // harness has its own verdict on such a cell.
  const liveTensors = (): number | undefined => {
    try {
      return ctx.liveTensors?.();
    } catch {
      return undefined;
    }
  };
  const tensorsBefore = liveTensors();
  const failed = (reason: string, m: Estimator | null) =>
    ({
      ...base,
      algorithm: algoRecord(m),
      split: splitRecord,
      outcome: { status: 'failed', reason: reason.slice(0, 2000), ...emptyOutcome },
      timing: { fit_ms: 0, predict_ms: 0, steps: 0 },
      created_at: ctx.isoTime(),
    }) as CellResult;
  let result: CellResult;
  const { extras: deepExtras, fromStep } = isDeepEntry(algorithm)
    ? deepCheckpointing(
        ctx.checkpoints,
        cell.key,
        {
          algorithm: algorithm.id,
          dataset: base.dataset,
          split: {
            indices_sha256: splitRecord.indices_sha256,
            n_labeled: splitRecord.n_labeled,
            n_unlabeled: splitRecord.n_unlabeled,
            n_test: splitRecord.n_test,
          },
          subsample: base.subsample,
          data: { nL: data.Xl.rows, nU: data.Xu.rows, d: data.Xl.cols, k: data.numClasses },
          options: { ...options },
          init_seed: initSeed,
          protocol: {
            mode: base.protocol.mode,
            version: base.protocol.version,
            quirks: base.protocol.quirks,
            options: base.protocol.options,
          },
          env: {
            backend: ctx.env.backend,
            tfjs_version: ctx.env.tfjs_version,
            app_version: ctx.env.app_version,
          },
        },
        Number(options.steps),
        ctx,
      )
    : { extras: {}, fromStep: 0 };
  const onTick = stepTicker(algorithm, options, ctx.onProgress, fromStep);
  try {
    model = await algorithm.create({ mode: plan.mode, options });
    const t0 = ctx.now();
    const fitContext = createFitContext({
      seed: cell.seed,
      rng: modelStream(ds, cell, {
        modelStreamOffset: plan.options.modelStreamOffset ?? 'none',
        t0Stream: t0StreamFor(plan.options, cell.dataset),
      }),
      initSeed,
      signal: ctx.signal,
      quirks: plan.quirks,
      now: ctx.now,
      onProgress: ctx.onProgress ? (p) => ctx.onProgress!(p.fraction, p.message, p) : undefined,
      onTick,
    });
    await model.fit(data.Xl, data.yl, data.Xu, data.numClasses, { ...fitContext, ...deepExtras });
    const t1 = ctx.now();
    const proba = await model.predictProba(data.Xe);
    const t2 = ctx.now();
    const pred = argmaxRows(proba, data.Xe.rows, data.numClasses);
    let correct = 0;
    for (let i = 0; i < pred.length; i++) if (pred[i] === data.ye[i]) correct++;
    const info = model.info();
    result = {
      ...base,
      env: { ...base.env, float_precision: String(info.floatPrecision ?? ctx.env.float_precision) },
      algorithm: algoRecord(model),
      split: splitRecord,
      outcome: {
        status: 'ok',
        ...(info.warnings && info.warnings.length ? { reason: info.warnings.join(' ').slice(0, 2000) } : {}),
        accuracy: pred.length ? correct / pred.length : null,
        n_correct: correct,
        n_test: pred.length,
        n_nan_rows: info.nNanRows ?? 0,
        flattened_from_t0: false,
      },
      timing: { fit_ms: t1 - t0, predict_ms: t2 - t1, steps: Number(info.nIter ?? 0) },
      created_at: ctx.isoTime(),
    } as CellResult;
  } catch (err) {
    if ((err as Error).name === 'AbortError') {
      model?.dispose();
      throw err;
    }
    result = failed(`${(err as Error).name}: ${(err as Error).message}`, model);
  }
  model?.dispose();
  const tensorsAfter = tensorsBefore === undefined ? undefined : liveTensors();
  if (tensorsBefore !== undefined && tensorsAfter !== undefined && result.outcome.status === 'ok') {
    const leaked = tensorsAfter - tensorsBefore;
    if (leaked > 0) {
      return failed(
        `TensorLeak: ${algorithm.id} left ${leaked} tensor${leaked === 1 ? '' : 's'} allocated after fit, predict and dispose ` +
          '(a bug in the estimator: every tensor must be disposed). The result is not trusted; the worker should be recycled.',
        model,
      );
    }
  }
  return result;
}

/** Why a cell without test rows has no score (issue 12, row 10: never "ok" with no accuracy). */
export function noTestReason(labels: number, nLabeled: number, nUnlabeled: number): string {
  return (
    `No test rows: labels = ${labels} takes every row of the source side as labeled (${nLabeled} rows; ${nUnlabeled} unlabeled), ` +
    'so nothing is left to score. Choose a smaller labels value.'
  );
}

/** A baseline's t > 0 cell: the t = 0 result reported at another t (PROTOCOL.md §7.1, §8.2). */
export function deriveBaselineCell(t0: CellResult, cell: CellSpec): CellResult {
  return {
    ...t0,
    t: tValue(cell.tIndex),
    t_index: cell.tIndex,
    outcome: { ...t0.outcome, flattened_from_t0: true },
    timing: { fit_ms: 0, predict_ms: 0, steps: 0 },
  };
}
