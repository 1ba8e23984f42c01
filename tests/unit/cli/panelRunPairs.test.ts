/**
 * Distribution panels through the command line, end to end (issue 18 item 4, issue 19 item 4):
 * - Image-CLEF from a folder of real JPEG files (tests/helpers/localImageFixtures.ts: 12 classes ×
 *   10 files in domains i and p, nonstandard counts) → `rac-bench run --pair i->p` in the features
 *   tier, banks made on the fly through a tiny conv net at 224 px (decode → resize 256 → crops) →
 *   a second run of p->i that finds both domain banks (shared between the pairs) → `bank --pair`
 *   from the zip of the same files gives the same content hashes;
 * - IMDB → Amazon from Hub-layout parquet files at their real row counts (imdb train 25 000,
 *   amazon_polarity test 400 000, `content` column) in the classroom tier with a tiny
 *   RoBERTa-layout encoder: §5.5's sizes, the pool recorded.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readBankFile } from '../../../src/lib/bank/bankFile.ts';
import { importLocalImages, LOCAL_IMAGE_DATASETS } from '../../../src/lib/data/modal/localImages.ts';
import { parseRunV3, type ModalRunRecord } from '../../../src/lib/suite/schemaV3.ts';
import { imageClefEntries, zipOf } from '../../helpers/localImageFixtures.ts';
import { imdbAmazonHubFiles, tinyRobertaTokenizerJson } from '../../helpers/textFixtures.ts';
import { runCli } from '../helpers/cli.ts';
import { tinyConvWeights } from '../../helpers/tinyConvWeights.ts';

function write(path: string, bytes: Uint8Array | string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, bytes);
}

const entries = imageClefEntries(['i', 'p'], 10, 'image_CLEF');
let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rac-panel-pairs-'));
  for (const e of entries) write(join(dir, 'clef', e.path), e.bytes);
  write(join(dir, 'image-clef.zip'), zipOf(entries));
  write(join(dir, 'tiny.safetensors'), tinyConvWeights());
  mkdirSync(join(dir, 'banks'));
}, 120_000);

const clefRun = (pair: string, out: string, extra: string[] = []) =>
  runCli([
    'run',
    ...['--dataset', 'image-clef', '--pair', pair, '--tier', 'features', '--labels', '24'],
    ...['--algorithms', 'supervised,pseudolabel,fixmatch', '--seeds', '0', '--t', '0.4'],
    ...['--steps', '600', '--lr', '0.1', '--batch', '24', '--quiet'],
    ...['--bank-dir', join(dir, 'banks'), '--data-dir', join(dir, 'clef'), '--out', out, ...extra],
  ]);

describe('rac-bench on Image-CLEF pairs from a folder of JPEGs', () => {
  it('runs i->p with domain banks made on the fly; p->i reuses them; bank --pair from the zip agrees', async () => {
    const out = join(dir, 'ip.json');
    const run = await clefRun('i->p', out, ['--weights', join(dir, 'tiny.safetensors')]);
    expect(run.code, run.stderr).toBe(0);
    const ds = importLocalImages(LOCAL_IMAGE_DATASETS['image-clef'], entries);
    const banks = readdirSync(join(dir, 'banks')).map((f) =>
      readBankFile(new Uint8Array(readFileSync(join(dir, 'banks', f)))),
    );
    expect(banks.map((b) => b.key.dataset).sort()).toEqual(['image-clef/i', 'image-clef/p']);
    for (const b of banks)
      expect(b.key).toMatchObject({
        contentSha256: ds.domains[b.key.dataset.slice(-1)].sha256,
        variants: ['colour'],
        Kw: 2,
        Ks: 2,
        rows: 120,
        dim: 8,
      });

    const record = parseRunV3(JSON.parse(readFileSync(out, 'utf8'))) as ModalRunRecord;
    expect(record.plan).toMatchObject({
      datasets: ['image-clef'],
      pairs: ['i->p'],
      settings: ['distribution'],
    });
    expect(record.cells).toHaveLength(3);
    for (const c of record.cells) {
      expect(c).toMatchObject({
        modality: 'image',
        dataset: {
          id: 'image-clef',
          pair: { source: 'i', target: 'p' },
          local: { name: 'image_CLEF', n_files: 240 },
          N: 240,
          k: 12,
          nonstandard: true,
          row_order: 'canonical',
        },
        input: { image_size: 224, normalization: 'imagenet', decoder: 'jpeg-js@0.4.4 + fast-png' },
        // §5.2 on 120 source rows with 24 labeled: |E| = ceil(96/2) = 48, n_u = min(120, 48) = 48,
        // n_out = ceil(48 · 0.4) = 20.
        split: { n_labeled: 24, n_test: 48, n_unlabeled: 48, n_unlabeled_in: 28, n_unlabeled_out: 20 },
      });
      // 12 classes told apart by colour (chance 1/12): the supervised head well above chance.
      if (c.algorithm.name === 'supervised') expect(c.outcome.accuracy).toBeGreaterThan(0.5);
    }

    // The reverse pair reads the same two domains: no extraction, no new bank.
    const back = await clefRun('p->i', join(dir, 'pi.json'), ['--algorithms', 'supervised', '--steps', '5']);
    expect(back.code, back.stderr).toBe(0);
    expect(readdirSync(join(dir, 'banks'))).toHaveLength(2);
    const pi = parseRunV3(JSON.parse(readFileSync(join(dir, 'pi.json'), 'utf8'))) as ModalRunRecord;
    expect(pi.cells[0].dataset).toMatchObject({ pair: { source: 'p', target: 'i' } });

    // `bank --pair` from the zip: one bank per domain, keyed to the same content.
    const zipBanks = await runCli([
      'bank',
      ...['--dataset', 'image-clef', '--pair', 'i->p', '--kw', '0', '--ks', '0', '--quiet'],
      ...['--weights', join(dir, 'tiny.safetensors'), '--data-dir', join(dir, 'image-clef.zip')],
      ...['--out', join(dir, 'zip-banks')],
    ]);
    expect(zipBanks.code, zipBanks.stderr).toBe(0);
    const made = readdirSync(join(dir, 'zip-banks')).map(
      (f) => readBankFile(new Uint8Array(readFileSync(join(dir, 'zip-banks', f)))).key,
    );
    expect(made.map((k) => [k.dataset, k.contentSha256]).sort()).toEqual([
      ['image-clef/i', ds.domains.i.sha256],
      ['image-clef/p', ds.domains.p.sha256],
    ]);
  }, 600_000);

  it('names the first problem of a wrong folder, a missing domain and an unknown pair', async () => {
    write(join(dir, 'bad/image_CLEF/p/13/x.jpg'), entries[0].bytes);
    for (const e of entries.slice(0, 3)) write(join(dir, 'bad', e.path), e.bytes);
    const bad = await clefRun('i->p', join(dir, 'bad.json'), ['--data-dir', join(dir, 'bad')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/image_CLEF\/p\/13\/x\.jpg: class folder 13 is not one of 0…11/);
    const missing = await clefRun('c->p', join(dir, 'c.json'));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/has no domain 'c' \(it has i, p\)/);
    const unknown = await clefRun('i->x', join(dir, 'x.json'));
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/--pair: The pair "i->x" is not one of Image-CLEF: i->p, i->c/);
  }, 120_000);
});

describe('rac-bench on IMDB → Amazon from Hub-layout parquet files', () => {
  const WEIGHTS = new URL('../../fixtures/encoders/roberta-tiny.safetensors', import.meta.url).pathname;

  it('runs the classroom pair on the amazon test pool with §5.5 sizes, and records the pool', async () => {
    for (const [path, bytes] of Object.entries(imdbAmazonHubFiles())) write(join(dir, 'hub', path), bytes);
    write(join(dir, 'tokenizer.json'), tinyRobertaTokenizerJson());
    mkdirSync(join(dir, 'text-banks'));
    const out = join(dir, 'imdb.json');
    const run = await runCli([
      'run',
      ...['--dataset', 'imdb-amazon', '--tier', 'classroom', '--algorithms', 'supervised,fixmatch'],
      ...['--seeds', '0', '--t', '0.4', '--steps', '60', '--lr', '0.05', '--quiet'],
      ...['--backbone', 'tiny-roberta', '--weights', WEIGHTS, '--tokenizer', join(dir, 'tokenizer.json')],
      ...['--bank-dir', join(dir, 'text-banks'), '--data-dir', join(dir, 'hub'), '--out', out],
    ]);
    expect(run.code, run.stderr).toBe(0);
    const record = parseRunV3(JSON.parse(readFileSync(out, 'utf8'))) as ModalRunRecord;
    expect(record.plan.options).toMatchObject({ amazonPool: 'test' });
    expect(record.cells).toHaveLength(2);
    for (const c of record.cells) {
      expect(c).toMatchObject({
        modality: 'text',
        setting: 'distribution',
        dataset: { id: 'imdb-amazon', N: 425_000, k: 2, nonstandard: false },
        protocol: { options: { amazonPool: 'test' } },
        // §5.5: 50 × 2 labeled, |E| = 12 450, n_u = 12 450 (t = 0.4: 7 470 + 4 980), E capped to 500.
        split: { n_labeled: 100, n_test: 12_450, n_unlabeled_in: 7_470, n_unlabeled_out: 4_980 },
        outcome: { n_test: 500 },
      });
      expect((c.dataset as { files: { path: string }[] }).files.map((f) => f.path)).toEqual([
        'plain_text/train-00000-of-00001.parquet',
        'amazon_polarity/test-00000-of-00001.parquet',
      ]);
    }
    const banks = readdirSync(join(dir, 'text-banks')).map(
      (f) => readBankFile(new Uint8Array(readFileSync(join(dir, 'text-banks', f)))).key.dataset,
    );
    expect(banks.sort()).toEqual(['amazon_polarity/test', 'imdb/train']);
  }, 600_000);
});
