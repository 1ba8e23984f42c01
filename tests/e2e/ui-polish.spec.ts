/**
 * Issue 11, points 2–10, in real Chromium: phone layouts over every route, Compare as a shareable
 * view, publication figures, plain language, URL notices, datasets offline, and the style pass.
 * Screenshots go to test-results/screenshots/ui-*.png for review (desktop, 375 px phone, dark).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { LETTER_PQ, LETTER_SHA, offline } from './offline.ts';

const RUN = path.resolve('tests/fixtures/runs/classroom.json');
const SHOTS = 'test-results/screenshots';
const PHONE = {
  viewport: { width: 375, height: 812 },
  deviceScaleFactor: 2,
  isMobile: true,
  hasTouch: true,
} as const;

const overflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

/** The classroom fixture as another run (new id, scaled accuracies), for Compare. */
function variant(id: string, scale: number): { name: string; mimeType: string; buffer: Buffer } {
  const run = JSON.parse(readFileSync(RUN, 'utf8'));
  run.id = id;
  for (const c of run.cells) {
    if (c.outcome?.status !== 'ok') continue;
    c.outcome.n_correct = Math.round(c.outcome.n_correct * scale);
    c.outcome.accuracy = c.outcome.n_correct / c.outcome.n_test;
  }
  return { name: `${id}.json`, mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(run)) };
}

async function importRun(page: Page): Promise<void> {
  await page.goto('/#/results');
  await page.getByTestId('import-file').setInputFiles(RUN);
  await expect(page.getByTestId('panel-grid').locator('figure svg.rac-chart')).toHaveCount(12);
}

/** A one-result plan: iris, feature, 5 labels, Label Propagation, seed 0, t = 0. */
const TINY = '/#/run?v=1&preset=custom&ds=iris&set=feature&labels=5&alg=lp&seeds=0&t=0';

test.describe('phone (375 × 812)', () => {
  test.use(PHONE);

  test('point 2: no route scrolls sideways, the header is compact with 44 px targets', async ({ page }) => {
    const routes = [
      '/#/',
      '/#/run',
      '/#/run?v=1&preset=custom',
      '/#/compare',
      '/#/data',
      '/#/learn',
      '/#/about',
      '/#/results',
    ];
    for (const r of routes) {
      await page.goto(r);
      await expect(page.locator('main h1')).toBeVisible();
      await page.waitForTimeout(300);
      expect(await overflow(page), r).toBe(0);
    }
    // The header scrolls away with the page and is at most two short rows.
    const header = page.locator('.site-header');
    expect(await header.evaluate((el) => getComputedStyle(el).position)).toBe('static');
    expect((await header.boundingBox())!.height).toBeLessThanOrEqual(100);
    for (const link of await page.locator('.site-header nav a').all())
      expect((await link.boundingBox())!.height).toBeGreaterThanOrEqual(44);
    await page.goto('/#/run?v=1&preset=custom');
    await page.screenshot({ path: `${SHOTS}/ui-phone-run.png`, fullPage: true });
    expect(
      await page.getByTestId('run-preset').evaluate((el) => el.getBoundingClientRect().right),
    ).toBeLessThanOrEqual(375);
  });

  test('point 8: Results on a phone: every route with a run loaded fits, tap shows values, the table pins the algorithm', async ({
    page,
  }) => {
    await importRun(page);
    expect(await overflow(page)).toBe(0);
    const chart = page.getByTestId('panel-grid').locator('figure').first().locator('svg.rac-chart');
    const target = chart.locator('.focus-target');
    await chart.scrollIntoViewIfNeeded();
    const box = (await target.boundingBox())!;
    await page.touchscreen.tap(box.x + box.width * 0.61, box.y + box.height / 2);
    await expect(chart.locator('.tooltip tspan').first()).toHaveText('t = 0.6');
    await page.screenshot({ path: `${SHOTS}/ui-phone-results-tap.png` });
    // The metric numbers are on screen: the algorithm column is pinned while the numbers scroll.
    const table = page.getByTestId('metrics-table');
    await table.scrollIntoViewIfNeeded();
    const auc = table.locator('tbody tr[data-algorithm]').first().locator('td[data-col="auc"]');
    const head = table.locator('tbody tr[data-algorithm]').first().locator('th');
    expect(await head.evaluate((el) => getComputedStyle(el).position)).toBe('sticky');
    const aucBox = (await auc.boundingBox())!;
    expect(aucBox.x + aucBox.width).toBeLessThanOrEqual(375);
    await page.screenshot({ path: `${SHOTS}/ui-phone-results-table.png` });
    await page.screenshot({ path: `${SHOTS}/ui-phone-results.png`, fullPage: true });
  });
});

