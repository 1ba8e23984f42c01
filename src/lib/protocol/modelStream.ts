/**
 * The model's generator (PROTOCOL.md §3.5, "Provenance of the model stream"). In the original every
 * model drew from numpy's global stream seeded with the run seed; where a published run drew split
 * randomness from that stream first, the model's stream starts later. `modelStreamOffset: 'paper'`
 * replays those draws; the split indices themselves never change.
 *   (a) distribution · t = 0 with the `shared` t0 stream: the per-class permutation(⌈n_c/2⌉) draws;
 *   (b) feature · t > 0 in the runs (iris, 5), (wine, 5), (wine, 10): permutation(d).
 * Letter (and any other dataset) is unverified: no offset there.
 */
import type { Dataset, Setting } from '../types.ts';
import { classHalves } from './distribution.ts';
import { mt, type MT19937 } from './rng.ts';

export type ModelStreamOffset = 'none' | 'paper';

/** (dataset, labels) runs whose feature · t > 0 split drew its column permutation from the global stream. */
const FEATURE_OFFSET_RUNS = new Set(['iris|5', 'wine|5', 'wine|10']);
const VERIFIED = new Set(['iris', 'wine']);

export interface ModelStreamCell {
  setting: Setting;
  labels: number;
  tIndex: number;
  seed: number;
}

/** Which §3.5 offset applies to a cell, or null. */
export function modelStreamOffsetKind(
  datasetId: string,
  cell: Omit<ModelStreamCell, 'seed'>,
  options: { modelStreamOffset: ModelStreamOffset; t0Stream: 'per-class' | 'shared' },
): 'distribution-t0-shared' | 'feature-permutation' | null {
  if (options.modelStreamOffset !== 'paper' || !VERIFIED.has(datasetId)) return null;
  if (cell.setting === 'distribution' && cell.tIndex === 0 && options.t0Stream === 'shared')
    return 'distribution-t0-shared';
  if (cell.setting === 'feature' && cell.tIndex > 0 && FEATURE_OFFSET_RUNS.has(`${datasetId}|${cell.labels}`))
    return 'feature-permutation';
  return null;
}

/** The generator a cell's model draws from: mt(seed), advanced past the split's draws from that stream. */
export function modelStream(
  ds: Pick<Dataset, 'id' | 'X' | 'd' | 'y' | 'k'>,
  cell: ModelStreamCell,
  options: { modelStreamOffset: ModelStreamOffset; t0Stream: 'per-class' | 'shared' },
): MT19937 {
  const rng = mt(cell.seed);
  const kind = modelStreamOffsetKind(ds.id, cell, options);
  if (kind === 'distribution-t0-shared') for (const { near } of classHalves(ds)) rng.permutation(near.length);
  else if (kind === 'feature-permutation') rng.permutation(ds.d);
  return rng;
}
