/**
 * rsb-cell/1 and rsb-run/1 still open: the reader upgrades them to /2 (the added, required
 * `algorithm.options` becomes {} = "not recorded"), also /1 cells inside a /2 run (IndexedDB).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseCellResult, parseRun, upgradeCell } from '../../../src/lib/suite/schema.ts';
import { validCell, validRun } from './fixtures.ts';

function v1Cell(): Record<string, unknown> {
  const c = validCell({ schema: 'rsb-cell/1' });
  delete (c.algorithm as Record<string, unknown>).options;
  return c;
}

describe('schema /1 → /2', () => {
  it('upgrades a /1 cell: schema /2, algorithm.options {} and nothing else changed', () => {
    const cell = v1Cell();
    const up = parseCellResult(cell);
    expect(up.schema).toBe('rsb-cell/2');
    expect(up.algorithm.options).toEqual({});
    expect({ ...up, schema: 'rsb-cell/1', algorithm: { ...up.algorithm, options: undefined } }).toEqual({
      ...cell,
      algorithm: { ...(cell.algorithm as object), options: undefined },
    });
  });

  it('still rejects a /2 cell without options (the field is required from /2 on)', () => {
    const cell = validCell();
    delete (cell.algorithm as Record<string, unknown>).options;
    expect(() => parseCellResult(cell)).toThrow('algorithm.options: required field is missing');
  });

  it('upgrades a /1 run and /1 cells inside a /2 run', () => {
    const run1 = { ...validRun([v1Cell()]), schema: 'rsb-run/1' };
    expect(parseRun(run1).schema).toBe('rsb-run/2');
    expect(parseRun(run1).cells[0].schema).toBe('rsb-cell/2');
    expect(parseRun(validRun([v1Cell()])).cells[0].algorithm.options).toEqual({});
  });

  it('opens every committed /1 run file unchanged apart from the upgrade', () => {
    for (const f of ['classroom.json', 'iris-feature-5.json']) {
      const raw = JSON.parse(readFileSync(new URL(`../../fixtures/runs/${f}`, import.meta.url), 'utf8'));
      expect(raw.schema).toBe('rsb-run/1');
      const run = parseRun(raw);
      expect(run.cells.length).toBe(raw.cells.length);
      expect(run.cells.map((c) => c.outcome)).toEqual(raw.cells.map((c: { outcome: unknown }) => c.outcome));
    }
  });

  it('leaves anything that is not a /1 cell alone', () => {
    expect(upgradeCell(null)).toBeNull();
    const two = validCell();
    expect(upgradeCell(two)).toBe(two);
  });
});
