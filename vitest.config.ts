import { availableParallelism } from 'node:os';
import { relative } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// vitest's default is (cores − 1) workers: ONE on the 2-core CI machine, so the unit files, mostly
// single-threaded tfjs-wasm work, ran one at a time (761 s wall for 677 s of file time). Two forks
// there keep both cores busy; on bigger machines the default (cores − 1 ≥ 2) stands. Nothing in
// tests/unit relies on running alone: every file a test or its child process writes lies under a
// mkdtemp folder, no test binds a port, and the timing checks bound CPU time (abort.test.ts) or
// allow for a loaded machine.
const cores = availableParallelism();
const workers = Math.max(Math.min(cores, 2), cores - 1);

/**
 * The slowest unit files (about 25–75 s each on the CI machine), slowest first. Without timings of
 * its own (a fresh clone, as in CI) vitest orders files by size, which puts the small WebGPU probe
 * files last: one worker then runs them while the other idles. A file missing from this list, or
 * renamed, only loses its place in the queue.
 */
const SLOW_FILES = [
  'tests/unit/device/gpuCheck.test.ts',
  'tests/unit/cli/panelRun.test.ts',
  'tests/unit/models/lp/fastPropagation.test.ts',
  'tests/unit/cli/finetuneRun.test.ts',
  'tests/unit/models/deep/webgpuParity.test.ts',
  'tests/unit/catalogue/abort.test.ts',
  'tests/unit/cli/panelRunPairs.test.ts',
  'tests/unit/models/deep/finetuneWebgpu.test.ts',
  'tests/unit/models/backbone/webgpuBackbone.test.ts',
  'tests/unit/cli/finetuneTextPair.test.ts',
];

/** Longest first, so that the last files to start are short ones (vitest's order where it has timings). */
class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const path = (f: TestSpecification) => relative(this.ctx.config.root, f.moduleId);
    if (sorted.every((f) => this.ctx.cache.getFileTestResults(`${f.project.name}:${path(f)}`))) return sorted;
    const rank = (f: TestSpecification) => {
      const i = SLOW_FILES.indexOf(path(f));
      return i < 0 ? SLOW_FILES.length : i;
    };
    return sorted.sort((a, b) => rank(a) - rank(b)); // stable: the rest keep vitest's order
  }
}

export default defineConfig({
  test: {
    include: ['tests/unit/**/*.test.ts'],
    environment: 'node',
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: workers,
    sequence: { sequencer: SlowFirstSequencer },
  },
});
