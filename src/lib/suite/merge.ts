/**
 * Joining shards: same plan and protocol, disjoint cells (a duplicate must be identical).
 * Refused, naming the first difference: another protocol mode, quirks or options, another
 * protocol version, other overrides, other hyperparameters for the same algorithm, another
 * content (SHA-256) for the same dataset. Results that differ in any of these must not be pooled.
 */
import { DATASET_IDS, DATASETS, isBuiltinDatasetId } from '../data/registry.ts';
import { PANEL_DATASETS, isPanelDatasetId } from '../data/modal/panels.ts';
import { findAlgorithm } from '../models/catalogue.ts';
import { DEEP_METHOD_IDS } from '../models/deep/methods/registry.ts';
import { T_GRID } from '../types.ts';
import type { CurveCell } from './curves.ts';
import { modalCurveCell, modalPanelId } from './modalCurves.ts';
import { canonicalJson } from './canonicalJson.ts';
import { cellKey } from './plan.ts';
import { versionMismatch } from './protocolVersion.ts';
import type { CellResult, RunRecord } from './schema.ts';
import type { ModalCellResult, ModalRunRecord } from './schemaV3.ts';

export class MergeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MergeError';
  }
}

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

/** JSON with sorted keys, so equal objects compare equal whatever their key order. */
const canonical = canonicalJson;

/** The first key where two plain objects differ, as "key: a vs b". */
function firstDifference(a: Record<string, unknown>, b: Record<string, unknown>): string {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  for (const k of keys) {
    if (canonical(a[k]) !== canonical(b[k])) return `${k}: ${canonical(a[k])} vs ${canonical(b[k])}`;
  }
  return 'none';
}

interface Seen<T> {
  value: T;
  where: string;
}

/**
 * The cells of `runs` pooled into one run. `names` label the inputs in messages (file names);
 * by default "run 1", "run 2", ….
 */
export function mergeRuns(runs: readonly RunRecord[], names: readonly string[] = []): RunRecord {
  if (runs.length === 0) throw new MergeError('Nothing to merge.');
  const name = (i: number) => names[i] ?? `run ${i + 1}`;
  runs.forEach((run, i) => {
    const problem = cellProblem(run);
    if (problem) throw new MergeError(`${name(i)} cannot be merged: ${problem}`);
  });
  const cells = new Map<string, CellResult>();
  const hashes = new Map<string, Seen<string>>();
  const versions: { first: Seen<string> | null } = { first: null };
  // Per algorithm: model options and graph-pool caps are overrides of some algorithms only.
  const overrides = new Map<string, Seen<string>>();
  const hypers = new Map<string, Seen<Record<string, unknown>>>();
  const firstPlan = runs[0].plan;
  for (const [i, run] of runs.entries()) {
    for (const field of ['mode', 'quirks', 'options', 'subsample'] as const) {
      if (canonical(run.plan[field]) !== canonical(firstPlan[field])) {
        throw new MergeError(
          `${name(i)} uses protocol ${field} ${canonical(run.plan[field])}, ${name(0)} uses ${canonical(firstPlan[field])}; results that differ in these must not be pooled.`,
        );
      }
    }
    const mismatch = versionMismatch(
      { name: names[0] ?? '1', run: runs[0] },
      { name: names[i] ?? String(i + 1), run },
    );
    if (mismatch) throw new MergeError(mismatch);
    for (const c of run.cells) {
      const key = resultKey(c);
      const where = `${name(i)} (cell ${key})`;
      const version = c.protocol.version;
      if (!versions.first) versions.first = { value: version, where };
      else if (versions.first.value !== version) {
        throw new MergeError(
          `${where} was made under protocol version ${version}, ${versions.first.where} under ${versions.first.value}; refusing to pool them.`,
        );
      }
      const ov = canonical(c.protocol.overrides ?? {});
      const seenOv = overrides.get(c.algorithm.name);
      if (!seenOv) overrides.set(c.algorithm.name, { value: ov, where });
      else if (seenOv.value !== ov) {
        throw new MergeError(
          `${where} has protocol overrides ${ov}, ${seenOv.where} has ${seenOv.value}; refusing to pool them.`,
        );
      }
      const hyper = c.algorithm.hyper as Record<string, unknown>;
      const prevHyper = hypers.get(c.algorithm.name);
      if (!prevHyper) hypers.set(c.algorithm.name, { value: hyper, where });
      else if (canonical(prevHyper.value) !== canonical(hyper)) {
        throw new MergeError(
          `${where} ran ${c.algorithm.name} with other hyperparameters than ${prevHyper.where} (${firstDifference(prevHyper.value, hyper)}); refusing to pool them.`,
        );
      }
      const prev = hashes.get(c.dataset.id);
      if (prev && prev.value !== c.dataset.sha256) {
        throw new MergeError(
          `Dataset ${c.dataset.id} has two different contents: SHA-256 ${c.dataset.sha256} in ${where} and ${prev.value} in ${prev.where}; refusing to pool them.`,
        );
      }
      if (!prev) hashes.set(c.dataset.id, { value: c.dataset.sha256, where });
      const old = cells.get(key);
      if (old && (old.outcome.accuracy !== c.outcome.accuracy || old.outcome.status !== c.outcome.status)) {
        throw new MergeError(
          `Cell ${key} appears twice with different results (${old.outcome.status} ${old.outcome.accuracy} vs ${c.outcome.status} ${c.outcome.accuracy}, the second in ${name(i)}).`,
        );
      }
      cells.set(key, c);
    }
  }
  const union = <T>(xs: T[][]) => [...new Set(xs.flat())];
  const first = runs[0];
  const merged: RunRecord = {
    ...first,
    id: `merged-${first.id}`,
    finished_at:
      runs
        .map((r) => r.finished_at ?? '')
        .sort()
        .at(-1) || null,
    plan: {
      ...first.plan,
      datasets: union(runs.map((r) => r.plan.datasets)),
      settings: union(runs.map((r) => r.plan.settings)),
      labels: union(runs.map((r) => r.plan.labels)),
      algorithms: union(runs.map((r) => r.plan.algorithms)),
      seeds: union(runs.map((r) => r.plan.seeds)),
      tIndices: union(runs.map((r) => r.plan.tIndices)),
    },
    cells: [...cells.values()],
  };
  refusePlanHoles(merged);
  return merged;
}

