import { expect, test, type Page } from '@playwright/test';
import { holdAfter, release, simulateCrash, simulateDeviceLost, waitHeld } from './runHooks.ts';

/** Classroom preset: 2 datasets × 3 settings × 2 labels × 4 algorithms × 6 t × 3 seeds. */
const CLASSROOM_CELLS = 864;
/** Curves: 4 algorithms × 2 datasets × 3 settings × 2 labels. */
const CLASSROOM_CURVES = 48;

async function progress(page: Page): Promise<{ done: number; total: number; failed: number }> {
  const el = page.getByTestId('run-progress');
  const [done, total, failed] = await Promise.all(
    ['data-done', 'data-total', 'data-failed'].map((a) => el.getAttribute(a)),
  );
  return { done: Number(done), total: Number(total), failed: Number(failed) };
}

/** Every stored cell of the newest run, read straight from IndexedDB. */
async function storedCells(page: Page): Promise<{
  runId: string;
  status: string;
  keys: string[];
  statuses: string[];
  msPerAlgorithm: Record<string, number>;
  backends: string[];
  errors: string[];
}> {
  return page.evaluate(async () => {
    const db: IDBDatabase = await new Promise((res, rej) => {
      const r = indexedDB.open('rac-bench-runs');
      r.onsuccess = () => res(r.result);
      r.onerror = () => rej(r.error);
    });
    const all = <T>(store: string): Promise<T[]> =>
      new Promise((res, rej) => {
        const r = db.transaction(store).objectStore(store).getAll();
        r.onsuccess = () => res(r.result as T[]);
        r.onerror = () => rej(r.error);
      });
    const runs = await all<{ id: string; status: string; created_at: string }>('runs');
    runs.sort((a, b) => (a.created_at < b.created_at ? 1 : -1));
    type Cell = {
      runId: string;
      key: string;
      status: string;
      error: string | null;
      result: {
        algorithm: { name: string };
        timing: { fit_ms: number; predict_ms: number };
        env: { backend: string };
      } | null;
    };
    const cells = (await all<Cell>('cells')).filter((c) => c.runId === runs[0].id);
    db.close();
    const msPerAlgorithm: Record<string, number> = {};
    const backends = new Set<string>();
    for (const c of cells) {
      if (!c.result) continue;
      backends.add(c.result.env.backend);
      const a = c.result.algorithm.name;
      msPerAlgorithm[a] = Math.round(
        (msPerAlgorithm[a] ?? 0) + c.result.timing.fit_ms + c.result.timing.predict_ms,
      );
    }
    return {
      runId: runs[0].id,
      status: runs[0].status,
      keys: cells.map((c) => c.key),
      statuses: cells.map((c) => c.status),
      msPerAlgorithm,
      backends: [...backends],
      errors: cells.flatMap((c) => (c.error ? [`${c.key}: ${c.error}`] : [])),
    };
  });
}

test('classroom preset runs end to end from the Start button and fills the results table', async ({
  page,
}) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto('/#/run');
  await expect(page.getByTestId('run-preset')).toHaveValue('classroom');
  await expect(page.getByTestId('run-plan-size')).toContainText(`${CLASSROOM_CELLS} results`);
  const t0 = Date.now();
  await page.getByTestId('run-start').click();
  await expect(page.getByTestId('run-phase')).toHaveAttribute('data-phase', 'done', { timeout: 170_000 });
  const wallMs = Date.now() - t0;
  const p = await progress(page);
  expect(p).toEqual({ done: CLASSROOM_CELLS, total: CLASSROOM_CELLS, failed: 0 });
  const inPage = Number(await page.getByTestId('run-wall').getAttribute('data-seconds'));
  console.log(
    `classroom preset: ${CLASSROOM_CELLS} cells, wall ${(wallMs / 1000).toFixed(1)} s (in-page ${inPage.toFixed(1)} s)`,
  );

  // The live charts are the default view; the plain per-t table is one click away.
  await expect(page.getByTestId('results-view')).toBeVisible();
  await page.getByTestId('run-show-table').click();
  const table = page.getByTestId('results-table');
  await expect(table).toHaveAttribute('data-rows', String(CLASSROOM_CURVES));
  await expect(table).toHaveAttribute('data-cells', String(CLASSROOM_CELLS));
  // Every curve has an accuracy at every t, and accuracies are proportions of a test set.
  const means = await page
    .locator('[data-testid="results-row"] td[data-t]')
    .evaluateAll((tds) => tds.map((td) => td.getAttribute('data-mean')));
  expect(means.length).toBe(CLASSROOM_CURVES * 6);
  for (const m of means) {
    expect(m).not.toBe('');
    expect(Number(m)).toBeGreaterThan(0.2);
    expect(Number(m)).toBeLessThanOrEqual(1);
  }
  // The supervised baseline is flat in t by construction (its t > 0 cells copy t = 0).
  const xgb = page.locator('[data-testid="results-row"][data-curve="xgb|iris|distribution|5"] td[data-t]');
  const xgbMeans = await xgb.evaluateAll((tds) => tds.map((td) => td.getAttribute('data-mean')));
  expect(new Set(xgbMeans).size).toBe(1);

  const stored = await storedCells(page);
  console.log(
    `fit+predict ms per algorithm (summed over cells, ${stored.backends.join('/')}): ${JSON.stringify(stored.msPerAlgorithm)}`,
  );
  expect(stored.status).toBe('done');
  expect(stored.keys.length).toBe(CLASSROOM_CELLS);
  expect(new Set(stored.keys).size).toBe(CLASSROOM_CELLS);
  expect(stored.statuses.filter((s) => s !== 'ok')).toEqual([]);

  // The finished run opens in the Results page by its id (from this browser's history).
  const open = page.getByTestId('run-open-results');
  await expect(open).toHaveAttribute('href', `#/results?v=1&run=${encodeURIComponent(stored.runId)}`);
  await open.click();
  await expect(page.getByTestId('results-shown')).toHaveAttribute('data-run-id', stored.runId);
  expect(errors).toEqual([]);
});

