/**
 * The cost model: how long one fit takes, before it runs. The formulas are the catalogue's
 * (`AlgorithmSpec.cost`, models/cost.ts: seconds on the reference machine from the cell's shape);
 * here they become abstract work units (about one multiply-add each) and a short micro-benchmark on
 * the device turns units into milliseconds. Used for the pre-start estimate, longest-first ordering,
 * the cost-weighted ETA and the watchdog's expected cell time. Pure: the benchmark takes its clock as
 * an argument. The ETA corrects any remaining scale error with the rate observed during the run
 * (scheduler.ts).
 */
import { DATASETS, isBuiltinDatasetId } from '../data/registry.ts';
import { findAlgorithm, type ModelOptions } from '../models/catalogue.ts';
import { COST_UNITS, SECONDS_PER_UNIT, type CellShape as CatalogueShape } from '../models/cost.ts';
import type { SubsampleSpec } from '../protocol/subsample.ts';

/** What a fit's cost depends on. */
export interface CellShape {
  /** Labeled rows (labels per class × classes). */
  l: number;
  /** Unlabeled rows. */
  u: number;
  /** Test rows (predicted once). */
  e: number;
  /** Classes. */
  k: number;
  /** Features. */
  d: number;
  /** Training steps, for step-based (deep) algorithms; 0 otherwise. */
  steps: number;
}

/** The catalogue's shape of a cell (its graph is L ∪ U). */
export function catalogueShape({ l, u, e, k, d, steps }: CellShape): CatalogueShape {
  return { labeled: l, unlabeled: u, test: e, graph: l + u, d, k, steps };
}

const FIT_OVERHEAD_UNITS = 2e6;

/** Shape for a dataset we know nothing about (a user CSV before it is read). */
const UNKNOWN_DATASET = { N: 1000, d: 10, k: 3 };

export interface DatasetShape {
  N: number;
  d: number;
  k: number;
}

/** N, d, k of a built-in dataset (from the registry), or a modest guess for others. */
export function datasetShape(id: string, known?: (id: string) => DatasetShape | undefined): DatasetShape {
  const k = known?.(id);
  if (k) return k;
  if (isBuiltinDatasetId(id)) {
    const info = DATASETS[id as keyof typeof DATASETS];
    return { N: info.N, d: info.d, k: info.k };
  }
  return UNKNOWN_DATASET;
}

/**
 * A cell's shape from its dataset's shape, before any split: the protocol keeps about half the
 * rows for test and the other half (less the labeled rows) unlabeled (PROTOCOL.md §5).
 */
export function cellShape(ds: DatasetShape, labels: number, steps = 0): CellShape {
  const l = Math.min(ds.N, labels * ds.k);
  const e = Math.floor(ds.N / 2);
  return { l, u: Math.max(0, ds.N - e - l), e, k: ds.k, d: ds.d, steps };
}

/**
 * The shape a fit sees under a plan's PROTOCOL.md §9 caps: E by `test`, U by `unlabeled` and, for a
 * graph-pool entry (LP, LS, TSVM, SSGMM), by `graph` too. Without caps, the shape itself.
 */
export function cappedShape(shape: CellShape, algorithm: string, subsample?: SubsampleSpec): CellShape {
  if (!subsample) return shape;
  const graph = findAlgorithm(algorithm)?.graphPool ? (subsample.graph?.max ?? Infinity) : Infinity;
  return {
    ...shape,
    e: Math.min(shape.e, subsample.test?.max ?? Infinity),
    u: Math.min(shape.u, subsample.unlabeled?.max ?? Infinity, graph),
  };
}

/**
 * Work units of one fit: the catalogue entry's cost (seconds at the reference; `options`, the
 * entry's resolved model options, where the cost depends on them, as for the deep family's size
 * and steps) in units. An algorithm the catalogue does not know (an imported run) costs like label
 * propagation, or like the deep formula when its family says deep.
 */
