/** Fixed curve records for the chart tests (made-up numbers, no randomness) and a DOM shim. */
import { parseHTML } from 'linkedom';
import { curveMetrics, type PT } from '../../../src/lib/metrics/index.ts';
import type { CurveRecord } from '../../../src/lib/suite/curves.ts';
import type { Setting } from '../../../src/lib/types.ts';

export function shimDocument(): Document {
  return parseHTML('<!doctype html><html><body></body></html>').document as unknown as Document;
}

export function curve(
  algorithm: string,
  mean: number[],
  std: number[],
  opts: {
    baseline?: boolean;
    dataset?: string;
    setting?: Setting;
    labels?: number;
    nSeeds?: number[];
    pt?: PT;
  } = {},
): CurveRecord {
  const baseline = opts.baseline ?? false;
  const m = baseline ? mean.map(() => mean[0]) : mean;
  const s = baseline ? std.map(() => std[0]) : std;
  const nSeeds = opts.nSeeds ?? mean.map((v) => (Number.isFinite(v) ? 5 : 0));
  const complete = m.every(Number.isFinite);
  return {
    dataset: opts.dataset ?? 'iris',
    setting: opts.setting ?? 'distribution',
    labels: opts.labels ?? 5,
    algorithm,
    family: baseline ? 'baseline' : 'statistical',
    protocol: {
      mode: 'rsb',
      version: '1.0.0',
      quirks: 'rsb',
      options: { takeZero: 'one-per-class', t0Stream: 'per-class', scaler: 'split', ssgmmSupport: 'zero' },
      overrides: {},
    },
    datasetSha256: '0'.repeat(64),
    baseline,
    mean: m,
    std: s,
    nSeeds: baseline ? nSeeds.map(() => nSeeds[0]) : nSeeds,
    seeds: [0, 1, 2, 3, 4],
    nNotOk: 0,
    nDuplicates: 0,
    metrics: complete ? curveMetrics(m, { baseline, pt: opts.pt }) : null,
  };
}

/** E1 and E2 of PROTOCOL.md §8.3, a flat curve, and a baseline (flattened to 0.8). */
export function panelFixture(pt?: PT): CurveRecord[] {
  return [
    curve('lp', [0.9, 0.85, 0.8, 0.8, 0.7, 0.6], [0.02, 0.03, 0.03, 0.04, 0.05, 0.06], { pt }),
    curve('ls', [0.6, 0.7, 0.65, 0.75, 0.7, 0.8], [0.05, 0.04, 0.04, 0.03, 0.03, 0.02], { pt }),
    curve('ssgmm', [0.8, 0.8, 0.8, 0.8, 0.8, 0.8], [0, 0, 0, 0, 0, 0], { pt }),
    curve('xgb', [0.8, 0.81, 0.79, 0.8, 0.82, 0.78], [0.01, 0.01, 0.01, 0.01, 0.01, 0.01], {
      baseline: true,
      pt,
    }),
  ];
}
