/** Joining shards: same plan and protocol, disjoint cells (a duplicate must be identical). */
import { cellKey } from './plan.ts';
import { versionMismatch } from './protocolVersion.ts';
import type { CellResult, RunRecord } from './schema.ts';

function resultKey(c: CellResult): string {
  return cellKey({ dataset: c.dataset.id, setting: c.setting, labels: c.labels, algorithm: c.algorithm.name, tIndex: c.t_index, seed: c.seed });
}

function planSignature(r: RunRecord): string {
  const { mode, quirks, options } = r.plan;
  return JSON.stringify({ mode, quirks, options });
}

export function mergeRuns(runs: readonly RunRecord[]): RunRecord {
  if (runs.length === 0) throw new Error('Nothing to merge.');
  const sig = planSignature(runs[0]);
  const cells = new Map<string, CellResult>();
  const hashes = new Map<string, string>();
  for (const [i, run] of runs.entries()) {
    if (planSignature(run) !== sig) {
      throw new Error(`Run ${i + 1} uses a different protocol (mode, quirks or options); results that differ in these must not be pooled.`);
    }
    const mismatch = versionMismatch({ name: '1', run: runs[0] }, { name: String(i + 1), run });
    if (mismatch) throw new Error(mismatch);
    for (const c of run.cells) {
      const prev = hashes.get(c.dataset.id);
      if (prev && prev !== c.dataset.sha256) {
        throw new Error(`Dataset ${c.dataset.id} has two different contents (SHA-256 ${prev} and ${c.dataset.sha256}); refusing to pool them.`);
      }
      hashes.set(c.dataset.id, c.dataset.sha256);
      const key = resultKey(c);
      const old = cells.get(key);
      if (old && old.outcome.accuracy !== c.outcome.accuracy) {
        throw new Error(`Cell ${key} appears twice with different accuracies (${old.outcome.accuracy} vs ${c.outcome.accuracy}).`);
      }
      cells.set(key, c);
    }
  }
  const union = <T>(xs: T[][]) => [...new Set(xs.flat())];
  const first = runs[0];
  const merged: RunRecord = {
    ...first,
    id: `merged-${first.id}`,
    finished_at: runs.map((r) => r.finished_at ?? '').sort().at(-1) || null,
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
  const expected = p.datasets.length * p.settings.length * p.labels.length * p.algorithms.length * p.seeds.length * p.tIndices.length;
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
  throw new Error(`The merged plan lists ${expected} cells but the files hold ${present.size}: ${expected - present.size} cells do not exist ` +
    `(first: ${first}). Merge every shard of one plan (rac-bench run --shard i/n writes shard i), or run the missing cells.`);
}