test.describe('dark mode', () => {
  test.use({ colorScheme: 'dark' });
  test('screenshots: results and run in dark mode', async ({ page }) => {
    await importRun(page);
    await page.screenshot({ path: `${SHOTS}/ui-dark-results.png`, fullPage: true });
    await page
      .getByTestId('panel-grid')
      .locator('figure')
      .nth(6)
      .screenshot({ path: `${SHOTS}/ui-dark-figure.png` });
    await page.goto('/#/run');
    await page.screenshot({ path: `${SHOTS}/ui-dark-run.png`, fullPage: true });
  });
});

test('point 5: plain language: full names, results (model fits), glossary from every term', async ({
  page,
}) => {
  await page.goto('/#/run?v=1&preset=classroom');
  await expect(page.getByTestId('run-plan-size')).toContainText('864 results (684 model fits)');
  await expect(page.getByTestId('run-plan-size')).toContainText('Label Propagation');
  await expect(page.getByTestId('run-plan-size')).toContainText('3 seeds');
  await page.getByTestId('run-preset').selectOption('custom');
  await expect(page.getByTestId('run-custom').locator('[data-group="algorithms"]')).toContainText(
    'Transductive SVM',
  );
  await expect(page.getByTestId('run-custom').locator('[data-group="algorithms"]')).toContainText(
    'Semi-supervised GMM',
  );
  // A term opens its definition in place, with a way to the whole glossary.
  await page.getByTestId('run-plan-size').locator('[data-term="fit"]').click();
  const pop = page.locator('[data-testid="term-popover"]:popover-open');
  await expect(pop).toContainText('trained once at t = 0');
  await page.screenshot({ path: `${SHOTS}/ui-glossary-popover.png` });
  await pop.getByRole('link', { name: 'All terms' }).click();
  await expect(page.getByTestId('glossary')).toContainText('RAC');
  await expect(page.getByTestId('glossary')).toBeInViewport();
  for (const term of [
    'result (cell)',
    'model fit',
    't (inconsistency)',
    'AUC',
    'EA',
    'WA',
    'EVM',
    'VS',
    'RCC',
    'protocol mode',
  ]) {
    await expect(page.getByTestId('glossary').locator('dt', { hasText: term }).first()).toBeVisible();
  }
  // Results: full names in legends and the table, terms on the metric headers.
  await importRun(page);
  await expect(page.locator('svg.rac-chart .legend-item[data-algorithm="ssgmm"] text').first()).toHaveText(
    /Semi-supervised GMM|Semi-supervised…/,
  );
  await expect(page.getByTestId('metrics-table').locator('tbody th').first()).not.toHaveText(
    /^(xgb|lp|ls|ssgmm)$/,
  );
  await expect(page.getByTestId('results-view').locator('[data-term="auc"]').first()).toBeVisible();
});

test('point 7: the Run page lists every corrected link field, and never says "press Start" when it cannot', async ({
  page,
}) => {
  await page.goto(
    '/#/run?v=1&preset=custom&ds=iris,nosuch&set=feature&labels=5&alg=lp,zzz&seeds=0-99&t=0.3&run=r-unknown',
  );
  const notices = page.getByTestId('run-linked-notice');
  await expect(notices.filter({ hasText: '"nosuch"' })).toHaveCount(1);
  await expect(notices.filter({ hasText: '"zzz"' })).toHaveCount(1);
  await expect(notices.filter({ hasText: 'seeds 5-99' })).toHaveCount(1);
  await expect(notices.filter({ hasText: 't="0.3"' })).toHaveCount(1);
  const url = page.getByTestId('url-notice');
  await expect(url.filter({ hasText: 't="0.3"' })).toHaveCount(0);
  await expect(url.filter({ hasText: 'run=' })).toHaveCount(1);
  const checked = await page.getByTestId('run-custom').locator('[data-group="seeds"] input:checked').count();
  expect(checked).toBe(5);
  await page.screenshot({ path: `${SHOTS}/ui-run-notices.png`, fullPage: true });

  // No dataset left: Start is disabled and the banner says why instead of "press Start".
  await page.goto('/#/about');
  await page.goto('/#/run?v=1&preset=custom&ds=nosuch&set=feature&labels=5&alg=lp&seeds=0&t=0');
  await expect(page.getByTestId('run-start')).toBeDisabled();
  await expect(page.getByTestId('run-linked-plan')).toContainText('cannot start yet');
  await expect(page.getByTestId('run-linked-plan')).not.toContainText('press Start');

  // Other pages: fields they do not read, and an unknown run id, are named too.
  await page.goto('/#/data?v=1&hide=lp');
  await expect(page.getByTestId('url-notice')).toContainText('Ignored hide=');
  await page.goto('/#/results?v=1&run=r-does-not-exist');
  await expect(page.getByTestId('results-run-missing')).toContainText('No run with id "r-does-not-exist"');
});

