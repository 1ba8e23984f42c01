import { describe, expect, it } from 'vitest';
import { MAX_RUN_CELLS, parseCellResult, parseRun, SchemaError } from '../../../src/lib/suite/schema.ts';
import { setPath, validCell, validRun } from './fixtures.ts';

function cellError(mutate: (c: Record<string, unknown>) => unknown): string {
  const c = validCell();
  const returned = mutate(c);
  const input = returned === undefined ? c : returned;
  try {
    parseCellResult(JSON.parse(JSON.stringify(input)));
  } catch (e) {
    expect(e).toBeInstanceOf(SchemaError);
    return (e as Error).message;
  }
  throw new Error('expected a SchemaError, but the cell was accepted');
}

describe('valid records', () => {
  it('a cell round-trips through JSON unchanged', () => {
    const cell = validCell();
    const parsed = parseCellResult(JSON.parse(JSON.stringify(cell)));
    expect(parsed).toEqual(cell);
    expect(parseCellResult(JSON.parse(JSON.stringify(parsed)))).toEqual(parsed);
  });

  it('a run round-trips through JSON unchanged', () => {
    const cells = [0, 1, 2, 3, 4, 5].map((i) =>
      validCell({ t: [0, 0.2, 0.4, 0.6, 0.8, 1.0][i], t_index: i, seed: 0 }),
    );
    const run = validRun(cells);
    const parsed = parseRun(JSON.parse(JSON.stringify(run)));
    expect(parsed).toEqual(run);
    expect(parsed.cells).toHaveLength(6);
    expect(parseRun(JSON.parse(JSON.stringify(parsed)))).toEqual(parsed);
  });

  it('accepts the optional fields, failed and skipped cells, subsampling and a null split', () => {
    const cell = validCell({
      algorithm: {
        name: 'tsvm',
        family: 'statistical',
        hyper: { Cl: 15, nested: { a: [1, 'x', null, true] } },
        options: { Cl: 15, Cu: 0.0001 },
        init_seed: null,
        tsvm_multiclass: 'ovr-reconstructed',
      },
      subsample: [{ pool: 'test', n_before: 60, n_after: 40, method: 'stratified-split', seed: 1000005 }],
      outcome: {
        status: 'ok',
        accuracy: 0.9,
        n_correct: 36,
        n_test: 40,
        n_nan_rows: 3,
        flattened_from_t0: true,
      },
    });
    setPath(cell, 'split.kept_classes', [0, 1]);
    setPath(cell, 'split.masked_columns', [3]);
    expect(parseCellResult(cell)).toEqual(cell);
    const failed = validCell({
      split: null,
      outcome: {
        status: 'failed',
        reason: 'Error: boom',
        accuracy: null,
        n_correct: 0,
        n_test: 60,
        n_nan_rows: 0,
        flattened_from_t0: false,
      },
    });
    expect(parseCellResult(failed).outcome.accuracy).toBeNull();
    const skipped = validCell({
      outcome: {
        status: 'skipped',
        reason: 'empty U',
        accuracy: null,
        n_correct: 0,
        n_test: 60,
        n_nan_rows: 0,
        flattened_from_t0: false,
      },
    });
    expect(parseCellResult(skipped).outcome.status).toBe('skipped');
  });

  it('keeps HTML and script text as plain text (rendering escapes it)', () => {
    const html = '<img src=x onerror="alert(1)"><script>alert("x")</script>';
    const cell = validCell({
      outcome: {
        status: 'failed',
        reason: html,
        accuracy: null,
        n_correct: 0,
        n_test: 60,
        n_nan_rows: 0,
        flattened_from_t0: false,
      },
    });
    setPath(cell, 'env.device', html);
    setPath(cell, 'dataset.source', html);
    setPath(cell, 'algorithm.hyper', { note: html });
    const parsed = parseCellResult(JSON.parse(JSON.stringify(cell)));
    expect(parsed.outcome.reason).toBe(html);
    expect(parsed.env.device).toBe(html);
    expect(parsed.algorithm.hyper.note).toBe(html);
  });
});