test('a reload mid-run offers Resume; the resumed run completes with every key once', async ({ page }) => {
  await page.goto('/#/run');
  // Part of the run lands in IndexedDB (40 fits, held there whatever the machine's speed), then a
  // reload while the rest waits.
  await holdAfter(page, 40);
  await page.getByTestId('run-start').click();
  await waitHeld(page);
  // 40 fits stored (a baseline fit stores its t > 0 cells too); the progress line catches up.
  const before = (await storedCells(page)).keys.length;
  expect(before).toBeGreaterThanOrEqual(40);
  expect(before).toBeLessThan(CLASSROOM_CELLS);
  await expect.poll(async () => (await progress(page)).done).toBe(before);
  await page.reload();

  const resume = page.getByTestId('run-resume');
  await expect(resume).toHaveCount(1);
  await expect(page.getByTestId('run-resumable')).toContainText(`/ ${CLASSROOM_CELLS}`);
  const savedAfterReload = (await storedCells(page)).keys.length;
  expect(savedAfterReload).toBeGreaterThanOrEqual(before);
  await resume.click();

  // The finished count never goes backwards, from the reload to the end.
  const seen: number[] = [];
  await expect
    .poll(
      async () => {
        const p = await progress(page);
        seen.push(p.done);
        return await page.getByTestId('run-phase').getAttribute('data-phase');
      },
      { timeout: 170_000, intervals: [200] },
    )
    .toBe('done');
  seen.push((await progress(page)).done);
  expect(seen[0]).toBeGreaterThanOrEqual(savedAfterReload);
  for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThanOrEqual(seen[i - 1]);
  expect(seen[seen.length - 1]).toBe(CLASSROOM_CELLS);

  const stored = await storedCells(page);
  expect(stored.status).toBe('done');
  expect(stored.keys.length).toBe(CLASSROOM_CELLS);
  expect(new Set(stored.keys).size).toBe(CLASSROOM_CELLS);
  await page.getByTestId('run-show-table').click();
  await expect(page.getByTestId('results-table')).toHaveAttribute('data-cells', String(CLASSROOM_CELLS));
  await expect(page.getByTestId('run-resume')).toHaveCount(0);
});

test('a worker that crashes mid-run is replaced and its cell retried; the run completes', async ({
  page,
}) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto('/#/run');
  await page.getByTestId('run-preset').selectOption('custom');
  const custom = page.getByTestId('run-custom');
  // iris + wine, label setting, labels 5, lp + tsvm, seeds 0–4, all t: 120 cells.
  const box = (group: string, value: string) =>
    custom.locator(`[data-group="${group}"] input[value="${value}"]`);
  const uncheck = async (group: string, value: string) => box(group, value).uncheck();
  for (const seed of ['3', '4']) await box('seeds', seed).check();
  await uncheck('settings', 'distribution');
  await uncheck('settings', 'feature');
  await uncheck('labels', '10');
  for (const a of ['xgb', 'ls', 'ssgmm']) await uncheck('algorithms', a);
  await box('algorithms', 'tsvm').check();
  await expect(page.getByTestId('run-plan-size')).toContainText('120 results (120 model fits)');
  await page.getByTestId('run-workers').fill('1');
  // Held after 3 fits: the worker crashes with 117 fits to go, on any machine.
  await holdAfter(page, 3);
  await page.getByTestId('run-start').click();
  await waitHeld(page);
  expect(await simulateCrash(page, 0)).toBe(true);
  await release(page);
  await expect(page.getByTestId('run-phase')).toHaveAttribute('data-phase', 'done', { timeout: 120_000 });
  expect(await progress(page)).toEqual({ done: 120, total: 120, failed: 0 });
  await expect(page.getByTestId('run-restarts')).toHaveAttribute('data-restarts', '1');
  const stored = await storedCells(page);
  expect(stored.keys.length).toBe(120);
  expect(new Set(stored.keys).size).toBe(120);
  expect(stored.statuses.every((s) => s === 'ok')).toBe(true);
  expect(errors).toEqual([]);
});