test('points 6 and 10: styled Start, focus kept after Start, Home shows the latest run, Home link lands on Home', async ({
  page,
}) => {
  await page.goto(TINY);
  const start = page.getByTestId('run-start');
  const style = await start.evaluate((el) => {
    const cs = getComputedStyle(el);
    return { bg: cs.backgroundColor, color: cs.color };
  });
  expect(style.bg).not.toBe('rgb(255, 255, 255)');
  await start.focus();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('run-phase')).toHaveAttribute('data-phase', 'done', { timeout: 120_000 });
  expect(await page.evaluate(() => document.activeElement?.tagName)).not.toBe('BODY');
  expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe(
    'run-progress-box',
  );
  // Disabled looks disabled: not-allowed cursor and faded.
  await page.getByTestId('run-custom').locator('[data-group="datasets"] input').first().uncheck();
  await expect(start).toBeDisabled();
  const disabled = await start.evaluate((el) => ({
    cursor: getComputedStyle(el).cursor,
    bg: getComputedStyle(el).backgroundColor,
  }));
  expect(disabled.cursor).toBe('not-allowed');
  expect(disabled.bg).not.toBe(style.bg);
  await page.screenshot({ path: `${SHOTS}/ui-run-disabled-start.png`, fullPage: true });

  await page.getByRole('link', { name: 'RAC Bench home' }).click();
  await expect(page).toHaveURL(/#\/$/);
  await expect(page.getByTestId('run-linked-plan')).toHaveCount(0);
  await expect(page.getByTestId('home-latest-run')).toContainText('Label Propagation');
  await expect(page.getByTestId('home-latest-run').locator('svg.rac-chart')).toBeVisible();
  await page.screenshot({ path: `${SHOTS}/ui-home-latest.png`, fullPage: true });
  // Home's call to action picks the preset without a "plan from the link" banner.
  await page.getByTestId('home-start').click();
  await expect(page.getByTestId('run-preset')).toHaveValue('classroom');
  await expect(page.getByTestId('run-linked-plan')).toHaveCount(0);
});

test('point 10: a CSV whose chosen label column is a measurement is told to pick the label column', async ({
  page,
}) => {
  await page.goto('/#/data');
  const rows = [
    'a,b,c',
    ...Array.from({ length: 40 }, (_, i) => `${i},${(i * 7) % 5},${(i * 0.37 + 1).toFixed(3)}`),
  ];
  await page
    .getByTestId('csv-file')
    .setInputFiles({ name: 'nolabel.csv', mimeType: 'text/csv', buffer: Buffer.from(rows.join('\n')) });
  await expect(page.getByTestId('csv-error')).toContainText('does not look like a label column');
  await expect(page.getByTestId('csv-error')).not.toContainText('labels = 5');
  expect(readFileSync('src/pages/Home.svelte', 'utf8')).not.toMatch(/\blabelled\b/);
});

