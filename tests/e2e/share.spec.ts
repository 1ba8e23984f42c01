import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { deflateSync } from 'fflate';
import { encodeBase64Url } from '../../src/lib/share/base64url.ts';
import { packV1 } from '../../src/lib/share/linkV1.ts';
import { parseRun } from '../../src/lib/suite/schema.ts';

const FIXTURE = 'tests/fixtures/runs/classroom.json';
const HOSTILE = '<img src=x onerror=window.__pwned=1>';
// Downloads and made-up files go to a private folder: a parallel Playwright run may wipe test-results.
const tmp = (name: string) => join(mkdtempSync(join(tmpdir(), 'rac-share-')), name);
const shot = (page: Page, name: string) =>
  page.screenshot({ path: `test-results/screenshots/share-${name}.png`, fullPage: true });

/** The numbers the page shows: the metric table's text (same run → same text). */
async function shownNumbers(page: Page): Promise<string> {
  const table = page.getByTestId('metrics-table').or(page.getByTestId('results-table')).first();
  await expect(table).toBeVisible();
  return table.innerText();
}

async function importFile(page: Page, path: string): Promise<void> {
  await page.getByTestId('import-file').setInputFiles(path);
}

/** A link payload of our own making (bypassing the encoder's checks), as an attacker would. */
function hostilePayload(): string {
  const run = parseRun(JSON.parse(readFileSync(FIXTURE, 'utf8')));
  const packed = packV1({ ...run, cells: run.cells.slice(0, 12) });
  (packed.tables.algorithm[0] as { name: string }).name = HOSTILE;
  return `1.${encodeBase64Url(deflateSync(new TextEncoder().encode(JSON.stringify(packed))))}`;
}

