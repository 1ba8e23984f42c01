/**
 * A plan from a link, cut to what the planner can show and run: unknown datasets and algorithms,
 * labels and seeds without a checkbox are dropped, each with a notice (a link never runs values the
 * user cannot see or untick). Pure.
 */
import type { CustomSelection } from '../../lib/suite/presets.ts';
import { formatIntegerList } from '../../lib/suite/selectors.ts';

export interface PlannerChoices {
  datasets: readonly string[];
  algorithms: readonly string[];
  labels: readonly number[];
  seeds: readonly number[];
}

export function clampSelection(
  sel: CustomSelection,
  offered: PlannerChoices,
): { selection: CustomSelection; notices: string[] } {
  const notices: string[] = [];
  const keep = <T>(
    name: string,
    xs: readonly T[],
    ok: readonly T[],
    why: string,
    fmt: (ys: T[]) => string,
  ): T[] => {
    const out = xs.filter((x) => ok.includes(x));
    const dropped = xs.filter((x) => !ok.includes(x));
    if (dropped.length) notices.push(`Ignored ${name} ${fmt(dropped)} from the link: ${why}.`);
    return out;
  };
  const names = (ys: string[]) =>
    ys
      .map((y) => `"${y.slice(0, 40)}"`)
      .slice(0, 8)
      .join(', ') + (ys.length > 8 ? ` and ${ys.length - 8} more` : '');
  const ints = (ys: number[]) => formatIntegerList(ys);
  const selection: CustomSelection = {
    ...sel,
    datasets: keep(
      'datasets',
      sel.datasets,
      offered.datasets,
      `this browser knows ${offered.datasets.join(', ')}`,
      names,
    ),
    algorithms: keep(
      'algorithms',
      sel.algorithms,
      offered.algorithms,
      `the planner offers ${offered.algorithms.join(', ')}`,
      names,
    ),
    labels: keep(
      'labels',
      sel.labels,
      offered.labels,
      `the planner offers ${offered.labels.join(' and ')} labels`,
      ints,
    ),
    seeds: keep(
      'seeds',
      sel.seeds,
      offered.seeds,
      `the planner offers seeds ${ints([...offered.seeds])} (the CLI runs any: rac-bench run --seeds …)`,
      ints,
    ),
  };
  return { selection, notices };
}

// The planner's checkboxes. The statistical family runs on these datasets (PROTOCOL.md §9);
// covertype is for the deep family.
export const PLANNER_DATASETS = ['iris', 'wine', 'letter'] as const;
export const PLANNER_LABELS = [5, 10] as const;
export const PLANNER_SEEDS = [0, 1, 2, 3, 4] as const;
