/**
 * Issue 21, items 14 and 15: curves that coincide are named (one hides the other), and a deep
 * fit whose mask rate never rose above 0 says so in the live training view.
 */
import { describe, expect, it } from 'vitest';
import { coincidingGroups, coincidingNotes } from '../../../src/lib/charts/coincide.ts';
import { TrainingLog } from '../../../src/lib/charts/trainingLog.ts';

const c = (algorithm: string, mean: number[]) => ({ algorithm, mean });
const names: Record<string, string> = {
  ftt: 'FT-Transformer',
  pseudolabel: 'Pseudo-Label',
  lp: 'LP',
  ls: 'LS',
  mt: 'Mean Teacher',
};
const label = (id: string) => names[id] ?? id;

describe('coinciding curves', () => {
  it('names the curve that lies under another (classroom-deep: FT-Transformer under Pseudo-Label)', () => {
    const flat = [0.9, 0.9, 0.9, 0.9, 0.9, 0.9];
    const curves = [
      c('ftt', flat),
      c(
        'pseudolabel',
        flat.map((v) => v + 0.001),
      ),
      c('lp', [0.9, 0.8, 0.7, 0.6, 0.5, 0.4]),
    ];
    expect(coincidingGroups(curves)).toEqual([['ftt', 'pseudolabel']]);
    expect(coincidingNotes(curves, [], label)).toEqual([
      'FT-Transformer and Pseudo-Label have the same mean accuracy at every t, so their lines coincide: FT-Transformer lies under Pseudo-Label.',
    ]);
    // Hidden by the user: nothing lies under it any more.
    expect(coincidingNotes(curves, ['ftt'], label)).toEqual([]);
  });

  it('needs every t alike (a point apart, or a t one of them lacks, keeps them apart); groups of three', () => {
    expect(coincidingGroups([c('lp', [0.5, 0.5]), c('ls', [0.5, 0.52])])).toEqual([]);
    expect(coincidingGroups([c('lp', [0.5, 0.5]), c('ls', [0.5, Number.NaN])])).toEqual([]);
    expect(coincidingGroups([c('lp', [Number.NaN]), c('ls', [Number.NaN])])).toEqual([]);
    const three = [c('lp', [0.7, 0.6]), c('ls', [0.7, 0.6]), c('mt', [0.7, 0.6])];
    expect(coincidingNotes(three, [], label)).toEqual([
      'LP, LS and Mean Teacher have the same mean accuracy at every t, so their lines coincide: LP and LS lie under Mean Teacher.',
    ]);
  });
});

describe('a mask rate that never rose', () => {
  const ev = (step: number, mask: number) => ({
    step,
    total: 60,
    losses: { supervised: 1 },
    scalars: { maskRate: mask, lr: 0.001 },
  });
  it('is told apart from one that rose at any step, even a thinned one', () => {
    const idle = new TrainingLog(8);
    for (let s = 1; s <= 60; s++) idle.push(ev(s, 0), s);
    expect(idle.maskNeverRose).toBe(true);
    const rose = new TrainingLog(8);
    for (let s = 1; s <= 60; s++) rose.push(ev(s, s === 13 ? 0.05 : 0), s);
    // Step 13 is thinned out of the kept points, but it counted.
    expect(rose.points.some((p) => p.step === 13)).toBe(false);
    expect(rose.maskNeverRose).toBe(false);
    expect(rose.maxOf('maskRate')).toBe(0.05);
    // No mask at all (the supervised baseline): nothing to say.
    const ftt = new TrainingLog(8);
    ftt.push({ step: 1, total: 60, losses: { supervised: 1 }, scalars: { lr: 0.001 } }, 1);
    expect(ftt.maskNeverRose).toBe(false);
  });
});
