/**
 * §10 caps on an image/text cell (protocol/panelSubsample.ts), on CIFAR-10's real shapes: E capped
 * to 500 and U to 1 000 shared between U_in and U_out in proportion (so t keeps its meaning), each
 * part stratified by its rows' true labels, seeded with seed + 1 000 003, recorded; L untouched.
 */
import { describe, expect, it } from 'vitest';
import { capPanelSplit, CLASSROOM_CAPS } from '../../../src/lib/protocol/panelSubsample.ts';
import { panelRule, panelSplit, type PanelLabels } from '../../../src/lib/protocol/panelSplit.ts';
import { mt } from '../../../src/lib/protocol/rng.ts';

const labelsOf = (n: number, seed: number) => Int32Array.from(mt(seed).permutation(n), (v) => v % 10);
const labels: PanelLabels = { train: labelsOf(50_000, 1), test: labelsOf(10_000, 2), k: 10 };

describe('classroom caps', () => {
  it('share the unlabeled cap between U_in and U_out in proportion, stratified, and leave L alone', () => {
    const drawn = panelSplit(panelRule('cifar10', 'label')!, labels, 100, 0.4, 3);
    const { split, records } = capPanelSplit(drawn, labels, CLASSROOM_CAPS, 3);
    const [nIn, nOut] = [drawn.unlabeledIn.length, drawn.unlabeledOut.length];
    expect(nIn + nOut).toBe(25_000);
    const maxIn = Math.floor((1_000 * nIn) / (nIn + nOut));
    expect(split.unlabeledIn).toHaveLength(maxIn);
    expect(split.unlabeledOut).toHaveLength(1_000 - maxIn);
    expect(split.test).toHaveLength(500);
    expect(split.labeled).toBe(drawn.labeled);
    // Stratified: E keeps 100 rows of each of the 5 kept classes.
    const perClass = new Array(10).fill(0);
    for (const r of split.test) perClass[labels.test![r]]++;
    expect(perClass.slice(0, 5)).toEqual([100, 100, 100, 100, 100]);
    // Kept rows are rows of their pools.
    const inSet = new Set(drawn.unlabeledIn);
    expect(split.unlabeledIn.every((r) => inSet.has(r))).toBe(true);
    expect(records).toEqual([
      { pool: 'test', n_before: 5_000, n_after: 500, method: 'stratified-split', seed: 1_000_006 },
      { pool: 'unlabeled_in', n_before: nIn, n_after: maxIn, method: 'stratified-split', seed: 1_000_006 },
      {
        pool: 'unlabeled_out',
        n_before: nOut,
        n_after: 1_000 - maxIn,
        method: 'stratified-split',
        seed: 1_000_006,
      },
    ]);
    // Seeded: the same cell caps the same rows; another seed other rows.
    expect(capPanelSplit(drawn, labels, CLASSROOM_CAPS, 3).split).toEqual(split);
    expect(capPanelSplit(drawn, labels, CLASSROOM_CAPS, 4).split.test).not.toEqual(split.test);
  });

  it('keep empty parts empty and pools under the cap whole (t = 0 and t = 1)', () => {
    const at0 = panelSplit(panelRule('cifar10', 'feature')!, labels, 200, 0, 0);
    const capped0 = capPanelSplit(at0, labels, CLASSROOM_CAPS, 0);
    expect(capped0.split.unlabeledOut).toHaveLength(0);
    expect(capped0.split.unlabeledIn).toHaveLength(1_000);
    expect(capped0.records.find((r) => r.pool === 'unlabeled_out')).toMatchObject({
      n_before: 0,
      n_after: 0,
    });
    const small = capPanelSplit(at0, labels, { test: { max: 20_000 } }, 0);
    expect(small.split.test).toHaveLength(10_000);
    expect(small.records).toEqual([
      { pool: 'test', n_before: 10_000, n_after: 10_000, method: 'stratified-split', seed: 1_000_003 },
    ]);
  });
});
