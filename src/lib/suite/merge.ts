/**
 * Joining shards: same plan and protocol, disjoint cells (a duplicate must be identical).
 * Refused, naming the first difference: another protocol mode, quirks or options, another
 * protocol version, other overrides, other hyperparameters for the same algorithm, another
 * content (SHA-256) for the same dataset. Results that differ in any of these must not be pooled.
 */
import { cellKey } from './plan.ts';
import { versionMismatch } from './protocolVersion.ts';
import type { CellResult, RunRecord } from './schema.ts';

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
export function canonical(x: unknown): string {
  return (
    JSON.stringify(x, (_k, v: unknown) =>
      v && typeof v === 'object' && !Array.isArray(v)
        ? Object.fromEntries(
            Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
          )
        : v,
    ) ?? 'undefined'
  );
}

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
  return problems.slice(0, 5);
}
