/**
 * The `finetune` tier on IMDB → Amazon through the command line (issue 18 item 3, issue 19 item 5):
 * Hub-layout parquet files at their real row counts (imdb train 25 000, amazon_polarity test
 * 400 000, `content` column) → `rac-bench run --tier finetune --amazon-pool test` with the tiny
 * RoBERTa-layout encoder trained whole. Checked: §5.5's sizes of the pair (|E| = n_u = 12 450), the
 * pool in the plan and in every record, the source rows (role `train`, pool file `source`) and the
 * target rows reach the views (a cell completes), and the records repeat byte for byte.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseRunV3, type ModalRunRecord } from '../../../src/lib/suite/schemaV3.ts';
import { imdbAmazonHubFiles, tinyRobertaTokenizerJson } from '../../helpers/textFixtures.ts';
import { runCli, withoutClocks } from '../helpers/cli.ts';

function write(path: string, bytes: Uint8Array | string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, bytes);
}

const WEIGHTS = new URL('../../fixtures/encoders/roberta-tiny.safetensors', import.meta.url).pathname;

let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rac-finetune-text-pair-'));
  for (const [path, bytes] of Object.entries(imdbAmazonHubFiles())) write(join(dir, 'hub', path), bytes);
  write(join(dir, 'tokenizer.json'), tinyRobertaTokenizerJson());
}, 180_000);

const args = (out: string) => [
  'run',
  ...['--dataset', 'imdb-amazon', '--tier', 'finetune', '--algorithms', 'fixmatch', '--amazon-pool', 'test'],
  ...['--seeds', '0', '--t', '0.4', '--steps', '2', '--batch', '4', '--backend', 'wasm', '--quiet'],
  ...['--backbone', 'tiny-roberta', '--weights', WEIGHTS, '--tokenizer', join(dir, 'tokenizer.json')],
  ...['--data-dir', join(dir, 'hub'), '--out', out],
];

describe('rac-bench run --tier finetune on IMDB → Amazon', () => {
  it('trains the tiny RoBERTa whole on the pair with §5.5 sizes, records the pool, and repeats', async () => {
    const first = await runCli(args(join(dir, 'a.json')));
    expect(first.code, first.stderr).toBe(0);
    const run = parseRunV3(JSON.parse(readFileSync(join(dir, 'a.json'), 'utf8'))) as ModalRunRecord;
    expect(run.plan).toMatchObject({
      tier: 'finetune',
      datasets: ['imdb-amazon'],
      options: { amazonPool: 'test' },
    });
    expect(run.cells).toHaveLength(1);
    expect(run.cells[0]).toMatchObject({
      modality: 'text',
      setting: 'distribution',
      dataset: { id: 'imdb-amazon', N: 425_000, k: 2, nonstandard: false },
      protocol: { tier: 'finetune', options: { amazonPool: 'test', iterations: 2 } },
      feature_bank: null,
      // §5.5: 50 × 2 labeled, |E| = 12 450, n_u = 12 450 (t = 0.4: 7 470 in, 4 980 out).
      split: { n_labeled: 100, n_test: 12_450, n_unlabeled_in: 7_470, n_unlabeled_out: 4_980 },
      outcome: { status: 'ok', n_test: 12_450 },
    });
    // imdb-amazon has one pair and names none (as the bank tiers write it).
    expect(run.cells[0].dataset).not.toHaveProperty('pair');

    const second = await runCli(args(join(dir, 'b.json')));
    expect(second.code, second.stderr).toBe(0);
    const again = parseRunV3(JSON.parse(readFileSync(join(dir, 'b.json'), 'utf8'))) as ModalRunRecord;
    expect(JSON.stringify(withoutClocks(again))).toBe(JSON.stringify(withoutClocks(run)));
  }, 600_000);
});
