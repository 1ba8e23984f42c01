/**
 * rsb-cell/3 readers on older records: /1 and /2 cells and runs read as modality `tabular`, equal to
 * what the /2 readers return apart from the version and the added field; the /2 readers themselves
 * are unchanged; a tabular /3 cell is a /2 cell plus `modality` and converts both ways losslessly.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseCellResult, parseRun, type CellResult } from '../../../src/lib/suite/schema.ts';
import {
  cellModality,
  parseCellV3,
  parseRunV3,
  toCellV2,
  toCellV3,
  upgradeCellV3,
  type TabularCellV3,
} from '../../../src/lib/suite/schemaV3.ts';
import { setPath, validCell, validRun } from './fixtures.ts';

const clone = <T>(x: T): T => JSON.parse(JSON.stringify(x));
const asV3 = (c: CellResult) => ({ ...c, schema: 'rsb-cell/3', modality: 'tabular' });
const readFixture = (f: string) =>
  JSON.parse(readFileSync(new URL(`../../fixtures/runs/${f}`, import.meta.url), 'utf8'));

describe('/1 and /2 cells read as tabular rsb-cell/3', () => {
  it('a /2 cell: what parseCellResult reads, now rsb-cell/3 with modality "tabular"', () => {
    const cell = validCell();
    const before = parseCellResult(clone(cell));
    const after = parseCellV3(clone(cell));
    expect(after.schema).toBe('rsb-cell/3');
    expect(after.modality).toBe('tabular');
    expect(after).toEqual(asV3(before));
    // Nothing but the version and the added field differs from the record as written.
    const { schema: _s, modality: _m, ...rest } = after as TabularCellV3;
    const { schema: _s2, ...written } = cell;
    expect(rest).toEqual(written);
  });

  it('a /1 cell: algorithm.options becomes {} as in the /1 → /2 upgrade, then modality "tabular"', () => {
    const v1 = validCell({ schema: 'rsb-cell/1' });
    delete (v1.algorithm as Record<string, unknown>).options;
    const after = parseCellV3(clone(v1));
    expect(after).toEqual(asV3(parseCellResult(clone(v1))));
    expect(after.modality === 'tabular' && after.algorithm.options).toEqual({});
  });

  it('keeps the /2 rules: a /2 cell without algorithm.options is still refused', () => {
    const cell = validCell();
    delete (cell.algorithm as Record<string, unknown>).options;
    expect(() => parseCellV3(cell)).toThrow('algorithm.options: required field is missing');
  });

  it('leaves anything that is not a /1 or /2 cell alone', () => {
    expect(upgradeCellV3(null)).toBeNull();
    const three = { schema: 'rsb-cell/3', modality: 'image' };
    expect(upgradeCellV3(three)).toBe(three);
    const odd = validCell({ modality: 'image' });
    expect(upgradeCellV3(odd)).toBe(odd);
  });

  it('refuses a /2 cell that claims a modality, as the /2 schema refuses any unknown field', () => {
    expect(() => parseCellV3(validCell({ modality: 'image' }))).toThrow(
      'modality: unknown field (not part of the schema)',
    );
    const run = {
      ...validRun([toCellV3(parseCellResult(validCell())), validCell({ seed: 3, modality: 'tabular' })]),
    };
    expect(() => parseRunV3({ ...run, schema: 'rsb-run/3' })).toThrow(
      'cells[1].modality: unknown field (not part of the schema)',
    );
  });
});

describe('/1 and /2 runs read as tabular rsb-run/3', () => {
  it.each(['classroom.json', 'iris-feature-5.json', 'paper-wine-5.json'])(
    'committed %s: as read before, now rsb-run/3 with every cell modality "tabular"',
    (f) => {
      const raw = readFixture(f);
      expect(raw.schema).toBe('rsb-run/1');
      const before = parseRun(clone(raw));
      const after = parseRunV3(clone(raw));
      expect(after.schema).toBe('rsb-run/3');
      expect(after.cells.every((c) => c.modality === 'tabular')).toBe(true);
      expect(after).toEqual({ ...before, schema: 'rsb-run/3', cells: before.cells.map(asV3) });
      // The same run as the app exports it today (rsb-run/2 with rsb-cell/2 cells) reads the same.
      const v2 = clone(before);
      expect(v2.schema).toBe('rsb-run/2');
      expect(v2.cells[0].schema).toBe('rsb-cell/2');
      expect(parseRunV3(v2)).toEqual(after);
    },
  );

  it('a /2 run holding a /1 cell (rebuilt from IndexedDB) reads too', () => {
    const v1 = validCell({ schema: 'rsb-cell/1', seed: 3 });
    delete (v1.algorithm as Record<string, unknown>).options;
    const run = parseRunV3(validRun([validCell(), v1]));
    expect(run.cells.map((c) => [c.schema, c.modality])).toEqual([
      ['rsb-cell/3', 'tabular'],
      ['rsb-cell/3', 'tabular'],
    ]);
  });

  it('keeps the /2 run rules (mode and quirks as planned, one record per cell)', () => {
    expect(() => parseRunV3(validRun([validCell(), validCell()]))).toThrow(
      'cells[1]: repeats the cell of cells[0] (iris, distribution, labels 5, lp, t=0.6, seed 2)',
    );
    const other = setPath(validCell({ seed: 3 }), 'protocol.quirks', 'fixed');
    expect(() => parseRunV3(validRun([validCell(), other]))).toThrow(
      'cells[1].protocol.quirks: is "fixed" but the run\'s plan says "rsb"; results that differ in quirks must not be pooled',
    );
  });

  it('the /2 readers are unchanged: /2 form out, rsb-cell/3 and rsb-run/3 refused by version', () => {
    const cell = validCell();
    expect(parseCellResult(clone(cell))).toEqual(cell);
    expect(() => parseCellResult(toCellV3(parseCellResult(clone(cell))))).toThrow(
      'schema: unsupported schema version "rsb-cell/3"; this version of RAC Bench reads "rsb-cell/2" (and upgrades "rsb-cell/1")',
    );
    expect(() => parseRun({ ...validRun(), schema: 'rsb-run/3' })).toThrow(
      /^schema: unsupported schema version "rsb-run\/3"/,
    );
  });
});

describe('tabular rsb-cell/3', () => {
  it('is a /2 cell plus modality "tabular": it round-trips, and toCellV2 / toCellV3 are inverse', () => {
    const v2 = parseCellResult(clone(validCell()));
    const v3 = toCellV3(v2);
    expect(Object.keys(v3).sort()).toEqual([...Object.keys(v2), 'modality'].sort());
    expect(parseCellV3(clone(v3))).toEqual(v3);
    expect(toCellV2(v3)).toEqual(v2);
    expect(toCellV3(toCellV2(v3))).toEqual(v3);
    expect(cellModality(v2)).toBe('tabular');
    expect(cellModality(v3)).toBe('tabular');
  });

  it('has no other new field: image and text fields are refused, modality is required', () => {
    const v3 = clone(toCellV3(parseCellResult(clone(validCell())))) as Record<string, unknown>;
    expect(() => parseCellV3({ ...v3, feature_bank: null })).toThrow(
      'feature_bank: unknown field (not part of the schema)',
    );
    const { modality: _m, ...noModality } = v3;
    expect(() => parseCellV3(noModality)).toThrow('modality: required field is missing');
    expect(() => parseCellV3({ ...v3, modality: 'video' })).toThrow(
      'modality: expected one of "tabular", "image", "text", got "video"',
    );
  });

  it('a run of tabular /3 cells (rsb-run/3 with a tabular plan) reads and round-trips', () => {
    const cells = [0, 1].map((seed) => toCellV3(parseCellResult(validCell({ seed }))));
    const run = { ...validRun(cells), schema: 'rsb-run/3' };
    expect(parseRunV3(clone(run))).toEqual(run);
    // A /2 cell stored beside them is upgraded in place.
    const mixed = { ...validRun([cells[0], validCell({ seed: 1 })]), schema: 'rsb-run/3' };
    expect(parseRunV3(clone(mixed))).toEqual(run);
  });
});
