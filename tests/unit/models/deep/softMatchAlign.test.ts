/**
 * SoftMatch's distribution alignment switch (PROTOCOL-IMAGE-TEXT.md §7.6: LAMDA's `use_DA` per
 * panel). A near-tie whose argmax the alignment flips: labeled predictions all on class 1 pull
 * p_lb towards class 1, so with alignment the pseudo-label is 1 and without it 0; the loss is the
 * student's cross-entropy against that label, so the two settings give different, known losses.
 */
import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { softMatch } from '../../../../src/lib/models/deep/methods/softMatch.ts';
import { panelMethodParams, softMatchAlignment } from '../../../../src/lib/suite/panelPlan.ts';
import type { StepIO } from '../../../../src/lib/models/deep/methods/types.ts';

async function lossWith(distAlign: number | undefined): Promise<{ lu: number; hyper: unknown }> {
  const m = softMatch(distAlign === undefined ? {} : { distAlign });
  m.init!(2, 4);
  const before = tf.memory().numTensors;
  const lu = tf.tidy(() => {
    const p = tf.tensor2d([[0.5001, 0.4999]]);
    const ls = tf.tensor2d([[2, 0]]); // the student says class 0: CE(ls, 0) small, CE(ls, 1) large
    const logitsL = tf.tensor2d([[-20, 20]]); // labeled predictions all on class 1
    const io = { k: 2 } as unknown as StepIO;
    return m.unsupervised(io, [p], [ls], logitsL).lu;
  });
  const v = (await lu.data())[0];
  lu.dispose();
  expect(tf.memory().numTensors).toBe(before);
  return { lu: v, hyper: m.hyper };
}

describe('SoftMatch distribution alignment', () => {
  it('on by default: the aligned pseudo-label is class 1; off: class 0', async () => {
    const ce = (z: number[], y: number) => Math.log(z.reduce((a, b) => a + Math.exp(b), 0)) - z[y];
    // g = exp(−min(max p̃ − μ_t, 0)² / (σ²_t / 2)) with μ_t ≈ 1/2, σ²_t ≈ 1: g ≈ 1 here.
    const on = await lossWith(undefined);
    const onExplicit = await lossWith(1);
    const off = await lossWith(0);
    expect(on.lu).toBeCloseTo(ce([2, 0], 1), 3);
    expect(onExplicit.lu).toBe(on.lu);
    expect(off.lu).toBeCloseTo(ce([2, 0], 0), 3);
    expect((off.hyper as Record<string, unknown>).distAlign).toBe(0);
  });

  it('follows the scripts per panel (§7.6)', () => {
    expect(softMatchAlignment('cifar10', 'feature')).toBe(true);
    expect(softMatchAlignment('cifar10', 'label')).toBe(true);
    expect(softMatchAlignment('cifar100', 'label')).toBe(true);
    expect(softMatchAlignment('cifar100', 'feature')).toBe(false);
    expect(softMatchAlignment('image-clef', 'distribution')).toBe(true);
    expect(softMatchAlignment('visda', 'distribution')).toBe(true);
    expect(softMatchAlignment('imdb-amazon', 'distribution')).toBe(false);
    expect(softMatchAlignment('ag_news', 'label')).toBe(false);
    expect(softMatchAlignment('ag_news', 'feature')).toBe(false);
    expect(panelMethodParams('softmatch', 'cifar100', 'feature')).toEqual({
      mu: 1,
      lambdaU: 1,
      distAlign: 0,
    });
    expect(panelMethodParams('fixmatch', 'cifar100', 'feature')).toEqual({ mu: 1, lambdaU: 1 });
    expect(panelMethodParams('supervised', 'cifar10', 'label')).toEqual({});
  });
});
