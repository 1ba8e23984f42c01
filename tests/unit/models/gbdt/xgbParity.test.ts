/**
 * Parity of the GBDT with Debian's python3-xgboost 1.7.4 on small golden datasets
 * (tests/fixtures/xgb/unit.json, made by scripts/fixtures/make_xgb_fixtures.py unit).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { mt } from '../../../../src/lib/protocol/rng.ts';
import { GBDTClassifier, type GBDTParams } from '../../../../src/lib/models/statistical/gbdt.ts';
import { argmaxRows } from '../../../../src/lib/models/estimator.ts';

interface UnitCase {
  name: string;
  k: number;
  d: number;
  n: number;
  nt: number;
  X: number[];
  y: number[];
  Xt: number[];
  w: number[] | null;
  params: Record<string, number>;
  proba: number[];
  nTrees: number;
}

const fixture = JSON.parse(
  readFileSync(new URL('../../../fixtures/xgb/unit.json', import.meta.url), 'utf8'),
) as {
  cases: UnitCase[];
};

/** xgboost parameter names → ours. */
function toParams(p: Record<string, number>): Partial<GBDTParams> {
  const map: Record<string, keyof GBDTParams> = {
    max_depth: 'maxDepth',
    eta: 'learningRate',
    lambda: 'regLambda',
    alpha: 'regAlpha',
    gamma: 'gamma',
    min_child_weight: 'minChildWeight',
    n_estimators: 'nEstimators',
  };
  return Object.fromEntries(Object.entries(p).map(([key, v]) => [map[key], v]));
}

describe('GBDTClassifier vs xgboost 1.7.4 (unit fixtures)', () => {
  for (const c of fixture.cases) {
    it(`${c.name}: predict_proba within 1e-6, same argmax, same tree count`, async () => {
      const m = new GBDTClassifier(toParams(c.params));
      const X = { data: Float32Array.from(c.X), rows: c.n, cols: c.d };
      const y = Int32Array.from(c.y);
      const w = c.w ? Float64Array.from(c.w) : null;
      await m.fitWeighted(X, y, w, c.k, { rng: mt(0) });
      const p = await m.predictProba({ data: Float32Array.from(c.Xt), rows: c.nt, cols: c.d });
      expect(m.model!.trees.nTrees).toBe(c.nTrees);
      let maxDiff = 0;
      for (let i = 0; i < p.length; i++) maxDiff = Math.max(maxDiff, Math.abs(p[i] - c.proba[i]));
      expect(maxDiff).toBeLessThanOrEqual(1e-6);
      expect(Array.from(argmaxRows(p, c.nt, c.k))).toEqual(Array.from(argmaxRows(c.proba, c.nt, c.k)));
    });
  }
});
