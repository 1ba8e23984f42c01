/** Runs one algorithm over every cell of a tests/fixtures/paper/*.json file with the `paper` preset. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { getAlgorithm } from '../../../src/lib/models/catalogue.ts';
import type { CellSpec, RunPlanSpec } from '../../../src/lib/suite/plan.ts';
import { cellKey } from '../../../src/lib/suite/plan.ts';
import { tabularStatisticalPlan } from '../../../src/lib/suite/presets.ts';
import { runCell } from '../../../src/lib/suite/runCell.ts';
import type { CellResult } from '../../../src/lib/suite/schema.ts';
import type { Dataset, Setting } from '../../../src/lib/types.ts';
import { loadEmbedded } from '../helpers/datasets.ts';

export interface FixtureCell {
  dataset: 'iris' | 'wine';
  setting: Setting;
  labels: number;
  t_index: number;
  seed: number;
  accuracy: number | null;
  n_correct?: number;
  n_test?: number;
  restart?: boolean;
}

export function readPaperFixture(name: string): { cells: FixtureCell[] } & Record<string, unknown> {
  const path = fileURLToPath(new URL(`../../fixtures/paper/${name}`, import.meta.url));
  return JSON.parse(readFileSync(path, 'utf8'));
}

const env = {
  backend: 'cpu' as const,
  float_precision: 'float32',
  tfjs_version: 'n/a',
  app_version: 'test',
  device: 'vitest',
};

/** Our result for each fixture cell, in fixture order. */
export async function runFixtureCells(
  algorithm: string,
  cells: FixtureCell[],
  plan: RunPlanSpec = tabularStatisticalPlan(),
): Promise<CellResult[]> {
  const ds: Record<string, Dataset> = { iris: await loadEmbedded('iris'), wine: await loadEmbedded('wine') };
  const entry = getAlgorithm(algorithm);
  const out: CellResult[] = [];
  for (const c of cells) {
    const coords = {
      dataset: c.dataset,
      setting: c.setting,
      labels: c.labels,
      algorithm,
      tIndex: c.t_index,
      seed: c.seed,
    };
    const spec: CellSpec = { key: cellKey(coords), ...coords, derivedFromKey: null };
    out.push(
      await runCell(ds[c.dataset], 'embedded', spec, plan, entry, {
        now: () => 0,
        isoTime: () => '2026-01-01T00:00:00.000Z',
        env,
      }),
    );
  }
  return out;
}

/** "dataset|setting|labels|t|seed: python → ours" for every cell whose correct count differs. */
export function perSeedDifferences(cells: FixtureCell[], ours: CellResult[]): string[] {
  return cells.flatMap((c, i) => {
    const mine = ours[i].outcome.status === 'ok' ? ours[i].outcome.n_correct : null;
    const theirs = c.accuracy === null ? null : c.n_correct;
    return mine === theirs
      ? []
      : [`${c.dataset}|${c.setting}|${c.labels}|t${c.t_index}|seed ${c.seed}: ${theirs} → ${mine}`];
  });
}
