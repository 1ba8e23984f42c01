/**
 * The app shell against the built site on Debian Chromium, whose WebGPU adapter here is
 * SwiftShader (a software fallback), so auto must pick WASM.
 */
import { expect, test, type Page } from '@playwright/test';

const SHOTS = 'test-results/screenshots';

/** Collects console errors, page errors and requests to hosts other than localhost. */
function watch(page: Page) {
  const errors: string[] = [];
  const foreign: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (u.protocol === 'data:' || u.protocol === 'blob:') return;
    if (!['localhost', '127.0.0.1'].includes(u.hostname)) foreign.push(r.url());
  });
  return { errors, foreign };
}

async function waitForBackend(page: Page, backend: string, timeout = 60_000) {
  try {
    await page.waitForFunction(
      (b) => window.__rac?.backendReport()?.backend === b && window.__rac.selfCheck() !== null,
      backend,
      { timeout },
    );
  } catch (e) {
    // Say what the worker did instead (e.g. which init failed and why).
    const state = await page.evaluate(() => ({
      status: window.__rac?.backendStatus(),
      report: window.__rac?.backendReport(),
      check: window.__rac?.selfCheck(),
    }));
    throw new Error(
      `waiting for backend ${backend}: ${(e as Error).message}\nstate: ${JSON.stringify(state)}`,
      { cause: e },
    );
  }
}

test('loads offline-clean, picks WASM on SwiftShader and says why', async ({ page }) => {
  const seen = watch(page);
  await page.goto('/');
  await expect(page.getByRole('link', { name: 'RAC Bench home' })).toBeVisible();
  await expect(page.getByTestId('results-placeholder')).toHaveText(/Run a benchmark to see RACs here/);

  await waitForBackend(page, 'wasm');
  const report = await page.evaluate(() => window.__rac.backendReport());
  expect(report).toMatchObject({
    backend: 'wasm',
    requested: 'auto',
    chosen: 'wasm',
    reason: 'WebGPU adapter is a software fallback (SwiftShader), so WASM is faster here.',
    adapter: { vendor: 'google', architecture: 'swiftshader', isFallbackAdapter: true },
    tfjsVersion: '4.22.0',
    fallbacks: [],
  });
  expect(report!.initMs).toBeGreaterThan(0);
  const check = await page.evaluate(() => window.__rac.selfCheck());
  expect(check).toMatchObject({ backend: 'wasm', n: 64, ok: true, numTensorsBefore: 0, numTensorsAfter: 0 });
  expect(check!.maxAbsDiffVsCpu).toBeLessThan(1e-4);

  const badge = page.getByTestId('device-badge');
  await expect(badge).toHaveText('WASM · SwiftShader fallback adapter');
  await expect(badge).toHaveAttribute('data-tone', 'ok');
  await badge.click();
  await expect(page.getByTestId('backend-reason')).toHaveText(report!.reason);
  await expect(page.getByTestId('adapter-info')).toContainText('google / swiftshader');
  await expect(page.getByTestId('adapter-info')).toContainText('fallback (software)');
  await expect(page.getByTestId('self-check')).toContainText('passed');
  await page.screenshot({ path: `${SHOTS}/desktop-details.png` });
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('device-details')).toHaveCount(0);
  await page.screenshot({ path: `${SHOTS}/desktop.png`, fullPage: true });

  expect(seen.errors).toEqual([]);
  expect(seen.foreign).toEqual([]);
});

