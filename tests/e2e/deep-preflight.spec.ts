import { expect, test } from '@playwright/test';

/**
 * Before Start, a deep plan gets the cost model's honest estimate: tabular-deep (5 160 fits ×
 * 1 000 steps at the rsb size) is years of CPU time, so the page says a laptop CPU cannot do it
 * and offers a GPU and `--shard`; classroom-deep is minutes and gets no such warning.
 */
test('the pre-start estimate says a laptop CPU cannot do tabular-deep, and offers a GPU and --shard', async ({
  page,
}) => {
  await page.goto('/#/run');
  await page.getByTestId('run-preset').selectOption('tabular-deep');
  await expect(page.getByTestId('run-plan-size')).toHaveAttribute('data-cells', '5760');
  const deep = page.getByTestId('preflight-deep');
  await expect(deep).toContainText('at CPU (WebAssembly) speed');
  expect(Number(await deep.getAttribute('data-seconds'))).toBeGreaterThan(365 * 86_400);
  const warning = page.getByTestId('preflight-deep-too-big');
  await expect(warning).toContainText('A laptop CPU cannot do this grid');
  await expect(warning).toContainText('GPU');
  await expect(warning).toContainText('rac-bench run --preset tabular-deep --shard 1/N');

  await page.getByTestId('run-preset').selectOption('classroom-deep');
  await expect(page.getByTestId('preflight-deep')).toBeVisible();
  expect(Number(await page.getByTestId('preflight-deep').getAttribute('data-seconds'))).toBeLessThan(600);
  await expect(page.getByTestId('preflight-deep-too-big')).toHaveCount(0);
});
