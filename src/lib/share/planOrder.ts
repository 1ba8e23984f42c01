/**
 * Cells in the plan's order (dataset, setting, labels, algorithm, seed, t, as expandPlan walks
 * them), so panels and legends appear as planned. Stored runs come back sorted by key text, where
 * "10" sorts before "5". Values outside the plan's lists go last, in their own order.
 */
import type { CellResult, RunRecord } from '../suite/schema.ts';

export function sortCellsByPlan(run: RunRecord): RunRecord {
  const p = run.plan;
  const rank = <T>(xs: readonly T[], x: T) => {
    const i = xs.indexOf(x);
    return i < 0 ? xs.length : i;
  };
  const key = (c: CellResult) => [
    rank(p.datasets, c.dataset.id),
    rank(p.settings, c.setting),
    rank(p.labels, c.labels),
    rank(p.algorithms, c.algorithm.name),
    c.seed,
    c.t_index,
  ];
  const keyed = run.cells.map((c, i) => ({ c, k: key(c), i }));
  keyed.sort((a, b) => {
    for (let j = 0; j < a.k.length; j++) if (a.k[j] !== b.k[j]) return a.k[j] - b.k[j];
    return a.i - b.i;
  });
  return { ...run, cells: keyed.map((x) => x.c) };
}
