/**
 * Issue 21, items 11, 12, 13 and 15 on the Run page, in real Chromium:
 *   11  the estimate before Start is the same after a reload (the calibration is saved), shows the
 *       breakdown per algorithm × dataset, and a plan over a day asks before it starts;
 *   12  the URL and the planner are one state: a second link pasted into the open tab loads its
 *       plan, and custom edits are written to the URL;
 *   13  the browser's storage cleared mid-run says so in words; a damaged stored plan is refused
 *       on Resume instead of running datasets "i", "r", "s";
 *   15  a custom plan with part of the t grid says before Start that the metrics need all of it.
 */
import { expect, test, type Page } from '@playwright/test';
import { holdAfter, release, waitHeld } from './runHooks.ts';

const cells = (page: Page) => page.getByTestId('run-plan-size').getAttribute('data-cells');

test('item 11: the estimate survives a reload, lists its rows, and a plan over a day asks first', async ({
  page,
}) => {
  await page.goto('/#/run?v=1&backend=wasm&preset=tabular-statistical');
  const estimate = page.getByTestId('preflight-estimate');
  await expect(estimate).toBeVisible();
  const first = await estimate.getAttribute('data-seconds');
  expect(await page.evaluate(() => localStorage.getItem('rac-bench.calibration'))).toMatch(/"benchMs":/);
  // The breakdown as `rac-bench estimate` prints it: 7 algorithms × 3 datasets.
  await expect(page.getByTestId('preflight-row')).toHaveCount(21);
  await expect(
    page.locator('[data-testid="preflight-row"][data-algorithm="lp"][data-dataset="letter"]'),
  ).toHaveAttribute('data-fits', '180');
  for (let i = 0; i < 2; i++) {
    await page.reload();
    await expect(estimate).toHaveAttribute('data-seconds', first!);
    await expect(estimate).toContainText('calibrated on this device on an earlier visit');
  }

  // tabular-deep is months at CPU speed: Start asks, and nothing runs until the user says so.
  await page.getByTestId('run-preset').selectOption('tabular-deep');
  await page.getByTestId('run-start').click();
  const ask = page.getByTestId('preflight-confirm-long');
  await expect(ask).toContainText('more than a day');
  await expect(page.getByTestId('run-phase')).toHaveCount(0);
  await page.getByTestId('preflight-confirm-cancel').click();
  await expect(ask).toHaveCount(0);
  await expect(page.getByTestId('run-phase')).toHaveCount(0);
});

test('item 12: a second link pasted into the tab loads its plan; custom edits go into the URL', async ({
  page,
}) => {
  await page.goto(
    '/#/run?v=1&backend=wasm&preset=custom&ds=iris&set=feature&labels=10&alg=lp,ls&seeds=0-1&t=0,1',
  );
  await expect.poll(() => cells(page)).toBe('8');
  // Another link in the same tab (the hash changes, the page does not reload).
  await page.evaluate(() => {
    location.hash = '#/run?v=1&backend=wasm&preset=custom&ds=wine&set=label&labels=5&alg=lp&seeds=0&t=all';
  });
  await expect.poll(() => cells(page)).toBe('6');
  await expect(page.getByTestId('run-custom').locator('[data-group="datasets"] input:checked')).toHaveCount(
    1,
  );
  await expect(
    page.getByTestId('run-custom').locator('[data-group="datasets"] input[value="wine"]'),
  ).toBeChecked();
  // The hash edited back to a preset: the planner shows it.
  await page.evaluate(() => {
    location.hash = '#/run?v=1&backend=wasm&preset=classroom';
  });
  await expect(page.getByTestId('run-preset')).toHaveValue('classroom');
  await expect.poll(() => cells(page)).toBe('864');

  // The other direction: every planner change is in the URL, so a reload gives the same plan.
  await page.getByTestId('run-preset').selectOption('custom');
  await expect(page).toHaveURL(/preset=custom/);
  await page.getByTestId('run-custom').locator('[data-group="seeds"] input[value="2"]').uncheck();
  await expect(page).toHaveURL(/seeds=0-1(&|$)/);
  const planned = await cells(page);
  await page.reload();
  await expect.poll(() => cells(page)).toBe(planned);
  await page.getByTestId('run-preset').selectOption('classroom');
  await expect(page).toHaveURL(/#\/run\?v=1&backend=wasm&preset=classroom$/);
});

test('item 15: a custom plan with part of the t grid says the metrics need the whole grid', async ({
  page,
}) => {
  await page.goto('/#/run?v=1&backend=wasm&preset=custom&ds=iris&set=feature&labels=10&alg=lp&seeds=0&t=0,1');
  await expect(page.getByTestId('preflight-partial-grid')).toContainText(
    'This plan runs t = 0, 1 only. The six metrics (AUC, EA, WA, EVM, VS, RCC) need every t of the grid',
  );
  await page.getByTestId('run-custom').locator('[data-group="t"] input').first().check();
  for (const box of await page.getByTestId('run-custom').locator('[data-group="t"] input').all())
    await box.check();
  await expect(page.getByTestId('preflight-partial-grid')).toHaveCount(0);
});

test('item 13: storage cleared mid-run is said in words; a damaged stored plan is refused on Resume', async ({
  page,
}) => {
  await page.goto('/#/run?v=1&backend=wasm');
  await holdAfter(page, 3);
  await page.getByTestId('run-start').click();
  await waitHeld(page);
  // What "Clear site data" does to the open database: it goes away under the running tab.
  await page.evaluate(
    () =>
      new Promise<void>((resolve) => {
        const req = indexedDB.deleteDatabase('rac-bench-runs');
        req.onsuccess = req.onerror = () => resolve();
      }),
  );
  await release(page);
  const error = page.getByTestId('run-error');
  await expect(error).toContainText(
    "This browser's storage for RAC Bench was cleared while the run was going",
  );
  await expect(error).toContainText('Lost: every result saved in this browser');
  await expect(error).not.toContainText('DOMException');
  await expect(error).not.toContainText('connection is closing');

  // A run left behind, then its stored plan damaged (plan.datasets a string): Resume refuses it.
  await page.reload();
  await holdAfter(page, 3);
  await page.getByTestId('run-start').click();
  await waitHeld(page);
  await page.reload();
  await expect(page.getByTestId('run-resume')).toHaveCount(1);
  await page.evaluate(
    () =>
      new Promise<void>((resolve, reject) => {
        const open = indexedDB.open('rac-bench-runs');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const db = open.result;
          const store = db.transaction('runs', 'readwrite').objectStore('runs');
          const all = store.getAll();
          all.onsuccess = () => {
            for (const run of all.result) store.put({ ...run, plan: { ...run.plan, datasets: 'iris' } });
            store.transaction.oncomplete = () => (db.close(), resolve());
          };
        };
      }),
  );
  await page.reload();
  await page.getByTestId('run-resume').click();
  await expect(page.getByTestId('run-error')).toContainText(
    /Its saved plan is damaged \(plan\.datasets: expected/,
  );
  await expect(page.getByTestId('run-progress')).toHaveCount(0);
});
