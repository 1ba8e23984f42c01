/**
 * Content-Security-Policy (issue 12, row 11): the built site carries the policy as a meta tag and
 * as response headers (the preview server sends what dist/_headers says, so workers are covered
 * too), and a full classroom run, the Learn toy, share, import and a CSV import cause no
 * violation — no securitypolicyviolation event, no "Refused to …" console message — while the
 * bench workers still run on WASM (a blocked wasm compile would fall back to another backend).
 */
import { readFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { CSP_HEADER, CSP_META } from '../../src/lib/env/csp.ts';
import { offline } from './offline.ts';

const CLASSROOM_CELLS = 864;

/** Collects violations in the page (events) and in the page and its workers (console). */
async function watchCsp(page: Page): Promise<string[]> {
  const seen: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) seen.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => {
    if (/Content Security Policy|Refused to/i.test(e.message)) seen.push(`pageerror: ${e.message}`);
  });
  await page.exposeFunction('__cspViolation', (v: string) => seen.push(`event: ${v}`));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      (window as unknown as { __cspViolation: (v: string) => void }).__cspViolation(
        `${e.violatedDirective} blocked ${e.blockedURI} (${e.sourceFile}:${e.lineNumber})`,
      );
    });
  });
  return seen;
}

async function runBackends(page: Page): Promise<string[]> {
  return page.evaluate(async () => {
    const db: IDBDatabase = await new Promise((res, rej) => {
      const r = indexedDB.open('rac-bench-runs');
      r.onsuccess = () => res(r.result);
      r.onerror = () => rej(r.error);
    });
    const cells: { result: { env: { backend: string } } | null }[] = await new Promise((res, rej) => {
      const r = db.transaction('cells').objectStore('cells').getAll();
      r.onsuccess = () => res(r.result);
      r.onerror = () => rej(r.error);
    });
    db.close();
    return [...new Set(cells.flatMap((c) => (c.result ? [c.result.env.backend] : [])))];
  });
}

test('the built site sends the policy: meta tag, headers on the page and on worker scripts, dist/_headers', async ({
  page,
}) => {
  const workerHeaders: string[] = [];
  page.on('response', (r) => {
    if (/\.worker-.*\.js$|worker.*\.js$/.test(r.url()))
      workerHeaders.push(r.headers()['content-security-policy'] ?? '');
  });
  const res = await page.goto('/#/run');
  expect(res?.headers()['content-security-policy']).toBe(CSP_HEADER);
  await expect(page.locator('meta[http-equiv="Content-Security-Policy"]')).toHaveAttribute(
    'content',
    CSP_META,
  );
  await expect(page.getByTestId('device-badge')).toBeVisible();
  await expect.poll(() => workerHeaders.length).toBeGreaterThan(0);
  expect(new Set(workerHeaders)).toEqual(new Set([CSP_HEADER]));
  const outDir =
    process.env.E2E_OUT_DIR ??
    (Number(process.env.E2E_PORT ?? 4173) === 4173 ? 'dist' : `.cache/dist-${process.env.E2E_PORT}`);
  expect(readFileSync(`${outDir}/_headers`, 'utf8')).toContain(`Content-Security-Policy: ${CSP_HEADER}`);
});

test('the policy is enforced and the watcher sees it: an injected inline script is refused and reported', async ({
  page,
}) => {
  const violations = await watchCsp(page);
  await page.goto('/#/about');
  const ran = await page.evaluate(() => {
    const s = document.createElement('script');
    s.textContent = 'window.__inlineRan = true';
    document.body.append(s);
    return (window as unknown as { __inlineRan?: boolean }).__inlineRan === true;
  });
  expect(ran).toBe(false);
  await expect.poll(() => violations.some((v) => v.startsWith('event: script-src'))).toBe(true);
});

test('no CSP violation during a full classroom run, the toy, share, import and a CSV import', async ({
  page,
  context,
}) => {
  await offline(context);
  const violations = await watchCsp(page);
  await page.goto('/#/run');
  await expect(page.getByTestId('run-preset')).toHaveValue('classroom');
  await page.getByTestId('run-start').click();
  await expect(page.getByTestId('run-phase')).toHaveAttribute('data-phase', 'done', { timeout: 170_000 });
  await expect(page.getByTestId('run-progress')).toHaveAttribute('data-done', String(CLASSROOM_CELLS));
  await expect(page.getByTestId('run-progress')).toHaveAttribute('data-failed', '0');
  expect(await runBackends(page)).toEqual(['wasm']);

  // Results of that run, then share it as a link.
  await page.getByTestId('run-open-results').click();
  await expect(page.locator('svg.rac-chart').first()).toBeVisible();
  await page.getByTestId('share-button').click();
  await expect(page.getByTestId('permalink-input')).toHaveValue(/#\/results\?v=1&.*&r=1\./);
  const url = await page.getByTestId('permalink-input').inputValue();
  await page.keyboard.press('Escape');
  await page.goto(url);
  await expect(page.getByTestId('results-shown')).toBeVisible();

  // Import a run file.
  await page.goto('/#/results');
  await page.getByTestId('import-file').setInputFiles('tests/fixtures/runs/classroom.json');
  await expect(page.getByTestId('results-shown')).toHaveAttribute('data-run-id', /.+/);

  // The Learn page's toy worker.
  await page.goto('/#classroom');
  await expect(page.getByTestId('toy-plot')).toHaveAttribute('data-stale', 'false');

  // A CSV import (data worker, IndexedDB).
  await page.goto('/#/data');
  await page.getByTestId('csv-file').setInputFiles('tests/fixtures/csv/valid.csv');
  await page.getByTestId('csv-name').fill('CSP check');
  await expect(page.getByTestId('csv-summary')).toContainText('72 rows');
  await page.getByTestId('csv-save').click();
  await expect(page.getByTestId('csv-saved')).toBeVisible();

  expect(violations).toEqual([]);
});
