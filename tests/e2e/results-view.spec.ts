/**
 * The results view (src/ui/results) in real Chromium, through the Results page: import a run file
 * (tests/fixtures/runs/classroom.json: iris + wine × 3 settings × 2 labels × 4 algorithms), then
 * charts, legend, tooltip, explain overlays, P_T control, metric table, phone width and dark mode.
 * Screenshots go to test-results/screenshots/results-*.png for review.
 */
import { expect, test, type Page } from '@playwright/test';
import path from 'node:path';

const RUN = path.resolve('tests/fixtures/runs/classroom.json');
const SHOTS = 'test-results/screenshots';

async function importRun(page: Page): Promise<void> {
  await page.goto('/#/results');
  const input = page.getByTestId('import-file');
  // The import input is part of the Results page: its absence is a failure, never a skip.
  await expect(input, 'the Results page offers a run file import').toHaveCount(1);
  await input.setInputFiles(RUN);
  await expect(page.getByTestId('panel-grid').locator('figure svg.rac-chart')).toHaveCount(12);
}

const chart = (page: Page, i = 0) =>
  page.getByTestId('panel-grid').locator('figure').nth(i).locator('svg.rac-chart');

test('charts: one panel per dataset × setting × labels, bands, dashed baselines, 3-decimal table', async ({
  page,
}) => {
  await importRun(page);
  await expect(page.locator('svg.rac-chart .lines path')).toHaveCount(48);
  await expect(page.locator('svg.rac-chart .bands path')).toHaveCount(48);
  await expect(page.locator('svg.rac-chart .lines path.baseline[data-algorithm="xgb"]')).toHaveCount(12);
  await expect(page.locator('svg.rac-chart .lines path.baseline[stroke-dasharray]')).toHaveCount(12);
  await expect(chart(page)).toHaveAttribute('aria-label', /iris · distribution · 5 labels/);
  const table = page.getByTestId('metrics-table');
  await expect(table.locator('tbody tr[data-algorithm]')).toHaveCount(48);
  const first = (
    await table.locator('tbody tr[data-algorithm]').first().locator('td[data-col="auc"]').innerText()
  ).trim();
  expect(first).toMatch(/^\d\.\d{3}$/);
  await expect(table.locator('td.best').first()).toBeVisible();
  await page.screenshot({ path: `${SHOTS}/results-charts-light.png`, fullPage: true });
});

test('legend: click and keyboard hide and show an algorithm in every panel', async ({ page }) => {
  await importRun(page);
  const lp = chart(page).locator('.legend-item[data-algorithm="lp"]');
  await lp.click();
  await expect(page.locator('svg.rac-chart .lines path[data-algorithm="lp"]')).toHaveCount(0);
  await expect(chart(page, 5).locator('.legend-item[data-algorithm="lp"]')).toHaveAttribute(
    'aria-pressed',
    'false',
  );
  await chart(page).locator('.legend-item[data-algorithm="lp"]').focus();
  await page.keyboard.press('Enter');
  await expect(page.locator('svg.rac-chart .lines path[data-algorithm="lp"]')).toHaveCount(12);
  await expect(chart(page).locator('.legend-item[data-algorithm="lp"]')).toBeFocused();
});

test('tooltip: hover and keyboard show t, mean ± std and the seed count', async ({ page }) => {
  await importRun(page);
  const target = chart(page).locator('.focus-target');
  // The controls above grew (published overlay, shared y range): bring the chart into view first.
  await chart(page).scrollIntoViewIfNeeded();
  const box = (await target.boundingBox())!;
  await page.mouse.move(box.x + box.width * 0.41, box.y + box.height / 2);
  await expect(chart(page).locator('.tooltip tspan').first()).toHaveText('t = 0.4');
  await expect(chart(page).locator('.tooltip tspan').nth(1)).toHaveText(
    / \d\.\d{3} ± \d\.\d{3} {2}\(n = \d+\)$/,
  );
  await page.mouse.move(0, 0);
  await target.focus();
  await page.keyboard.press('End');
  await expect(target).toHaveAttribute('aria-valuetext', /^t = 1\.0: /);
  await page.screenshot({ path: `${SHOTS}/results-tooltip.png`, clip: (await chart(page).boundingBox())! });
});

test('table: sort by header with aria-sort; code form shows Acc_T0', async ({ page }) => {
  await importRun(page);
  const table = page.getByTestId('metrics-table');
  await table.getByRole('button', { name: /^AUC/ }).click();
  await expect(table.locator('th', { has: page.getByRole('button', { name: /^AUC/ }) })).toHaveAttribute(
    'aria-sort',
    'descending',
  );
  const auc = await table
    .locator('tbody tr[data-algorithm]')
    .evaluateAll((rows) =>
      rows.slice(0, 4).map((r) => Number(r.querySelector('td[data-col="auc"]')!.textContent)),
    );
  expect(auc).toEqual([...auc].sort((a, b) => b - a));
  await page.getByText('Code (original tables)').click();
  await expect(table.getByRole('button', { name: /^Acc_T0/ })).toBeVisible();
  await expect(table).toHaveAttribute('data-form', 'code');
});

test('explain overlays and P_T: shaded area with its sentence, Beta errors inline, sparkline', async ({
  page,
}) => {
  await importRun(page);
  await page.getByRole('checkbox', { name: 'AUC' }).check();
  await page.getByRole('checkbox', { name: 'RCC' }).check();
  await expect(page.locator('svg.rac-chart .explain-auc')).toHaveCount(12);
  await expect(page.locator('svg.rac-chart .explain-rcc')).toHaveCount(12);
  await expect(page.getByText(/^AUC = \d\.\d{3}: the shaded area under/).first()).toBeVisible();
  const pt = page.getByTestId('pt-control');
  await pt.getByLabel('Beta(α, β)').check();
  const alpha = pt.getByRole('spinbutton', { name: 'α' });
  await alpha.fill('-1');
  await expect(pt.getByRole('alert')).toHaveText('α must be a number greater than 0, got "-1".');
  await alpha.fill('2');
  await expect(pt.getByRole('alert')).toHaveText('');
  await expect(pt.locator('svg.beta-density')).toBeVisible();
  await page.getByRole('checkbox', { name: 'EA', exact: true }).check();
  await expect(page.locator('svg.rac-chart .explain-ea linearGradient').first()).toBeAttached();
  await page.screenshot({ path: `${SHOTS}/results-explain.png`, fullPage: true });
});

test('phone width: no horizontal scroll', async ({ browser }) => {
  const ctx = await browser.newContext({ viewport: { width: 375, height: 800 } });
  const page = await ctx.newPage();
  await importRun(page);
  const wide = await page.evaluate(() =>
    [...document.querySelectorAll('[data-testid="results-view"], [data-testid="results-view"] *')]
      .filter((e) => e.getBoundingClientRect().right > 376 && !e.parentElement!.closest('.scroll'))
      .slice(0, 8)
      .map((e) => `${e.tagName.toLowerCase()}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`),
  );
  expect(wide, 'elements wider than the phone').toEqual([]);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  await page.screenshot({ path: `${SHOTS}/results-phone.png`, fullPage: true });
  await ctx.close();
});

test('dark mode', async ({ browser }) => {
  const ctx = await browser.newContext({ colorScheme: 'dark' });
  const page = await ctx.newPage();
  await importRun(page);
  await page.screenshot({ path: `${SHOTS}/results-dark.png`, fullPage: true });
  await ctx.close();
});
