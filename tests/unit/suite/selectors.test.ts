import { describe, expect, it } from 'vitest';
import {
  formatIntegerList,
  parseLabels,
  parseNames,
  parseSeeds,
  parseSettings,
  parseTIndices,
  SelectorError,
} from '../../../src/lib/suite/selectors.ts';

describe('selectors', () => {
  it('parses settings, including all', () => {
    expect(parseSettings('all')).toEqual(['distribution', 'feature', 'label']);
    expect(parseSettings('label,feature')).toEqual(['label', 'feature']);
    expect(() => parseSettings('shift')).toThrow(/--setting: unknown value "shift"/);
  });
  it('parses seeds with ranges and formats them back', () => {
    expect(parseSeeds('0-4')).toEqual([0, 1, 2, 3, 4]);
    expect(parseSeeds('0-2,7,1')).toEqual([0, 1, 2, 7]);
    expect(formatIntegerList([0, 1, 2, 7, 9, 10])).toBe('0-2,7,9-10');
    expect(() => parseSeeds('4-0')).toThrow(/backwards/);
    expect(() => parseSeeds('-1')).toThrow(SelectorError);
    expect(() => parseSeeds('a')).toThrow(/not an integer/);
    expect(() => parseSeeds('0,,1')).toThrow(/empty item/);
  });
  it('parses labels as positive integers', () => {
    expect(parseLabels('5,10')).toEqual([5, 10]);
    expect(() => parseLabels('0')).toThrow(/outside/);
  });
  it('parses t as grid values, never indices', () => {
    expect(parseTIndices('all')).toEqual([0, 1, 2, 3, 4, 5]);
    expect(parseTIndices('1,0,0.6')).toEqual([0, 3, 5]);
    expect(parseTIndices('.2')).toEqual([1]);
    expect(() => parseTIndices('2')).toThrow(/--t: "2" is not on the grid/);
    expect(() => parseTIndices('0.3')).toThrow(/not on the grid/);
    expect(() => parseTIndices('1e0')).toThrow(/not on the grid/);
  });
  it('expands groups and rejects unknown names', () => {
    const known = ['lp', 'ls', 'xgb'] as const;
    expect(parseNames('algorithms', 'statistical', known, { statistical: ['lp', 'ls'] })).toEqual([
      'lp',
      'ls',
    ]);
    expect(parseNames('algorithms', 'XGB,lp,lp', known)).toEqual(['xgb', 'lp']);
    expect(() => parseNames('algorithms', 'svm', known)).toThrow(/Expected one of: lp, ls, xgb, all/);
  });
});
