/**
 * The live training view (issue 8): while a deep cell runs, the Run page shows its training
 * chart (loss terms and mask rate against step), step n of N, steps per second and the backend
 * its worker runs on; when the run ends the view goes and the usual RAC charts and results table
 * show the deep algorithms like any other. Real headless Chromium on WASM, small deep plans from a
 * link (one dataset, the FT-Transformer baseline and FixMatch on the tiny network).
 *
 * Two tests, so that neither depends on how fast the machine trains: the live view is checked on
 * fits that cannot end while it is looked at (a million steps; the run is then cancelled), and the
 * end of a run on fits of 120 steps, which it waits for.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';

/** One dataset, the FT-Transformer baseline and FixMatch at t 0 and 0.4: 3 fits of `steps` steps. */
const plan = (steps: number) =>
  '#/run?v=1&backend=wasm&preset=custom&ds=iris&set=label&labels=5&alg=ftt,fixmatch&seeds=0&t=0,0.4' +
  ['ftt', 'fixmatch']
    .map((a) => `${a}.size:tiny,${a}.steps:${steps},${a}.batchL:16`)
    .join(',')
    .replace(/^/, '&opt=');
/** Steps no fit finishes while the live view is examined, on any machine (the option's maximum). */
const LONG = 1_000_000;
const STEPS = 120;

interface Sample {
  cell: string | null;
  step: number;
  total: number;
  running: string | null;
  points: number;
  meta: string;
  latest: string;
}

async function sample(page: Page): Promise<Sample | null> {
  return page.evaluate(() => {
    const fig = document.querySelector('[data-testid="training-fit"]');
    if (!fig) return null;
    const paths = [...fig.querySelectorAll('.training-chart .lines path')];
    // Points of the longest line: "M x,y L x,y L …" has one more vertex per L.
    const points = Math.max(0, ...paths.map((p) => (p.getAttribute('d') ?? '').split('L').length));
    return {
      cell: fig.getAttribute('data-cell'),
      step: Number(fig.getAttribute('data-step')),
      total: Number(fig.getAttribute('data-total')),
      running: fig.getAttribute('data-running'),
      points,
      meta: document.querySelector('[data-testid="training-meta"]')?.textContent ?? '',
      latest: document.querySelector('[data-testid="training-latest"]')?.textContent ?? '',
    };
  });
}

test('a deep plan shows its live training curves, one per worker, until it is cancelled', async ({
  page,
}) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`/${plan(LONG)}`);
  await expect(page.getByTestId('run-linked-plan')).toContainText('Check it, then press Start');
  // Two workers: two deep fits train at once, so the view offers a choice of worker.
  await page.getByTestId('run-workers').fill('2');
  await page.getByTestId('run-start').click();

  // The view appears with a curve, and its step counter advances within one fit.
  await expect(page.getByTestId('training-view')).toBeVisible({ timeout: 60_000 });
  const samples: Sample[] = [];
  await expect
    .poll(
      async () => {
        const s = await sample(page);
        if (s) samples.push(s);
        return samples.some((a, i) =>
          samples.slice(i + 1).some((b) => b.cell === a.cell && b.step > a.step && a.step > 0),
        );
      },
      { timeout: 90_000, intervals: [150] },
    )
    .toBe(true);
  // Both workers train: one button per worker; picking the other one shows its fit.
  const picks = page.getByTestId('training-pick');
  await expect(picks).toHaveCount(2, { timeout: 60_000 });
  const shownLane = await page.getByTestId('training-fit').getAttribute('data-lane');
  const otherLane = await picks.and(page.locator('[aria-pressed="false"]')).getAttribute('data-lane');
  expect(otherLane).not.toBe(shownLane);
  const pick = page.locator(`[data-testid="training-pick"][data-lane="${otherLane}"]`);
  await pick.click();
  await expect(pick).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByTestId('training-fit')).toHaveAttribute('data-lane', otherLane!);
  // The other worker's fit advances too (one of the two lanes trains FixMatch, whose terms are
  // checked below, whichever cells the pool started first).
  const before = samples.length;
  await expect
    .poll(
      async () => {
        const s = await sample(page);
        if (s) samples.push(s);
        return samples.slice(before).some((a) => a.step > 0);
      },
      { timeout: 60_000, intervals: [150] },
    )
    .toBe(true);
  const seen = samples.filter((s) => s.step > 0);
  expect(seen.length).toBeGreaterThan(1);
  for (const s of seen) {
    expect(s.total).toBe(LONG);
    expect(s.step).toBeLessThanOrEqual(LONG);
    expect(s.meta).toContain(`step ${s.step} of ${LONG}`);
    // The backend its worker runs on, as the app reports it.
    expect(s.meta).toContain('on WASM');
  }
  // A non-empty curve (two or more vertices), steps per second once two posts are apart.
  expect(Math.max(...seen.map((s) => s.points))).toBeGreaterThanOrEqual(2);
  expect(seen.some((s) => /\d+(\.\d)? steps\/s/.test(s.meta))).toBe(true);
  // FixMatch's text alternative names its loss terms and its mask rate.
  const fix = seen.filter((s) => s.cell?.includes('|fixmatch|'));
  expect(fix.length).toBeGreaterThan(0);
  expect(fix[fix.length - 1].latest).toMatch(
    new RegExp(
      `^At step \\d+ of ${LONG}: supervised loss [\\d.e+-]+, unsupervised loss [\\d.e+-]+, .*mask rate \\d+%`,
    ),
  );
  await expect(page.locator('[data-testid="training-fit"] svg')).toHaveAttribute(
    'aria-describedby',
    'training-latest',
  );

  const rates = seen.map((s) => /([\d.]+) steps\/s/.exec(s.meta)?.[1]).filter(Boolean);
  console.log(`deep-live: steps/s seen: ${rates.join(' ')}`);

  // Cancel: the fits stop, the run says so and the live view goes.
  await page.getByTestId('run-cancel').click();
  await expect(page.getByTestId('run-phase')).toHaveAttribute('data-phase', 'cancelled', { timeout: 60_000 });
  await expect(page.getByTestId('training-view')).toHaveCount(0);
  expect(errors).toEqual([]);
});

