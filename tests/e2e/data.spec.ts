/**
 * The dataset pipeline in the real browser: embedded iris, letter downloaded through a routed
 * copy of OpenML's URL (the real fetch/stream/parse/hash/cache code in the data worker), offline
 * reload from IndexedDB, a cut-off download with Retry, a wrong-content body, and Delete.
 */
import { readFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { HEADERS, LETTER_PQ, LETTER_SHA, LETTER_URL, offline } from './offline.ts';
import { parquetWriteBuffer } from 'hyparquet-writer';

const IRIS_SHA = '9b79658cba271fcb89e5057cc9c419f9d5b396682cbba6476588f169beb63352';

/** letter.csv with one feature value changed, in OpenML's parquet layout: right shape, wrong content. */
function wrongLetterParquet(): Buffer {
  const lines = readFileSync('tests/fixtures/data/letter.csv', 'utf8').trim().split('\n');
  const names = lines[0].split(',').slice(0, 16);
  const rows = lines.slice(1).map((l) => l.split(',').map(Number));
  rows[7][3] += 1;
  const columnData = [
    ...names.map((name, j) => ({ name, type: 'DOUBLE' as const, data: rows.map((r) => r[j]) })),
    { name: 'class', type: 'STRING' as const, data: rows.map((r) => String.fromCharCode(65 + r[16])) },
  ];
  return Buffer.from(parquetWriteBuffer({ columnData }));
}

async function openHome(page: Page): Promise<void> {
  await page.goto('./');
  await expect(page.getByTestId('dataset-load-letter')).toBeEnabled();
}

test('iris loads from the embedded copy with its pinned hash', async ({ page, context }) => {
  const outside = await offline(context);
  await openHome(page);
  await expect(page.getByTestId('dataset-status-iris')).toHaveText('embedded');
  await page.getByTestId('dataset-load-iris').click();
  const result = page.getByTestId('dataset-result-iris');
  await expect(result).toHaveAttribute('data-origin', 'embedded');
  await expect(result).toHaveAttribute('data-sha256', IRIS_SHA);
  await expect(result).toContainText('Loaded 150 × 4 from the site');
  expect(outside).toEqual([]);
  await page.getByTestId('dataset-row-iris').screenshot({ path: 'test-results/data-dataset-row-iris.png' });
  await page
    .getByRole('region', { name: 'Datasets' })
    .screenshot({ path: 'test-results/data-dataset-list.png' });
});

test('letter downloads through the routed OpenML URL, then loads offline from IndexedDB, then is deleted', async ({
  page,
  context,
}) => {
  const outside = await offline(context);
  await context.route(LETTER_URL, (route) =>
    route.fulfill({ status: 200, headers: HEADERS, body: LETTER_PQ }),
  );
  await openHome(page);
  await expect(page.getByTestId('dataset-status-letter')).toHaveText('not downloaded');
  const t0 = Date.now();
  await page.getByTestId('dataset-load-letter').click();
  const result = page.getByTestId('dataset-result-letter');
  await expect(result).toHaveAttribute('data-origin', 'network');
  const wall = Date.now() - t0;
  await expect(result).toHaveAttribute('data-sha256', LETTER_SHA);
  await expect(result).toContainText('Loaded 20,000 × 16 from data.openml.org');
  const timings = JSON.parse((await result.getAttribute('data-timings')) ?? '{}');
  console.log(
    `letter from routed fixture (${LETTER_PQ.length} B): ms ${JSON.stringify(timings)}, click-to-done ${wall} ms`,
  );
  // 20 000 × 16 float32 + 20 000 int32 = 1 360 000 B.
  await expect(page.getByTestId('dataset-status-letter')).toHaveText('cached (1.3 MiB)');

  // Now nothing outside localhost answers at all: the copy in IndexedDB must do.
  await context.unroute(LETTER_URL);
  await page.reload();
  await expect(page.getByTestId('dataset-load-letter')).toBeEnabled();
  await expect(page.getByTestId('dataset-status-letter')).toHaveText('cached (1.3 MiB)');
  const t1 = Date.now();
  await page.getByTestId('dataset-load-letter').click();
  await expect(result).toHaveAttribute('data-origin', 'cache');
  const cacheTimings = JSON.parse((await result.getAttribute('data-timings')) ?? '{}');
  console.log(
    `letter from IndexedDB: ms ${JSON.stringify(cacheTimings)}, click-to-done ${Date.now() - t1} ms`,
  );
  await expect(result).toHaveAttribute('data-sha256', LETTER_SHA);
  expect(outside).toEqual([]);

  await page.getByTestId('dataset-delete-letter').click();
  await page.getByTestId('dataset-confirm-delete-letter').click();
  await expect(page.getByTestId('dataset-status-letter')).toHaveText('not downloaded');
  await expect(page.getByTestId('dataset-delete-letter')).toHaveCount(0);
  await page.reload();
  await expect(page.getByTestId('dataset-load-letter')).toBeEnabled();
  await expect(page.getByTestId('dataset-status-letter')).toHaveText('not downloaded');
});

test('a body cut off midway shows a clear error, and Retry then succeeds', async ({ page, context }) => {
  await offline(context);
  let cut = true;
  await context.route(LETTER_URL, (route) =>
    cut
      ? route.fulfill({
          status: 200,
          headers: { ...HEADERS, 'content-length': String(LETTER_PQ.length) },
          body: LETTER_PQ.subarray(0, 60_000),
        })
      : route.fulfill({ status: 200, headers: HEADERS, body: LETTER_PQ }),
  );
  await openHome(page);
  await page.getByTestId('dataset-load-letter').click();
  const error = page.getByTestId('dataset-error-letter');
  await expect(error).toHaveAttribute('data-kind', 'truncated');
  await expect(error).toContainText("The download of dataset 'letter' from data.openml.org was cut off");
  await expect(error).toContainText('Try again.');
  await expect(page.getByTestId('dataset-status-letter')).toHaveText('not downloaded');
  cut = false;
  await page.getByTestId('dataset-retry-letter').click();
  await expect(page.getByTestId('dataset-result-letter')).toHaveAttribute('data-sha256', LETTER_SHA);
  await expect(error).toHaveCount(0);
  await expect(page.getByTestId('dataset-status-letter')).toHaveText('cached (1.3 MiB)');
});

test('a body with the wrong content shows a hash error and caches nothing', async ({ page, context }) => {
  await offline(context);
  const body = wrongLetterParquet();
  await context.route(LETTER_URL, (route) => route.fulfill({ status: 200, headers: HEADERS, body }));
  await openHome(page);
  await page.getByTestId('dataset-load-letter').click();
  const error = page.getByTestId('dataset-error-letter');
  await expect(error).toHaveAttribute('data-kind', 'hash');
  await expect(error).toContainText('has the right shape but different content');
  await expect(error).toContainText('It was not used or cached.');
  await expect(page.getByTestId('dataset-status-letter')).toHaveText('not downloaded');
  await page.reload();
  await expect(page.getByTestId('dataset-load-letter')).toBeEnabled();
  await expect(page.getByTestId('dataset-status-letter')).toHaveText('not downloaded');
});
