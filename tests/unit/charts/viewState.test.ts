import { describe, expect, it } from 'vitest';
import { DEFAULT_VIEW, parseViewState } from '../../../src/lib/charts/viewState.ts';

describe('parseViewState', () => {
  it('keeps a valid state as it is (and it survives JSON)', () => {
    const v = {
      metricForm: 'code',
      pt: { kind: 'beta', alpha: 2, beta: 5 },
      hidden: ['xgb', 'lp'],
      explain: ['rcc', 'auc'],
      sort: { column: 'evm', dir: 'desc' },
    };
    expect(parseViewState(JSON.parse(JSON.stringify(v)))).toEqual({ ...v, explain: ['auc', 'rcc'] });
    expect(parseViewState({ pt: { kind: 'grid', weights: [3, 1, 1, 1, 1, 0] } }).pt).toEqual({
      kind: 'grid',
      weights: [3, 1, 1, 1, 1, 0],
    });
  });

  it('falls back to the defaults for missing input of any type', () => {
    for (const x of [undefined, null, 0, 'x', [], [1, 2], {}, true])
      expect(parseViewState(x)).toEqual(DEFAULT_VIEW);
  });

  it('replaces each bad field alone by its default', () => {
    const v = parseViewState({
      metricForm: 'html',
      pt: { kind: 'beta', alpha: -1, beta: 5 },
      hidden: 'lp',
      explain: ['auc', 'nope', 3],
      sort: { column: 'constructor', dir: 'sideways' },
    });
    expect(v).toEqual({ ...DEFAULT_VIEW, explain: ['auc'] });
    expect(parseViewState({ metricForm: 'code', pt: { kind: 'grid', weights: [0, 0, 0, 0, 0, 0] } })).toEqual(
      { ...DEFAULT_VIEW, metricForm: 'code' },
    );
    expect(parseViewState({ pt: { kind: 'grid', weights: [1, 1] } }).pt).toEqual({ kind: 'uniform' });
    expect(parseViewState({ pt: { kind: 'beta', alpha: Infinity, beta: 1 } }).pt).toEqual({
      kind: 'uniform',
    });
  });

  it('never throws on hostile input and drops extra keys', () => {
    const trap = new Proxy(
      {},
      {
        get() {
          throw new Error('boom');
        },
        has() {
          throw new Error('boom');
        },
        getOwnPropertyDescriptor() {
          throw new Error('boom');
        },
      },
    );
    expect(parseViewState(trap)).toEqual(DEFAULT_VIEW);
    const getter = Object.defineProperty({ metricForm: 'code' }, 'pt', {
      get() {
        throw new Error('boom');
      },
      enumerable: true,
    });
    expect(parseViewState(getter)).toEqual({ ...DEFAULT_VIEW, metricForm: 'code' });
    const polluted = JSON.parse(
      '{"__proto__": {"metricForm": "code"}, "pt": {"kind": "beta", "alpha": 1, "beta": 2, "evil": "<img>"}}',
    );
    expect(parseViewState(polluted)).toEqual({ ...DEFAULT_VIEW, pt: { kind: 'beta', alpha: 1, beta: 2 } });
  });

  it('caps and de-duplicates hidden ids', () => {
    const many = Array.from({ length: 500 }, (_, i) => `a${i % 100}`);
    const v = parseViewState({ hidden: [...many, '', 'x'.repeat(201), 7] });
    expect(v.hidden).toHaveLength(64);
    expect(v.hidden[0]).toBe('a0');
    expect(v.hidden.every((h) => h.length > 0 && h.length <= 200)).toBe(true);
  });

  it('returns fresh objects: editing the result never edits DEFAULT_VIEW', () => {
    const v = parseViewState(null);
    v.hidden.push('lp');
    v.sort.dir = 'desc';
    expect(DEFAULT_VIEW.hidden).toEqual([]);
    expect(DEFAULT_VIEW.sort.dir).toBe('asc');
  });
});
