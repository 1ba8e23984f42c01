import { expect, test } from '@playwright/test';

/**
 * Before Start, a deep plan gets the cost model's honest estimate: tabular-deep (5 160 fits ×
 * 1 000 steps at the rsb size) is months to years of CPU time, so the page says a laptop CPU cannot
 * do it and offers a GPU and `--shard`; classroom-deep is minutes and gets no such warning.
 *
 * Both estimates scale with this machine's calibration (a faster CPU gives smaller numbers), so the
 * test holds the warning to its rule (over a day of CPU) with a wide margin, and checks the ratio of
 * the two plans, which the cost model fixes whatever the machine.
 */
test('the pre-start estimate says a laptop CPU cannot do tabular-deep, and offers a GPU and --shard', async ({
  page,
}) => {
  await page.goto('/#/run');
  await page.getByTestId('run-preset').selectOption('tabular-deep');
  await expect(page.getByTestId('run-plan-size')).toHaveAttribute('data-cells', '5760');
  const deep = page.getByTestId('preflight-deep');
  await expect(deep).toContainText('at CPU (WebAssembly) speed');
  const grid = Number(await deep.getAttribute('data-seconds'));
  // Months on a 2-core CI machine; a CPU several times faster would still be far over the day.
  expect(grid).toBeGreaterThan(10 * 86_400);
  const warning = page.getByTestId('preflight-deep-too-big');
  await expect(warning).toContainText('A laptop CPU cannot do this grid');
  await expect(warning).toContainText('GPU');
  await expect(warning).toContainText('rac-bench run --preset tabular-deep --shard 1/N');

  await page.getByTestId('run-preset').selectOption('classroom-deep');
  await expect(page.getByTestId('preflight-deep')).toBeVisible();
  const classroom = Number(await page.getByTestId('preflight-deep').getAttribute('data-seconds'));
  await expect(page.getByTestId('preflight-deep-too-big')).toHaveCount(0);
  // Same calibration, so the ratio is the cost model's alone: thousands of times the classroom plan.
  expect(grid / classroom).toBeGreaterThan(1_000);
});
