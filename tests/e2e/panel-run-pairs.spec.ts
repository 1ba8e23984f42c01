/**
 * A distribution panel in the page (issue 18 item 4): a tiny Image-CLEF-style zip of real JPEG
 * files (tests/helpers/localImageFixtures.ts: domains i and p, 10 images per class) loaded on the
 * Data page — a zip with a wrong layout first, whose first problem is named — then its counts
 * (flagged nonstandard) and a few thumbnails per class shown; the Run page lists Image-CLEF with
 * its pairs (those needing the absent domain c disabled), runs i → p in the classroom tier with two
 * methods through a tiny conv net at 224 px, and Results draws the pair's panel.
 */
import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { parseRunV3, type ModalRunRecord } from '../../src/lib/suite/schemaV3.ts';
import { imageClefEntries, zipOf } from '../helpers/localImageFixtures.ts';
import { offline } from './offline.ts';
import { tinyConvWeights } from '../helpers/tinyConvWeights.ts';

const entries = imageClefEntries(['i', 'p'], 10, 'image_CLEF');
const ZIP = Buffer.from(zipOf(entries));
const BAD_ZIP = Buffer.from(
  zipOf([...entries.slice(0, 5), { path: 'image_CLEF/p/13/x.jpg', bytes: entries[0].bytes }]),
);
const WEIGHTS = Buffer.from(tinyConvWeights());

test('Image-CLEF i → p in the page: a zip loaded on the Data page, two methods in classroom, drawn in Results', async ({
  page,
  context,
}) => {
  test.setTimeout(600_000);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const outside = await offline(context);

  await page.goto('/#/run');
  await page.getByTestId('panel-dataset').selectOption('image-clef');
  await expect(page.getByTestId('panel-problem')).toContainText('load it there first');

  await page.goto('/#/data');
  const zip = page.getByTestId('local-zip-image-clef');
  await zip.setInputFiles({ name: 'bad.zip', mimeType: 'application/zip', buffer: BAD_ZIP });
  await expect(page.getByTestId('local-error-image-clef')).toContainText(
    'image_CLEF/p/13/x.jpg: class folder 13 is not one of 0…11',
  );
  await expect(page.getByTestId('local-status-image-clef')).toHaveText('not loaded');
  await zip.setInputFiles({ name: 'image_CLEF.zip', mimeType: 'application/zip', buffer: ZIP });
  await expect(page.getByTestId('local-status-image-clef')).toHaveText('2 of 3 domains here');
  await expect(page.getByTestId('local-error-image-clef')).toHaveCount(0);
  for (const d of ['i', 'p']) {
    const row = page.getByTestId(`local-domain-image-clef-${d}`);
    await expect(row).toHaveAttribute('data-rows', '120');
    await expect(row).toContainText('per class 10 / 10 / 10');
    await expect(page.getByTestId(`local-nonstandard-image-clef-${d}`)).toContainText(
      'the benchmark has 600',
    );
  }
  const thumbs = page.getByTestId('local-thumbs-image-clef-i');
  await thumbs.locator('summary').click();
  await expect(thumbs.locator('img')).toHaveCount(36); // 3 per class
  // The browser decoded them: each thumbnail has pixels.
  await expect
    .poll(() =>
      thumbs
        .locator('img')
        .evaluateAll((imgs) => imgs.filter((i) => (i as HTMLImageElement).naturalWidth > 0).length),
    )
    .toBe(36);

  // A reload keeps the loaded folder (IndexedDB).
  await page.reload();
  await expect(page.getByTestId('local-status-image-clef')).toHaveText('2 of 3 domains here');

  await page.goto('/#/run');
  await page.getByTestId('panel-dataset').selectOption('image-clef');
  await expect(page.getByTestId('panel-pair-i->c')).toBeDisabled();
  await expect(page.getByTestId('panel-pair-i->p')).toBeChecked();
  await page.getByTestId('panel-pair-p->i').uncheck();
  await page.getByTestId('panel-tier').selectOption('classroom');
  await page.getByTestId('panel-backbone').selectOption('tiny-conv');
  await page.getByTestId('panel-weights').setInputFiles({
    name: 'tiny.safetensors',
    mimeType: 'application/octet-stream',
    buffer: WEIGHTS,
  });
  for (const m of ['pseudolabel', 'pimodel', 'meanteacher', 'ict', 'uda', 'flexmatch', 'softmatch'])
    await page.getByTestId(`panel-method-${m}`).uncheck();
  await page.getByTestId('panel-seeds').fill('0');
  await page.getByTestId('panel-iterations').fill('30');
  await expect(page.getByTestId('panel-summary')).toContainText('12 cells: Image-CLEF (1 pair)');
  await expect(page.getByTestId('panel-problem')).toHaveCount(0);
  await page.getByTestId('panel-start').click();

  await expect(page.getByTestId('panel-bank')).toContainText(/Feature bank of Image-CLEF [ip]/, {
    timeout: 120_000,
  });
  await expect(page.getByTestId('panel-cells')).toHaveAttribute('data-done', '12', { timeout: 400_000 });
  await expect(page.getByTestId('panel-error')).toHaveCount(0);

  await page.getByTestId('panel-open-results').click();
  const shown = page.getByTestId('modal-run');
  await expect(shown).toContainText('Showing 12 image/text results from the run just finished');
  await expect(page.locator('[data-testid="results-view"] svg').first()).toBeVisible();
  await expect(page.getByTestId('results-view')).toContainText('Image-CLEF i → p');
  await expect(page.locator('[data-testid="metrics-table"] tr[data-algorithm]')).toHaveCount(2);

  const download = page.waitForEvent('download');
  await page.getByTestId('modal-export').click();
  const run = parseRunV3(
    JSON.parse(readFileSync((await (await download).path())!, 'utf8')),
  ) as ModalRunRecord;
  expect(run.plan).toMatchObject({ datasets: ['image-clef'], pairs: ['i->p'], tier: 'classroom' });
  expect(run.cells).toHaveLength(12);
  for (const c of run.cells)
    expect(c).toMatchObject({
      dataset: {
        id: 'image-clef',
        pair: { source: 'i', target: 'p' },
        local: { n_files: 240 },
        nonstandard: true,
      },
      input: { image_size: 224, decoder: 'jpeg-js@0.4.4 + fast-png' },
      // 120 source rows, 100 labeled: E is the stratified half of the 20 left, which on this tiny
      // fixture (12 classes in 20 rows) keeps one row of each class.
      split: { n_labeled: 100, n_test: 12 },
    });
  expect(outside).toEqual([]);
  expect(errors).toEqual([]);
});
