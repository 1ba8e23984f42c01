/**
 * One cell: split → scale → fit → predict → score → result record (PROTOCOL.md §1, §10).
 * Pure apart from the injected clock; used by the browser workers and the CLI alike.
 */
import { buildCellData, indicesSha256, makeSplit } from '../protocol/index.ts';
import { modelStream } from '../protocol/modelStream.ts';
import { argmaxRows, type Estimator } from '../models/estimator.ts';
import type { Dataset } from '../types.ts';
import type { CellSpec, RunPlanSpec } from './plan.ts';
import { t0StreamFor, tValue } from './plan.ts';
import type { CellResult } from './schema.ts';

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

export interface AlgorithmEntry {
  id: string;
  family: 'statistical' | 'deep' | 'baseline';
  create(mode: RunPlanSpec['mode'], options: RunPlanSpec['options']): Estimator | Promise<Estimator>;
}

export interface RunCellContext {
  /** Milliseconds from any monotonic origin (performance.now in a worker). */
  now(): number;
  /** ISO time for created_at. */
  isoTime(): string;
  env: CellEnv;
  signal?: AbortSignal;
  onProgress?: (fraction: number, message?: string) => void;
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

function protocolRecord(plan: RunPlanSpec, dataset: string) {
  return {
    mode: plan.mode,
    version: PROTOCOL_VERSION,
    quirks: plan.quirks,
    preset: plan.preset,
    options: cellOptions(plan, dataset),
    overrides: {} as Record<string, unknown>,
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
  const base = {
    schema: 'rsb-cell/1' as const,
    protocol: protocolRecord(plan, cell.dataset),
    dataset: datasetRecord(ds, datasetSource),
    setting: cell.setting,
    labels: cell.labels,
    t,
    t_index: cell.tIndex,
    seed: cell.seed,
    env: { ...ctx.env, prng: PRNG_NAME },
    subsample: null,
  };
  const algoRecord = (model: Estimator | null) => ({
    name: algorithm.id,
    family: algorithm.family,
    hyper: model ? { ...model.hyper } : {},
    init_seed: cell.seed,
    ...(model?.info().tsvm_multiclass ? { tsvm_multiclass: String(model.info().tsvm_multiclass) } : {}),
    ...(model?.info().ssgmmSupport ? { ssgmmSupport: String(model.info().ssgmmSupport) } : {}),
    ...(model?.info().tt_restart ? { tt_restart: true } : {}),
  });

  const split = makeSplit(ds, {
    setting: cell.setting,
    labels: cell.labels,
    tIndex: cell.tIndex,
    seed: cell.seed,
    mode: plan.mode,
    options: splitOptions(plan, cell.dataset),
  });
  const data = buildCellData(ds, split, plan.mode, splitOptions(plan, cell.dataset));
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
  const emptyOutcome = { accuracy: null, n_correct: 0, n_test: split.test.length, n_nan_rows: 0, flattened_from_t0: false };

  if (split.unlabeled.length === 0 && algorithm.family !== 'baseline') {
    return {
      ...base,
      algorithm: algoRecord(null),
      split: splitRecord,
      outcome: { status: 'skipped', reason: 'The unlabeled pool is empty for this cell (PROTOCOL.md §5.5).', ...emptyOutcome },
      timing: { fit_ms: 0, predict_ms: 0, steps: 0 },
      created_at: ctx.isoTime(),
    } as CellResult;
  }

  if (split.test.length === 0) {
    return {
      ...base,
      algorithm: algoRecord(null),
      split: splitRecord,
      outcome: { status: 'degenerate', reason: noTestReason(cell.labels, splitRecord.n_labeled, splitRecord.n_unlabeled), ...emptyOutcome },
      timing: { fit_ms: 0, predict_ms: 0, steps: 0 },
      created_at: ctx.isoTime(),
    } as CellResult;
  }

  let model: Estimator | null = null;
  try {
    model = await algorithm.create(plan.mode, plan.options);
    const t0 = ctx.now();
    await model.fit(data.Xl, data.yl, data.Xu, data.numClasses, {
      rng: modelStream(ds, cell, { modelStreamOffset: plan.options.modelStreamOffset ?? 'none', t0Stream: t0StreamFor(plan.options, cell.dataset) }),
      signal: ctx.signal,
      quirks: plan.quirks,
      onProgress: ctx.onProgress ? (p) => ctx.onProgress!(p.fraction, p.message) : undefined,
    });
    const t1 = ctx.now();
    const proba = await model.predictProba(data.Xe);
    const t2 = ctx.now();
    const pred = argmaxRows(proba, data.Xe.rows, data.numClasses);
    let correct = 0;
    for (let i = 0; i < pred.length; i++) if (pred[i] === data.ye[i]) correct++;
    const info = model.info();
    return {
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
    if ((err as Error).name === 'AbortError') throw err;
    return {
      ...base,
      algorithm: algoRecord(model),
      split: splitRecord,
      outcome: { status: 'failed', reason: `${(err as Error).name}: ${(err as Error).message}`.slice(0, 2000), ...emptyOutcome },
      timing: { fit_ms: 0, predict_ms: 0, steps: 0 },
      created_at: ctx.isoTime(),
    } as CellResult;
  } finally {
    model?.dispose();
  }
}

/** Why a cell without test rows has no score (issue 12, row 10: never "ok" with no accuracy). */
export function noTestReason(labels: number, nLabeled: number, nUnlabeled: number): string {
  return `No test rows: labels = ${labels} takes every row of the source side as labeled (${nLabeled} rows; ${nUnlabeled} unlabeled), ` +
    'so nothing is left to score. Choose a smaller labels value.';
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
