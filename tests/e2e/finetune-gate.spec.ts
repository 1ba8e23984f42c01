/**
 * The finetune tier on the Run page (ui/run/FinetuneGate.svelte): the page sizes one training step
 * of the panel's network against what the browser declares and says the numbers. The test pins the
 * declaration to a common laptop's — navigator.deviceMemory 8 GiB, the WebGPU spec's default limits
 * (maxBufferSize 256 MiB, maxStorageBufferBindingSize 128 MiB) — since every machine declares its
 * own: ResNet-50 on CIFAR-10 (92 MiB of parameters, a 1.1 GiB step) passes; RoBERTa-base on AG
 * News (a 475 MiB parameter buffer, a 13.8 GiB step at 48 rows) is refused with each shortfall.
 * Either way the page points to the CLI command (panel-finetune.spec.ts runs finetune where the gate passes).
 */
import { expect, test } from '@playwright/test';
import { offline } from './offline.ts';

test('the Run page sizes finetune against the declared memory, refuses RoBERTa-base with the numbers, and points to the CLI', async ({
  page,
  context,
}) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await offline(context);
  await page.addInitScript(() => {
    Object.defineProperty(navigator, 'deviceMemory', { get: () => 8 });
    const limits = { maxBufferSize: 256 * 2 ** 20, maxStorageBufferBindingSize: 128 * 2 ** 20 };
    Object.defineProperty(navigator, 'gpu', { get: () => ({ requestAdapter: async () => ({ limits }) }) });
  });
  await page.goto('/#/run');
  const gate = page.getByTestId('finetune-gate');
  await expect(gate).toBeVisible();
  await gate.locator('summary').click();
  await page.getByTestId('panel-dataset').selectOption('cifar10');
  await expect(gate).toContainText('One training step of ResNet-50 at 32 px at B = 64');
  await expect(page.getByTestId('finetune-need')).toHaveText('1.1 GiB');
  await expect(gate).toContainText('about 14 EFLOP: hundreds of GPU-hours');
  await expect(page.getByTestId('finetune-cli')).toContainText(
    'rac-bench run --tier finetune --dataset cifar10 --backbone resnet50',
  );
  await expect(page.getByTestId('finetune-enough')).toContainText(
    'This device declares enough for one step (8 GiB of memory, buffers and storage bindings up to 256 MiB and 128 MiB',
  );

  await page.getByTestId('panel-dataset').selectOption('ag_news');
  await expect(gate).toContainText('One training step of RoBERTa-base at 256 tokens at B = 16');
  const refusal = page.getByTestId('finetune-refusal');
  await expect(refusal).toBeVisible();
  await expect(refusal).toHaveText(
    'This page will not start finetune here: the parameters need one 475 MiB buffer and the GPU adapter allows 256 MiB (maxBufferSize); ' +
      'the parameters need one 475 MiB storage binding and the GPU adapter allows 128 MiB (maxStorageBufferBindingSize); ' +
      'a step of 48 rows needs ≈ 13.8 GiB and the device declares 8 GiB (navigator.deviceMemory).',
  );
  await expect(page.getByTestId('finetune-cli')).toContainText(
    '--backbone roberta-base --weights model.safetensors --tokenizer tokenizer.json',
  );
  expect(errors).toEqual([]);
});
