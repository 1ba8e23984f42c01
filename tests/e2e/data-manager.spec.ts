/**
 * The Data page in the real browser: the dataset manager (iris/wine embedded, letter downloaded
 * through a routed copy of OpenML's URL, re-verify, a damaged cache entry dropped, delete) and
 * "your own data" (each CSV error shows its message, an over-size File is refused before
 * reading, a valid CSV is saved, listed and loads by id, hostile text stays text).
 */
import { readFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { HEADERS, LETTER_PQ, LETTER_SHA, LETTER_URL, offline } from './offline.ts';

const VALID_SHA = '6b9161b6559eeb5b18d3667ac850e1521f3e9b2e6a457082b682f5828463f4aa';
const SHOTS = 'test-results/screenshots';
const fixture = (name: string) => `tests/fixtures/csv/${name}`;

async function openData(page: Page): Promise<void> {
  await page.goto('/#/data');
  await expect(page.getByRole('heading', { name: 'Data', level: 1 })).toBeVisible();
  await expect(page.getByTestId('dm-download-letter')).toBeEnabled();
}

test('manager: iris/wine embedded, letter downloads with progress, re-verifies, a damaged copy is dropped, delete', async ({
  page,
  context,
}) => {
  const outside = await offline(context);
  await context.route(LETTER_URL, (route) =>
    route.fulfill({ status: 200, headers: HEADERS, body: LETTER_PQ }),
  );
  await openData(page);
  for (const id of ['iris', 'wine']) {
    await expect(page.getByTestId(`dm-status-${id}`)).toHaveText('embedded');
    await expect(page.getByTestId(`dm-row-${id}`)).toContainText('CC BY 4.0');
    await expect(page.getByTestId(`dm-download-${id}`)).toHaveCount(0);
  }
  await expect(page.getByTestId('dm-row-iris')).toContainText('Fisher, R. A. (1936)');
  await expect(page.getByTestId('dm-row-iris')).toContainText('pinned 9b79658cba271fcb…');
  await expect(page.getByTestId('dm-status-letter')).toHaveText('not downloaded');
  await expect(page.getByTestId('dm-storage')).toContainText('in use by this site');

  await page.getByTestId('dm-verify-iris').click();
  await expect(page.getByTestId('dm-verify-result-iris')).toHaveAttribute('data-status', 'ok');
  await expect(page.getByTestId('dm-verify-result-iris')).toHaveText(
    'OK: SHA-256 9b79658cba27… matches the pinned hash.',
  );

  await page.getByTestId('dm-download-letter').click();
  await expect(page.getByTestId('dm-status-letter')).toHaveText('cached · 1.3 MiB');
  await expect(page.getByTestId('dm-note-letter')).toContainText(
    'Downloaded and verified: SHA-256 56cd81c48b97…',
  );
  await expect(page.getByTestId('dm-row-letter')).toContainText(`recorded ${LETTER_SHA.slice(0, 16)}…`);
  await page.getByTestId('dm-row-letter').screenshot({ path: `${SHOTS}/data-letter-cached.png` });

  await page.getByTestId('dm-verify-letter').click();
  await expect(page.getByTestId('dm-verify-result-letter')).toHaveText(
    'OK: SHA-256 56cd81c48b97… matches the pinned hash.',
  );

  // Damage the cached X in IndexedDB (same checksum field, different values): re-verify drops it.
  await page.evaluate(async () => {
    const db = await new Promise<IDBDatabase>((ok, no) => {
      const r = indexedDB.open('rac-bench');
      r.onsuccess = () => ok(r.result);
      r.onerror = () => no(r.error);
    });
    const tx = db.transaction('datasets', 'readwrite');
    const store = tx.objectStore('datasets');
    await new Promise<void>((ok) => {
      const g = store.get('letter');
      g.onsuccess = () => {
        const rec = g.result;
        rec.X[5] += 1;
        store.put(rec);
        ok();
      };
    });
    await new Promise((ok) => (tx.oncomplete = ok));
    db.close();
  });
  await page.getByTestId('dm-verify-letter').click();
  await expect(page.getByTestId('dm-verify-result-letter')).toHaveAttribute('data-status', 'dropped');
  await expect(page.getByTestId('dm-verify-result-letter')).toHaveText(
    "The cached copy of dataset 'letter' is damaged (checksum mismatch); it was removed and will be downloaded again.",
  );
  await expect(page.getByTestId('dm-status-letter')).toHaveText('not downloaded');

  await page.getByTestId('dm-download-letter').click();
  await expect(page.getByTestId('dm-status-letter')).toHaveText('cached · 1.3 MiB');
  await page.getByTestId('dm-delete-letter').click();
  await page.getByTestId('dm-confirm-delete-letter').click();
  await expect(page.getByTestId('dm-status-letter')).toHaveText('not downloaded');
  await expect(page.getByTestId('dm-download-letter')).toBeVisible();
  expect(outside).toEqual([]);
  await page.screenshot({ path: `${SHOTS}/data-manager.png`, fullPage: true });
});

const CSV_ERRORS: [string, RegExp][] = [
  ['ragged.csv', /^Row 6 has 3 cells; the header has 4 columns\./],
  ['nonnumeric.csv', /^Row 8, column "sepal width" is "n\/a", not a number\./],
  [
    'oneclass.csv',
    /^The label column "species" holds one class only \("setosa"\); a classifier needs at least two\.$/,
  ],
  [
    'toofew.csv',
    /^Too few rows per class for labels = 10: "c" has 8; each class needs at least 22 \(2·labels \+ 2/,
  ],
  ['headeronly.csv', /^The file has a header but no data rows\.$/],
  ['dupcols.csv', /^Columns 1 and 3 are both named "x"/],
  ['manyclasses.csv', /^The label column "id" has 150 distinct values; at most 100 classes are supported/],
];

test('your own data: each CSV problem shows its message; an over-size file is refused before reading', async ({
  page,
  context,
}) => {
  await offline(context);
  await openData(page);
  for (const [file, message] of CSV_ERRORS) {
    await page.getByTestId('csv-file').setInputFiles(fixture(file));
    await expect(page.getByTestId('csv-error'), file).toHaveText(message);
    await expect(page.getByTestId('csv-save')).toHaveCount(
      file === 'headeronly.csv' || file === 'dupcols.csv' ? 0 : 1,
    );
    if (file === 'nonnumeric.csv')
      await expect(page.locator('[data-testid="csv-preview"] tr.bad td.badcell')).toHaveText('n/a');
    if (file === 'ragged.csv')
      await expect(page.locator('[data-testid="csv-preview"] tr.bad')).toHaveAttribute('data-line', '6');
    if (file === 'ragged.csv')
      await page
        .locator('section', { has: page.getByTestId('csv-drop') })
        .screenshot({ path: `${SHOTS}/data-csv-error-ragged.png` });
  }
  // toofew passes at labels 5 once class c has 12 rows? It has 8: still an error, with the smaller need.
  await page.getByTestId('csv-file').setInputFiles(fixture('toofew.csv'));
  await page.getByTestId('csv-labels').selectOption('5');
  await expect(page.getByTestId('csv-error')).toContainText('"c" has 8; each class needs at least 12');
  await expect(page.getByTestId('csv-save')).toBeDisabled();
  // Choosing a feature column as the label: the old label column is now a non-numeric feature.
  await page.getByTestId('csv-file').setInputFiles(fixture('valid.csv'));
  await page.getByTestId('csv-label-column').selectOption('petal');
  await expect(page.getByTestId('csv-error')).toHaveText(
    /^Row 2, column "species" is "(setosa|versicolor|virginica)", not a number\./,
  );

  // A 60 MB File made in the page, dropped on the drop zone: refused by its size, nothing read.
  await page.evaluate(() => {
    const big = new File([new Uint8Array(60 * 1024 * 1024)], 'big.csv', { type: 'text/csv' });
    const dt = new DataTransfer();
    dt.items.add(big);
    document
      .querySelector('[data-testid="csv-drop"]')!
      .dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  });
  await expect(page.getByTestId('csv-error')).toHaveText(
    "'big.csv' is 60.0 MiB; the limit is 50.0 MiB. Use a sample of the rows, or drop columns you do not need.",
  );
  await expect(page.getByTestId('csv-preview')).toHaveCount(0);
  await page
    .getByTestId('csv-file')
    .setInputFiles({ name: 'empty.csv', mimeType: 'text/csv', buffer: Buffer.alloc(0) });
  await expect(page.getByTestId('csv-error')).toHaveText('The file is empty.');
});

test('your own data: a valid CSV is previewed, saved, listed, survives a reload, re-verifies and is deleted', async ({
  page,
  context,
}) => {
  await offline(context);
  await openData(page);
  await page.getByTestId('csv-file').setInputFiles(fixture('valid.csv'));
  await expect(page.getByTestId('csv-preview')).toContainText('sepal width');
  await expect(page.getByTestId('csv-label-column')).toHaveValue('species');
  await expect(page.getByTestId('csv-summary')).toHaveText(
    /^72 rows × 3 features, 3 classes: setosa \(24\), versicolor \(24\), virginica \(24\)\./,
  );
  await page.getByTestId('csv-name').fill('My Iris');
  await expect(page.getByTestId('csv-id')).toHaveText('user:my-iris');
  await page
    .locator('section', { has: page.getByTestId('csv-drop') })
    .screenshot({ path: `${SHOTS}/data-csv-preview.png` });
  await page.getByTestId('csv-save').click();
  await expect(page.getByTestId('csv-saved')).toContainText(
    `Saved My Iris as user:my-iris (SHA-256 ${VALID_SHA.slice(0, 12)}…)`,
  );
  const row = page.getByTestId('dm-row-user:my-iris');
  await expect(row).toContainText('72 × 3, k = 3');
  await expect(row).toContainText('setosa: 24 · versicolor: 24 · virginica: 24');
  await expect(row).toContainText(`recorded ${VALID_SHA.slice(0, 16)}…`);
  await row.screenshot({ path: `${SHOTS}/data-user-row.png` });

  // Stored in IndexedDB: still there after a reload.
  await page.reload();
  await expect(row).toBeVisible();
  await page.getByTestId('dm-verify-user:my-iris').click();
  await expect(page.getByTestId('dm-verify-result-user:my-iris')).toHaveText(
    `OK: SHA-256 ${VALID_SHA.slice(0, 12)}… matches the recorded hash.`,
  );
  await page.getByTestId('dm-delete-user:my-iris').click();
  await page.getByTestId('dm-confirm-delete-user:my-iris').click();
  await expect(row).toHaveCount(0);
  await expect(page.getByTestId('dm-note-user:my-iris')).toHaveText('Deleted from this browser.');
});

test('your own data: a CSV from a URL; hostile column names and labels stay text', async ({
  page,
  context,
}) => {
  await offline(context);
  await context.route('https://example.org/hostile.csv', (route) =>
    route.fulfill({
      status: 200,
      headers: { 'access-control-allow-origin': '*', 'content-type': 'text/csv' },
      body: readFileSync(fixture('hostile.csv')),
    }),
  );
  await openData(page);
  await page.getByTestId('csv-url').fill('https://example.org/hostile.csv');
  await page.getByTestId('csv-url-fetch').click();
  await expect(page.getByTestId('csv-preview')).toContainText('<img src=x onerror=window.__pwned=1>');
  await expect(page.getByTestId('csv-label-column')).toHaveValue('<b>lbl</b>');
  await expect(page.getByText(/^Downloading /)).toHaveCount(0);
  await expect(page.getByTestId('csv-name')).toHaveValue('hostile');
  await page.getByTestId('csv-name').fill('<script>x</script>');
  await expect(page.getByTestId('csv-id')).toHaveText('user:script-x-script');
  await page.getByTestId('csv-save').click();
  await expect(page.getByTestId('csv-saved')).toContainText(
    'Saved <script>x</script> as user:script-x-script',
  );
  const row = page.getByTestId('dm-row-user:script-x-script');
  await expect(row).toContainText('<img src=y onerror=window.__pwned=2>: 24 · plain: 24');
  await expect(row).toContainText('label column <b>lbl</b>');
  expect(await page.locator('main img, main b, main script').count()).toBe(0);
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  await page.screenshot({ path: `${SHOTS}/data-hostile.png`, fullPage: true });
  // A phone: nothing wider than the screen (the preview table scrolls inside its own box).
  await page.setViewportSize({ width: 375, height: 800 });
  const wide = await page.evaluate(() =>
    [...document.querySelectorAll('main *')]
      .filter((e) => e.getBoundingClientRect().right > 376 && !e.closest('.preview-wrap table'))
      .map((e) => `${e.tagName}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`)
      .slice(0, 12),
  );
  expect(wide).toEqual([]);
  await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  await page.screenshot({ path: `${SHOTS}/data-phone.png`, fullPage: true });
});
