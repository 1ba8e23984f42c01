/**
 * The run's test hooks (window.__racRun) as the browser tests use them. `holdAfter` + `waitHeld`
 * put a run at a known point — n fits stored, nothing in flight, more to come — so a reload, a
 * closed tab or a crashed worker meets a run that is mid-way on a fast machine and a loaded one
 * alike, instead of racing the machine's speed with a poll.
 */
import { expect, type Page } from '@playwright/test';

export interface RacRunHooks {
  simulateCrash(i: number): boolean;
  simulateDeviceLost(i: number): Promise<boolean>;
  simulateHang(i: number): boolean;
  setWatchdog(w: { factor: number; minMs: number }): void;
  holdAfter(fits: number | null): void;
  release(): void;
  held(): boolean;
  restarts(): number;
}

type Win = { __racRun: RacRunHooks };

/** Before Start: the page's runs hold once `fits` fits are taken. */
export const holdAfter = (page: Page, fits: number): Promise<void> =>
  page.evaluate((n) => (window as unknown as Win).__racRun.holdAfter(n), fits);

/** Waits until the held run has stored its fits and waits with nothing in flight. */
export async function waitHeld(page: Page, timeout = 120_000): Promise<void> {
  await expect
    .poll(() => page.evaluate(() => (window as unknown as Win).__racRun.held()), {
      timeout,
      intervals: [50],
    })
    .toBe(true);
}

/** Lifts the hold: the run goes on. */
export const release = (page: Page): Promise<void> =>
  page.evaluate(() => (window as unknown as Win).__racRun.release());

/** Worker `index` throws an uncaught error (the pool must replace it). */
export const simulateCrash = (page: Page, index: number): Promise<boolean> =>
  page.evaluate((i) => (window as unknown as Win).__racRun.simulateCrash(i), index);

/** Worker `index` loses its WebGPU device (false when it is not on WebGPU). */
export const simulateDeviceLost = (page: Page, index: number): Promise<boolean> =>
  page.evaluate((i) => (window as unknown as Win).__racRun.simulateDeviceLost(i), index);

/** Worker `index` spins forever without posting (the watchdog must recycle it). */
export const simulateHang = (page: Page, index: number): Promise<boolean> =>
  page.evaluate((i) => (window as unknown as Win).__racRun.simulateHang(i), index);

export const setWatchdog = (page: Page, w: { factor: number; minMs: number }): Promise<void> =>
  page.evaluate((x) => (window as unknown as Win).__racRun.setWatchdog(x), w);