test('a lost WebGPU device mid-run: the worker is replaced on WASM and the run completes', async ({
  page,
}) => {
  await page.goto('/#/run?v=1&backend=webgpu');
  await page.getByTestId('run-preset').selectOption('custom');
  const custom = page.getByTestId('run-custom');
  const box = (group: string, value: string) =>
    custom.locator(`[data-group="${group}"] input[value="${value}"]`);
  // iris + wine, every setting, labels 5, lp, seeds 0–2: 108 cells.
  await box('labels', '10').uncheck();
  for (const a of ['xgb', 'ls', 'ssgmm']) await box('algorithms', a).uncheck();
  await expect(page.getByTestId('run-plan-size')).toContainText('108 results (108 model fits)');
  await page.getByTestId('run-workers').fill('1');
  // Held after 3 fits on WebGPU: the device is lost with 105 fits to go, on any machine.
  await holdAfter(page, 3);
  await page.getByTestId('run-start').click();
  await expect(page.getByTestId('run-worker').first()).toContainText('webgpu', { timeout: 60_000 });
  await waitHeld(page);
  expect(await simulateDeviceLost(page, 0)).toBe(true);
  await release(page);
  await expect(page.getByTestId('run-phase')).toHaveAttribute('data-phase', 'done', { timeout: 120_000 });
  expect((await storedCells(page)).errors).toEqual([]);
  expect(await progress(page)).toEqual({ done: 108, total: 108, failed: 0 });
  await expect(page.getByTestId('run-restarts')).toHaveAttribute('data-restarts', '1');
  const stored = await storedCells(page);
  expect(stored.keys.length).toBe(108);
  expect(new Set(stored.keys).size).toBe(108);
  // Cells before the loss ran on WebGPU, the rest on the fallback.
  expect(stored.backends.sort()).toEqual(['wasm', 'webgpu']);
});

test('two tabs: a run executed by one tab is not offered for Resume in the other until that tab closes', async ({
  context,
}) => {
  const a = await context.newPage();
  await a.goto('/#/run');
  await a.getByTestId('run-preset').selectOption('custom');
  const box = (group: string, value: string) =>
    a.getByTestId('run-custom').locator(`[data-group="${group}"] input[value="${value}"]`);
  // iris + wine, every setting, labels 5 and 10, lp, seeds 0–2: 216 cells on one worker. Tab A holds
  // after 3 fits, so it is still running when it closes, on a fast machine and a loaded one.
  for (const alg of ['xgb', 'ls', 'ssgmm']) await box('algorithms', alg).uncheck();
  await expect(a.getByTestId('run-plan-size')).toContainText('216 results (216 model fits)');
  await a.getByTestId('run-workers').fill('1');
  await holdAfter(a, 3);
  await a.getByTestId('run-start').click();
  await waitHeld(a);
  await expect.poll(async () => (await progress(a)).done).toBe(3);

  // Tab B sees the run, but tab A holds its Web Lock: no Resume, no Discard.
  const b = await context.newPage();
  await b.goto('/#/run');
  const row = b.getByTestId('run-resumable-row');
  await expect(row).toHaveCount(1);
  await expect(row).toHaveAttribute('data-elsewhere', 'true');
  await expect(row.getByTestId('run-elsewhere')).toHaveText('running in another tab');
  await expect(b.getByTestId('run-resume')).toHaveCount(0);
  await expect(b.getByTestId('run-discard')).toHaveCount(0);
  expect((await progress(a)).done).toBe(3);

  // Closing tab A releases the lock: B offers Resume at once, with the cells A saved.
  await a.close();
  await expect(row).toHaveAttribute('data-elsewhere', 'false');
  await expect(b.getByTestId('run-resume')).toHaveCount(1);
  const saved = (await storedCells(b)).keys.length;
  expect(saved).toBe(3);
  await expect(row).toHaveAttribute('data-done', String(saved));
  await expect(row).toContainText(`${saved} / 216 cells saved`);

  await b.getByTestId('run-resume').click();
  await expect(b.getByTestId('run-phase')).toHaveAttribute('data-phase', 'done', { timeout: 150_000 });
  expect(await progress(b)).toEqual({ done: 216, total: 216, failed: 0 });
  const stored = await storedCells(b);
  expect(stored.status).toBe('done');
  expect(new Set(stored.keys).size).toBe(216);
  expect(stored.keys.length).toBe(216);
});
