/**
 * Image/text presets, the honest estimate, and share/Compare of image runs (issues 18 item 5, 19
 * item 6):
 * - the Run page opened on an image preset (`panel=` in the link) fills the form and shows the
 *   estimate for its tier on this device (extraction + head training), the whole preset's too;
 *   text features on a CPU say "impractical here" with the ways out; finetune says GPU-hours, the
 *   CLI and --shard, and Start stays off; the preset survives a reload;
 * - an imported rsb-run/3 file on Results: the permalink reopens the same view in a fresh page
 *   (same run, tier, charts, metrics table); a damaged link gets a clear message and the saved
 *   view stays usable;
 * - Compare takes two image runs (metrics and Δ) and refuses a tabular run beside them.
 */
import { expect, test } from '@playwright/test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cifarFeatureRun } from '../helpers/modalRuns.ts';
import { offline } from './offline.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'panel-share-'));
const A = path.join(dir, 'image-a.json');
const B = path.join(dir, 'image-b.json');
writeFileSync(A, JSON.stringify(cifarFeatureRun({ id: 'image-a', methods: ['supervised', 'fixmatch'] })));
writeFileSync(
  B,
  JSON.stringify(
    cifarFeatureRun({
      id: 'image-b',
      methods: ['supervised', 'fixmatch'],
      correct: (m, _s, t) => 7900 + 250 * m - 100 * t,
    }),
  ),
);
const TABULAR = path.resolve('tests/fixtures/runs/paper-wine-5.json');

test('Run page: image and text presets with the estimate per tier and device', async ({ page, context }) => {
  await offline(context);
  // backend=wasm: the estimate's throughput is the CPU's, from this device's calibration.
  await page.goto('/#/run?v=1&backend=wasm&panel=image-classroom');
  const runner = page.getByTestId('panel-runner');
  await expect(runner.getByTestId('panel-preset')).toHaveValue('image-classroom');
  await expect(runner.getByTestId('panel-tier')).toHaveValue('classroom');
  await expect(runner.getByTestId('panel-backbone')).toHaveValue('mnv3-small');
  await expect(runner.getByTestId('panel-method-meanteacher')).not.toBeChecked();
  await expect(runner.getByTestId('panel-method-ict')).toBeChecked();
  const here = runner.getByTestId('panel-estimate-here');
  await expect(here).toHaveAttribute('data-tier', 'classroom');
  await expect(here).toContainText(
    /About .+ on this device: ≈ .+ of one-time feature extraction \([\d,]+ MobileNetV3-small 1\.0 views, .+FLOP; later runs on the same data reuse the banks\) \+ ≈ .+ of head training \(288 cells\)\./,
  );
  await expect(here).toContainText(
    /Throughput: CPU \(WebAssembly\), [\d.]+ GFLOP\/s from this device's calibration/,
  );
  await expect(runner.getByTestId('panel-estimate-preset')).toContainText(
    /The whole preset \(CIFAR-10, CIFAR-100, Image-CLEF, VisDA-2017; 1,728 cells\)/,
  );
  await expect(runner.getByTestId('panel-start')).toBeEnabled();

  // Text features on a CPU: impractical here, and the ways out.
  await runner.getByTestId('panel-preset').selectOption('text-features');
  await expect(page).toHaveURL(/[?&]panel=text-features/);
  await expect(runner.getByTestId('panel-backbone')).toHaveValue('roberta-base');
  await expect(runner.getByTestId('panel-method-ict')).not.toBeChecked();
  await expect(here).toHaveAttribute('data-verdict', 'impractical');
  await expect(here).toContainText(
    /RoBERTa-base feature extraction on a CPU is impractical here \(≈ .+\): use the classroom preset, run it with the CLI on a GPU \(rac-bench bank, then rac-bench run\), or import a feature bank made elsewhere\./,
  );

  // finetune: GPU-hours, the CLI and --shard; not started from the page.
  await runner.getByTestId('panel-preset').selectOption('image-finetune');
  await expect(here).toHaveAttribute('data-verdict', 'cli');
  await expect(here).toContainText(
    /finetune trains the whole ResNet-50 at every step: .+ GPU-hours at 100 TFLOP\/s sustained/,
  );
  await expect(here).toContainText(
    /rac-bench run --dataset cifar10 --tier finetune --backend webgpu --shard 1\/N/,
  );
  await expect(runner.getByTestId('panel-problem')).toContainText('runs with the CLI on GPU servers');
  await expect(runner.getByTestId('panel-start')).toBeDisabled();

  // The preset is in the address: a reload opens it again.
  await page.reload();
  await expect(page.getByTestId('panel-preset')).toHaveValue('image-finetune');
  await expect(page.getByTestId('panel-estimate-here')).toHaveAttribute('data-verdict', 'cli');
  // An unknown preset in a link is said, not silently replaced.
  await page.goto('/#/run?v=1&backend=wasm&panel=image-huge');
  await page.reload();
  await expect(page.getByTestId('panel-preset-notice')).toContainText('Ignored panel="image-huge"');
  await expect(page.getByTestId('panel-preset')).toHaveValue('');
});

