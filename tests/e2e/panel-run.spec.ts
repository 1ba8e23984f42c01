/**
 * An image panel run in the page, end to end (issue 17's "Done when", features tier): the Hub's
 * CIFAR-10 URLs routed to parquet files this test writes at the real row counts (one flat colour
 * per class), a tiny conv backbone from a safetensors file the test writes and picks, K_w = 2 and
 * K_s = 1 views. The panel worker downloads and hashes the files, extracts the feature banks with
 * progress (strong views included), trains a head for every cell of all nine methods, saves each
 * rsb-cell/3 record, and the Results page draws the run.
 * The tab is closed during bank extraction: the reopened page offers the run, and Resume continues
 * the extraction from the rows saved (not from zero); then 54 cells (9 methods × 6 t), every
 * accuracy above chance, the RAC panel and metric rows in Results, and the downloaded run file is
 * a valid rsb-run/3.
 */
import { readFileSync } from 'node:fs';
import { encode } from 'fast-png';
import { expect, test, type Page } from '@playwright/test';
import { mt } from '../../src/lib/protocol/rng.ts';
import { parseRunV3, type ModalRunRecord } from '../../src/lib/suite/schemaV3.ts';
import { imageParquet } from '../helpers/hubFiles.ts';
import { CIFAR_URL, offline, routeCifar10 } from './offline.ts';
import { tinyConvWeights } from '../helpers/tinyConvWeights.ts';

const PNGS = Array.from({ length: 10 }, (_, c) =>
  encode({
    width: 32,
    height: 32,
    data: Uint8Array.from(
      { length: 32 * 32 * 3 },
      (_, i) => [(c * 53) % 256, (c * 97) % 256, (c * 151) % 256][i % 3],
    ),
    channels: 3,
    depth: 8,
  }),
);
const labelsOf = (n: number, seed: number) => Int32Array.from(mt(seed).permutation(n), (v) => v % 10);
const trainLabels = labelsOf(50_000, 101);
const testLabels = labelsOf(10_000, 102);
const TRAIN = Buffer.from(imageParquet(trainLabels, (i) => PNGS[trainLabels[i]]));
const TEST = Buffer.from(imageParquet(testLabels, (i) => PNGS[testLabels[i]]));

const WEIGHTS = Buffer.from(tinyConvWeights());

const routeCifar = (page: Page) => routeCifar10(page.context(), TRAIN, TEST);

async function fillPlan(page: Page, seeds: string): Promise<void> {
  const runner = page.getByTestId('panel-runner');
  await expect(runner).toBeVisible();
  await page.getByTestId('panel-dataset').selectOption('cifar10');
  await page.getByTestId('panel-tier').selectOption('features');
  await page.getByTestId('panel-backbone').selectOption('tiny-conv');
  await page.getByTestId('panel-weights').setInputFiles({
    name: 'tiny.safetensors',
    mimeType: 'application/octet-stream',
    buffer: WEIGHTS,
  });
  await page.getByTestId('panel-seeds').fill(seeds);
  await page.getByTestId('panel-iterations').fill('20');
  await page.getByTestId('panel-kw').fill('2');
  await page.getByTestId('panel-ks').fill('1');
}

test('CIFAR-10 · label in the page: banks with strong views resumed after a closed tab, all nine methods, drawn in Results', async ({
  page,
  context,
}) => {
  test.setTimeout(900_000);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const outside = await offline(context);
  await routeCifar(page);
  await page.goto('/#/run');
  await fillPlan(page, '0');
  await expect(page.getByTestId('panel-summary')).toContainText('54 cells');
  await expect(page.getByTestId('panel-problem')).toHaveCount(0);
  await page.getByTestId('panel-start').click();

  const bank = page.getByTestId('panel-bank');
  await expect(bank).toBeVisible({ timeout: 120_000 });
  await expect(bank).toContainText(/Feature bank of CIFAR-10 train: [\d,]+ of 200,000 views/);
  await expect(page.getByTestId('panel-backend')).toContainText('Backend:');
  // The extraction saves its rows every 5 s: close the tab well after the first save.
  await expect
    .poll(async () => Number(await bank.getAttribute('data-done')), { timeout: 300_000 })
    .toBeGreaterThan(40_000);

  await page.reload(); // the worker dies with the page
  const row = page.getByTestId('panel-unfinished-row');
  await expect(row).toBeVisible();
  await expect(row).toHaveAttribute('data-done', '0');
  await page.getByTestId('panel-resume').click();
  await expect(bank).toBeVisible({ timeout: 120_000 });
  // Picked up where the last save left it, not from zero.
  expect(Number(await bank.getAttribute('data-done'))).toBeGreaterThan(20_000);

  const cells = page.getByTestId('panel-cells');
  await expect(cells).toHaveAttribute('data-done', '54', { timeout: 600_000 });
  await expect(page.getByTestId('panel-error')).toHaveCount(0);
  await expect(page.getByTestId('panel-unfinished-row')).toHaveCount(0);

  await page.getByTestId('panel-open-results').click();
  const shown = page.getByTestId('modal-run');
  await expect(shown).toBeVisible();
  await expect(shown).toContainText('Showing 54 image/text results from the run just finished');
  await expect(page.getByTestId('modal-tier')).toContainText('features');
  await expect(shown).toContainText('K_w = 2, K_s = 1');
  await expect(page.locator('[data-testid="results-view"] svg').first()).toBeVisible();
  // One metric row per method of the panel (Supervised drawn flat at a0).
  const rows = page.locator('[data-testid="metrics-table"] tr[data-algorithm]');
  await expect(rows).toHaveCount(9);
  await expect(page.locator('[data-testid="metrics-table"] tr[data-algorithm="supervised"]')).toContainText(
    'Supervised',
  );

  const download = page.waitForEvent('download');
  await page.getByTestId('modal-export').click();
  const path = await (await download).path();
  const run = parseRunV3(JSON.parse(readFileSync(path!, 'utf8'))) as ModalRunRecord;
  expect(run.cells).toHaveLength(54);
  expect(new Set(run.cells.map((c) => c.algorithm.name)).size).toBe(9);
  for (const c of run.cells) {
    expect(c).toMatchObject({
      modality: 'image',
      protocol: { tier: 'features', overrides: { iterations: 20 } },
      backbone: { id: 'tiny-conv', feature: 'tiny-conv-gap', frozen: true },
      feature_bank: { K_w: 2, K_s: 1 },
      split: { n_labeled: 100, n_test: 5_000 },
    });
    // 5 kept classes: chance is 0.2.
    expect(c.outcome.accuracy, `${c.algorithm.name} t=${c.t}`).toBeGreaterThan(0.3);
  }
  expect(outside.filter((u) => !u.startsWith(CIFAR_URL))).toEqual([]);
  expect(errors).toEqual([]);
});
