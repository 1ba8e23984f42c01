/**
 * Issue 21, item 11: one calibrated cost model for the page and the CLI. At the same calibration
 * the Run page's estimate (planEstimate.ts estimatePlanTime, what RunPreflight shows) and
 * `rac-bench estimate` give the same rows and total; the page saves its calibration and reads it
 * back instead of measuring noisily at every load.
 */
import { describe, expect, it } from 'vitest';
import {
  CALIBRATION_REPEATS,
  calibrate,
  readStoredCalibration,
  storedCalibration,
} from '../../../src/lib/suite/costModel.ts';
import { estimatePlanTime } from '../../../src/lib/suite/planEstimate.ts';
import { presetPlan } from '../../../src/lib/suite/presets.ts';
import { runCli as cli } from '../helpers/cli.ts';

interface CliEstimate {
  msPerUnit: number;
  rows: { algorithm: string; dataset: string; fits: number; seconds: number; longestSeconds: number }[];
  fits: number;
  cpuSeconds: number;
}

describe('the page and the CLI estimate a plan alike', () => {
  it('rac-bench estimate and the Run page give the same rows at the same calibration', async () => {
    for (const preset of ['classroom', 'tabular-statistical'] as const) {
      const r = await cli(['estimate', '--preset', preset, '--json']);
      expect(r.code, r.stderr).toBe(0);
      const fromCli = JSON.parse(r.stdout) as CliEstimate;
      const page = estimatePlanTime(presetPlan(preset), fromCli.msPerUnit, 1);
      expect(page.fits).toBe(fromCli.fits);
      expect(page.rows.map((x) => [x.algorithm, x.dataset, x.fits])).toEqual(
        fromCli.rows.map((x) => [x.algorithm, x.dataset, x.fits]),
      );
      page.rows.forEach((row, i) => {
        expect(row.seconds).toBeCloseTo(fromCli.rows[i].seconds, 6);
        expect(row.longestSeconds).toBeCloseTo(fromCli.rows[i].longestSeconds, 6);
      });
      // One worker is one process; two workers share the work.
      expect(page.wallSeconds).toBeCloseTo(fromCli.cpuSeconds, 6);
      const two = estimatePlanTime(presetPlan(preset), fromCli.msPerUnit, 2);
      expect(two.wallSeconds).toBeCloseTo(Math.max(fromCli.cpuSeconds / 2, two.longestFitSeconds), 6);
    }
  }, 120_000);

  it('a saved calibration is read back as it was measured, and only on the same app, browser and cores', () => {
    let t = 0;
    const measured = calibrate(() => (t += 2)); // each timed run "takes" 2 ms
    expect(measured.benchMs).toBe(2);
    const facts = { app: '0.1.0', agent: 'Chromium 140', cores: 2 };
    const saved = JSON.parse(JSON.stringify(storedCalibration(measured, facts)));
    expect(readStoredCalibration(saved, facts)).toEqual(measured);
    expect(readStoredCalibration(saved, { ...facts, app: '0.2.0' })).toBeNull();
    expect(readStoredCalibration(saved, { ...facts, agent: 'Firefox' })).toBeNull();
    expect(readStoredCalibration(saved, { ...facts, cores: 8 })).toBeNull();
    for (const benchMs of [0, -1, Infinity, Number.NaN, '2'])
      expect(readStoredCalibration({ ...saved, benchMs }, facts)).toBeNull();
    expect(readStoredCalibration(null, facts)).toBeNull();
    // The page measures as long as the CLI does (three runs at page load were 3.5 times apart).
    let calls = 0;
    calibrate(() => (calls++, 0));
    expect(calls).toBe(2 * CALIBRATION_REPEATS);
  });
});
