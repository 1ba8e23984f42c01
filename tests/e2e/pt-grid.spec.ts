/**
 * Grid P_T weights at the ends of the double range (issue 21, item 8), on the Results page:
 * `pt=grid:5e-324,0,0,0,0,0` is ignored with the usual notice (it showed EA 1.000 "best" for a
 * curve at 0.933), the P_T control refuses a subnormal weight inline, and 1e308 at every t is the
 * plain mean (it showed "—" with no notice).
 */
import { expect, test } from '@playwright/test';
import path from 'node:path';

const WINE = path.resolve('tests/fixtures/runs/paper-wine-5.json');

test('subnormal grid weights are refused with a notice; huge ones are scaled', async ({ page }) => {
  await page.goto('/#/results?v=1&pt=grid:5e-324,0,0,0,0,0');
  await expect(
    page.getByText(
      /Ignored pt="grid:5e-324,0,0,0,0,0" \(P_T grid: weight 0 must be 0 or at least 2\.2250738585072014e-308/,
    ),
  ).toBeVisible();

  await page.goto('/#/results?v=1&pt=grid:1e308,1e308,1e308,1e308,1e308,1e308');
  await page.reload();
  await page.getByTestId('import-file').setInputFiles(WINE);
  const table = page.getByTestId('metrics-table');
  await expect(table.locator('tbody tr[data-algorithm]')).toHaveCount(4);
  // Six equal weights: EA is the plain mean of the curve, i.e. the code-form AUC, never "—".
  for (const row of await table.locator('tbody tr[data-algorithm]').all()) {
    await expect(row.locator('td[data-col="ea"]')).toHaveText(/^\d\.\d{3}(\(best\))?$/);
  }

  const pt = page.getByTestId('pt-control');
  const first = pt.getByRole('spinbutton', { name: 't=0.0' });
  await first.fill('5e-324');
  await expect(pt.getByRole('alert')).toHaveText(
    'The weight at t = 0.0 must be 0 or at least 2.2250738585072014e-308 (a normal double: smaller weights lose their precision), got 5e-324.',
  );
  expect(decodeURIComponent(await page.evaluate(() => location.hash))).not.toContain('5e-324');
});