test('a finished deep run shows the usual charts, table, link and exports', async ({ page, browser }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`/${plan(STEPS)}`);
  await expect(page.getByTestId('run-linked-plan')).toContainText('Check it, then press Start');
  await page.getByTestId('run-workers').fill('2');
  await page.getByTestId('run-start').click();

  // The run ends: the live view goes, the RAC charts and the table show both deep algorithms.
  await expect(page.getByTestId('run-phase')).toHaveAttribute('data-phase', 'done', { timeout: 120_000 });
  await expect(page.getByTestId('training-view')).toHaveCount(0);
  const wall = Number(await page.getByTestId('run-wall').getAttribute('data-seconds'));
  console.log(`deep-live: 3 fits × ${STEPS} steps, run wall ${wall.toFixed(1)} s`);
  const view = page.getByTestId('results-view');
  await expect(view).toBeVisible();
  for (const id of ['ftt', 'fixmatch'])
    await expect(view.locator(`.legend-item[data-algorithm="${id}"]`).first()).toBeVisible();
  await page.getByTestId('run-show-table').click();
  for (const id of ['ftt', 'fixmatch']) {
    const row = page.locator(`[data-testid="results-row"][data-curve="${id}|iris|label|5"]`);
    await expect(row).toHaveCount(1);
    const means = await row
      .locator('td[data-t]')
      .evaluateAll((tds) => tds.map((td) => td.getAttribute('data-mean')).filter((m) => m !== ''));
    expect(means.length).toBeGreaterThan(0);
    for (const m of means) expect(Number(m)).toBeGreaterThan(0);
  }

  // Results page: the same RAC charts, permalink and exports as the statistical family.
  await page.getByTestId('run-open-results').click();
  await expect(page.getByTestId('results-shown')).toHaveAttribute('data-run-id', /.+/);
  await expect(page.locator('svg.rac-chart').first()).toBeVisible();
  const table = page.getByTestId('metrics-table').or(page.getByTestId('results-table')).first();
  const numbers = await table.innerText();
  expect(numbers).toContain('FixMatch');
  await page.getByTestId('share-button').click();
  // The link is filled in once the results are packed (asynchronous): wait for it, then read it.
  await expect(page.getByTestId('permalink-input')).toHaveValue(/#\/results\?v=1&.*&r=1\./);
  const url = await page.getByTestId('permalink-input').inputValue();
  const fresh = await browser.newContext();
  const otherPage = await fresh.newPage();
  await otherPage.goto(url);
  await expect(otherPage.getByTestId('results-shown')).toBeVisible();
  const otherTable = otherPage
    .getByTestId('metrics-table')
    .or(otherPage.getByTestId('results-table'))
    .first();
  await expect(otherTable).toBeVisible();
  expect(await otherTable.innerText()).toBe(numbers);
  // "Re-run this plan" keeps the deep algorithms and their options.
  await expect(otherPage.getByTestId('rerun-plan')).toHaveAttribute('href', /alg=ftt,fixmatch/);
  await expect(otherPage.getByTestId('rerun-plan')).toHaveAttribute(
    'href',
    new RegExp(`fixmatch\\.steps:${STEPS}`),
  );
  await fresh.close();
  await page.keyboard.press('Escape');
  const [csv] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-csv').click()]);
  const csvPath = join(mkdtempSync(join(tmpdir(), 'rac-deep-')), 'export.csv');
  await csv.saveAs(csvPath);
  const rows = readFileSync(csvPath, 'utf8').trim().split('\r\n');
  const head = rows[0].split(',');
  const fixRows = rows
    .slice(1)
    .map((r) => r.split(','))
    .filter((r) => r[head.indexOf('algorithm')] === 'fixmatch');
  // FixMatch: 1 seed × t 0 and 0.4; family deep, status ok, an accuracy.
  expect(fixRows).toHaveLength(2);
  for (const r of fixRows) {
    expect(r[head.indexOf('family')]).toBe('deep');
    expect(r[head.indexOf('status')]).toBe('ok');
    expect(Number(r[head.indexOf('accuracy')])).toBeGreaterThan(0);
  }
  expect(errors).toEqual([]);
});
