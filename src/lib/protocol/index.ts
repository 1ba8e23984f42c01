/**
 * The benchmark protocol core (PROTOCOL.md §3, §5, §6): one cell's split and its model inputs.
 *
 * @example
 *   const split = makeSplit(iris, { setting: 'feature', labels: 5, tIndex: 2, seed: 0, mode: 'rsb' });
 *   const cell = buildCellData(iris, split, 'rsb');   // Xl, yl, Xu, Xe, ye, numClasses
 */
import { SETTINGS, T_GRID, type Dataset } from '../types.ts';
import type { CellSplit, SplitRequest } from './cellSplit.ts';
import { distributionReadme, distributionRsb } from './distribution.ts';
import { featureReadme, featureRsb } from './feature.ts';
import { labelReadme, labelRsb } from './label.ts';
import { resolveOptions } from './options.ts';

export type { CellSplit, SplitRequest } from './cellSplit.ts';
export { classRows, keptCount, labeledTotal } from './cellSplit.ts';
export { DEFAULT_OPTIONS, defaultOptions, resolveOptions, type ProtocolOptions } from './options.ts';
export { allocate } from './allocate.ts';
export { stratifiedSplit, type SplitOptions, type SplitResult, type TakeZero } from './stratifiedSplit.ts';
export { buildCellData, buildCellData64, labeledMeans, type CellData, type CellData64 } from './cellData.ts';
export { fitScaler, applyScaler, type FittedScaler } from './scaler.ts';
export {
  appliedPools,
  hasSubsample,
  subsamplePool,
  subsamplePositions,
  subsampleSeed,
  subsampleSplit,
  SUBSAMPLE_POOLS,
  SUBSAMPLE_SEED_OFFSET,
  type PoolCap,
  type SubsamplePoolName,
  type SubsampleRecord,
  type SubsampleSpec,
} from './subsample.ts';
export { indicesJson, indicesSha256 } from './indicesHash.ts';
export { classHalves, distanceOrder } from './distribution.ts';
export { labelPoolSizesReadme, labelPoolSizesRsb } from './label.ts';

function checkRequest(ds: Dataset, req: SplitRequest): void {
  const where = `makeSplit(${ds.id})`;
  if (!SETTINGS.includes(req.setting)) {
    throw new Error(
      `${where}: setting must be one of ${SETTINGS.map((s) => `'${s}'`).join(', ')}; got ${JSON.stringify(req.setting)}.`,
    );
  }
  if (req.mode !== 'rsb' && req.mode !== 'readme') {
    throw new Error(`${where}: mode must be 'rsb' or 'readme'; got ${JSON.stringify(req.mode)}.`);
  }
  if (!Number.isInteger(req.labels) || req.labels < 1) {
    throw new Error(`${where}: labels must be a positive integer; got ${JSON.stringify(req.labels)}.`);
  }
  if (!Number.isInteger(req.tIndex) || req.tIndex < 0 || req.tIndex > 5) {
    throw new Error(`${where}: tIndex must be an integer in 0..5; got ${JSON.stringify(req.tIndex)}.`);
  }
  if (!Number.isInteger(req.seed) || req.seed < 0 || req.seed > 0xffffffff) {
    throw new Error(`${where}: seed must be an integer in 0..2^32-1; got ${JSON.stringify(req.seed)}.`);
  }
}

/** The L, E and U pools (dataset row ids) of one cell, plus masks and kept classes. */
export function makeSplit(ds: Dataset, req: SplitRequest): CellSplit {
  checkRequest(ds, req);
  const options = resolveOptions(req.mode, req.options);
  const t = T_GRID[req.tIndex]; // literal grid value, never i*0.2
  const { labels, seed, tIndex } = req;
  if (req.mode === 'rsb') {
    switch (req.setting) {
      case 'distribution':
        return distributionRsb(ds, labels, t, seed, options);
      case 'feature':
        return featureRsb(ds, labels, t, seed, options);
      case 'label':
        return labelRsb(ds, labels, t, seed, options);
    }
  }
  switch (req.setting) {
    case 'distribution':
      return distributionReadme(ds, labels, tIndex, seed);
    case 'feature':
      return featureReadme(ds, labels, tIndex, seed);
    case 'label':
      return labelReadme(ds, labels, tIndex, seed);
  }
}
