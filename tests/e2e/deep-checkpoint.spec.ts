/**
 * A deep fit survives a closed tab (issue 20, item 4): real headless Chromium on WASM, one tiny
 * FlexMatch fit on iris. The fit saves its checkpoint to IndexedDB every 10 steps and is held
 * once the first is stored (window.__racRun.holdAtCheckpoint: mid-fit by construction, on a fast
 * machine and a loaded one); the tab is closed there, a new tab resumes the run, the fit goes on
 * from step 10, and its record is the record of the same fit run whole in another tab (timing
 * aside). The checkpoint is gone once the record is stored.
 */
import { expect, test, type Page } from '@playwright/test';

const STEPS = 40;
const EVERY = 10;
const PLAN =
  '#/run?v=1&backend=wasm&preset=custom&ds=iris&set=distribution&labels=5&alg=flexmatch&seeds=0&t=0' +
  `&opt=flexmatch.size:tiny,flexmatch.steps:${STEPS},flexmatch.batchL:16`;

interface RacRunCheckpointHooks {
  setCheckpointPolicy(p: { everySteps: number } | { everyMs: number } | null): void;
  holdAtCheckpoint(n: number | null): void;
  checkpointHeld(): boolean;
}
type Win = { __racRun: RacRunCheckpointHooks };

/** The stored cells and checkpoints of the newest run, read straight from IndexedDB. */
async function stored(page: Page): Promise<{
  status: string;
  cells: { key: string; result: Record<string, unknown> | null }[];
  checkpoints: { key: string; step: number; steps: number; policy: string }[];
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
    const id = runs[0].id;
    const cells = (await all<{ runId: string; key: string; result: Record<string, unknown> | null }>('cells'))
      .filter((c) => c.runId === id)
      .map(({ key, result }) => ({ key, result }));
    const checkpoints = (
      await all<{ runId: string; key: string; step: number; steps: number; policy: string }>('checkpoints')
    )
      .filter((c) => c.runId === id)
      .map(({ key, step, steps, policy }) => ({ key, step, steps, policy }));
    db.close();
    return { status: runs[0].status, cells, checkpoints };
  });
}

/** A record without what differs between a resumed fit and a whole one. */
function essence(r: Record<string, unknown> | null): unknown {
  if (!r) return null;
  const { timing: _t, created_at: _c, ...rest } = r;
  return rest;
}

async function startLinkedPlan(page: Page): Promise<void> {
  await page.goto(`/${PLAN}`);
  await expect(page.getByTestId('run-linked-plan')).toContainText('Check it, then press Start');
  await page.getByTestId('run-workers').fill('1');
}

test('a deep fit resumes mid-fit after its tab is closed, with the record of an uninterrupted fit', async ({
  context,
}) => {
  const errors: string[] = [];
  // The fit run whole, in its own tab (its checkpoints change nothing: they are read-only copies).
  const whole = await context.newPage();
  whole.on('pageerror', (e) => errors.push(e.message));
  await startLinkedPlan(whole);
  await whole.getByTestId('run-start').click();
  await expect(whole.getByTestId('run-phase')).toHaveAttribute('data-phase', 'done', { timeout: 150_000 });
  const reference = await stored(whole);
  expect(reference.cells).toHaveLength(1);
  expect((reference.cells[0].result as { outcome: { status: string } }).outcome.status).toBe('ok');
  await whole.close();

  // The same plan in a tab that is closed once the fit's first checkpoint is stored.
  const a = await context.newPage();
  a.on('pageerror', (e) => errors.push(e.message));
  await startLinkedPlan(a);
  await a.evaluate((every) => {
    const hooks = (window as unknown as Win).__racRun;
    hooks.setCheckpointPolicy({ everySteps: every });
    hooks.holdAtCheckpoint(1);
  }, EVERY);
  await a.getByTestId('run-start').click();
  await expect
    .poll(() => a.evaluate(() => (window as unknown as Win).__racRun.checkpointHeld()), {
      timeout: 120_000,
      intervals: [100],
    })
    .toBe(true);
  const mid = await stored(a);
  expect(mid.status).toBe('running');
  expect(mid.cells).toEqual([]);
  expect(mid.checkpoints).toEqual([
    { key: reference.cells[0].key, step: EVERY, steps: STEPS, policy: `every ${EVERY} steps` },
  ]);
  await a.close();

  // A new tab offers the run for Resume; the fit goes on from its checkpoint.
  const b = await context.newPage();
  b.on('pageerror', (e) => errors.push(e.message));
  await b.goto('/#/run');
  await expect(b.getByTestId('run-resume')).toHaveCount(1);
  await b.getByTestId('run-resume').click();
  await expect(b.getByTestId('run-phase')).toHaveAttribute('data-phase', 'done', { timeout: 150_000 });
  await expect(b.getByTestId('run-notice')).toContainText(
    `resuming from its checkpoint at step ${EVERY} of ${STEPS}`,
  );
  const after = await stored(b);
  expect(after.status).toBe('done');
  expect(after.checkpoints, 'deleted once the record is stored').toEqual([]);
  expect(after.cells).toHaveLength(1);
  expect(essence(after.cells[0].result)).toEqual(essence(reference.cells[0].result));
  expect(errors).toEqual([]);
});