test('point 3: Compare keeps its runs in the link, refuses duplicates, colour = algorithm, line = run, full names', async ({
  page,
  browser,
}) => {
  await page.goto('/#/compare');
  const input = page.getByTestId('import-file');
  await input.setInputFiles(RUN);
  await input.setInputFiles(RUN);
  await expect(page.getByTestId('compare-error')).toContainText('already in the comparison as run A');
  await input.setInputFiles(variant('run-b', 0.97));
  await input.setInputFiles(variant('run-c', 0.9));
  await expect(page.getByTestId('compare-runs')).toHaveAttribute('data-count', '3');
  await expect(page).toHaveURL(/#\/compare\?v=1&runs=1\.[\w-]+,1\.[\w-]+,1\.[\w-]+/);
  // Colour = algorithm: lp's three curves share one colour; line style = run: A solid, B and C dashed differently.
  const chart = page.locator('svg.rac-chart').first();
  const lp = (run: string) => chart.locator(`.lines path[data-algorithm="lp@${run}"]`);
  const strokes = await Promise.all(['A', 'B', 'C'].map((r) => lp(r).getAttribute('stroke')));
  expect(new Set(strokes).size).toBe(1);
  const dashes = await Promise.all(['A', 'B', 'C'].map((r) => lp(r).getAttribute('stroke-dasharray')));
  expect(dashes[0]).toBeNull();
  expect(new Set(dashes).size).toBe(3);
  // One shared legend with full names; the table has panels as heading rows and full names.
  const legend = page.getByTestId('compare-legend');
  await expect(legend).toContainText('Label Propagation');
  await expect(legend).toContainText('Run C');
  await expect(chart.locator('.legend-item')).toHaveCount(0);
  const table = page.getByTestId('compare-table');
  await expect(table.locator('tbody th.alg').first()).toHaveText(
    /^(XGBoost|Label Propagation|Label Spreading|Semi-supervised GMM)$/,
  );
  await expect(table.locator('td[data-delta="C"]').first()).toHaveText(/^[−+±]0\.\d{3}$/);
  await page.screenshot({ path: `${SHOTS}/ui-compare-desktop.png`, fullPage: true });
  // Hiding an algorithm from the legend hides it in every run, and goes into the link.
  await legend.locator('[data-algorithm="lp"]').click();
  await expect(page.locator('svg.rac-chart .lines path[data-algorithm^="lp@"]')).toHaveCount(0);
  await expect(page).toHaveURL(/hide=lp:A,lp:B,lp:C/);

  // The link reopens the same comparison in a fresh browser profile.
  const url = page.url();
  const fresh = await browser.newContext({
    viewport: { width: 375, height: 812 },
    isMobile: true,
    hasTouch: true,
    deviceScaleFactor: 2,
  });
  const other = await fresh.newPage();
  await other.goto(url);
  await expect(other.getByTestId('compare-runs')).toHaveAttribute('data-count', '3');
  await expect(other.getByTestId('compare-table')).toHaveAttribute('data-rows', '48');
  await expect(other.locator('svg.rac-chart .lines path[data-algorithm^="lp@"]')).toHaveCount(0);
  await other.waitForTimeout(300);
  expect(await overflow(other)).toBe(0);
  await other.screenshot({ path: `${SHOTS}/ui-compare-phone.png`, fullPage: true });
  await other.screenshot({ path: `${SHOTS}/ui-compare-phone-top.png` });
  await other.getByTestId('compare-legend').screenshot({ path: `${SHOTS}/ui-compare-phone-legend.png` });
  await other
    .locator('svg.rac-chart')
    .first()
    .screenshot({ path: `${SHOTS}/ui-compare-phone-chart.png` });
  await other.getByTestId('compare-table').locator('tbody tr').nth(5).scrollIntoViewIfNeeded();
  await other.screenshot({ path: `${SHOTS}/ui-compare-phone-table.png` });
  await fresh.close();
});

test('point 4: figures: caption with the band and n, AUC shaded to 0, per-panel export at print size, shared y range', async ({
  page,
}) => {
  await importRun(page);
  const first = page.getByTestId('panel-grid').locator('figure').first();
  const chart = first.locator('svg.rac-chart');
  await expect(chart.locator('.caption')).toHaveText(/±1 population std/);
  await expect(chart.locator('.caption')).toHaveText(/n = 3 seeds/);
  // The y label and the title do not overlap.
  const title = (await chart.locator('.panel-title').boundingBox())!;
  const ylabel = (await chart.locator('.axis-y .axis-label').boundingBox())!;
  const apart =
    ylabel.y >= title.y + title.height ||
    ylabel.x + ylabel.width <= title.x ||
    title.x + title.width <= ylabel.x;
  expect(apart).toBe(true);
  // Markers differ per algorithm.
  const shapes = await chart
    .locator('.points g')
    .evaluateAll((gs) => gs.map((g) => g.querySelector('path.marker')?.getAttribute('d')));
  expect(new Set(shapes).size).toBe(shapes.length);
  // Hovering a legend entry fades the other curves.
  await chart.locator('.legend-item[data-algorithm="lp"]').hover();
  await expect(chart.locator('.lines path[data-algorithm="ls"]')).toHaveAttribute('opacity', '0.15');
  await page.mouse.move(0, 0);
  // AUC: the axis starts at 0 and the shading reaches it.
  await page.getByRole('checkbox', { name: /AUC/ }).first().check();
  await expect(chart.locator('.explain-auc')).toHaveCount(1);
  await expect(chart.locator('.axis-y .tick text').first()).toHaveText('0.00');
  await first.screenshot({ path: `${SHOTS}/ui-figure-auc.png` });
  await page.getByRole('checkbox', { name: /AUC/ }).first().uncheck();
  // Per-panel export: one panel, sized in points so the text prints at 8 pt.
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    first.getByTestId('panel-export-svg').click(),
  ]);
  expect(download.suggestedFilename()).toBe('rac-iris-distribution-5.svg');
  const svg = readFileSync((await download.path())!, 'utf8');
  expect(svg).toMatch(/width="320\.0pt"/);
  expect((svg.match(/class="rac-chart"/g) ?? []).length).toBe(1);
  expect(svg.length).toBeLessThan(120_000);
  const [png] = await Promise.all([
    page.waitForEvent('download'),
    first.getByTestId('panel-export-png').click(),
  ]);
  expect(png.suggestedFilename()).toBe('rac-iris-distribution-5.png');
  // Shared y range: every panel gets the same ticks.
  await page.getByTestId('shared-y').check();
  await expect(async () => {
    const ranges = await page
      .locator('svg.rac-chart')
      .evaluateAll((svgs) =>
        svgs.map((s) => [...s.querySelectorAll('.axis-y .tick text')].map((t) => t.textContent).join(',')),
      );
    expect(new Set(ranges).size).toBe(1);
  }).toPass();
  await page.screenshot({ path: `${SHOTS}/ui-figures-shared-y.png`, fullPage: true });
});

