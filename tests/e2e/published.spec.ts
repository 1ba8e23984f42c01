/**
 * The published reference in the results view: import a `paper` run (wine · feature / label · 5
 * labels, SSGMM and Tri-Training; tests/fixtures/runs/paper-wine-5.json), switch the reference on,
 * and each panel overlays the original's published curves (grey, dashed, ±std band, a legend entry)
 * and carries a verdict badge whose words are those of `rac-bench published` on the same file
 * (the rule of lib/published/agreement.ts: means within 2 standard errors, no one-sided lean).
 */
import { expect, test } from '@playwright/test';
import path from 'node:path';

const RUN = path.resolve('tests/fixtures/runs/paper-wine-5.json');

test('overlay and reproduction badge per panel', async ({ page }) => {
  await page.goto('/#/results');
  await page.getByTestId('import-file').setInputFiles(RUN);
  const grid = page.getByTestId('panel-grid');
  await expect(grid.locator('figure svg.rac-chart')).toHaveCount(2);
  await expect(grid.locator('svg.rac-chart .published path')).toHaveCount(0);
  await expect(page.getByTestId('reproduced-badge')).toHaveCount(0);

  await page.getByTestId('published-toggle').check();
  const feature = grid
    .locator('figure')
    .filter({ has: page.locator('svg[aria-label*="wine · feature · 5 labels"]') });
  const label = grid
    .locator('figure')
    .filter({ has: page.locator('svg[aria-label*="wine · label · 5 labels"]') });
  // One thin grey dashed line and one band per shown algorithm with a published series.
  await expect(feature.locator('.published path.published-line')).toHaveCount(2);
  await expect(feature.locator('.published path.published-band')).toHaveCount(2);
  await expect(feature.locator('.published path.published-line').first()).toHaveAttribute(
    'stroke-dasharray',
    '3 3',
  );
  await expect(feature.locator('.published path.published-line').first()).toHaveAttribute(
    'stroke-width',
    '1',
  );

  // The dashed curves have their own legend entry.
  await expect(feature.locator('.reference-legend text')).toHaveText('RSB published');

  // wine · feature · 5: every point of both algorithms is the published one (the original's seeds).
  const fb = feature.getByTestId('reproduced-badge');
  await expect(fb).toHaveAttribute('data-verdict', 'reproduced');
  await expect(fb.locator('summary')).toHaveText(
    "✓ Reproduced 12/12 points agree · no one-sided lean · 5 seeds vs the original's 5 · 12 exactly equal · mean Δ ±0.00 pp",
  );
  // wine · label · 5: t = 0 is a known defect of the published file (left out, said so); Tri-Training
  // differs at two points, within the noise of the means.
  const lb = label.getByTestId('reproduced-badge');
  await expect(lb).toHaveAttribute('data-points', '10');
  await expect(lb).toHaveAttribute('data-agree', '10');
  await expect(lb).toHaveAttribute('data-exact', '8');
  await expect(lb).toContainText('mean Δ +0.11 pp');
  await lb.locator('summary').click();
  await expect(lb).toContainText('2 published points left out as known defects');
  await expect(lb).toContainText(
    "Tri-Training: 5/5 points agree · no one-sided lean · 5 seeds vs the original's 5 · 3 exactly equal · mean Δ +0.22 pp",
  );
  await expect(lb).toContainText('A point agrees when |Δ| ≤ 2·√(s_pub²/n_pub + s_ours²/n_ours) + 1e-6');

  // Hiding an algorithm drops its reference too.
  await feature.locator('.legend-item[data-algorithm="tritraining"]').click();
  await expect(feature.locator('.published path.published-line')).toHaveCount(1);
  await expect(feature.getByTestId('reproduced-badge')).toContainText('6/6 points agree');

  await page.getByTestId('published-toggle').uncheck();
  await expect(grid.locator('svg.rac-chart .published path')).toHaveCount(0);
  await expect(page.getByTestId('reproduced-badge')).toHaveCount(0);
});