test('Results: a permalink reopens an image run; Compare takes two image runs', async ({ page, context }) => {
  await offline(context);
  await page.goto('/#/results');
  await page.getByTestId('import-file').setInputFiles(A);
  const shown = page.getByTestId('results-shown');
  await expect(shown).toHaveAttribute('data-run-id', 'image-a');
  await expect(page.getByTestId('modal-tier')).toContainText('features');
  await expect(page.getByTestId('metrics-table')).toBeVisible();
  // A view change travels in the link too.
  await page.getByText('Code (original tables)').click();
  await expect(page).toHaveURL(/[?&]form=code/);
  await expect(page.getByTestId('metrics-table')).toHaveAttribute('data-form', 'code');
  const table = await page.getByTestId('metrics-table').innerText();
  const charts = await shown.locator('svg.rac-chart').count();
  expect(charts).toBeGreaterThan(0);

  await page.getByTestId('share-button').click();
  const input = page.getByTestId('permalink-input');
  await expect(input).toHaveValue(/#\/results\?v=1&.*r=2\./);
  await page.getByTestId('copy-permalink').click();
  const url = await input.inputValue();

  const other = await context.newPage();
  await other.goto(url);
  await expect(other.getByTestId('results-shown')).toHaveAttribute('data-run-id', 'image-a');
  await expect(other.getByTestId('modal-tier')).toContainText('features');
  await expect(other.getByTestId('results-shown').locator('svg.rac-chart')).toHaveCount(charts);
  await expect(other.getByTestId('metrics-table')).toHaveAttribute('data-form', 'code');
  expect(await other.getByTestId('metrics-table').innerText()).toBe(table);
  await expect(other.getByText('from a shared link')).toBeVisible();

  // A damaged link: one plain message; the page still opens files.
  await other.goto(url.replace(/r=2\.[A-Za-z0-9_-]{12}/, 'r=2.AAAAAAAAAAAA'));
  await other.reload();
  await expect(other.getByTestId('permalink-error')).toContainText('This results link is broken');
  await other.getByTestId('import-file').setInputFiles(B);
  await expect(other.getByTestId('results-shown')).toHaveAttribute('data-run-id', 'image-b');
  await other.close();

  // Compare: run A comes from Results; add B; then a tabular run is refused.
  await page.getByTestId('modal-compare').click();
  await expect(page.getByTestId('compare-runs')).toHaveAttribute('data-count', '1');
  await page.getByTestId('import-file').setInputFiles(B);
  await expect(page.getByTestId('compare-runs')).toHaveAttribute('data-count', '2');
  const ct = page.getByTestId('compare-table');
  await expect(ct).toBeVisible();
  await expect(ct).toContainText('FixMatch');
  await expect(page.getByTestId('panel-grid').locator('svg.rac-chart')).toHaveCount(1);
  await expect(page).toHaveURL(/[?&]runs=2\.[A-Za-z0-9_-]+,2\./);
  await page.getByTestId('import-file').setInputFiles(TABULAR);
  await expect(page.getByTestId('compare-refused')).toContainText(
    'Run C is a tabular run and run A is an image/text run',
  );
  // The Compare link holds all three (written once each run is packed) and reopens them.
  await expect(page).toHaveURL(/[?&]runs=2\.[A-Za-z0-9_-]+,2\.[A-Za-z0-9_-]+,1\./);
  const compareUrl = page.url();
  const again = await context.newPage();
  await again.goto(compareUrl);
  await expect(again.getByTestId('compare-runs')).toHaveAttribute('data-count', '3');
  await expect(again.getByTestId('compare-table')).toContainText('FixMatch');
  await again.close();
});