describe('malformed cells are rejected with a path-bearing message', () => {
  const cases: [string, (c: Record<string, unknown>) => unknown, string | RegExp][] = [
    ['not an object', () => 'abc', '(root): expected a cell result object, got "abc"'],
    ['null', () => null, '(root): expected a cell result object, got null'],
    ['an array', () => [1, 2], '(root): expected a cell result object, got a list of 2 items'],
    [
      'accuracy a string',
      (c) => setPath(c, 'outcome.accuracy', 'abc'),
      'outcome.accuracy: expected a number between 0 and 1 (or null when the cell did not score), got "abc"',
    ],
    [
      'accuracy > 1',
      (c) => setPath(c, 'outcome.accuracy', 90),
      /^outcome\.accuracy: expected a number between 0 and 1.*got 90$/,
    ],
    ['accuracy negative', (c) => setPath(c, 'outcome.accuracy', -0.1), /^outcome\.accuracy: .*got -0\.1$/],
    [
      'accuracy missing',
      (c) => setPath(c, 'outcome.accuracy', undefined),
      'outcome.accuracy: required field is missing',
    ],
    [
      'accuracy inconsistent with counts',
      (c) => setPath(c, 'outcome.accuracy', 0.8),
      'outcome.accuracy: accuracy 0.8 does not equal n_correct / n_test = 54/60',
    ],
    [
      'ok cell without accuracy',
      (c) => setPath(c, 'outcome.accuracy', null),
      'outcome.accuracy: expected a number for a cell with status "ok", got null',
    ],
    [
      'failed cell with accuracy',
      (c) => setPath(c, 'outcome.status', 'failed'),
      'outcome.accuracy: expected null for a cell with status "failed", got 0.9',
    ],
    [
      'unknown status',
      (c) => setPath(c, 'outcome.status', 'done'),
      'outcome.status: expected one of "ok", "skipped", "failed", "degenerate", got "done"',
    ],
    [
      'n_correct > n_test',
      (c) => setPath(c, 'outcome.n_correct', 61),
      'outcome.n_correct: n_correct (61) exceeds n_test (60)',
    ],
    [
      'n_nan_rows > n_test',
      (c) => setPath(c, 'outcome.n_nan_rows', 70),
      'outcome.n_nan_rows: n_nan_rows (70) exceeds n_test (60)',
    ],
    [
      'flattened_from_t0 a string',
      (c) => setPath(c, 'outcome.flattened_from_t0', 'yes'),
      'outcome.flattened_from_t0: expected true or false, got "yes"',
    ],
    [
      't off the grid',
      (c) => setPath(c, 't', 0.30000000000000004),
      /^t: t_index 3 means t = 0.6, but t is 0.30000000000000004$/,
    ],
    [
      't computed as 3*0.2',
      (c) => setPath(c, 't', 3 * 0.2),
      't: t_index 3 means t = 0.6, but t is 0.6000000000000001',
    ],
    ['t_index 6', (c) => setPath(c, 't_index', 6), 't_index: expected an integer between 0 and 5, got 6'],
    [
      't_index fractional',
      (c) => setPath(c, 't_index', 2.5),
      't_index: expected an integer between 0 and 5, got 2.5',
    ],
    [
      't > 1',
      (c) => setPath(c, 't', 1.2),
      /^t: expected a value of the grid t ∈ \{0, 0\.2, 0\.4, 0\.6, 0\.8, 1\}, got 1\.2$/,
    ],
    [
      'seed negative',
      (c) => setPath(c, 'seed', -1),
      'seed: expected an integer seed between 0 and 4294967295, got -1',
    ],
    [
      'seed fractional',
      (c) => setPath(c, 'seed', 1.5),
      'seed: expected an integer seed between 0 and 4294967295, got 1.5',
    ],
    [
      'seed a string',
      (c) => setPath(c, 'seed', '1'),
      'seed: expected an integer seed between 0 and 4294967295, got "1"',
    ],
    [
      'unknown setting',
      (c) => setPath(c, 'setting', 'covariate'),
      'setting: expected one of "distribution", "feature", "label", got "covariate"',
    ],
    [
      'unknown top-level field',
      (c) => setPath(c, 'extra', 1),
      'extra: unknown field (not part of the schema)',
    ],
    [
      'unknown nested field',
      (c) => setPath(c, 'outcome.score', 1),
      'outcome.score: unknown field (not part of the schema)',
    ],
    ['missing field', (c) => setPath(c, 'timing', undefined), 'timing: required field is missing'],
    [
      'an object given as a list',
      (c) => setPath(c, 'outcome', []),
      'outcome: expected an object, got a list of 0 items',
    ],
    [
      'a nested object given as a list',
      (c) => setPath(c, 'protocol.options', [1]),
      'protocol.options: expected an object, got a list of 1 item',
    ],
    [
      'schema version 3',
      (c) => setPath(c, 'schema', 'rsb-cell/3'),
      'schema: unsupported schema version "rsb-cell/3"; this version of RAC Bench reads "rsb-cell/2" (and upgrades "rsb-cell/1")',
    ],
    ['schema missing', (c) => setPath(c, 'schema', undefined), 'schema: required field is missing'],
    [
      'protocol mode',
      (c) => setPath(c, 'protocol.mode', 'paper'),
      'protocol.mode: expected one of "rsb", "readme", got "paper"',
    ],
    [
      'protocol version',
      (c) => setPath(c, 'protocol.version', 'latest'),
      'protocol.version: expected a version like "1.0.0", got "latest"',
    ],
    [
      'protocol option',
      (c) => setPath(c, 'protocol.options.scaler', 'minmax'),
      'protocol.options.scaler: expected one of "split", "labeled", got "minmax"',
    ],
    [
      'dataset sha256',
      (c) => setPath(c, 'dataset.sha256', 'ABC'),
      'dataset.sha256: expected a SHA-256 as 64 lower-case hex digits, got "ABC"',
    ],
    [
      'dataset id with a pipe',
      (c) => setPath(c, 'dataset.id', 'iris|x'),
      /^dataset\.id: expected an id of 1 to 200 letters.*got "iris\|x"$/,
    ],
    [
      'dataset id with HTML',
      (c) => setPath(c, 'dataset.id', '<b>iris</b>'),
      /^dataset\.id: expected an id .*got "<b>iris<\/b>"$/,
    ],
    [
      'dataset N zero',
      (c) => setPath(c, 'dataset.N', 0),
      /^dataset\.N: expected an integer between 1 and 1000000000, got 0$/,
    ],
    [
      'algorithm family',
      (c) => setPath(c, 'algorithm.family', 'magic'),
      'algorithm.family: expected one of "statistical", "deep", "baseline", got "magic"',
    ],
    ['algorithm init_seed', (c) => setPath(c, 'algorithm.init_seed', -3), /^algorithm\.init_seed: .*got -3$/],
    [
      'hyper a list',
      (c) => setPath(c, 'algorithm.hyper', [1, 2]),
      'algorithm.hyper: expected an object of plain JSON values, got a list of 2 items',
    ],
    [
      'hyper too deep',
      (c) => setPath(c, 'algorithm.hyper', { a: { b: { c: { d: { e: { f: { g: { h: { i: 1 } } } } } } } } }),
      'algorithm.hyper: contains a bad value at a.b.c.d.e.f.g.h: nested deeper than 8 levels',
    ],
    [
      'hyper with a long string',
      (c) => setPath(c, 'algorithm.hyper', { note: 'x'.repeat(2001) }),
      'algorithm.hyper: contains a bad value at note: expected a string of at most 2000 characters, got a string of 2001 characters',
    ],
    [
      'hyper with a constructor key',
      (c) => setPath(c, 'algorithm.hyper', { nested: JSON.parse('{"constructor": 1}') }),
      /^algorithm\.hyper: contains a bad value at nested: key "constructor" is not allowed/,
    ],
    [
      'labeled_per_class not summing',
      (c) => setPath(c, 'split.labeled_per_class', [5, 5, 4]),
      'split.labeled_per_class: the class counts sum to 14, but n_labeled is 15',
    ],
    [
      'labeled_per_class with a negative',
      (c) => setPath(c, 'split.labeled_per_class', [5, -5, 15]),
      'split.labeled_per_class[1]: expected a whole number ≥ 0, got -5',
    ],
    [
      'ood > unlabeled',
      (c) => setPath(c, 'split.n_unlabeled_ood', 31),
      'split.n_unlabeled_ood: n_unlabeled_ood (31) exceeds n_unlabeled (30)',
    ],
    [
      'ok cell without split',
      (c) => setPath(c, 'split', null),
      'split: expected the split record of a cell with status "ok", got null',
    ],
    [
      'timing negative',
      (c) => setPath(c, 'timing.fit_ms', -1),
      'timing.fit_ms: expected a duration in ms ≥ 0, got -1',
    ],
    [
      'env backend',
      (c) => setPath(c, 'env.backend', 'cuda'),
      'env.backend: expected one of "webgpu", "webgl", "wasm", "cpu", got "cuda"',
    ],
    [
      'subsample n_after > n_before',
      (c) =>
        setPath(c, 'subsample', [
          { pool: 'test', n_before: 10, n_after: 11, method: 'stratified-split', seed: 3 },
        ]),
      'subsample[0].n_after: n_after (11) exceeds n_before (10)',
    ],
    [
      'subsample method',
      (c) =>
        setPath(c, 'subsample', [{ pool: 'graph', n_before: 10, n_after: 5, method: 'random', seed: 3 }]),
      'subsample[0].method: expected "stratified-split", got "random"',
    ],
    [
      'created_at not ISO',
      (c) => setPath(c, 'created_at', 'yesterday'),
      /^created_at: expected an ISO 8601 timestamp.*got "yesterday"$/,
    ],
    [
      'reason over 2000 chars',
      (c) =>
        setPath(c, 'outcome', {
          status: 'failed',
          reason: 'x'.repeat(2001),
          accuracy: null,
          n_correct: 0,
          n_test: 60,
          n_nan_rows: 0,
          flattened_from_t0: false,
        }),
      'outcome.reason: expected a string of at most 2000 characters, got a string of 2001 characters',
    ],
    [
      'device over 2000 chars',
      (c) => setPath(c, 'env.device', '<script>'.repeat(300)),
      'env.device: expected a string of at most 2000 characters, got a string of 2400 characters',
    ],
    [
      'algorithm name over 200 chars',
      (c) => setPath(c, 'algorithm.name', 'a'.repeat(201)),
      /^algorithm\.name: expected an id of 1 to 200 .*got a string of 201 characters$/,
    ],
  ];
  it.each(cases)('%s', (_name, mutate, expected) => {
    const message = cellError(mutate);
    if (typeof expected === 'string') expect(message).toBe(expected);
    else expect(message).toMatch(expected);
  });

  it('SchemaError carries the path separately', () => {
    try {
      parseCellResult(setPath(validCell(), 'split.labeled_per_class', [5, 'x', 5]));
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(SchemaError);
      expect((e as SchemaError).path).toBe('split.labeled_per_class[1]');
      expect((e as SchemaError).name).toBe('SchemaError');
    }
  });

  it('a weird key is quoted in the path', () => {
    expect(cellError((c) => setPath(c, 'outcome', { ...(c.outcome as object), 'a b': 1 }))).toBe(
      'outcome["a b"]: unknown field (not part of the schema)',
    );
  });
});

