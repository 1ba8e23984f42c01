/**
 * Issue 21, items 14 and 15 on the Results page, from the classroom fixture run (iris + wine × 3
 * settings × 2 labels × 4 algorithms) with two panels changed on purpose:
 *   - iris · distribution · 5: Label Spreading given Label Propagation's results, so the two
 *     curves coincide: the panel names the one that lies under the other;
 *   - iris · feature · 5: SSGMM right at every t, a flat curve: tagged "flat" and its EVM and VS
 *     of 0 are not marked best;
 * and the long metric table keeps its header row in view while it scrolls.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';

interface Cell {
  dataset: { id: string };
  setting: string;
  labels: number;
  t_index: number;
  seed: number;
  algorithm: { name: string };
  outcome: { accuracy: number; n_correct: number; n_test: number };
}

function fixture(): string {
  const run = JSON.parse(readFileSync('tests/fixtures/runs/classroom.json', 'utf8')) as { cells: Cell[] };
  const at = (c: Cell) => `${c.dataset.id}|${c.setting}|${c.labels}|${c.t_index}|${c.seed}`;
  const lp = new Map(run.cells.filter((c) => c.algorithm.name === 'lp').map((c) => [at(c), c]));
  for (const c of run.cells) {
    if (c.dataset.id !== 'iris' || c.labels !== 5) continue;
    if (c.setting === 'distribution' && c.algorithm.name === 'ls') {
      const twin = lp.get(at(c))!;
      c.outcome = {
        ...c.outcome,
        accuracy: twin.outcome.accuracy,
        n_correct: twin.outcome.n_correct,
        n_test: twin.outcome.n_test,
      };
    }
    if (c.setting === 'feature' && c.algorithm.name === 'ssgmm')
      c.outcome = { ...c.outcome, accuracy: 1, n_correct: c.outcome.n_test };
  }
  const file = join(mkdtempSync(join(tmpdir(), 'rac-read-')), 'run.json');
  writeFileSync(file, JSON.stringify(run));
  return file;
}

test('coinciding curves are named, a flat curve is not best, and the long table keeps its header', async ({
  page,
}) => {
  await page.goto('/#/results');
  await page.getByTestId('import-file').setInputFiles(fixture());
  const figures = page.getByTestId('panel-grid').locator('figure');
  await expect(figures.locator('svg.rac-chart')).toHaveCount(12);

  // Item 15: the hidden curve is named under its panel, and only there.
  const notes = page.getByTestId('chart-coinciding');
  await expect(notes.filter({ hasText: 'Label Propagation and Label Spreading' })).toHaveCount(1);
  await expect(notes.filter({ hasText: 'Label Propagation and Label Spreading' })).toHaveText(
    'Label Propagation and Label Spreading have the same mean accuracy at every t, so their lines coincide: Label Propagation lies under Label Spreading.',
  );
  const panel = figures.filter({ has: page.locator('svg[aria-label*="iris · distribution · 5 labels"]') });
  await expect(panel.getByTestId('chart-coinciding')).toHaveCount(1);

  // Item 14: the flat SSGMM row is tagged, and its EVM/VS of 0 are not marked best.
  const table = page.getByTestId('metrics-table');
  const flat = table
    .locator('tbody tr[data-algorithm="ssgmm"]')
    .filter({ has: page.getByTestId('metrics-flat') });
  await expect(flat).toHaveCount(1);
  await expect(flat.locator('td.pc').first()).toHaveText('iris');
  await expect(flat.locator('td.pc').nth(1)).toHaveText('feature');
  await expect(flat.locator('td[data-col="evm"]')).toHaveText(/^0\.000/);
  await expect(flat.locator('td[data-col="evm"].best, td[data-col="vs"].best')).toHaveCount(0);
  await expect(flat.getByTestId('metrics-flat')).toHaveAttribute(
    'title',
    /^flat: the same accuracy at every t/,
  );

  // Item 15: 48 rows scroll inside their box, and the header row stays at its top.
  const box = page.getByRole('region', { name: 'RAC metrics table' });
  await box.evaluate((el) => (el.scrollTop = 400));
  expect(await box.evaluate((el) => el.scrollTop)).toBeGreaterThan(0);
  const [boxTop, headTop] = await Promise.all([
    box.evaluate((el) => el.getBoundingClientRect().top),
    table
      .locator('thead th')
      .first()
      .evaluate((el) => el.getBoundingClientRect().top),
  ]);
  expect(Math.abs(headTop - boxTop)).toBeLessThan(2);
  const rowTop = await table
    .locator('tbody tr[data-algorithm]')
    .first()
    .evaluate((el) => el.getBoundingClientRect().top);
  expect(rowTop).toBeLessThan(boxTop);
});