test('overriding to WebGPU runs tfjs-webgpu in the worker, persists, and survives a device loss', async ({
  page,
}) => {
  const seen = watch(page);
  await page.goto('/');
  await waitForBackend(page, 'wasm');
  await page.getByTestId('device-badge').click();
  await page.getByTestId('backend-picker').selectOption('webgpu');
  await expect(page).toHaveURL(/#\/\?v=1&backend=webgpu$/);

  // SwiftShader compiles shaders on the CPU: the first matmul takes seconds.
  await waitForBackend(page, 'webgpu', 120_000);
  const report = await page.evaluate(() => window.__rac.backendReport());
  expect(report).toMatchObject({
    backend: 'webgpu',
    requested: 'webgpu',
    reason: 'You chose WebGPU.',
    fallbacks: [],
  });
  const check = await page.evaluate(() => window.__rac.selfCheck());
  expect(check).toMatchObject({ backend: 'webgpu', ok: true, numTensorsBefore: 0, numTensorsAfter: 0 });
  expect(check!.maxAbsDiffVsCpu).toBeLessThan(1e-4);
  await expect(page.getByTestId('device-badge')).toHaveText('WebGPU · SwiftShader fallback adapter');

  // The choice persists: localStorage brings it back on a URL without the key.
  expect(await page.evaluate(() => localStorage.getItem('rac-bench.backend'))).toBe('webgpu');
  await page.goto('/#/about');
  await waitForBackend(page, 'webgpu', 120_000);

  // Losing the GPU device moves the worker to WASM and the badge says so.
  expect(await page.evaluate(() => window.__rac.simulateDeviceLost())).toBe(true);
  await expect(page.getByTestId('device-badge')).toHaveText('GPU device lost — switched to WASM');
  await waitForBackend(page, 'wasm');
  const lost = await page.evaluate(() => window.__rac.backendReport());
  expect(lost!.reason).toMatch(/^GPU device lost \(destroyed.*\) — switched to WASM\.$/);
  expect(await page.evaluate(() => window.__rac.selfCheck()?.ok)).toBe(true);

  expect(seen.errors).toEqual([]);
  expect(seen.foreign).toEqual([]);
});

for (const b of ['cpu', 'webgl'] as const) {
  test(`a backend named in the URL is used: ${b}`, async ({ page }) => {
    await page.goto(`/#/?v=1&backend=${b}`);
    await waitForBackend(page, b);
    const report = await page.evaluate(() => window.__rac.backendReport());
    expect(report).toMatchObject({ backend: b, requested: b, fallbacks: [] });
    expect(report!.reason).toBe(`You chose ${b === 'cpu' ? 'CPU' : 'WebGL'}.`);
    expect(await page.evaluate(() => window.__rac.selfCheck())).toMatchObject({
      backend: b,
      ok: true,
      numTensorsAfter: 0,
    });
  });
}

test('when the WASM binary cannot load, init falls through to WebGL and says why', async ({ page }) => {
  await page.route('**/*.wasm', (route) => route.abort());
  await page.goto('/');
  await waitForBackend(page, 'webgl');
  const report = await page.evaluate(() => window.__rac.backendReport());
  expect(report).toMatchObject({ backend: 'webgl', chosen: 'wasm', requested: 'auto' });
  expect(report!.fallbacks).toHaveLength(1);
  expect(report!.fallbacks[0]).toMatch(/^wasm: /);
  expect(report!.reason).toMatch(/^WASM failed to start \(.+\), so WebGL is used instead\.$/);
  expect(await page.evaluate(() => window.__rac.selfCheck()?.ok)).toBe(true);
  const badge = page.getByTestId('device-badge');
  await expect(badge).toHaveText('WebGL · SwiftShader fallback adapter');
  await expect(badge).toHaveAttribute('data-tone', 'warn');
  await badge.click();
  await expect(page.getByText('What was tried (1)')).toBeVisible();
});

test('About lists dataset licences and citations', async ({ page }) => {
  await page.goto('/');
  await page.getByRole('link', { name: 'About' }).first().click();
  await expect(page).toHaveURL(/#\/about/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('About RAC Bench');
  // A route change starts at the top, with focus on the page content.
  expect(await page.evaluate(() => [scrollY, document.activeElement?.id])).toEqual([0, 'main']);
  const table = page.getByTestId('dataset-licences');
  for (const name of ['Iris', 'Wine', 'Letter Recognition', 'Covertype'])
    await expect(table).toContainText(name);
  await expect(table).toContainText('CC BY 4.0');
  await expect(table).toContainText('https://doi.org/10.24432/C56C76');
  await expect(page.getByTestId('software-licences')).toContainText('TensorFlow.js');
  await expect(page.getByTestId('software-licences')).toContainText('4.22.0');
  await expect(page).toHaveTitle('About · RAC Bench');
  await page.screenshot({ path: `${SHOTS}/about.png`, fullPage: true });
});

test('the dataset list shows iris and wine', async ({ page }) => {
  await page.goto('/');
  const list = page.getByRole('region', { name: 'Datasets' });
  await expect(list).toContainText(/iris/i);
  await expect(list).toContainText(/wine/i);
});

test('keyboard reaches the main controls', async ({ page }) => {
  await page.goto('/');
  await waitForBackend(page, 'wasm');
  const reached: string[] = [];
  for (let i = 0; i < 12; i++) {
    await page.keyboard.press('Tab');
    reached.push(
      await page.evaluate(() => {
        const el = document.activeElement as HTMLElement | null;
        return el
          ? `${el.tagName.toLowerCase()}:${el.getAttribute('data-testid') ?? el.textContent?.trim()}`
          : '';
      }),
    );
  }
  expect(reached).toContain('a:Skip to content');
  for (const name of ['Home', 'Run', 'Results', 'Learn', 'About']) expect(reached).toContain(`a:${name}`);
  expect(reached).toContain('button:device-badge');

  await page.getByTestId('device-badge').focus();
  await page.keyboard.press('Enter');
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe(
    'backend-picker',
  );
  // The focus ring is visible (an outline, not 'none').
  expect(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle)).not.toBe('none');
  await page.keyboard.press('Escape');
  expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('device-badge');
});

test.describe('phone viewport', () => {
  test.use({ viewport: { width: 375, height: 740 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
  test('renders at 375px without horizontal scroll', async ({ page }) => {
    await page.goto('/');
    await waitForBackend(page, 'wasm');
    const overflow = () =>
      page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(await overflow()).toBe(0);
    await page.screenshot({ path: `${SHOTS}/phone.png`, fullPage: true });
    await page.getByTestId('device-badge').click();
    await expect(page.getByTestId('self-check')).toContainText('passed');
    expect(await overflow()).toBe(0);
    await page.screenshot({ path: `${SHOTS}/phone-details.png` });
    await page.goto('/#/about');
    expect(await overflow()).toBe(0);
  });
});

test.describe('dark mode', () => {
  test.use({ colorScheme: 'dark' });
  test('uses the dark palette', async ({ page }) => {
    await page.goto('/');
    await waitForBackend(page, 'wasm');
    const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(bg).toBe('rgb(15, 18, 24)');
    await page.screenshot({ path: `${SHOTS}/dark.png`, fullPage: true });
  });
});
