/**
 * Classroom mode and the Learn page's 2-D toy: large type and the guided demo under #classroom,
 * the slider moves the drawn unlabeled points and the decision regions (canvas pixels compared),
 * teacher hide keys, a seeded link that reproduces the picture, a 375 px phone, no console errors.
 */
import { expect, test, type Page } from '@playwright/test';

const SHOTS = 'test-results/screenshots';

function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  return errors;
}

/** Waits until the regions drawn are those of t (the worker answered for the current state). */
async function regionsFor(page: Page, t: number) {
  const plot = page.getByTestId('toy-plot');
  await expect(plot).toHaveAttribute('data-regions-t', String(t));
  await expect(plot).toHaveAttribute('data-stale', 'false');
}

const canvasPixels = (page: Page) =>
  page.getByTestId('toy-canvas').evaluate((c: HTMLCanvasElement) => {
    const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
    return Array.from(d);
  });

const unlabeledTransforms = (page: Page) =>
  page
    .locator('[data-testid=toy-overlay] g.unlabeled path')
    .evaluateAll((ps) =>
      ps.map((p) => `${p.getAttribute('transform')}|${p.getAttribute('data-kind')}`).sort(),
    );

test('#classroom: large type, the guided demo, and a slider that moves points and regions', async ({
  page,
}) => {
  const errors = watchErrors(page);
  await page.setViewportSize({ width: 1366, height: 900 });
  await page.goto('/#classroom');
  await expect(page.getByTestId('learn')).toHaveAttribute('data-classroom', 'true');
  await expect(page.getByTestId('guided-demo')).toBeVisible();
  await expect(page.getByTestId('demo-step-title')).toHaveText('1. The idea');
  const rootPx = await page.evaluate(() => parseFloat(getComputedStyle(document.documentElement).fontSize));
  const bodyPx = await page.evaluate(() => parseFloat(getComputedStyle(document.body).fontSize));
  expect(rootPx).toBe(20);
  expect(bodyPx).toBeGreaterThanOrEqual(20);

  await regionsFor(page, 0);
  const before = { px: await canvasPixels(page), pts: await unlabeledTransforms(page) };
  expect(before.px.length).toBe(64 * 64 * 4);
  await page.screenshot({ path: `${SHOTS}/classroom-desktop.png`, fullPage: true });

  // Move the slider to t = 1 with the keyboard (End), as a teacher at a projector might.
  const slider = page.getByTestId('toy-slider');
  await slider.focus();
  await page.keyboard.press('End');
  await expect(page.getByTestId('toy-t')).toHaveText('1.00');
  await regionsFor(page, 1);
  console.log(
    `toy worker: LP fit + 64×64 grid took ${await page.getByTestId('toy-plot').getAttribute('data-worker-ms')} ms at t = 1 (distribution)`,
  );
  const after = { px: await canvasPixels(page), pts: await unlabeledTransforms(page) };
  expect(after.pts).not.toEqual(before.pts);
  const changedPx = after.px.filter((v, i) => v !== before.px[i]).length;
  expect(changedPx).toBeGreaterThan(400);
  await expect(page.getByTestId('toy-caption')).toContainText('t = 1.00');
  // The address bar follows, so it reproduces this picture.
  await expect.poll(() => page.evaluate(() => location.hash)).toContain('toy_t=1');
  await page.screenshot({ path: `${SHOTS}/classroom-toy-t1.png`, fullPage: false });

  // Unseen class: pink triangles appear as t grows.
  await page.getByText('Unseen class', { exact: true }).click();
  await regionsFor(page, 1);
  expect(await page.locator('[data-testid=toy-overlay] path[data-kind=unseen]').count()).toBe(180);
  await page.getByTestId('toy').screenshot({ path: `${SHOTS}/classroom-toy-unseen.png` });
  await slider.focus();
  await page.keyboard.press('Home');
  await regionsFor(page, 0);
  expect(await page.locator('[data-testid=toy-overlay] path[data-kind=unseen]').count()).toBe(0);

  // The guided demo steps forward.
  await page.getByTestId('demo-next').click();
  await page.getByTestId('demo-next').click();
  await expect(page.getByTestId('demo-step-title')).toHaveText('3. Run it');
  await expect(page.getByTestId('demo-start')).toBeEnabled();
  // It launches the classroom preset through the shared run state; the count climbs, then we stop it.
  await page.getByTestId('demo-start').click();
  await expect(page.getByTestId('demo-progress')).toContainText(/of 864 experiments finished/);
  await expect(page.getByTestId('demo-progress').locator('strong')).not.toHaveText('0', { timeout: 90_000 });
  await page.getByTestId('guided-demo').screenshot({ path: `${SHOTS}/classroom-demo-run.png` });
  await page.getByTestId('demo-cancel').click();
  await expect(page.getByTestId('demo-progress')).toContainText('(stopped)', { timeout: 60_000 });
  expect(errors).toEqual([]);
});

