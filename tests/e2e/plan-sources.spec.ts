/**
 * Plans that come from elsewhere: the user's own CSV (Data page) run through the same three
 * settings as the built-in datasets, and a "Re-run this plan" link that fills the planner.
 */
import { expect, test } from '@playwright/test';
import { fileURLToPath } from 'node:url';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/csv/${name}`, import.meta.url));

test('a CSV imported on the Data page runs through all three settings on the Run page', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto('/#/data');
  await page.getByTestId('csv-file').setInputFiles(fixture('valid.csv'));
  await page.getByTestId('csv-name').fill('My Iris');
  await page.getByTestId('csv-save').click();
  await expect(page.getByTestId('csv-saved')).toContainText('user:my-iris');

  await page.goto('/#/run');
  await page.getByTestId('run-preset').selectOption('custom');
  const group = (g: string) => page.getByTestId('run-custom').locator(`[data-group="${g}"]`);
  const only = async (g: string, keep: string[]) => {
    for (const box of await group(g).getByRole('checkbox').all()) {
      const v = await box.getAttribute('value');
      if (keep.includes(v!)) await box.check();
      else await box.uncheck();
    }
  };
  await expect(group('datasets').getByLabel(/My Iris/)).toBeVisible();
  await only('datasets', ['user:my-iris']);
  await only('settings', ['distribution', 'feature', 'label']);
  await only('labels', ['5']);
  await only('algorithms', ['xgb', 'lp']);
  await only('seeds', ['0']);
  await only('t', ['0', '5']);
  // 3 settings × 1 labels × 2 algorithms × 2 t × 1 seed.
  await expect(page.getByTestId('run-plan-size')).toContainText('12 results');
  await page.getByTestId('run-start').click();
  await expect(page.getByTestId('run-phase')).toHaveAttribute('data-phase', 'done', { timeout: 120_000 });
  await expect(page.getByTestId('run-progress')).toHaveAttribute('data-failed', '0');
  await page.getByTestId('run-show-table').click();
  const table = page.getByTestId('results-table');
  await expect(table).toContainText('user:my-iris');
  await expect(table).toContainText('label');
  expect(errors).toEqual([]);
});

test('a "Re-run this plan" link fills the planner and says what the browser runner will not take over', async ({
  page,
}) => {
  await page.goto(
    '/#/run?v=1&preset=custom&ds=iris&set=feature&labels=10&alg=lp,ls&seeds=0-1&t=0,1&mode=readme&quirks=fixed',
  );
  await expect(page.getByTestId('run-linked-plan')).toContainText('(8 results)');
  await expect(page.getByTestId('run-preset')).toHaveValue('custom');
  const checked = async (g: string) =>
    page
      .getByTestId('run-custom')
      .locator(`[data-group="${g}"] input:checked`)
      .evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value));
  expect(await checked('datasets')).toEqual(['iris']);
  expect(await checked('settings')).toEqual(['feature']);
  expect(await checked('algorithms')).toEqual(['lp', 'ls']);
  expect(await checked('seeds')).toEqual(['0', '1']);
  expect(await checked('t')).toEqual(['0', '5']);
  await expect(page.getByTestId('run-mode')).toHaveValue('readme');
  await expect(page.getByTestId('run-linked-notice')).toHaveCount(0);

  await page.goto('/#/about'); // a fresh Run page, as after "Re-run this plan" on Results
  await page.goto('/#/run?v=1&preset=classroom');
  await expect(page.getByTestId('run-preset')).toHaveValue('classroom');
});

test('the planner edits model options and §9 caps: the URL carries them, a bad value blocks Start', async ({
  page,
}) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto('/#/run');
  await page.getByTestId('run-preset').selectOption('custom');
  const lp = page.locator('[data-testid="run-options-algorithm"][data-algorithm="lp"]');
  await lp.locator('summary').click();
  const gamma = lp.locator('[data-option="lp.gamma"] input');
  await expect(gamma).toHaveValue('1'); // rsb default
  await expect(lp.locator('[data-option="lp.gamma"]')).toContainText(
    'Default 1 (rsb); a number in the range',
  );
  await gamma.fill('5');
  await expect(page).toHaveURL(/opt=lp\.gamma:5/);
  await expect(page.getByTestId('run-plan-options')).toContainText('lp.gamma = 5');
  await expect(page.getByTestId('run-start')).toBeEnabled();

  await gamma.fill('-1');
  const error = lp.getByTestId('run-option-error');
  await expect(error).toContainText("The 'gamma' parameter of lp must be a number in the range [0, inf)");
  await expect(page.getByTestId('run-start')).toBeDisabled();
  await expect(page).toHaveURL(/opt=lp\.gamma:5/); // the plan keeps its last valid value
  await gamma.fill('2');
  await expect(error).toHaveCount(0);
  await expect(page.getByTestId('run-start')).toBeEnabled();

  await page.getByTestId('run-subsample-test').fill('20');
  await expect(page).toHaveURL(/sub=test:20/);
  await expect(page.getByTestId('run-plan-subsample')).toContainText('test ≤ 20');
  await expect(page.getByTestId('run-plan-subsample')).toContainText('not the paper protocol');
  await page.getByTestId('run-subsample-unlabeled').fill('0');
  await expect(page.getByTestId('run-subsample-error')).toContainText('Subsample unlabeled');
  await expect(page.getByTestId('run-start')).toBeDisabled();
  await page.getByTestId('run-subsample-unlabeled').fill('');
  await expect(page.getByTestId('run-start')).toBeEnabled();

  // The address bar is the plan: a reload gives the same options and caps.
  await page.reload();
  await expect(page.getByTestId('run-preset')).toHaveValue('custom');
  await expect(page.getByTestId('run-plan-options')).toContainText('lp.gamma = 2');
  await expect(page.getByTestId('run-plan-subsample')).toContainText('test ≤ 20');
  await expect(page.getByTestId('run-subsample-test')).toHaveValue('20');
  expect(errors).toEqual([]);
});