describe('malformed runs', () => {
  function runError(run: unknown): string {
    try {
      parseRun(JSON.parse(JSON.stringify(run)));
    } catch (e) {
      expect(e).toBeInstanceOf(SchemaError);
      return (e as Error).message;
    }
    throw new Error('expected a SchemaError, but the run was accepted');
  }

  it('names the cell index in the path', () => {
    const cells = [0, 1, 2, 3].map((seed) => validCell({ seed }));
    setPath(cells[3], 'outcome.accuracy', 'abc');
    expect(runError(validRun(cells))).toBe(
      'cells[3].outcome.accuracy: expected a number between 0 and 1 (or null when the cell did not score), got "abc"',
    );
  });

  it('rejects other schema versions, at the run and at a cell', () => {
    expect(runError({ ...validRun(), schema: 'rsb-run/3' })).toBe(
      'schema: unsupported schema version "rsb-run/3"; this version of RAC Bench reads "rsb-run/2" (and upgrades "rsb-run/1")',
    );
    expect(runError(validRun([validCell({ schema: 'rsb-cell/0' })]))).toMatch(
      /^cells\[0\]\.schema: expected the schema version "rsb-cell\/2"/,
    );
  });

  it('rejects a cell record passed as a run', () => {
    expect(runError(validCell())).toBe(
      'schema: unsupported schema version "rsb-cell/2"; this version of RAC Bench reads "rsb-run/2" (and upgrades "rsb-run/1")',
    );
  });

  it('rejects duplicate cells and cells whose mode or quirks differ from the plan', () => {
    expect(runError(validRun([validCell(), validCell()]))).toBe(
      'cells[1]: repeats the cell of cells[0] (iris, distribution, labels 5, lp, t=0.6, seed 2)',
    );
    const other = validCell({ seed: 3 });
    setPath(other, 'protocol.quirks', 'fixed');
    expect(runError(validRun([validCell(), other]))).toBe(
      'cells[1].protocol.quirks: is "fixed" but the run\'s plan says "rsb"; results that differ in quirks must not be pooled',
    );
  });

  it('checks the plan and env', () => {
    expect(runError(setPath(validRun(), 'plan.tIndices', [0, 9]))).toBe(
      'plan.tIndices[1]: expected an integer between 0 and 5, got 9',
    );
    expect(
      runError(setPath(validRun(), 'plan.settings', ['distribution', 'feature', 'label', 'label'])),
    ).toBe('plan.settings: expected a list of at most 3 settings, got a list of 4 items');
    expect(runError(setPath(validRun(), 'plan.seeds', [0, -1]))).toMatch(/^plan\.seeds\[1\]: .*got -1$/);
    expect(runError(setPath(validRun(), 'plan.options', { takeZero: 'empty' }))).toBe(
      'plan.options.t0Stream: required field is missing',
    );
    expect(runError(setPath(validRun(), 'env.shard', 'half'))).toBe(
      'env.shard: expected a shard like "2/4", got "half"',
    );
    expect(runError(setPath(validRun(), 'env.adapter', { vendor: 'x', driver: 'y' }))).toBe(
      'env.adapter.driver: unknown field (not part of the schema)',
    );
    expect(runError(setPath(validRun(), 'finished_at', 12))).toMatch(
      /^finished_at: expected an ISO 8601 timestamp.*got 12$/,
    );
    expect(runError(setPath(validRun(), 'id', 'a\u0000b'))).toBe(
      'id: expected an id without control characters, got "a\\u0000b"',
    );
  });

  it('refuses more than 100 000 cells before looking at them', () => {
    // Reading any cell throws: the refusal must come from the length alone (no clock involved).
    const looked: string[] = [];
    const cells = new Proxy(new Array(MAX_RUN_CELLS + 1).fill(0), {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) looked.push(key);
        return Reflect.get(target, key, receiver);
      },
    });
    expect(() => parseRun({ ...validRun(), cells })).toThrow(
      'cells: expected a list of at most 100000 cells, got a list of 100001 items',
    );
    expect(looked).toEqual([]);
  });

  it('parses a paper-sized run (5 000 cells) in reasonable time', () => {
    const cells = [];
    for (let seed = 0; seed < 5_000; seed++) cells.push(validCell({ seed }));
    const run = JSON.parse(JSON.stringify(validRun(cells)));
    const t0 = performance.now();
    expect(parseRun(run).cells).toHaveLength(5_000);
    // ≈ 30 µs per cell on an idle core; the bound only catches super-linear behaviour under load.
    expect(performance.now() - t0).toBeLessThan(10_000);
  });
});
