/**
 * Reproduction claims on the Results page (issue 21, items 6–7; issue 18, item 5):
 * - an image/text run of the `features` tier (tests/fixtures/runs/image-features-2.json) with the
 *   overlay on draws "RSB published · finetune" on the same panel and pair, marked "different
 *   protocol", with no reproduction verdict; the switch travels in the link (`pub=on`) and the
 *   verdict line in the panel's SVG export;
 * - a schema-valid run file whose cells carry two `protocol.overrides` for one algorithm is refused
 *   in one sentence (it was a raw `each_key_duplicate`), and the next valid file opens.
 */
import { expect, test } from '@playwright/test';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { offline } from './offline.ts';

const IMAGE = path.resolve('tests/fixtures/runs/image-features-2.json');
const WINE = path.resolve('tests/fixtures/runs/paper-wine-5.json');

test('image/text features run: the published finetune curve is a different protocol, in links and exports', async ({
  page,
  context,
}) => {
  const outside = await offline(context);
  await page.goto('/#/results');
  await page.getByTestId('import-file').setInputFiles(IMAGE);
  const grid = page.getByTestId('panel-grid');
  await expect(grid.locator('figure svg.rac-chart')).toHaveCount(2);
  await expect(page.getByTestId('reproduced-badge')).toHaveCount(0);

  await page.getByTestId('published-toggle').check();
  await expect(page).toHaveURL(/[?&]pub=on/);
  const badges = page.getByTestId('reproduced-badge');
  await expect(badges).toHaveCount(2);
  for (const b of await badges.all()) {
    await expect(b).toHaveAttribute('data-verdict', 'different-protocol');
    await expect(b.locator('summary')).toHaveText(
      "Different protocol reference only, no reproduction verdict: this run's tier is features, the published curves are finetune (ResNet-50 / RoBERTa-base)",
    );
    await expect(b).not.toContainText('Reproduced');
  }
  // The same panel and pair: Image-CLEF i → p gets the published FixMatch curve of i → p.
  const clef = grid.locator('figure[data-panel*="image-clef:i->p"]');
  await expect(clef.locator('.published path.published-line[data-algorithm="fixmatch"]')).toHaveCount(1);
  await expect(clef.locator('.published')).toHaveAttribute('data-muted', 'true');
  await expect(clef.locator('.reference-legend text')).toHaveText(
    'RSB published · finetune (different protocol)',
  );

  // The exported panel carries the legend entry and the verdict line.
  const download = page.waitForEvent('download');
  await clef.getByTestId('panel-export-svg').click();
  const svg = readFileSync(await (await download).path(), 'utf8');
  expect(svg).toContain('RSB published · finetune (different protocol)');
  expect(svg).toContain('class="figure-note"');
  expect(svg).toMatch(/RSB published · finetune · Different protocol: reference only, no reproduction/);

  // The switch travels in the link: a page opened with pub=on has the overlay on from the start.
  await page.goto('/#/results?v=1&pub=on');
  await page.reload();
  await page.getByTestId('import-file').setInputFiles(IMAGE);
  await expect(page.getByTestId('published-toggle')).toBeChecked();
  await expect(page.getByTestId('reproduced-badge')).toHaveCount(2);
  await page.getByTestId('published-toggle').uncheck();
  await expect(page).not.toHaveURL(/pub=/);
  await expect(page.getByTestId('reproduced-badge')).toHaveCount(0);
  expect(outside).toEqual([]);
});

test('a run file with two protocol.overrides for one algorithm is refused in one sentence; the next valid file opens', async ({
  page,
}) => {
  const bad = JSON.parse(readFileSync(WINE, 'utf8'));
  bad.cells[1].protocol.overrides = { 'ssgmm.maxIter': 5 };
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'rac-e2e-')), 'two-overrides.json');
  writeFileSync(file, JSON.stringify(bad));
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));

  await page.goto('/#/results');
  await page.getByTestId('import-file').setInputFiles(file);
  await expect(page.getByTestId('import-error')).toHaveText(
    '"two-overrides.json" is not a run RAC Bench could have made: ssgmm on wine · feature · 5 labels has ' +
      'protocol.overrides {} in cells[0] and {"ssgmm.maxIter":5} in cells[1]; a run holds one protocol per ' +
      'algorithm and panel, so its curve cannot be drawn.',
  );
  await expect(page.getByTestId('panel-grid')).toHaveCount(0);
  await expect(page.getByText('each_key_duplicate')).toHaveCount(0);

  await page.getByTestId('import-file').setInputFiles(WINE);
  await expect(page.getByTestId('import-error')).toHaveCount(0);
  await expect(page.getByTestId('panel-grid').locator('figure svg.rac-chart')).toHaveCount(2);
  await expect(page.getByTestId('results-cannot-show')).toHaveCount(0);
  expect(errors).toEqual([]);
});
