/**
 * Issue 12 in the browser: a user dataset is never replaced silently, and a run on its earlier
 * content says so (row 3); a P_T Beta outside the supported range is refused inline and never
 * reaches the URL (row 6); CSV numbers in other bases are refused and label forms unified with a
 * warning (row 9).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { offline } from './offline.ts';

const VALID_SHA = '6b9161b6559eeb5b18d3667ac850e1521f3e9b2e6a457082b682f5828463f4aa';
const VALID = 'tests/fixtures/csv/valid.csv';
const tmp = (name: string) => join(mkdtempSync(join(tmpdir(), 'rac-rel-')), name);

async function openData(page: Page): Promise<void> {
  await page.goto('/#/data');
  await expect(page.getByRole('heading', { name: 'Data', level: 1 })).toBeVisible();
}

async function chooseCsv(page: Page, file: string, name: string): Promise<void> {
  await page.getByTestId('csv-file').setInputFiles(file);
  await page.getByTestId('csv-name').fill(name);
  await expect(page.getByTestId('csv-summary')).toContainText('rows');
}

test('row 3: a second CSV under an existing id asks before replacing; a run on the old content is marked', async ({
  page,
  context,
}) => {
  await offline(context);
  await openData(page);
  await chooseCsv(page, VALID, 'My Iris');
  await page.getByTestId('csv-save').click();
  await expect(page.getByTestId('csv-saved')).toContainText(`SHA-256 ${VALID_SHA.slice(0, 12)}`);

  // Other content, a name with the same slug: refused until confirmed.
  const other = tmp('other.csv');
  writeFileSync(other, readFileSync(VALID, 'utf8').replace('0.239', '0.240'));
  await chooseCsv(page, other, 'my iris');
  await page.getByTestId('csv-save').click();
  const confirm = page.getByTestId('csv-replace-confirm');
  await expect(confirm).toContainText(
    `user:my-iris already holds 'My Iris' (72 rows × 3 features, SHA-256 ${VALID_SHA.slice(0, 12)}…`,
  );
  await expect(page.getByTestId('csv-saved')).toHaveCount(0);
  await expect(page.getByTestId('dm-row-user:my-iris')).toContainText(`recorded ${VALID_SHA.slice(0, 16)}…`);
  await page.getByTestId('csv-replace').click();
  await expect(page.getByTestId('csv-saved')).toBeVisible();
  await expect(page.getByTestId('dm-row-user:my-iris')).not.toContainText(
    `recorded ${VALID_SHA.slice(0, 16)}…`,
  );

  // A run recorded on the first content (the classroom fixture with iris as user:my-iris at VALID_SHA).
  const run = JSON.parse(readFileSync('tests/fixtures/runs/classroom.json', 'utf8'));
  run.plan.datasets = run.plan.datasets.map((d: string) => (d === 'iris' ? 'user:my-iris' : d));
  for (const c of run.cells)
    if (c.dataset.id === 'iris')
      c.dataset = { ...c.dataset, id: 'user:my-iris', sha256: VALID_SHA, N: 72, d: 3 };
  const file = tmp('old-content-run.json');
  writeFileSync(file, JSON.stringify(run));
  await page.goto('/#/results');
  await page.getByTestId('import-file').setInputFiles(file);
  await expect(page.getByTestId('results-shown')).toBeVisible();
  const note = page.getByTestId('user-data-drift');
  await expect(note).toHaveCount(1);
  await expect(note).toContainText(
    `This run was made on a different content of user:my-iris (SHA-256 ${VALID_SHA.slice(0, 12)}…) than the one stored now`,
  );
  await expect(note).toContainText('replaced');
});

test('row 6: a Beta P_T beyond the supported range is refused inline and never written into the URL', async ({
  page,
}) => {
  await page.goto('/#/results');
  await page.getByTestId('import-file').setInputFiles('tests/fixtures/runs/classroom.json');
  await expect(page.getByTestId('panel-grid').locator('figure svg.rac-chart').first()).toBeVisible();
  const pt = page.getByTestId('pt-control');
  await pt.getByLabel('Beta(α, β)').check();
  const alpha = pt.getByRole('spinbutton', { name: 'α' });
  await alpha.fill('1e301');
  await expect(pt.getByRole('alert')).toHaveText(
    'α must be between 0.000001 and 1e+300 (the range the incomplete beta is tested for), got 1e+301.',
  );
  expect(decodeURIComponent(await page.evaluate(() => location.hash))).not.toContain('1e+301');
  // Huge but supported: computed (no uncaught error), written into the URL, and survives a reload.
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await alpha.fill('1e100');
  await expect(pt.getByRole('alert')).toHaveText('');
  await expect.poll(() => page.evaluate(() => decodeURIComponent(location.hash))).toContain('beta:1e+100,');
  await page.getByRole('checkbox', { name: 'EA', exact: true }).check();
  await expect(page.locator('svg.rac-chart .explain-ea').first()).toBeAttached();
  await expect(page.getByTestId('panel-grid').locator('figure svg.rac-chart')).toHaveCount(12);
  expect(errors).toEqual([]);
  // A hand-made link with an unsupported value: a notice, the default P_T, and the page still shows.
  await page.goto('/#/results?v=1&pt=beta:1e400,2');
  await expect(
    page.getByText(
      /Ignored pt="beta:1e400,2" \(P_T beta: alpha must be a finite number > 0, got Infinity\.\)/,
    ),
  ).toBeVisible();
});

test('row 9: hex numbers are refused with row and column; "1" and "1.0" labels are one class with a warning', async ({
  page,
  context,
}) => {
  await offline(context);
  await openData(page);
  const hex = tmp('hex.csv');
  writeFileSync(hex, 'a,b,y\n1,2,x\n3,0x1F,z\n');
  await page.getByTestId('csv-file').setInputFiles(hex);
  await expect(page.getByTestId('csv-error')).toHaveText(
    'Row 3, column "b" is "0x1F", a hexadecimal literal. Feature columns take decimal numbers only (like 12, -0.5 or 3e-4), no missing values; if this is the label, choose it as the label column.',
  );
  const forms = tmp('forms.csv');
  const rows = Array.from({ length: 24 }, (_, i) => `${i},${i % 2},${['1', '1.0', '2', '2.00'][i % 4]}`);
  writeFileSync(forms, `f,g,y\n${rows.join('\n')}\n`);
  await page.getByTestId('csv-file').setInputFiles(forms);
  await page.getByTestId('csv-labels').selectOption('5');
  await expect(page.getByTestId('csv-summary')).toHaveText(
    /24 rows × 2 features, 2 classes: 1 \(12\), 2 \(12\)\./,
  );
  await expect(page.getByTestId('csv-warning')).toHaveText(
    'Labels "1" and "1.0"; "2" and "2.00" in the column "y" differ only in form; they were read as one class each ("1", "2"). Write each class one way to silence this warning.',
  );
});
