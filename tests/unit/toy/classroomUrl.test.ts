import { describe, expect, it } from 'vitest';
import { parseClassroomHash, withToyKeys } from '../../../src/lib/toy/classroomUrl.ts';
import { demoSummary, describeChange, type SummaryCell } from '../../../src/lib/toy/demoSummary.ts';
import { toyCaption } from '../../../src/lib/toy/captions.ts';

describe('parseClassroomHash', () => {
  it('turns classroom mode on for #classroom and for classroom=1 on the Learn page', () => {
    expect(parseClassroomHash('#classroom').classroom).toBe(true);
    expect(parseClassroomHash('#/classroom?nav_hide=1').classroom).toBe(true);
    expect(parseClassroomHash('#/learn?classroom=1').classroom).toBe(true);
    expect(parseClassroomHash('#/learn').classroom).toBe(false);
    expect(parseClassroomHash('#/learn?classroom=0').classroom).toBe(false);
  });

  it('reads the hide keys and the toy keys', () => {
    const u = parseClassroomHash(
      '#classroom?slider_hide=1&nav_hide=true&seed_hide=0&toy_seed=42&toy_shape=blobs&toy_setting=label&toy_t=0.6',
    );
    expect(u.hide.slider).toBe(true);
    expect(u.hide.nav).toBe(true);
    expect(u.hide.seed).toBe(false);
    expect(u.hide.setting).toBe(false);
    expect([u.toySeed, u.toyShape, u.toySetting, u.toyT]).toEqual([42, 'blobs', 'label', 0.6]);
  });

  it('falls back to the defaults on invalid values', () => {
    const u = parseClassroomHash('#/learn?toy_seed=-3&toy_shape=spiral&toy_setting=<b>&toy_t=1.5');
    expect([u.toySeed, u.toyShape, u.toySetting, u.toyT]).toEqual([1, 'moons', 'distribution', 0]);
    expect(parseClassroomHash('#/learn?toy_seed=4294967296').toySeed).toBe(1);
    expect(parseClassroomHash('#/learn?toy_seed=4294967295').toySeed).toBe(4294967295);
    expect(parseClassroomHash('#/learn?toy_t=abc').toyT).toBe(0);
  });
});

describe('withToyKeys', () => {
  it('sets the toy keys, drops defaults and keeps the path and the other keys', () => {
    const h = withToyKeys('#/learn?v=1&backend=wasm&slider_hide=1&toy_seed=9', {
      toySeed: 1,
      toyShape: 'blobs',
      toySetting: 'feature',
      toyT: 0.3333333,
    });
    expect(h).toBe('#/learn?v=1&backend=wasm&slider_hide=1&toy_shape=blobs&toy_setting=feature&toy_t=0.333');
    expect(
      withToyKeys('#classroom', { toySeed: 5, toyShape: 'moons', toySetting: 'distribution', toyT: 0 }),
    ).toBe('#classroom?toy_seed=5');
    const back = parseClassroomHash(h);
    expect([back.toySeed, back.toyShape, back.toySetting, back.toyT, back.hide.slider]).toEqual([
      1,
      'blobs',
      'feature',
      0.333,
      true,
    ]);
  });
});

describe('demoSummary', () => {
  const cell = (
    dataset: string,
    setting: SummaryCell['setting'],
    t_index: number,
    name: string,
    accuracy: number | null,
  ): SummaryCell => ({
    dataset: { id: dataset },
    setting,
    t_index,
    algorithm: { name },
    outcome: { accuracy },
  });

  it('averages an algorithm over seeds at t = 0 and t = 1, per dataset and setting', () => {
    const cells = [
      cell('iris', 'label', 0, 'lp', 0.9),
      cell('iris', 'label', 0, 'lp', 0.8),
      cell('iris', 'label', 5, 'lp', 0.5),
      cell('iris', 'label', 5, 'xgb', 0.1),
      cell('iris', 'label', 2, 'lp', 0.1),
      cell('iris', 'label', 5, 'lp', null),
    ];
    const rows = demoSummary(cells, 'lp', ['iris']);
    expect(rows.map((r) => r.setting)).toEqual(['distribution', 'feature', 'label']);
    const label = rows[2];
    expect(label.start).toBeCloseTo(0.85, 12);
    expect(label.end).toBe(0.5);
    expect([label.nStart, label.nEnd]).toEqual([2, 1]);
    expect(Number.isNaN(rows[0].start)).toBe(true);
  });

  it('describes the change in words', () => {
    expect(describeChange(0.85, 0.5)).toBe('falls from 85% to 50%');
    expect(describeChange(0.8, 0.81)).toBe('stays near 80%');
    expect(describeChange(0.7, 0.9)).toBe('rises from 70% to 90%');
    expect(describeChange(Number.NaN, 0.9)).toBe('is still running');
  });
});

describe('toyCaption', () => {
  it('counts the drifted points in plain words', () => {
    expect(toyCaption('label', 0.4, 72, 180)).toMatch(
      /^t = 0\.40: 72 of 180 unlabeled points \(40%\) are from the unseen pink class\./,
    );
    expect(toyCaption('feature', 0, 0, 180)).toMatch(/^At t = 0 /);
  });
});
