/**
 * Issue 12, row 10: degenerate outcomes are explicit. A cell with no test rows is "degenerate"
 * with its reason (never "ok" without a score), in the record, the CSV export and a share link;
 * a merged plan may not list cells no file holds; a NaN hyperparameter is reported as NaN.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { validateParams, type ConstraintTable } from '../../../src/lib/models/params.ts';
import { runToCsv } from '../../../src/lib/share/csv.ts';
import { packV1, unpackV1 } from '../../../src/lib/share/linkV1.ts';
import { mergeRuns } from '../../../src/lib/suite/merge.ts';
import { parseCellResult, parseRun, type RunRecord } from '../../../src/lib/suite/schema.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const fixtureRun = (): RunRecord =>
  parseRun(JSON.parse(readFileSync(join(root, 'tests/fixtures/runs/classroom.json'), 'utf8')));

function cli(args: string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(root, 'bin/rac-bench.mjs'), ...args],
      { cwd: root },
      (err, _stdout, stderr) => {
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stderr });
      },
    );
  });
}

describe('degenerate outcomes (issue 12, row 10)', () => {
  it('--labels 100000 on iris: status "degenerate" with the reason, not "ok" with no score', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'rac-degenerate-')), 'run.json');
    const r = await cli([
      'run',
      '--dataset',
      'iris',
      '--setting',
      'distribution',
      '--labels',
      '100000',
      '--algorithms',
      'lp',
      '--seeds',
      '0',
      '--t',
      '0',
      '--out',
      out,
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('degenerate');
    const run = parseRun(JSON.parse(readFileSync(out, 'utf8')));
    const o = run.cells[0].outcome;
    expect(o.status).toBe('degenerate');
    expect(o.accuracy).toBeNull();
    expect(o.n_test).toBe(0);
    expect(o.reason).toBe(
      'No test rows: labels = 100000 takes every row of the source side as labeled (75 rows; 15 unlabeled), so nothing is left to score. Choose a smaller labels value.',
    );
    // In the export and through a share link.
    expect(runToCsv(run).split('\r\n')[1]).toContain(',degenerate,,0,0,');
    expect(runToCsv(run).split('\r\n')[1]).toMatch(/,"No test rows: labels = 100000 takes every row/);
    expect(unpackV1(JSON.parse(JSON.stringify(packV1(run))), 10).cells[0].outcome).toMatchObject({
      status: 'degenerate',
      reason: o.reason,
    });
  }, 60_000);

  it('the schema refuses "ok" without a score, and any other status without a reason', () => {
    const cell = structuredClone(fixtureRun().cells[0]);
    const bad = (outcome: object) => () =>
      parseCellResult({ ...cell, outcome: { ...cell.outcome, ...outcome } });
    expect(bad({ status: 'ok', accuracy: null, n_correct: 0, n_test: 0 })).toThrow(
      'expected a number for a cell with status "ok", got null',
    );
    expect(bad({ status: 'degenerate', accuracy: null, n_correct: 0, n_test: 0, reason: undefined })).toThrow(
      'expected a reason for a cell with status "degenerate"',
    );
    expect(
      bad({ status: 'degenerate', accuracy: null, n_correct: 0, n_test: 0, reason: 'No test rows.' }),
    ).not.toThrow();
  });

  it('merge refuses a plan that lists cells no file holds (a missing shard), naming the first', () => {
    const run = fixtureRun();
    const shardA = { ...run, cells: run.cells.filter((c) => c.seed !== 2) };
    expect(() => mergeRuns([shardA])).toThrow(
      /^The merged plan lists 864 cells but the files hold 576: 288 cells do not exist \(first: iris\|[a-z]+\|5\|[a-z]+\|0\|2\)\. Merge every shard/,
    );
    const shardB = { ...run, cells: run.cells.filter((c) => c.seed === 2) };
    expect(mergeRuns([shardA, shardB]).cells).toHaveLength(864);
  });

  it('a NaN or infinite hyperparameter is reported as NaN / Infinity, not null', () => {
    const table: ConstraintTable = { gamma: { kind: 'interval', min: 0, closed: 'neither' } };
    expect(() => validateParams('LabelSpreading', table, { gamma: NaN })).toThrow(/Got NaN instead\.$/);
    expect(() => validateParams('LabelSpreading', table, { gamma: -Infinity })).toThrow(
      /Got -Infinity instead\.$/,
    );
    expect(() => validateParams('LabelSpreading', table, { gamma: 'x' })).toThrow(/Got "x" instead\.$/);
  });
});
