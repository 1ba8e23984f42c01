import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';

/**
 * The deep family's PyTorch parity fixtures (tests/fixtures/deep/parity.json) on tfjs WebGPU in
 * headless Chromium (SwiftShader's Vulkan adapter on this CPU machine): the same check as
 * tests/unit/models/deep/parity.test.ts (cpu, wasm), within 1e-4 relative; and on wasm in the page,
 * through the trainer's SIMD batched products (batchMatMul.ts). The check is bundled
 * with vite's library build and served same-origin on the preview's port (WebGPU needs a secure
 * context, which http://localhost is).
 */
const ROOT = process.cwd();
// SwiftShader runs every tfjs kernel on the CPU: the full fixture (24 runs) takes over 10 minutes
// on this 2-core machine, so the browser checks a subset that covers every code path that differs
// between methods (hard / soft / stateful targets, both optimisers, both quirks); cpu and wasm
// check all 24 runs under vitest.
const RUNS = [
  'fixmatch/rsb/rsb',
  'softmatch/rsb/rsb',
  'flexmatch/readme/fixed',
  'ict/rsb/fixed',
  'meanteacher/readme/fixed',
];
const TOL = 1e-4;
let bundle = '';

test.beforeAll(async () => {
  test.setTimeout(300_000);
  const { build } = await import('vite');
  const outDir = join(ROOT, '.cache', `deep-parity-${process.env.E2E_PORT ?? 4173}`);
  await build({
    configFile: false,
    root: ROOT,
    logLevel: 'warn',
    build: {
      outDir,
      emptyOutDir: true,
      minify: false,
      lib: {
        entry: join(ROOT, 'tests/e2e/deepParity.entry.ts'),
        formats: ['iife'],
        name: 'deepParityBundle',
        fileName: () => 'deep-parity.js',
      },
    },
  });
  bundle = readFileSync(join(outDir, 'deep-parity.js'), 'utf8');
});

interface ParityResult {
  backend: string;
  leaked: number;
  adapter: string | null;
  simdBatchedProducts: number | null;
  errors: Record<string, number>;
  mismatches: string[];
}

/** Serves the bundle (and tfjs-wasm's binaries) under /__deep-parity/ and runs the check there. */
async function runParity(page: Page, backend: string): Promise<ParityResult> {
  await page.route('**/__deep-parity/**', (route) => {
    const url = route.request().url();
    if (url.endsWith('.js')) return route.fulfill({ contentType: 'text/javascript', body: bundle });
    if (url.endsWith('.wasm')) {
      const file = join(ROOT, 'node_modules/@tensorflow/tfjs-backend-wasm/dist', url.split('/').pop()!);
      return route.fulfill({ contentType: 'application/wasm', body: readFileSync(file) });
    }
    return route.fulfill({
      contentType: 'text/html',
      body: '<!doctype html><link rel="icon" href="data:,"><script src="/__deep-parity/bundle.js"></script>',
    });
  });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto('/__deep-parity/index.html');
  await page.waitForFunction(
    () => typeof (window as unknown as { deepParity?: unknown }).deepParity === 'function',
  );
  const fx = JSON.parse(readFileSync(join(ROOT, 'tests/fixtures/deep/parity.json'), 'utf8'));
  const res = await page.evaluate(
    async (f) => {
      const w = window as unknown as {
        deepParity: (fx: unknown, b: string, runs: string[]) => Promise<ParityResult>;
      };
      return w.deepParity(f.fx, f.backend, f.runs);
    },
    { fx, runs: RUNS, backend },
  );
  expect(errors).toEqual([]);
  expect(res.backend).toBe(backend);
  expect(res.mismatches).toEqual([]);
  const worst = Object.entries(res.errors).sort((a, b) => b[1] - a[1]);
  console.log(`${backend} (${res.adapter}) worst errors: ${JSON.stringify(worst.slice(0, 3))}`);
  expect(
    worst.filter(([, e]) => !(e <= TOL)),
    `worst: ${JSON.stringify(worst.slice(0, 5))}`,
  ).toEqual([]);
  expect(Object.keys(res.errors).length).toBe(2 + RUNS.length * 8);
  expect(res.leaked).toBe(0);
  return res;
}

test('deep parity with PyTorch on webgpu (SwiftShader) in Chromium', async ({ page }) => {
  test.setTimeout(600_000);
  await runParity(page, 'webgpu');
});

test('deep parity with PyTorch on wasm in Chromium, batched products on the SIMD kernel', async ({
  page,
}) => {
  test.setTimeout(300_000);
  const res = await runParity(page, 'wasm');
  // attention's batched products and their gradients went through batchMatMul.wat in the page
  expect(res.simdBatchedProducts).toBeGreaterThan(100);
});