/**
 * The merged plan is the union of the shards' axes; it must not list cells that no file holds
 * (a missing shard, shards of different plans). Counted without expanding the grid; the first
 * missing key is found by walking the grid only as far as needed.
 */
export function refusePlanHoles(run: RunRecord): void {
  const p = run.plan;
  const expected =
    p.datasets.length *
    p.settings.length *
    p.labels.length *
    p.algorithms.length *
    p.seeds.length *
    p.tIndices.length;
  const present = new Set(run.cells.map(resultKey));
  if (present.size >= expected) return;
  let first = '';
  search: for (const dataset of p.datasets)
    for (const setting of p.settings)
      for (const labels of p.labels)
        for (const algorithm of p.algorithms)
          for (const seed of p.seeds)
            for (const tIndex of p.tIndices) {
              const key = cellKey({ dataset, setting, labels, algorithm, tIndex, seed });
              if (!present.has(key)) {
                first = key;
                break search;
              }
            }
  throw new Error(
    `The merged plan lists ${expected} cells but the files hold ${present.size}: ${expected - present.size} cells do not exist ` +
      `(first: ${first}). Merge every shard of one plan (rac-bench run --shard i/n writes shard i), or run the missing cells.`,
  );
}

/**
 * Why the result views cannot show a run faithfully (empty: they can). Catches what the schema
 * lets through but a chart would silently get wrong: repeated names in the plan's lists (keyed
 * lists render nothing), one algorithm under several hyperparameter sets or protocol versions
 * (its curve would average them).
 */
export function viewProblems(run: Pick<RunRecord, 'plan' | 'cells'>): string[] {
  const problems: string[] = [];
  for (const field of ['datasets', 'settings', 'labels', 'algorithms', 'seeds', 'tIndices'] as const) {
    const xs = run.plan[field] as unknown[];
    const dup = xs.find((x, i) => xs.indexOf(x) !== i);
    if (dup !== undefined)
      problems.push(`The plan lists ${field === 'tIndices' ? 't' : field} "${String(dup)}" twice.`);
  }
  const hypers = new Map<string, string>();
  const versions = new Set<string>();
  const keys = new Set<string>();
  for (const c of run.cells) {
    versions.add(c.protocol.version);
    const h = canonical(c.algorithm.hyper);
    const prev = hypers.get(c.algorithm.name);
    if (prev === undefined) hypers.set(c.algorithm.name, h);
    else if (prev !== h && !problems.some((p) => p.startsWith(`${c.algorithm.name} `))) {
      problems.push(
        `${c.algorithm.name} appears with two sets of hyperparameters (${firstDifference(JSON.parse(prev), c.algorithm.hyper as Record<string, unknown>)}); a curve would average them.`,
      );
    }
    const key = resultKey(c);
    if (keys.has(key)) problems.push(`The cell ${key} appears twice.`);
    keys.add(key);
  }
  if (versions.size > 1)
    problems.push(
      `The cells come from ${versions.size} protocol versions (${[...versions].join(', ')}); they must not be pooled.`,
    );
  // Runs that entered without a file check (this browser's history) get it here.
  const impossible = cellProblem(run);
  if (impossible) problems.push(`${impossible.charAt(0).toUpperCase()}${impossible.slice(1)}`);
  return problems.slice(0, 5);
}

