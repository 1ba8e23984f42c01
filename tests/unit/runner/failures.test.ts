/** Cells without a record travel with their reason in the run record and the CSV (issue 11 point 1). */
import { describe, expect, it } from 'vitest';
import { runToCsv } from '../../../src/lib/share/csv.ts';
import { toRunRecord, type StoredCell, type StoredRun } from '../../../src/lib/suite/runStore.ts';
import { parseRun, type CellResult } from '../../../src/lib/suite/schema.ts';
import { validCell, validRun } from '../schema/fixtures.ts';

describe('failures in the run record and exports', () => {
  it('toRunRecord lists cells without a record, and the CSV gives them a row with the reason', () => {
    const base = validRun();
    const run = {
      id: 'r1',
      plan: base.plan,
      status: 'done',
      created_at: base.created_at,
      finished_at: base.finished_at,
      env: base.env,
      workers: 1,
      total: 2,
    } as unknown as StoredRun;
    const ok: StoredCell = {
      runId: 'r1',
      key: 'iris|distribution|5|lp|3|2',
      status: 'ok',
      result: validCell() as unknown as CellResult,
      error: null,
      attempts: 1,
    };
    const notRun: StoredCell = {
      runId: 'r1',
      key: 'letter|distribution|5|lp|3|2',
      status: 'failed',
      result: null,
      error: 'not run: letter unavailable (offline)',
      attempts: 0,
    };
    const record = parseRun(toRunRecord(run, [ok, notRun]));
    expect(record.failures).toEqual([{ key: notRun.key, reason: 'not run: letter unavailable (offline)' }]);
    const lines = runToCsv(record).trim().split('\r\n');
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe(
      'letter,distribution,5,lp,,,3,2,not run,,,,,,,,,,,not run: letter unavailable (offline)',
    );
  });
});
