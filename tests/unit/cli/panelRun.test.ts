/**
 * An image panel through the command line, end to end (issue 17's "Done when", features tier):
 * Hub-layout CIFAR-10 files at their real row counts → `rac-bench bank` (a tiny conv backbone from a
 * safetensors file the test writes, clean and weak views) → `rac-bench run` on the label panel with
 * all nine methods (Supervised and the eight SSL methods, strong views from RandAugment + Cutout) →
 * an rsb-run/3 file that the /3 schema reads.
 * Checked: the banks are keyed to the data's content and the weights; each cell has §5.5's sizes
 * (100 labeled, 5 000 test, U = 25 000 at every t), a head trained above twice chance (the classes
 * differ in colour), and the record's provenance; what is not built is refused with the reason.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { encode } from 'fast-png';
import { beforeAll, describe, expect, it } from 'vitest';
import { readBankFile } from '../../../src/lib/bank/bankFile.ts';
import { mt } from '../../../src/lib/protocol/rng.ts';
import { parseRunV3, type ModalRunRecord } from '../../../src/lib/suite/schemaV3.ts';
import { imageParquet } from '../../helpers/hubFiles.ts';
import { runCli } from '../helpers/cli.ts';
import { tinyConvWeights } from '../../helpers/tinyConvWeights.ts';

function write(path: string, bytes: Uint8Array): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, bytes);
}

/** One PNG per class: a flat colour, so a tiny conv net's features separate the classes. */
const PNGS = Array.from({ length: 10 }, (_, c) =>
  encode({
    width: 32,
    height: 32,
    data: Uint8Array.from(
      { length: 32 * 32 * 3 },
      (_, i) => [(c * 53) % 256, (c * 97) % 256, (c * 151) % 256][i % 3],
    ),
    channels: 3,
    depth: 8,
  }),
);
const labelsOf = (n: number, seed: number) => Int32Array.from(mt(seed).permutation(n), (v) => v % 10);

let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rac-panel-run-'));
  const train = labelsOf(50_000, 101);
  const test = labelsOf(10_000, 102);
  write(
    join(dir, 'data/uoft-cs/cifar10/plain_text/train-00000-of-00001.parquet'),
    imageParquet(train, (i) => PNGS[train[i]]),
  );
  write(
    join(dir, 'data/uoft-cs/cifar10/plain_text/test-00000-of-00001.parquet'),
    imageParquet(test, (i) => PNGS[test[i]]),
  );
  write(join(dir, 'tiny.safetensors'), tinyConvWeights());
  mkdirSync(join(dir, 'banks'));
}, 120_000);

const bank = (split: string, kw: string, ks: string) =>
  runCli([
    'bank',
    '--dataset',
    'cifar10',
    '--split',
    split,
    '--kw',
    kw,
    '--ks',
    ks,
    '--weights',
    join(dir, 'tiny.safetensors'),
    '--data-dir',
    join(dir, 'data'),
    '--out',
    join(dir, 'banks', `cifar10-${split}.bank`),
    '--batch',
    '500',
    '--quiet',
  ]);

