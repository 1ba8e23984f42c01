/**
 * `rac-bench split` on the image and text panels, end to end from files in the real formats: a
 * Hub tree of parquet files (cifar10 with the Image struct, ag_news, imdb and amazon's test pool) at
 * their real row counts, and Image-CLEF as a zip in its class-folder layout. The labels are the
 * Python reference's synthetic ones (tests/fixtures/splits/image_text.json), so the row ids the CLI
 * prints must hash to the reference's; §5.5's sizes and the file each list indexes are checked too.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { encode } from 'fast-png';
import { zipSync } from 'fflate';
import { beforeAll, describe, expect, it } from 'vitest';
import { mt } from '../../../src/lib/protocol/rng.ts';
import { runCli } from '../helpers/cli.ts';
import { imageParquet, textParquet } from '../../helpers/hubFiles.ts';

const GOLD = JSON.parse(
  readFileSync(new URL('../../fixtures/splits/image_text.json', import.meta.url), 'utf8'),
) as { records: { panel: string; seed: number; t: number; sizes: number[]; sha256: string[] }[] };

const synthetic = (n: number, k: number, seed: number) =>
  Int32Array.from(mt(seed).permutation(n), (v) => v % k);
const digest = (ids: number[]) => createHash('sha256').update(ids.join(',')).digest('hex');

function write(path: string, bytes: Uint8Array): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, bytes);
}

const PNG = encode({
  width: 32,
  height: 32,
  data: new Uint8Array(32 * 32 * 3).fill(90),
  channels: 3,
  depth: 8,
});

const imageFile = (labels: Int32Array) => imageParquet(labels, () => PNG);
const textFile = (labels: Int32Array, column = 'text') =>
  textParquet(labels, (i) => `row ${i} of class ${labels[i]}`, column);

interface Cell {
  dataset: string;
  pair?: string;
  setting: string;
  labels: number;
  seed: number;
  t: number;
  sizes: { labeled: number; test: number; unlabeledIn: number; unlabeledOut: number };
  files: Record<string, string>;
  outVariant: string;
  numClasses: number;
  labeled: number[];
  test: number[];
  unlabeledIn: number[];
  unlabeledOut: number[];
}

let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rac-panels-'));
  // The Hub's own tree for cifar10; the {id} layout for the others (both are looked for).
  write(
    join(dir, 'uoft-cs/cifar10/plain_text/train-00000-of-00001.parquet'),
    imageFile(synthetic(50_000, 10, 101)),
  );
  write(
    join(dir, 'uoft-cs/cifar10/plain_text/test-00000-of-00001.parquet'),
    imageFile(synthetic(10_000, 10, 102)),
  );
  write(join(dir, 'ag_news/data/train-00000-of-00001.parquet'), textFile(synthetic(120_000, 4, 105)));
  write(join(dir, 'ag_news/data/test-00000-of-00001.parquet'), textFile(synthetic(7_600, 4, 106)));
  write(join(dir, 'imdb/plain_text/train-00000-of-00001.parquet'), textFile(synthetic(25_000, 2, 111)));
  write(
    join(dir, 'amazon_polarity/amazon_polarity/test-00000-of-00001.parquet'),
    textFile(synthetic(400_000, 2, 112), 'content'),
  );
  const files: Record<string, Uint8Array> = {};
  for (const d of ['c', 'i', 'p'])
    for (let c = 0; c < 12; c++)
      for (let n = 0; n < 50; n++) files[`ImageCLEF/${d}/${c}/${d}_${c}_${n}.jpg`] = new Uint8Array([c, n]);
  write(join(dir, 'image-clef.zip'), zipSync(files, { level: 0 }));
}, 120_000);

async function split(args: string[]): Promise<Cell[]> {
  const r = await runCli(['split', ...args, '--data-dir', dir]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Cell[];
}

function expectReference(cells: Cell[], panel: string): void {
  for (const c of cells) {
    const gold = GOLD.records.find((r) => r.panel === panel && r.seed === c.seed && r.t === c.t)!;
    expect(gold, `${panel} seed ${c.seed} t ${c.t}`).toBeDefined();
    expect([c.labeled, c.test, c.unlabeledIn, c.unlabeledOut].map(digest), `${panel} t ${c.t}`).toEqual(
      gold.sha256,
    );
  }
}

describe('rac-bench split on image and text panels', () => {
  it('cifar10 from the Hub tree: both panels, the reference row ids, grey OOD from train, E the official test', async () => {
    const cells = await split(['--dataset', 'cifar10', '--seeds', '0,2', '--t', 'all']);
    expect(cells).toHaveLength(2 * 2 * 6);
    const feature = cells.filter((c) => c.setting === 'feature');
    expect(feature.map((c) => [c.sizes.unlabeledIn, c.sizes.unlabeledOut])).toEqual(
      [0, 2].flatMap(() => [
        [25_000, 0],
        [20_000, 5_000],
        [15_000, 10_000],
        [10_000, 15_000],
        [4_999, 20_000],
        [0, 25_000],
      ]),
    );
    expect(feature[0]).toMatchObject({ labels: 200, outVariant: 'grey', numClasses: 10 });
    expect(feature[0].files).toEqual({
      labeled: 'train',
      test: 'test',
      unlabeledIn: 'train',
      unlabeledOut: 'train',
    });
    expectReference(feature, 'cifar10 feature 200');
    const label = cells.filter((c) => c.setting === 'label');
    expect(label[0]).toMatchObject({ labels: 100, numClasses: 5, sizes: { labeled: 100, test: 5_000 } });
    expectReference(label, 'cifar10 label');
  }, 180_000);

  it('ag_news (both panels) and imdb → amazon (test pool) match the reference; drop OOD texts', async () => {
    const cells = await split(['--dataset', 'ag_news,imdb-amazon', '--seeds', '1', '--amazon-pool', 'test']);
    const feature = cells.filter((c) => c.dataset === 'ag_news' && c.setting === 'feature');
    expect(feature[0]).toMatchObject({ outVariant: 'drop', numClasses: 4, sizes: { test: 7_600 } });
    expectReference(feature, 'ag_news feature');
    expectReference(
      cells.filter((c) => c.dataset === 'ag_news' && c.setting === 'label'),
      'ag_news label',
    );
    const imdb = cells.filter((c) => c.dataset === 'imdb-amazon');
    expect(imdb).toHaveLength(6);
    expect(imdb[0]).toMatchObject({
      pair: 'imdb->amazon',
      files: { test: 'source', unlabeledOut: 'target' },
    });
    expect(imdb.map((c) => c.sizes.test)).toEqual(Array(6).fill(12_450));
    expectReference(imdb, 'imdb->amazon test pool');
  }, 180_000);

  it('image-clef from a zip: each pair splits into 100 / 250 / U of 250 at every t', async () => {
    const cells = await split(['--dataset', 'image-clef', '--pair', 'i->p,c->i', '--seeds', '0']);
    expect(cells).toHaveLength(12);
    for (const c of cells) {
      expect([c.sizes.labeled, c.sizes.test, c.sizes.unlabeledIn + c.sizes.unlabeledOut]).toEqual([
        100, 250, 250,
      ]);
      expect(c.files.unlabeledOut).toBe('target');
    }
    expect(cells.filter((c) => c.pair === 'i->p').map((c) => c.sizes.unlabeledOut)).toEqual([
      0, 50, 100, 150, 200, 250,
    ]);
  }, 120_000);

  it('says what is missing or wrong', async () => {
    const missing = await runCli(['split', '--dataset', 'cifar100', '--data-dir', dir]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/CIFAR-100: no cifar100\/train-00000-of-00001\.parquet in .*looked at/);
    const noDir = await runCli(['split', '--dataset', 'visda']);
    expect(noDir.stderr).toMatch(/VisDA-2017 is not downloadable here \(no CORS host\): pass --data-dir/);
    const setting = await runCli([
      'split',
      '--dataset',
      'cifar10',
      '--setting',
      'distribution',
      '--data-dir',
      dir,
    ]);
    expect(setting.stderr).toMatch(
      /CIFAR-10 has no distribution panel in the benchmark \(it has: feature, label\)/,
    );
    const pair = await runCli(['split', '--dataset', 'image-clef', '--pair', 'i->x', '--data-dir', dir]);
    expect(pair.stderr).toMatch(/has the pairs i->p, i->c, p->i, p->c, c->i, c->p; got "i->x"/);
  }, 120_000);
});
