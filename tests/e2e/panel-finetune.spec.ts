/**
 * Tier finetune in the page (issue 18 item 3, issue 19 item 5): the Run page offers it only when
 * the finetune gate (ui/run/FinetuneGate.svelte) passes for the chosen backbone, and then the panel
 * worker trains the whole network per cell as the CLI does (suite/finetuneSources.ts builds the
 * rows and network for both).
 * The Hub's CIFAR-10 URLs are routed to parquet files this test writes at the real row counts (one
 * colour per class with a per-pixel ripple, as tests/unit/cli/finetuneRun.test.ts), the backbone is
 * the reduced torchvision-layout ResNet of tests/fixtures/backbone, and the browser's declaration is
 * pinned (8 GiB, the WebGPU spec's default limits) since every machine declares its own; the worker
 * computes on wasm (`backend=wasm`) to keep the run short.
 * Checked: the tier stays disabled for a backbone that does not train whole and for a browser
 * without WebGPU (with the gate's reason); with the reduced ResNet it runs Supervised and FixMatch
 * at one t, shows the steps, saves two rsb-cell/3 records of tier finetune (no bank, a backbone that
 * trains, the labeled images' normalisation) and Results draws them.
 */
import { readFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { mt } from '../../src/lib/protocol/rng.ts';
import { PANEL_METHODS } from '../../src/lib/suite/panelPlan.ts';
import { parseRunV3, type ModalRunRecord } from '../../src/lib/suite/schemaV3.ts';
import { imageParquet, rippledClassPngs } from '../helpers/hubFiles.ts';
import { CIFAR_URL, offline, routeCifar10 } from './offline.ts';

const PNGS = rippledClassPngs(10);
const labelsOf = (n: number, seed: number) => Int32Array.from(mt(seed).permutation(n), (v) => v % 10);
const trainLabels = labelsOf(50_000, 101);
const testLabels = labelsOf(10_000, 102);
const TRAIN = Buffer.from(imageParquet(trainLabels, (i) => PNGS[trainLabels[i]]));
const TEST = Buffer.from(imageParquet(testLabels, (i) => PNGS[testLabels[i]]));
const RESNET = readFileSync(new URL('../fixtures/backbone/resnet_reduced.safetensors', import.meta.url));

/** What the browser declares: `gpu` false for a browser without WebGPU. */
async function declare(page: Page, gpu: boolean): Promise<void> {
  await page.addInitScript((withGpu) => {
    Object.defineProperty(navigator, 'deviceMemory', { get: () => 8 });
    const limits = { maxBufferSize: 256 * 2 ** 20, maxStorageBufferBindingSize: 128 * 2 ** 20 };
    Object.defineProperty(navigator, 'gpu', {
      get: () => (withGpu ? { requestAdapter: async () => ({ limits }) } : undefined),
    });
  }, gpu);
}

async function pickReducedResnet(page: Page): Promise<void> {
  await page.getByTestId('panel-dataset').selectOption('cifar10');
  await page.getByTestId('panel-backbone').selectOption('tiny-resnet');
  await page.getByTestId('panel-weights').setInputFiles({
    name: 'resnet_reduced.safetensors',
    mimeType: 'application/octet-stream',
    buffer: RESNET,
  });
}

test('finetune runs in the page when the gate passes: the reduced ResNet, Supervised and FixMatch, records saved and drawn', async ({
  page,
  context,
}) => {
  test.setTimeout(300_000);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const outside = await offline(context);
  await routeCifar10(context, TRAIN, TEST);
  await declare(page, true);
  await page.goto('/#/run?v=1&backend=wasm');
  await expect(page.getByTestId('panel-runner')).toBeVisible();
  await page.getByTestId('panel-dataset').selectOption('cifar10');
  const finetune = page.getByTestId('panel-tier-finetune');
  // The default backbone (the tiny conv net) does not train whole: the tier is offered disabled.
  await expect(finetune).toBeDisabled();
  await page.getByTestId('finetune-gate').locator('summary').click();
  await pickReducedResnet(page);
  await expect(finetune).toBeEnabled();
  await expect(page.getByTestId('finetune-here')).toContainText('The Run page offers tier finetune here');
  await page.getByTestId('panel-tier').selectOption('finetune');
  // K_w and K_s are the bank tiers'; finetune draws fresh views.
  await expect(page.getByTestId('panel-kw')).toHaveCount(0);
  for (const m of PANEL_METHODS)
    if (m !== 'supervised' && m !== 'fixmatch') await page.getByTestId(`panel-method-${m}`).uncheck();
  for (const i of [0, 1, 3, 4, 5]) await page.getByTestId(`panel-t-${i}`).uncheck();
  await page.getByTestId('panel-seeds').fill('0');
  await page.getByTestId('panel-iterations').fill('3');
  await expect(page.getByTestId('panel-summary')).toContainText('2 cells');
  await expect(page.getByTestId('panel-summary')).toContainText('from step 0');
  await expect(page.getByTestId('panel-problem')).toHaveCount(0);
  await page.getByTestId('panel-start').click();

  const cells = page.getByTestId('panel-cells');
  await expect(cells).toHaveAttribute('data-done', '2', { timeout: 240_000 });
  await expect(page.getByTestId('panel-error')).toHaveCount(0);
  await expect(page.getByTestId('panel-backend')).toContainText('wasm');
  const step = page.getByTestId('panel-step');
  await expect(step).toHaveAttribute('data-total', '3');
  await expect(step).toHaveAttribute('data-done', '3');
  await expect(step).toContainText(/Fitting fixmatch, seed 0, t = 0\.4: step 3 of 3/);
  await expect(page.getByTestId('panel-unfinished-row')).toHaveCount(0);

  await page.getByTestId('panel-open-results').click();
  const shown = page.getByTestId('modal-run');
  await expect(shown).toBeVisible();
  await expect(shown).toContainText('Showing 2 image/text results from the run just finished');
  await expect(page.getByTestId('modal-tier')).toContainText('finetune');
  await expect(page.locator('[data-testid="results-view"] svg').first()).toBeVisible();
  await expect(page.locator('[data-testid="metrics-table"] tr[data-algorithm]')).toHaveCount(2);

  const download = page.waitForEvent('download');
  await page.getByTestId('modal-export').click();
  const run = parseRunV3(
    JSON.parse(readFileSync((await (await download).path())!, 'utf8')),
  ) as ModalRunRecord;
  expect(run.plan).toMatchObject({ tier: 'finetune', datasets: ['cifar10'], options: {} });
  expect(run.cells.map((c) => c.algorithm.name).sort()).toEqual(['fixmatch', 'supervised']);
  for (const c of run.cells) {
    expect(c).toMatchObject({
      modality: 'image',
      setting: 'label',
      t: 0.4,
      seed: 0,
      protocol: { tier: 'finetune', overrides: { iterations: 3 } },
      backbone: { id: 'tiny-resnet', feature: 'tiny-resnet-gap', frozen: false },
      feature_bank: null,
      input: { image_size: 32, normalization: 'labeled-stats', decoder: 'fast-png' },
      split: { n_labeled: 100, n_test: 5_000 },
      timing: { steps: 3 },
      env: { backend: 'wasm' },
    });
    expect(c.outcome.n_test).toBe(5_000);
    expect(c.outcome.accuracy).toBeGreaterThanOrEqual(0);
  }
  expect(outside.filter((u) => !u.startsWith(CIFAR_URL))).toEqual([]);
  expect(errors).toEqual([]);
});

test('without WebGPU the finetune tier stays disabled, and the gate says why', async ({ page, context }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await offline(context);
  await declare(page, false);
  await page.goto('/#/run?v=1&backend=wasm');
  await expect(page.getByTestId('panel-runner')).toBeVisible();
  await pickReducedResnet(page);
  await page.getByTestId('finetune-gate').locator('summary').click();
  await expect(page.getByTestId('finetune-refusal')).toHaveText(
    'This page will not start finetune here: this browser has no WebGPU, and ResNet (width 4) at 32 px does not train on the CPU in useful time.',
  );
  await expect(page.getByTestId('panel-tier-finetune')).toBeDisabled();
  await expect(page.getByTestId('panel-tier-finetune')).toContainText('not on this device');
  await expect(page.getByTestId('finetune-here')).toHaveCount(0);
  expect(errors).toEqual([]);
});