describe('rac-bench bank and run on an image panel', () => {
  it('makes the banks (weak and strong views), runs the label panel with all nine methods, and writes an rsb-run/3 file', async () => {
    const [train, test] = await Promise.all([bank('train', '2', '1'), bank('test', '0', '0')]);
    expect(train.code, train.stderr).toBe(0);
    expect(test.code, test.stderr).toBe(0);
    const key = readBankFile(new Uint8Array(readFileSync(join(dir, 'banks/cifar10-train.bank')))).key;
    expect(key).toMatchObject({
      dataset: 'cifar10/train',
      variants: ['colour'],
      Kw: 2,
      Ks: 1,
      dim: 8,
      rows: 50_000,
    });
    const out = join(dir, 'run.json');
    const run = await runCli([
      'run',
      '--dataset',
      'cifar10',
      '--setting',
      'label',
      '--tier',
      'features',
      '--algorithms',
      'supervised,pseudolabel,pimodel,meanteacher,ict,uda,fixmatch,flexmatch,softmatch',
      '--seeds',
      '0',
      '--t',
      '0,1',
      '--steps',
      '60',
      '--lr',
      '0.05',
      '--bank-dir',
      join(dir, 'banks'),
      '--data-dir',
      join(dir, 'data'),
      '--out',
      out,
      '--quiet',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const record = parseRunV3(JSON.parse(readFileSync(out, 'utf8'))) as ModalRunRecord;
    expect(record.schema).toBe('rsb-run/3');
    expect(record.plan).toMatchObject({
      spec: 'image-text',
      tier: 'features',
      datasets: ['cifar10'],
      settings: ['label'],
    });
    expect(record.cells).toHaveLength(18);
    for (const c of record.cells) {
      expect(c).toMatchObject({
        modality: 'image',
        dataset: { id: 'cifar10', row_order: 'unverified', k: 10, N: 60_000 },
        backbone: {
          id: 'tiny-conv',
          feature: 'tiny-conv-gap',
          weights_sha256: key.weightsSha256,
          frozen: true,
        },
        feature_bank: { K_w: 2, K_s: 1 },
        split: { n_labeled: 100, n_test: 5_000 },
        protocol: { overrides: { iterations: 60, lr: 0.05 } },
      });
      expect(c.split!.n_unlabeled_in + c.split!.n_unlabeled_out).toBe(25_000);
      // 5 kept classes (chance 0.2); strong views recolour the flat images, so the bar is twice chance.
      expect(c.outcome.accuracy, `${c.algorithm.name} t=${c.t}`).toBeGreaterThan(0.4);
    }

    // classroom: the same banks, §10's caps recorded in each cell and in the plan.
    const classroomOut = join(dir, 'classroom.json');
    const classroom = await runCli([
      'run',
      ...['--dataset', 'cifar10', '--setting', 'label', '--tier', 'classroom', '--algorithms', 'fixmatch'],
      ...['--seeds', '0', '--t', '0.4', '--steps', '10', '--quiet'],
      ...['--bank-dir', join(dir, 'banks'), '--data-dir', join(dir, 'data'), '--out', classroomOut],
    ]);
    expect(classroom.code, classroom.stderr).toBe(0);
    const capped = parseRunV3(JSON.parse(readFileSync(classroomOut, 'utf8'))) as ModalRunRecord;
    expect(capped.plan).toMatchObject({
      tier: 'classroom',
      subsample: { test: { max: 500 }, unlabeled: { max: 1_000 } },
    });
    const [cell] = capped.cells;
    expect(cell.split).toMatchObject({ n_test: 5_000, n_unlabeled: 25_000 });
    expect(cell.subsample!.map((r) => [r.pool, r.n_after])).toEqual([
      ['test', 500],
      ['unlabeled_in', Math.floor((1_000 * cell.split!.n_unlabeled_in) / 25_000)],
      ['unlabeled_out', 1_000 - Math.floor((1_000 * cell.split!.n_unlabeled_in) / 25_000)],
    ]);
    expect(cell.outcome.n_test).toBe(500);
  }, 600_000);

  it('refuses what does not fit or is not built, with the reason', async () => {
    const text = await runCli(['bank', '--dataset', 'ag_news', '--out', join(dir, 'y.bank')]);
    expect(text.stderr).toMatch(
      /--backbone tiny-conv: AG News takes a text backbone \(tiny-roberta, roberta-base, minilm-l6\)/,
    );
    const clef = await runCli(['bank', '--dataset', 'image-clef', '--out', join(dir, 'z.bank')]);
    expect(clef.stderr).toMatch(/--dataset image-clef: give --split <domain> \(c, i, p\) or --pair/);
    // Pairs run (tests/unit/cli/panelRunPairs.test.ts); without their files, the reason.
    const pairs = await runCli([
      ...['run', '--dataset', 'imdb-amazon', '--bank-dir', join(dir, 'banks'), '--out', join(dir, 'p.json')],
    ]);
    expect(pairs.stderr).toMatch(
      /IMDB reviews is read from --data-dir DIR holding the Hub files of stanfordnlp\/imdb/,
    );
    expect(pairs.code).toBe(2);
  }, 300_000);
});
