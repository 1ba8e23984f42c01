/**
 * The deep family through the CLI: `rac-bench run` plans deep cells from the catalogue
 * (`--algorithms deep`, `--preset classroom-deep`, `--option fixmatch.size=tiny`) and runs one
 * tiny FixMatch and FT-Transformer cell end to end in a child process, writing a valid run file.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli as cli } from '../helpers/cli.ts';
import { planFromFlags } from '../../../src/cli/runCommand.ts';
import { DEEP_METHOD_IDS } from '../../../src/lib/models/deep/methods/index.ts';
import { CLASSROOM_DEEP_OPTIONS } from '../../../src/lib/suite/presets.ts';
import { parseRun } from '../../../src/lib/suite/schema.ts';

describe('rac-bench run, deep family', () => {
  it('--algorithms deep selects the nine; --preset classroom-deep brings its tiny loop', () => {
    const plan = planFromFlags({ dataset: 'iris', algorithms: 'deep' });
    expect(plan.algorithms).toEqual([...DEEP_METHOD_IDS]);
    const classroom = planFromFlags({ preset: 'classroom-deep' });
    expect(classroom.preset).toBe('classroom-deep');
    expect(classroom.modelOptions?.fixmatch).toEqual(CLASSROOM_DEEP_OPTIONS);
    expect(planFromFlags({ preset: 'tabular-deep' }).algorithms).toHaveLength(8);
  });

  it('runs a tiny FixMatch and FT-Transformer cell and writes a valid record', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rac-deep-'));
    const out = join(dir, 'x.json');
    const r = await cli([
      'run',
      '--dataset',
      'iris',
      '--setting',
      'distribution',
      '--labels',
      '5',
      '--algorithms',
      'ftt,fixmatch',
      '--seeds',
      '0',
      '--t',
      '0,1',
      '--option',
      'fixmatch.size=tiny',
      '--option',
      'fixmatch.steps=5',
      '--option',
      'ftt.size=tiny',
      '--option',
      'ftt.steps=5',
      '--quiet',
      '--out',
      out,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const run = parseRun(JSON.parse(readFileSync(out, 'utf8')));
    // ftt fits at t = 0 and is copied to t = 1 (`--t` takes t values); FixMatch fits at both.
    expect(run.cells).toHaveLength(4);
    for (const c of run.cells) {
      expect(c.outcome.status, JSON.stringify(c.outcome)).toBe('ok');
      expect(c.algorithm.init_seed).toBe(0); // §7.2: one rsb initialisation for every seed and t
      expect(c.algorithm.options).toMatchObject({ size: 'tiny', steps: 5 });
      expect(c.algorithm.hyper).toMatchObject({ size: 'tiny', blocks: 2, steps: 5 });
      expect(c.protocol.overrides).toEqual({
        [`${c.algorithm.name}.size`]: 'tiny',
        [`${c.algorithm.name}.steps`]: 5,
      });
      expect(c.env.backend).toBe('wasm');
    }
    const ftt = run.cells.filter((c) => c.algorithm.name === 'ftt');
    expect(ftt.map((c) => [c.t, c.algorithm.family, c.outcome.flattened_from_t0])).toEqual([
      [0, 'baseline', false],
      [1, 'baseline', true],
    ]);
    const fm = run.cells.find((c) => c.algorithm.name === 'fixmatch' && c.t === 0)!;
    expect(fm.timing.steps).toBe(5);
    expect(fm.algorithm.hyper).toMatchObject({ mu: 7, threshold: 0.95 });
  });
});