// ---------------------------------------------------------------------------------------------
// Cells against their plan and the registries

/** "0–4", "0, 2, 7" (a short list of numbers). */
function listText(xs: readonly (number | string)[]): string {
  const shown = xs.slice(0, 8).map(String).join(', ');
  return xs.length > 8 ? `${shown}, …` : shown;
}

type AnyRunLike =
  Pick<RunRecord, 'plan' | 'cells'> | { plan: ModalRunRecord['plan']; cells: readonly ModalCellResult[] };

const isModalRun = (run: AnyRunLike): run is { plan: ModalRunRecord['plan']; cells: ModalCellResult[] } =>
  'spec' in run.plan;

/** The image/text methods: Supervised and the deep methods but the tabular FT-Transformer. */
const MODAL_METHODS: ReadonlySet<string> = new Set([
  'supervised',
  ...DEEP_METHOD_IDS.filter((id) => id !== 'ftt'),
]);

interface PlanLists {
  datasets: readonly string[];
  settings: readonly string[];
  labels: readonly number[];
  algorithms: readonly string[];
  seeds: readonly number[];
  tIndices: readonly number[];
}

/** A test of a cell's coordinates against its plan's lists (sets: a plan may list 100 000 seeds). */
function planMembership(plan: PlanLists) {
  const sets = {
    datasets: new Set(plan.datasets),
    settings: new Set(plan.settings),
    labels: new Set(plan.labels),
    algorithms: new Set(plan.algorithms),
    seeds: new Set(plan.seeds),
    tIndices: new Set(plan.tIndices),
  };
  /** Which coordinate of a cell its plan does not list, or null. */
  return (c: {
    dataset: string;
    setting: string;
    labels: number;
    algorithm: string;
    seed: number;
    t_index: number;
  }): string | null => {
    if (!sets.datasets.has(c.dataset))
      return `dataset ${c.dataset} is not among its datasets (${listText(plan.datasets)})`;
    if (!sets.settings.has(c.setting))
      return `setting ${c.setting} is not among its settings (${listText(plan.settings)})`;
    if (!sets.labels.has(c.labels))
      return `labels ${c.labels} is not among its labels (${listText(plan.labels)})`;
    if (!sets.algorithms.has(c.algorithm))
      return `algorithm ${c.algorithm} is not among its algorithms (${listText(plan.algorithms)})`;
    if (!sets.seeds.has(c.seed)) return `seed ${c.seed} is not among its seeds (${listText(plan.seeds)})`;
    if (!sets.tIndices.has(c.t_index))
      return `t = ${T_GRID[c.t_index]} is not among its t (${listText(plan.tIndices.map((i) => T_GRID[i]))})`;
    return null;
  };
}

/** Why a tabular cell cannot be a record of its dataset and algorithm, or null. */
function tabularRegistryProblem(c: CellResult): string | null {
  const d = c.dataset;
  if (isBuiltinDatasetId(d.id)) {
    const info = DATASETS[d.id];
    if (d.N !== info.N || d.d !== info.d || d.k !== info.k)
      return `records ${d.id} with N ${d.N}, d ${d.d}, k ${d.k}, but ${d.id} has N ${info.N}, d ${info.d}, k ${info.k}`;
  } else if (!d.id.startsWith('user:')) {
    return `names dataset "${d.id}", which is neither built in (${DATASET_IDS.join(', ')}) nor a user dataset ("user:…")`;
  }
  if (!findAlgorithm(c.algorithm.name))
    return `names algorithm "${c.algorithm.name}", which RAC Bench does not have`;
  return null;
}

