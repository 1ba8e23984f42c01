/**
 * The live training view (issue 8): while a deep cell runs, the Run page shows its training
 * chart (loss terms and mask rate against step), step n of N, steps per second and the backend
 * its worker runs on; when the run ends the view goes and the usual RAC charts and results table
 * show the deep algorithms like any other. Real headless Chromium on WASM, a small deep plan from
 * a link (one dataset, the FT-Transformer baseline and FixMatch, few steps).
 */
import { expect, test, type Page } from '@playwright/test';

const STEPS = 150;
const PLAN =
  '#/run?v=1&backend=wasm&preset=custom&ds=iris&set=label&labels=5&alg=ftt,fixmatch&seeds=0&t=0,0.4' +
  `&opt=ftt.steps:${STEPS},fixmatch.steps:${STEPS}`;

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

test('a deep plan shows its live training curves, then the usual charts and table', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`/${PLAN}`);
  await expect(page.getByTestId('run-linked-plan')).toContainText('Check it, then press Start');
  await page.getByTestId('run-workers').fill('1');
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
  const seen = samples.filter((s) => s.step > 0);
  expect(seen.length).toBeGreaterThan(1);
  for (const s of seen) {
    expect(s.total).toBe(STEPS);
    expect(s.step).toBeLessThanOrEqual(STEPS);
    expect(s.meta).toContain(`step ${s.step} of ${STEPS}`);
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
    /^At step \d+ of 150: supervised loss [\d.e+-]+, unsupervised loss [\d.e+-]+, .*mask rate \d+%/,
  );
  await expect(page.locator('[data-testid="training-fit"] svg')).toHaveAttribute(
    'aria-describedby',
    'training-latest',
  );

  // The run ends: the live view goes, the RAC charts and the table show both deep algorithms.
  await expect(page.getByTestId('run-phase')).toHaveAttribute('data-phase', 'done', { timeout: 120_000 });
  await expect(page.getByTestId('training-view')).toHaveCount(0);
  const wall = Number(await page.getByTestId('run-wall').getAttribute('data-seconds'));
  const rates = seen.map((s) => /([\d.]+) steps\/s/.exec(s.meta)?.[1]).filter(Boolean);
  console.log(`deep-live: 3 fits × ${STEPS} steps, run wall ${wall.toFixed(1)} s; steps/s seen: ${rates.join(' ')}`);
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
  expect(errors).toEqual([]);
});
