import { defineConfig } from '@playwright/test';

// Debian's Chromium, never a downloaded browser (`npx playwright install` cannot run here).
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const PORT = Number(process.env.E2E_PORT ?? 4173);
// Its own build folder per port, so parallel runs never serve each other's half-written dist.
const OUT_DIR = process.env.E2E_OUT_DIR ?? (PORT === 4173 ? 'dist' : `.cache/dist-${PORT}`);

export default defineConfig({
  testDir: 'tests/e2e',
  timeout: 180_000,
  expect: { timeout: 30_000 },
  workers: 1,
  retries: 0,
  reporter: [['list']],
  outputDir: 'test-results',
  use: {
    baseURL: `http://localhost:${PORT}`,
    browserName: 'chromium',
    headless: true,
    launchOptions: {
      executablePath: CHROMIUM,
      // --enable-unsafe-webgpu gives SwiftShader's (fallback) WebGPU adapter on a CPU-only machine;
      // the rest keeps Chromium off a closed network.
      args: [
        '--enable-unsafe-webgpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
  webServer: {
    command: `npx vite build --outDir ${OUT_DIR} --emptyOutDir && npx vite preview --outDir ${OUT_DIR} --port ${PORT} --strictPort`,
    url: `http://localhost:${PORT}`,
    reuseExistingServer: false,
    timeout: 180_000,
  },
});