/** Why an image/text cell cannot be a record of its panel and method, or null. */
function modalRegistryProblem(c: ModalCellResult): string | null {
  const id = c.dataset.id;
  if (!isPanelDatasetId(id))
    return `names dataset "${id}", which is not an image/text panel (${Object.keys(PANEL_DATASETS).join(', ')})`;
  const panel = PANEL_DATASETS[id];
  if (panel.labels[c.setting] === undefined)
    return `runs ${panel.title} under ${c.setting}, a panel it does not have (${Object.keys(panel.labels).join(', ')})`;
  const pair =
    'pair' in c.dataset && c.dataset.pair ? `${c.dataset.pair.source}->${c.dataset.pair.target}` : null;
  if (pair !== null && !panel.pairs?.includes(pair))
    return `runs ${panel.title} on the pair ${pair}, which it does not have (${(panel.pairs ?? []).join(', ') || 'none'})`;
  if (c.dataset.k !== panel.k)
    return `records ${panel.title} with k ${c.dataset.k}, but it has ${panel.k} classes`;
  if (!MODAL_METHODS.has(c.algorithm.name))
    return `names method "${c.algorithm.name}", which is not an image/text method (${[...MODAL_METHODS].join(', ')})`;
  return null;
}

/**
 * JSON with sorted keys of what keeps curves apart (the dataset's content and the protocol).
 * Cached per record: a live run is checked again at each new cell, and records never change.
 */
const identities = new WeakMap<CurveCell, string>();
function curveIdentity(c: CurveCell): string {
  let id = identities.get(c);
  if (id === undefined) {
    id = canonical([c.dataset.sha256, c.protocol]);
    identities.set(c, id);
  }
  return id;
}

/**
 * Why a run's cells cannot be what its plan ran, in one sentence, or null. Catches what each
 * record's schema lets through: a cell outside the plan's lists, a built-in dataset with another
 * shape than the registry's (iris with N 151), a dataset or algorithm the registry does not have
 * (mnist), and one algorithm under two protocols in one panel (two `protocol.overrides`: two
 * curves of one algorithm, which no view can key apart). Used where a run enters: run files,
 * links, `merge`, `published`, and the Results page.
 */
export function cellProblem(run: AnyRunLike): string | null {
  const modal = isModalRun(run);
  const plan = run.plan;
  for (const ds of plan.datasets) {
    if (modal ? !isPanelDatasetId(ds) : !isBuiltinDatasetId(ds) && !ds.startsWith('user:'))
      return `the plan names dataset "${ds}", which RAC Bench does not have.`;
  }
  const pairs = modal && 'pairs' in plan ? plan.pairs : undefined;
  const outsidePlan = planMembership(plan);
  const seen = new Map<string, { identity: string; index: number }>();
  for (let i = 0; i < run.cells.length; i++) {
    const cell = run.cells[i];
    const curve: CurveCell = modal ? modalCurveCell(cell as ModalCellResult) : (cell as CellResult);
    const coordinates = {
      dataset: cell.dataset.id,
      setting: cell.setting,
      labels: cell.labels,
      algorithm: cell.algorithm.name,
      seed: cell.seed,
      t_index: cell.t_index,
    };
    // Only written when a sentence needs it (the check runs again at each cell of a live run).
    const where = () =>
      `cells[${i}] (${modal ? modalPanelId(cell as ModalCellResult) : cell.dataset.id}, ${cell.setting}, labels ${cell.labels}, ${cell.algorithm.name}, t=${T_GRID[cell.t_index]}, seed ${cell.seed})`;
    const outside = outsidePlan(coordinates);
    if (outside) return `${where()} lies outside the run's plan: ${outside}.`;
    if (modal && pairs && curve.dataset.id.includes(':')) {
      const pair = curve.dataset.id.slice(curve.dataset.id.indexOf(':') + 1);
      if (!pairs.includes(pair))
        return `${where()} lies outside the run's plan: the pair ${pair} is not among its pairs (${listText(pairs)}).`;
    }
    const registry = modal
      ? modalRegistryProblem(cell as ModalCellResult)
      : tabularRegistryProblem(cell as CellResult);
    if (registry) return `${where()} ${registry}.`;
    const key = JSON.stringify([curve.dataset.id, curve.setting, curve.labels, curve.algorithm.name]);
    const identity = curveIdentity(curve);
    const first = seen.get(key);
    if (!first) seen.set(key, { identity, index: i });
    else if (first.identity !== identity) {
      const a = run.cells[first.index];
      const what =
        canonical(a.protocol.overrides) !== canonical(cell.protocol.overrides)
          ? `protocol.overrides ${canonical(a.protocol.overrides)} in cells[${first.index}] and ${canonical(cell.protocol.overrides)} in cells[${i}]`
          : `another protocol or dataset content in cells[${first.index}] and cells[${i}]`;
      return `${cell.algorithm.name} on ${curve.dataset.id} · ${curve.setting} · ${curve.labels} labels has ${what}; a run holds one protocol per algorithm and panel, so its curve cannot be drawn.`;
    }
  }
  return null;
}