test('hide keys hide the controls, and toy_seed reproduces the picture', async ({ page, browser }) => {
  const errors = watchErrors(page);
  const url =
    '/#classroom?setting_hide=1&slider_hide=1&seed_hide=1&shape_hide=1&backend_hide=1&nav_hide=1&toy_seed=7&toy_setting=feature&toy_t=0.6';
  await page.goto(url);
  await regionsFor(page, 0.6);
  await expect(page.getByTestId('toy-settings')).toHaveCount(0);
  await expect(page.getByTestId('toy-slider')).toHaveCount(0);
  await expect(page.getByTestId('toy-seed')).toHaveCount(0);
  await expect(page.getByTestId('toy-shape')).toHaveCount(0);
  await expect(page.getByRole('navigation', { name: 'Main' })).toBeHidden();
  await expect(page.getByTestId('device-badge')).toBeHidden();
  await expect(page.getByTestId('toy-caption')).toContainText('t = 0.60: 108 of 180 unlabeled points');
  expect(await page.locator('[data-testid=toy-overlay] path[data-kind=masked]').count()).toBe(108);
  await page.getByTestId('demo-next').click();
  await page.getByTestId('demo-next').click();
  await expect(page.getByTestId('backend-picker')).toHaveCount(0);
  await page.screenshot({ path: `${SHOTS}/classroom-hidden-controls.png`, fullPage: true });
  const first = { px: await canvasPixels(page), pts: await unlabeledTransforms(page) };

  // A fresh context with the same link draws the same points and regions.
  const other = await browser.newContext();
  const page2 = await other.newPage();
  await page2.goto(url);
  await regionsFor(page2, 0.6);
  expect(await unlabeledTransforms(page2)).toEqual(first.pts);
  expect(await canvasPixels(page2)).toEqual(first.px);
  await other.close();

  // Another seed gives other points.
  await page.goto('/#/learn?toy_seed=8&toy_setting=feature&toy_t=0.6');
  await regionsFor(page, 0.6);
  await expect(page.getByTestId('learn')).toHaveAttribute('data-classroom', 'false');
  await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
  expect(await unlabeledTransforms(page)).not.toEqual(first.pts);
  expect(errors).toEqual([]);
});

test('works on a 375 px phone', async ({ browser }) => {
  const ctx = await browser.newContext({
    viewport: { width: 375, height: 812 },
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
  });
  const page = await ctx.newPage();
  const errors = watchErrors(page);
  await page.goto('/#classroom');
  await regionsFor(page, 0);
  expect(await page.evaluate(() => parseFloat(getComputedStyle(document.documentElement).fontSize))).toBe(17);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  const box = await page.getByTestId('toy-plot').boundingBox();
  expect(box!.width).toBeGreaterThan(300);
  expect(box!.x + box!.width).toBeLessThanOrEqual(375);
  await page.getByText('Missing features', { exact: true }).tap();
  await page.getByTestId('toy-slider').fill('0.8');
  await regionsFor(page, 0.8);
  await page.getByTestId('toy').scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${SHOTS}/classroom-phone.png`, fullPage: true });
  expect(errors).toEqual([]);
  await ctx.close();
});
