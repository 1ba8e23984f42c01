/**
 * Issue 21, item 15: one palette from the catalogue, with colours that look different for every
 * pair of entries (Compare with 8 algorithms drew Label Spreading and Pseudo-Label both orange).
 */
import { describe, expect, it } from 'vitest';
import { CATALOGUE, presetAlgorithms } from '../../../src/lib/models/catalogue.ts';
import { algorithmColor, deltaE, MIN_ENTRY_DELTA_E, PALETTE } from '../../../src/lib/charts/palette.ts';
import { PRESET_IDS } from '../../../src/lib/suite/presets.ts';

describe('the algorithm palette', () => {
  it('measures colour difference as CIEDE2000: 0 for one colour, 100 from black to white, symmetric', () => {
    expect(deltaE('#3b6fd4', '#3b6fd4')).toBe(0);
    expect(deltaE('#000000', '#ffffff')).toBeCloseTo(100, 0);
    expect(deltaE('#d9622b', '#b5651d')).toBeCloseTo(deltaE('#b5651d', '#d9622b'), 12);
  });

  it('takes every catalogue colour from the one palette', () => {
    for (const a of CATALOGUE) expect(PALETTE, a.id).toContain(a.color);
  });

  it('gives every pair of entries colours at least ΔE 15 apart, within each preset and across them', () => {
    const pairs: string[] = [];
    for (const a of CATALOGUE)
      for (const b of CATALOGUE)
        if (a.id < b.id && deltaE(algorithmColor(a.id), algorithmColor(b.id)) < MIN_ENTRY_DELTA_E)
          pairs.push(`${a.id}/${b.id} ${deltaE(a.color, b.color).toFixed(1)}`);
    expect(pairs).toEqual([]);
    for (const preset of PRESET_IDS.filter((p) => p !== 'custom')) {
      const colours = presetAlgorithms(preset).map(algorithmColor);
      expect(new Set(colours).size, preset).toBe(colours.length);
    }
    expect(deltaE(algorithmColor('ls'), algorithmColor('pseudolabel'))).toBeGreaterThanOrEqual(
      MIN_ENTRY_DELTA_E,
    );
  });
});