export function fitCost(
  algorithm: string,
  shape: CellShape,
  family?: string,
  options?: ModelOptions,
): number {
  const spec = findAlgorithm(algorithm);
  const s = catalogueShape(shape);
  const work = spec
    ? spec.cost(s, options) / SECONDS_PER_UNIT
    : family === 'deep'
      ? COST_UNITS.deep(s)
      : COST_UNITS.graph(s);
  // Plus a fixed cost per fit (model set-up, tensors, scoring): about 5 ms at the reference.
  const units = work + FIT_OVERHEAD_UNITS;
  return Number.isFinite(units) && units > 0 ? units : FIT_OVERHEAD_UNITS;
}

/**
 * Milliseconds per work unit on the machine where the catalogue's formulas were fitted (a 2-core
 * x86 VM, tfjs wasm). A device's calibration rescales it by the ratio of micro-benchmark times.
 */
export const REFERENCE_MS_PER_UNIT = SECONDS_PER_UNIT * 1000;
/** The micro-benchmark's time on that reference machine (ms for BENCH_UNITS). */
export const REFERENCE_BENCH_MS = 3.5;
/** Multiply-adds of the micro-benchmark (a 160×160 pairwise distance over 16 features, twice). */
const BENCH_N = 160;
const BENCH_D = 16;
export const BENCH_UNITS = 2 * BENCH_N * BENCH_N * BENCH_D;

/**
 * The device micro-benchmark: a dense pairwise squared-distance loop, the inner kernel of the
 * graph methods. Returns ms per work unit for this device, scaled to the reference. Takes the
 * best of `repeats` runs (the first warms the JIT). About 10 ms on a laptop.
 */
export function calibrate(now: () => number, repeats = CALIBRATION_REPEATS): Calibration {
  const x = new Float64Array(BENCH_N * BENCH_D);
  for (let i = 0; i < x.length; i++) x[i] = ((i * 2654435761) % 1000) / 1000; // deterministic data
  let best = Infinity;
  let sink = 0;
  for (let r = 0; r < repeats; r++) {
    const t0 = now();
    for (let rep = 0; rep < 2; rep++) {
      for (let i = 0; i < BENCH_N; i++) {
        for (let j = 0; j < BENCH_N; j++) {
          let s = 0;
          for (let f = 0; f < BENCH_D; f++) {
            const diff = x[i * BENCH_D + f] - x[j * BENCH_D + f];
            s += diff * diff;
          }
          sink += s;
        }
      }
    }
    best = Math.min(best, now() - t0);
  }
  // `sink` keeps the loop from being optimised away.
  const benchMs = Math.max(best, 0.05) + (sink < 0 ? 1 : 0);
  return calibrationOf(benchMs);
}

/** Expected milliseconds of one fit. */
export function expectedMs(units: number, msPerUnit: number = REFERENCE_MS_PER_UNIT): number {
  return units * msPerUnit;
}

/**
 * Work units of a plan cell's fit, from its dataset's shape (registry or `known`), labels and
 * algorithm, under the plan's §9 caps (`subsample`) when it has any.
 */
export function cellCost(
  cell: { dataset: string; labels: number; algorithm: string },
  family?: (algorithm: string) => string,
  known?: (id: string) => DatasetShape | undefined,
  options?: (algorithm: string) => ModelOptions | undefined,
  subsample?: SubsampleSpec,
): number {
  return fitCost(
    cell.algorithm,
    cappedShape(cellShape(datasetShape(cell.dataset, known), cell.labels), cell.algorithm, subsample),
    family?.(cell.algorithm),
    options?.(cell.algorithm),
  );
}

/**
 * Peak working memory of one fit in bytes (a rough bound, for the pre-start check): the graph
 * methods and TSVM hold a dense (l+u)² kernel in float32 (twice, while it is built); the others
 * hold a few copies of the data.
 */
