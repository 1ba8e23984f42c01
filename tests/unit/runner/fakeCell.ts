/** A valid cell record for a plan cell (schema fixture with the cell's coordinates). */
import type { CellSpec } from '../../../src/lib/suite/plan.ts';
import { T_GRID } from '../../../src/lib/types.ts';
import type { CellResult } from '../../../src/lib/suite/schema.ts';
import { validCell } from '../schema/fixtures.ts';

export function fixtureCell(cell: CellSpec): CellResult {
  const base = validCell();
  return {
    ...base,
    dataset: { ...(base.dataset as object), id: cell.dataset },
    setting: cell.setting,
    labels: cell.labels,
    t: T_GRID[cell.tIndex],
    t_index: cell.tIndex,
    seed: cell.seed,
    algorithm: {
      ...(base.algorithm as object),
      name: cell.algorithm,
      family:
        cell.algorithm === 'xgb' ? 'baseline' : cell.algorithm.startsWith('deep') ? 'deep' : 'statistical',
    },
  } as unknown as CellResult;
}