test('import a run, share it as a link, open it in a fresh context: same numbers', async ({
  page,
  browser,
}) => {
  await page.goto('/#/results');
  await importFile(page, FIXTURE);
  await expect(page.getByTestId('results-shown')).toHaveAttribute('data-run-id', /.+/);
  await expect(page.locator('svg.rac-chart').first()).toBeVisible();
  const numbers = await shownNumbers(page);
  expect(numbers).toMatch(/0\.\d{3}/);
  await expect(page.getByTestId('env-panel')).toContainText('Environment');
  await shot(page, 'imported');

  await page.getByTestId('share-button').click();
  const input = page.getByTestId('permalink-input');
  await expect(input).toHaveValue(/#\/results\?v=1&.*&r=1\./);
  const url = await input.inputValue();
  console.log(`classroom permalink in the browser: ${url.length} characters`);
  expect(url.length).toBeLessThan(8000);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.getByTestId('copy-permalink').click();
  await expect(page.getByText('Link copied.')).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(url);
  await shot(page, 'share-dialog');

  const fresh = await browser.newContext();
  const other = await fresh.newPage();
  await other.goto(url);
  await expect(other.getByTestId('results-shown')).toBeVisible();
  expect(await shownNumbers(other)).toBe(numbers);
  await expect(other.locator('svg.rac-chart')).toHaveCount(await page.locator('svg.rac-chart').count());
  const rerun = other.getByTestId('rerun-plan');
  // The fixture run was made under protocol 1.0.0 (SSGMM support 'zero', no model-stream offset); since
  // 1.1.0 the rsb defaults are 'ignore' and 'paper', so re-running it faithfully must name both.
  await expect(rerun).toHaveAttribute(
    'href',
    '#/run?v=1&preset=custom&ds=iris,wine&set=all&labels=5,10&alg=xgb,lp,ls,ssgmm&seeds=0-2&t=all&ssgmm=zero&offset=none',
  );
  await shot(other, 'from-link');
  await fresh.close();
});

test('export JSON and CSV, re-import the JSON', async ({ page }) => {
  await page.goto('/#/results');
  await importFile(page, FIXTURE);
  const numbers = await shownNumbers(page);

  const [json] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-json').click()]);
  const jsonPath = tmp('export.json');
  await json.saveAs(jsonPath);
  expect(json.suggestedFilename()).toMatch(/^rac-bench-.*\.json$/);
  expect(JSON.parse(readFileSync(jsonPath, 'utf8')).cells).toHaveLength(864);

  const [csv] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-csv').click()]);
  const csvPath = tmp('export.csv');
  await csv.saveAs(csvPath);
  const lines = readFileSync(csvPath, 'utf8').split('\r\n');
  expect(lines[0]).toBe(
    'dataset,setting,labels,algorithm,family,t,t_index,seed,status,accuracy,n_correct,n_test,fit_ms,predict_ms,backend,protocol_mode,protocol_version,protocol_quirks,dataset_sha256,reason',
  );
  expect(lines).toHaveLength(866);

  const [svg] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-svg').click()]);
  const svgPath = tmp('charts.svg');
  await svg.saveAs(svgPath);
  expect(readFileSync(svgPath, 'utf8')).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"[^>]*width=/);
  const [png] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-png').click()]);
  const pngPath = tmp('charts.png');
  await png.saveAs(pngPath);
  expect([...readFileSync(pngPath).subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
  writeFileSync('test-results/screenshots/share-chart-export.png', readFileSync(pngPath));

  await page.goto('/#/');
  await page.goto('/#/results');
  await importFile(page, jsonPath);
  expect(await shownNumbers(page)).toBe(numbers);
});

test('broken and hostile links give a clear message and run nothing', async ({ page }) => {
  await page.goto('/#/results?v=1&r=1.AAAAAAAAAAAAAAAAAAAA');
  await expect(page.getByTestId('permalink-error')).toContainText('This results link is broken');
  await shot(page, 'broken-link');

  await page.goto('/#/');
  await page.goto(`/#/results?v=1&r=${hostilePayload()}`);
  const err = page.getByTestId('permalink-error');
  await expect(err).toContainText('algorithm.name: expected an id');
  await expect(err.locator('img')).toHaveCount(0);
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  await shot(page, 'hostile-link');

  // The same name in a run file: refused at import, shown as text.
  const run = JSON.parse(readFileSync(FIXTURE, 'utf8'));
  run.cells = run.cells.slice(0, 3);
  run.cells[1].algorithm.name = HOSTILE;
  const path = tmp('hostile.json');
  writeFileSync(path, JSON.stringify(run));
  await importFile(page, path);
  await expect(page.getByTestId('import-error')).toContainText('cells[1].algorithm.name: expected an id');
  await expect(page.getByTestId('import-error').locator('img')).toHaveCount(0);
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  await shot(page, 'hostile-file');
});

test('history: a saved run is listed, opens, and is deleted after a confirmation', async ({ page }) => {
  await page.goto('/#/results');
  await expect(page.getByTestId('history-list')).toHaveAttribute('data-count', '0');
  const run = JSON.parse(readFileSync(FIXTURE, 'utf8'));
  await page.evaluate(async (r) => {
    const db: IDBDatabase = await new Promise((res, rej) => {
      const q = indexedDB.open('rac-bench-runs');
      q.onsuccess = () => res(q.result);
      q.onerror = () => rej(q.error);
    });
    const tx = db.transaction(['runs', 'cells'], 'readwrite');
    tx.objectStore('runs').put({
      id: 'run-e2e-history',
      plan: r.plan,
      status: 'done',
      created_at: r.created_at,
      finished_at: r.finished_at,
      env: r.env,
      workers: 2,
      total: r.cells.length,
    });
    r.cells.forEach(
      (c: {
        algorithm: { name: string };
        dataset: { id: string };
        setting: string;
        labels: number;
        t_index: number;
        seed: number;
        outcome: { status: string };
      }) =>
        tx.objectStore('cells').put({
          runId: 'run-e2e-history',
          key: `${c.dataset.id}|${c.setting}|${c.labels}|${c.algorithm.name}|${c.t_index}|${c.seed}`,
          status: c.outcome.status,
          result: c,
          error: null,
          attempts: 1,
        }),
    );
    await new Promise((res) => (tx.oncomplete = res));
    db.close();
  }, run);
  await page.reload();
  const list = page.getByTestId('history-list');
  await expect(list).toHaveAttribute('data-count', '1');
  await list.getByRole('button', { name: 'Open' }).click();
  await expect(page).toHaveURL(/#\/results\?v=1&run=run-e2e-history/);
  await expect(page.getByTestId('results-shown')).toHaveAttribute('data-run-id', 'run-e2e-history');
  await expect(page.getByTestId('metrics-table').or(page.getByTestId('results-table')).first()).toBeVisible();
  await shot(page, 'history');
  await list.getByRole('button', { name: /^Delete the run/ }).click();
  await list.getByTestId('confirm-delete').click();
  await expect(list).toHaveAttribute('data-count', '0');
  await expect(page.getByTestId('results-shown')).toHaveCount(0);
});

test('compare: two runs give a diff table; a run under other quirks is refused', async ({ page }) => {
  await page.goto('/#/compare');
  await importFile(page, FIXTURE);
  // The same run twice is refused; a copy under another id (same numbers) is compared.
  await importFile(page, FIXTURE);
  await expect(page.getByTestId('compare-error')).toContainText('already in the comparison as run A');
  const copy = JSON.parse(readFileSync(FIXTURE, 'utf8'));
  copy.id = 'run-copy';
  const copyPath = tmp('copy.json');
  writeFileSync(copyPath, JSON.stringify(copy));
  await importFile(page, copyPath);
  const table = page.getByTestId('compare-table');
  await expect(table).toBeVisible();
  await expect(table).toHaveAttribute('data-rows', '48');
  const deltas = await table.locator('td[data-delta="B"]').allInnerTexts();
  expect(deltas).toHaveLength(48);
  expect(new Set(deltas)).toEqual(new Set(['±0.000']));
  await expect(page.locator('svg.rac-chart')).toHaveCount(12);

  const run = JSON.parse(readFileSync(FIXTURE, 'utf8'));
  run.id = 'run-fixed';
  run.plan.quirks = 'fixed';
  for (const c of run.cells) c.protocol.quirks = 'fixed';
  const path = tmp('fixed.json');
  writeFileSync(path, JSON.stringify(run));
  await importFile(page, path);
  await expect(page.getByTestId('compare-refused')).toContainText(
    'Run C used protocol mode "rsb" with quirks "fixed"',
  );
  await expect(table).toBeVisible();
  await shot(page, 'compare');
});

test('the view travels with the link: the metric form and the same numbers in that form', async ({
  page,
  browser,
}) => {
  await page.goto('/#/results');
  await importFile(page, FIXTURE);
  await page.getByText('Code (original tables)').click();
  await expect(page).toHaveURL(/form=code/);
  await expect(page.getByTestId('metrics-table')).toHaveAttribute('data-form', 'code');
  const numbers = await shownNumbers(page);
  await page.getByTestId('share-button').click();
  const input = page.getByTestId('permalink-input');
  await expect(input).toHaveValue(/&form=code&r=1\./);
  const fresh = await browser.newContext();
  const other = await fresh.newPage();
  await other.goto(await input.inputValue());
  await expect(other.getByTestId('metrics-table')).toHaveAttribute('data-form', 'code');
  expect(await shownNumbers(other)).toBe(numbers);
  await fresh.close();
});
