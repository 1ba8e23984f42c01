import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// vitest's default is (cores − 1) workers: ONE on the 2-core CI machine, so the unit files, mostly
// single-threaded tfjs-wasm work, ran one at a time (761 s wall for 677 s of file time). Two forks
// there keep both cores busy; on bigger machines the default (cores − 1 ≥ 2) stands. Nothing in
// tests/unit relies on running alone: temp files come from mkdtemp, no test binds a port, and the
// timing checks bound CPU time or allow for a loaded machine (README "Testing").
const cores = availableParallelism();
const workers = Math.max(Math.min(cores, 2), cores - 1);

export default defineConfig({
  test: {
    include: ['tests/unit/**/*.test.ts'],
    environment: 'node',
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: workers,
  },
});
