import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CSV_COLUMNS, csvField, runToCsv } from '../../../src/lib/share/csv.ts';
import {
  ImportError,
  importRunFile,
  modalRunToJson,
  parseAnyRunFile,
  parseRunFile,
  runFileName,
  runToJson,
} from '../../../src/lib/share/runFile.ts';
import { parseRun, type RunRecord } from '../../../src/lib/suite/schema.ts';
import type { ModalRunRecord } from '../../../src/lib/suite/schemaV3.ts';

const text = readFileSync('tests/fixtures/runs/classroom.json', 'utf8');
const run = parseRun(JSON.parse(text));
const small: RunRecord = { ...run, cells: run.cells.slice(0, 3) };

function importError(t: string): string {
  try {
    parseRunFile(t, '"x.json"');
  } catch (e) {
    expect(e).toBeInstanceOf(ImportError);
    return (e as Error).message;
  }
  throw new Error('expected an ImportError');
}

describe('CSV export', () => {
  it('quotes per RFC 4180 and defuses formulas in text, never in numbers', () => {
    expect(csvField('iris')).toBe('iris');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField('=HYPERLINK("http://x")')).toBe(`"'=HYPERLINK(""http://x"")"`);
    expect(csvField('+1')).toBe("'+1");
    expect(csvField('-cmd')).toBe("'-cmd");
    expect(csvField('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvField('\tx')).toBe("'\tx");
    expect(csvField(-0.5)).toBe('-0.5');
    expect(csvField(null)).toBe('');
    expect(csvField(Number.NaN)).toBe('');
  });
  it('writes one row per cell with the documented columns', () => {
    const csv = runToCsv(run);
    const lines = csv.split('\r\n');
    expect(lines).toHaveLength(864 + 2); // header, rows, trailing CRLF
    expect(lines[0]).toBe(CSV_COLUMNS.join(','));
    const c = run.cells[6];
    const fields = lines[7].split(',');
    expect(fields.slice(0, 12)).toEqual([
      'iris',
      'distribution',
      '5',
      'xgb',
      'baseline',
      '0',
      '0',
      '1',
      'ok',
      '0.8',
      '48',
      '60',
    ]);
    expect(fields[12]).toBe(String(c.timing.fit_ms));
    expect(fields.slice(14)).toEqual(['wasm', 'rsb', '1.0.0', 'rsb', c.dataset.sha256, '']);
  });
});

describe('JSON export and import', () => {
  it('round-trips a run through its file text', () => {
    expect(parseRunFile(runToJson(run))).toEqual(run);
  });
  it('reads a File, and names files safely', async () => {
    const file = new File([runToJson(small)], 'r.json');
    expect((await importRunFile(file)).cells).toHaveLength(3);
    expect(runFileName({ id: '../../etc/passwd<x>' }, 'csv')).toBe('rac-bench-etc-passwd-x-.csv');
  });
  it('says when a file is not JSON', () => {
    expect(importError('id,acc\n1,2')).toMatch(
      /^"x\.json" is not JSON \(.*\)\. Expected a run exported from RAC Bench \("rsb-run\/2" or "rsb-run\/3"\)\.$/,
    );
  });
  it('says when the schema version is wrong or missing', () => {
    expect(importError(JSON.stringify({ ...small, schema: 'rsb-run/3' }))).toBe(
      '"x.json" is not a RAC Bench run of a version this page reads: schema: unsupported schema version "rsb-run/3"; this version of RAC Bench reads "rsb-run/2" (and upgrades "rsb-run/1").',
    );
    const { schema: _, ...noSchema } = small;
    expect(importError(JSON.stringify(noSchema))).toMatch(
      /not a RAC Bench run of a version this page reads: schema: required field is missing/,
    );
  });
  it('reads a valid image/text run (rsb-run/3) as one, tells it from a broken file, and keeps it out of tabular views', () => {
    const modal = readFileSync(new URL('../../fixtures/runs/image-features-2.json', import.meta.url), 'utf8');
    const got = parseAnyRunFile(modal, '"x.json"');
    expect(got.kind).toBe('modal');
    expect(got.run.cells).toHaveLength(2);
    expect(got.run.cells[0]).toMatchObject({ modality: 'image', protocol: { tier: 'features' } });
    expect(JSON.parse(modalRunToJson(got.run as ModalRunRecord))).toEqual(JSON.parse(modal));
    expect(parseAnyRunFile(runToJson(small)).kind).toBe('tabular');
    expect(importError(modal)).toBe(
      '"x.json" is an image/text run ("rsb-run/3", 2 cells); this view takes tabular runs only (the Results page draws image and text runs).',
    );
    const broken = JSON.parse(modal) as { cells: { seed: unknown }[] };
    broken.cells[1].seed = -1;
    expect(() => parseAnyRunFile(JSON.stringify(broken), '"x.json"')).toThrow(
      /^"x\.json" is not a valid image\/text run: cells\[1\]\.seed: /,
    );
  });

  it('names the path of an invalid field', () => {
    const bad = structuredClone(small) as unknown as { cells: { outcome: { n_test: unknown } }[] };
    bad.cells[2].outcome.n_test = 'sixty';
    expect(importError(JSON.stringify(bad))).toBe(
      '"x.json" is not a valid run: cells[2].outcome.n_test: expected a whole number ≥ 0, got "sixty".',
    );
    const evil = structuredClone(small);
    evil.cells[0].algorithm.name = '<img src=x onerror=alert(1)>';
    expect(importError(JSON.stringify(evil))).toMatch(
      /^"x\.json" is not a valid run: cells\[0\]\.algorithm\.name: expected an id/,
    );
  });
});