test('point 9: offline datasets: one short error with retry and "load from a file…" (hash-checked, cached), size first, confirmed Delete', async ({
  page,
  context,
}) => {
  await offline(context);
  await page.goto('/#/data');
  await expect(page.getByTestId('dm-size-letter')).toHaveText(
    'needs about 1.3 MiB of browser storage once downloaded',
  );
  await expect(page.getByTestId('dm-storage')).not.toContainText('of it datasets');
  await page.getByTestId('dm-download-letter').click();
  const error = page.getByTestId('dm-error-letter');
  await expect(error).toHaveText(
    "Could not reach data.openml.org or openml1.win.tue.nl to download 'letter' (offline?).",
  );
  await expect(page.getByTestId('load-file-letter')).toBeVisible();
  // A file with other content is refused like a bad download, and nothing is cached.
  await page
    .getByTestId('load-file-input-letter')
    .setInputFiles({ name: 'letter.csv', mimeType: 'text/csv', buffer: Buffer.from('a,b,class\n1,2,A\n') });
  await expect(page.getByTestId('dm-error-letter')).toBeVisible();
  await expect(page.getByTestId('dm-status-letter')).toHaveText('not downloaded');
  await page
    .getByTestId('load-file-input-letter')
    .setInputFiles({ name: 'letter.pq', mimeType: 'application/octet-stream', buffer: LETTER_PQ });
  await expect(page.getByTestId('dm-note-letter')).toContainText(
    `verified it: SHA-256 ${LETTER_SHA.slice(0, 12)}`,
  );
  await expect(page.getByTestId('dm-status-letter')).toHaveText('cached · 1.3 MiB');
  await page.screenshot({ path: `${SHOTS}/ui-data-file-loaded.png`, fullPage: true });
  // The cached copy serves the Home page's list too (same IndexedDB cache).
  await page.goto('/#/');
  await expect(page.getByTestId('dataset-status-letter')).toHaveText('cached (1.3 MiB)');
  // Delete asks first; Keep keeps it.
  await page.getByTestId('dataset-delete-letter').click();
  await expect(page.getByTestId('dataset-confirm-letter')).toContainText('Delete the cached copy?');
  await page.getByRole('button', { name: 'Keep' }).click();
  await expect(page.getByTestId('dataset-status-letter')).toHaveText('cached (1.3 MiB)');
  await page.getByTestId('dataset-delete-letter').click();
  await page.getByTestId('dataset-confirm-delete-letter').click();
  await expect(page.getByTestId('dataset-status-letter')).toHaveText('not downloaded');
});