export function fitMemoryBytes(algorithm: string, s: CellShape): number {
  const n = s.l + s.u;
  if (algorithm === 'lp' || algorithm === 'ls' || algorithm === 'tsvm') return 2 * 4 * n * n;
  return 8 * 4 * (n + s.e) * Math.max(1, s.d);
}

export interface PlanEstimate {
  /** Seconds for the whole plan on `lanes` lanes at `msPerUnit` (longest-first keeps lanes busy). */
  seconds: number;
  /** The largest single fit's expected seconds (a lower bound on wall time). */
  longestFitSeconds: number;
  /** Peak memory of the plan's largest fit, times the lanes that may run such fits at once. */
  peakBytes: number;
}

/**
 * The pre-start estimate of a plan: time from the cost model and the device calibration, memory
 * from fitMemoryBytes. `fits` are the plan's fit cells (fitCells).
 */
export function estimatePlan(
  fits: readonly { dataset: string; labels: number; algorithm: string; count?: number }[],
  lanes: number,
  msPerUnit: number,
  family?: (algorithm: string) => string,
  known?: (id: string) => DatasetShape | undefined,
  options?: (algorithm: string) => ModelOptions | undefined,
  subsample?: SubsampleSpec,
): PlanEstimate {
  let total = 0;
  let longest = 0;
  let peak = 0;
  for (const f of fits) {
    const shape = cappedShape(cellShape(datasetShape(f.dataset, known), f.labels), f.algorithm, subsample);
    const ms = fitCost(f.algorithm, shape, family?.(f.algorithm), options?.(f.algorithm)) * msPerUnit;
    total += ms * (f.count ?? 1);
    longest = Math.max(longest, ms);
    peak = Math.max(peak, fitMemoryBytes(f.algorithm, shape));
  }
  const n = Math.max(1, lanes);
  return {
    seconds: Math.max(total / n, longest) / 1000,
    longestFitSeconds: longest / 1000,
    peakBytes: peak * Math.min(n, fits.length || 1),
  };
}

/** A device's calibration: the micro-benchmark's best time, and the ms per work unit it gives. */
export interface Calibration {
  msPerUnit: number;
  benchMs: number;
}

/**
 * Timed runs of the micro-benchmark, the best of which counts: the same number in the page and
 * the CLI (three runs on a page that is still loading gave estimates 3.5 times apart).
 */
export const CALIBRATION_REPEATS = 7;

/** The calibration of a micro-benchmark time. */
export function calibrationOf(benchMs: number): Calibration {
  return { msPerUnit: REFERENCE_MS_PER_UNIT * (benchMs / REFERENCE_BENCH_MS), benchMs };
}

/** What a saved calibration belongs to: a new app version, browser or core count measures again. */
export interface CalibrationFacts {
  app: string;
  agent: string;
  cores: number;
}

/** A calibration as the page saves it (localStorage), with the facts it was measured under. */
export interface StoredCalibration extends CalibrationFacts {
  v: 1;
  benchMs: number;
}

export function storedCalibration(c: Calibration, facts: CalibrationFacts): StoredCalibration {
  return { v: 1, benchMs: c.benchMs, ...facts };
}

/**
 * A saved calibration, when it is sound and was measured under these facts; null otherwise (then
 * the page measures again). ms per unit is recomputed from the benchmark time, so the formula has
 * one home.
 */
export function readStoredCalibration(raw: unknown, facts: CalibrationFacts): Calibration | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const r = raw as Partial<StoredCalibration>;
  if (r.v !== 1 || r.app !== facts.app || r.agent !== facts.agent || r.cores !== facts.cores) return null;
  const ms = r.benchMs;
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms <= 0 || ms > 10_000) return null;
  return calibrationOf(ms);
}

let memo: Calibration | null = null;

/** `calibrate` once per process or page (the planner's pre-start check and the run share it). */
export function calibrateOnce(now: () => number): Calibration {
  memo ??= calibrate(now, CALIBRATION_REPEATS);
  return memo;
}
