/**
 * This device's cost-model calibration for the page (issue 21, item 11): measured once, with the
 * same number of benchmark runs as the CLI, and saved in localStorage, so the estimate before Start
 * and the run's first ETA are the same on every page load (three quick runs at each load gave one
 * FixMatch cell 59 min, 1 h 52 min and 3 h 24 min). A new app version, browser or core count
 * measures again; so does "Measure again".
 */
import {
  calibrate,
  readStoredCalibration,
  storedCalibration,
  type Calibration,
  type CalibrationFacts,
} from '../lib/suite/costModel.ts';
import { version as APP_VERSION } from '../../package.json';

export const CALIBRATION_KEY = 'rac-bench.calibration';

function facts(): CalibrationFacts {
  return {
    app: APP_VERSION,
    agent: typeof navigator === 'undefined' ? '' : navigator.userAgent,
    cores: typeof navigator === 'undefined' ? 0 : (navigator.hardwareConcurrency ?? 0),
  };
}

function readSaved(): Calibration | null {
  try {
    const raw = localStorage.getItem(CALIBRATION_KEY);
    return raw === null ? null : readStoredCalibration(JSON.parse(raw), facts());
  } catch {
    return null; // storage blocked, or not JSON: measure
  }
}

export class CalibrationState {
  /** Null until read or measured (the page measures after its first paint). */
  value = $state.raw<Calibration | null>(null);
  /** Whether `value` came from an earlier visit (said next to the estimate). */
  saved = $state(false);

  /** The saved calibration, else a measurement (about 20 ms), which is then saved. */
  ensure(): Calibration {
    if (this.value) return this.value;
    const saved = readSaved();
    if (saved) {
      this.value = saved;
      this.saved = true;
      return saved;
    }
    return this.measure();
  }

  /** Measures this device now and saves the result. */
  measure(): Calibration {
    const c = calibrate(() => performance.now());
    try {
      localStorage.setItem(CALIBRATION_KEY, JSON.stringify(storedCalibration(c, facts())));
    } catch {
      /* not saved: the next load measures again */
    }
    this.value = c;
    this.saved = false;
    return c;
  }
}

export const calibration = new CalibrationState();
