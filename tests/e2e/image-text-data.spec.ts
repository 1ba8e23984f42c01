/**
 * Image and text datasets on the Data page (PROTOCOL-IMAGE-TEXT.md §4): the Hub's URLs are routed to
 * files this test writes in the real formats at the real row counts (AG News as text parquet,
 * CIFAR-10 as parquet with the Image struct's PNG bytes); nothing else leaves localhost.
 * 1. AG News downloads; the page shows the content hash a Node reference computes
 *    from the same rows (rsb-txt/1), and the files as cached;
 * 2. after a reload with the Hub unreachable, "Check" reads the cached files (no download) and
 *    gives the same hash; Delete empties it;
 * 3. CIFAR-10's train file with one class short is refused with the manifest's reason, and nothing
 *    of that split is used;
 * 4. a bank file imports after its check and is listed with its size and deleted; a damaged one is
 *    refused with the reason.
 */
import { encode } from 'fast-png';
import { expect, test } from '@playwright/test';
import { BankBuilder, type BankKey } from '../../src/lib/bank/bankFile.ts';
import { textContentHash } from '../../src/lib/data/modal/contentHash.ts';
import { CIFAR_URL, HEADERS, offline } from './offline.ts';
import { imageParquet, textParquet } from '../helpers/hubFiles.ts';

const AG = 'https://huggingface.co/datasets/fancyzhx/ag_news/resolve/main/data/';

function agFile(n: number, seed: number): { bytes: Buffer; labels: Int32Array; texts: string[] } {
  const labels = Int32Array.from({ length: n }, (_, i) => (i * 7 + seed) % 4);
  const texts = Array.from(labels, (y, i) => `headline ${i} of class ${y} — naïve ${seed}`);
  return { bytes: Buffer.from(textParquet(labels, (i) => texts[i])), labels, texts };
}

const train = agFile(120_000, 1);
const testSplit = agFile(7_600, 2);

function cifarTrainMissingOne(): Buffer {
  const png = encode({
    width: 32,
    height: 32,
    data: new Uint8Array(32 * 32 * 3).fill(7),
    channels: 3,
    depth: 8,
  });
  // 50 000 rows, but class 9 has one row fewer than 5 000 (class 0 one more).
  const labels = Array.from({ length: 50_000 }, (_, i) => (i === 49_999 ? 0 : i % 10));
  return Buffer.from(imageParquet(labels, () => png));
}

test('AG News downloads, hashes as the reference does, reads offline from the cache, and is deleted', async ({
  page,
  context,
}) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const outside = await offline(context);
  let downloads = 0;
  await context.route(`${AG}**`, (route) => {
    downloads++;
    const body = route.request().url().endsWith('train-00000-of-00001.parquet')
      ? train.bytes
      : testSplit.bytes;
    return route.fulfill({ status: 200, headers: HEADERS, body });
  });
  await page.goto('/#/data');
  const row = page.getByTestId('hub-row-ag_news');
  await expect(page.getByTestId('hub-status-ag_news')).toHaveText('not downloaded');
  await page.getByTestId('hub-download-ag_news').click();
  await expect(page.getByTestId('hub-summary-ag_news')).toBeVisible({ timeout: 120_000 });
  expect(downloads).toBe(2);
  for (const [split, f] of [
    ['train', train],
    ['test', testSplit],
  ] as const)
    await expect(page.getByTestId(`hub-content-ag_news-${split}`)).toHaveAttribute(
      'data-sha256',
      textContentHash('ag_news', split, f.labels, f.texts),
    );
  await expect(row).toContainText('120,000 rows, per class 30000 / 30000 / 30000 / 30000');
  await expect(page.getByTestId('hub-status-ag_news')).toContainText('2 of 2 files here');
  await page.getByTestId('hub-row-ag_news').screenshot({ path: 'test-results/data-hub-ag-news.png' });

  // The Hub is gone: the cached files must do, and give the same content.
  await context.unroute(`${AG}**`);
  await page.reload();
  await expect(page.getByTestId('hub-status-ag_news')).toContainText('2 of 2 files here');
  await page.getByTestId('hub-download-ag_news').click();
  await expect(page.getByTestId('hub-content-ag_news-train')).toHaveAttribute(
    'data-sha256',
    textContentHash('ag_news', 'train', train.labels, train.texts),
  );
  await expect(row).toContainText('from this browser');
  await page.getByTestId('hub-delete-ag_news').click();
  await expect(page.getByTestId('hub-status-ag_news')).toHaveText('not downloaded');
  expect(outside.filter((u) => !u.startsWith(AG))).toEqual([]);
  expect(errors).toEqual([]);
});

test("a CIFAR-10 file that is not the manifest's is refused with the reason", async ({ page, context }) => {
  await offline(context);
  const body = cifarTrainMissingOne();
  await context.route(`${CIFAR_URL}**`, (route) => route.fulfill({ status: 200, headers: HEADERS, body }));
  await page.goto('/#/data');
  await page.getByTestId('hub-download-cifar10').click();
  await expect(page.getByTestId('hub-error-cifar10')).toHaveText(
    "Dataset 'cifar10' train: class 0 (airplane) has 5001 rows, expected 5000.",
    { timeout: 120_000 },
  );
  await expect(page.getByTestId('hub-summary-cifar10')).toHaveCount(0);
});

test('a bank file is imported after its check, listed and deleted; a damaged one is refused', async ({
  page,
}) => {
  const key: BankKey = {
    dataset: 'cifar10/train',
    contentSha256: 'c'.repeat(64),
    weightsSha256: 'a'.repeat(64),
    tokenizerSha256: null,
    feature: 'tiny-conv-gap-8',
    variants: ['colour'],
    Kw: 1,
    Ks: 0,
    seed: 0,
    aug: 'rsb-aug/1',
    dtype: 'float16',
    dim: 8,
    rows: 4,
  };
  const b = new BankBuilder(key);
  for (const blk of b.blocks) b.put(blk.variant, blk.view, blk.k, 0, new Float32Array(32).fill(0.5));
  const { bytes, sha256 } = b.toFile();
  await page.goto('/#/data');
  await expect(page.getByTestId('bank-list')).toContainText('No feature bank in this browser.');
  const damaged = Buffer.from(bytes);
  damaged[damaged.length - 40] ^= 1;
  await page
    .getByTestId('bank-import')
    .setInputFiles({ name: 'x.bank', mimeType: 'application/octet-stream', buffer: damaged });
  await expect(page.getByTestId('bank-error')).toContainText('does not match its hash');
  await page
    .getByTestId('bank-import')
    .setInputFiles({ name: 'x.bank', mimeType: 'application/octet-stream', buffer: Buffer.from(bytes) });
  const listed = page.getByTestId(`bank-row-${sha256.slice(0, 12)}`);
  await expect(listed).toContainText('cifar10/train · tiny-conv-gap-8 · colour · K_w 1, K_s 0');
  await listed.getByRole('button', { name: /Delete the bank/ }).click();
  await expect(page.getByTestId('bank-list')).toContainText('No feature bank in this browser.');
});
