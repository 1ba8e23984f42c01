/**
 * The `finetune` tier on a photo pair through the command line (issue 18 items 3–4): a folder of
 * real JPEG files of any size in Image-CLEF's layout (tests/helpers/localImageFixtures.ts: 12
 * classes × 10 files in domains i and p, nonstandard counts) → `rac-bench run --tier finetune
 * --pair i->p` with the reduced-width ResNet of tests/fixtures/backbone trained whole at the
 * spec's 224 px (decode → Resize 256 → crop 224 shared by a row's unlabeled views, §6.1).
 * Checked: complete rsb-cell/3 records of the pair (dataset.pair, §5.2's sizes, image input 224 px);
 * the normalisation is the labeled files' per-channel mean and population std at their stored
 * size, recomputed here from the split and the decoded JPEGs (§6.2); a second run is byte-identical
 * apart from clocks and timings; mixing photo and CIFAR panels in one run is refused.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeImageRgb } from '../../../src/lib/data/modal/imageDecode.ts';
import { panelRuleOf } from '../../../src/lib/data/modal/panels.ts';
import { importLocalImages, LOCAL_IMAGE_DATASETS } from '../../../src/lib/data/modal/localImages.ts';
import { panelSplit } from '../../../src/lib/protocol/panelSplit.ts';
import { parseRunV3, type ModalRunRecord } from '../../../src/lib/suite/schemaV3.ts';
import { imageClefEntries } from '../../helpers/localImageFixtures.ts';
import { runCli, withoutClocks } from '../helpers/cli.ts';

function write(path: string, bytes: Uint8Array | string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, bytes);
}

const entries = imageClefEntries(['i', 'p'], 10, 'image_CLEF');
const RESNET = new URL('../../fixtures/backbone/resnet_reduced.safetensors', import.meta.url).pathname;

let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rac-finetune-photo-'));
  for (const e of entries) write(join(dir, 'clef', e.path), e.bytes);
}, 120_000);

const args = (out: string, extra: string[] = []) => [
  'run',
  ...['--dataset', 'image-clef', '--pair', 'i->p', '--tier', 'finetune', '--labels', '24'],
  ...['--algorithms', 'supervised,fixmatch', '--seeds', '0', '--t', '0.4'],
  ...['--steps', '2', '--batch', '4', '--lr', '0.01', '--backend', 'wasm'],
  ...['--backbone', 'tiny-resnet', '--weights', RESNET, '--data-dir', join(dir, 'clef'), '--out', out],
  ...extra,
];

describe('rac-bench run --tier finetune on an Image-CLEF pair', () => {
  it('trains the reduced ResNet whole on i->p at 224 px, records the pair, and repeats byte for byte', async () => {
    const first = await runCli(args(join(dir, 'ip-1.json')));
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/finetune: 2 cells of ResNet \(width 4\) at 224 px/);
    const run = parseRunV3(JSON.parse(readFileSync(join(dir, 'ip-1.json'), 'utf8'))) as ModalRunRecord;
    expect(run.plan).toMatchObject({ tier: 'finetune', datasets: ['image-clef'], pairs: ['i->p'] });
    expect(run.cells.map((c) => c.algorithm.name)).toEqual(['supervised', 'fixmatch']);

    // §6.2: the labeled files' pixels at their stored (decoded) size, before the resize.
    const ds = importLocalImages(LOCAL_IMAGE_DATASETS['image-clef'], entries);
    const source = ds.domains.i.rows;
    const target = ds.domains.p.rows;
    const drawn = panelSplit(
      panelRuleOf('image-clef', 'distribution'),
      {
        train: Int32Array.from(source, (r) => r.label),
        target: Int32Array.from(target, (r) => r.label),
        k: 12,
      },
      24,
      0.4,
      0,
    );
    const sums = [0, 0, 0],
      squares = [0, 0, 0];
    let n = 0;
    for (const r of drawn.labeled) {
      // The product's decoder (libjpeg-like upsampling; its own goldens are in data/modal tests).
      const img = decodeImageRgb(source[r].bytes);
      for (let p = 0; p < img.width * img.height; p++)
        for (let ch = 0; ch < 3; ch++) {
          const v = img.rgb[3 * p + ch] / 255;
          sums[ch] += v;
          squares[ch] += v * v;
        }
      n += img.width * img.height;
    }
    const mean = sums.map((s) => s / n);
    const std = squares.map((q, ch) => Math.sqrt(q / n - mean[ch] ** 2));

    for (const c of run.cells) {
      expect(c).toMatchObject({
        modality: 'image',
        protocol: {
          tier: 'finetune',
          options: { iterations: 2, emaDecay: 0.999 },
          overrides: { iterations: 2, B: 4, lr: 0.01 },
        },
        dataset: {
          id: 'image-clef',
          pair: { source: 'i', target: 'p' },
          local: { name: 'image_CLEF', n_files: 240 },
          N: 240,
          k: 12,
          nonstandard: true,
        },
        backbone: { id: 'tiny-resnet', frozen: false },
        feature_bank: null,
        input: { image_size: 224, normalization: 'labeled-stats', decoder: 'jpeg-js@0.4.4 + fast-png' },
        // §5.2 on 120 source rows with 24 labeled: |E| = 48, n_u = 48, n_out = ceil(48 · 0.4) = 20.
        split: { n_labeled: 24, n_test: 48, n_unlabeled: 48, n_unlabeled_in: 28, n_unlabeled_out: 20 },
        outcome: { status: 'ok', n_test: 48 },
        timing: { steps: 2 },
      });
      const input = c.input as { mean: number[]; std: number[] };
      input.mean.forEach((m, ch) => expect(m).toBeCloseTo(mean[ch], 10));
      input.std.forEach((s, ch) => expect(s).toBeCloseTo(std[ch], 8));
      expect(c.outcome.accuracy).toBeGreaterThanOrEqual(0);
      expect(c.outcome.accuracy).toBeLessThanOrEqual(1);
    }

    const second = await runCli([...args(join(dir, 'ip-2.json')), '--quiet']);
    expect(second.code, second.stderr).toBe(0);
    const again = parseRunV3(JSON.parse(readFileSync(join(dir, 'ip-2.json'), 'utf8'))) as ModalRunRecord;
    expect(JSON.stringify(withoutClocks(again))).toBe(JSON.stringify(withoutClocks(run)));
  }, 300_000);

  it('refuses photo and CIFAR panels in one run, and a pair the panel lacks', async () => {
    const mixed = await runCli(
      args(join(dir, 'x.json')).map((a) => (a === 'image-clef' ? 'image-clef,cifar10' : a)),
    );
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toMatch(/image-clef enter the network at 224 px .* run them separately/);
    const pair = await runCli(args(join(dir, 'x.json')).map((a) => (a === 'i->p' ? 'i->q' : a)));
    expect(pair.code).toBe(2);
    expect(pair.stderr).toMatch(/--pair: The pair "i->q" is not one of Image-CLEF: i->p/);
  }, 120_000);
});
