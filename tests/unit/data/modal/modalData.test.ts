/**
 * Image and text datasets in the core (PROTOCOL-IMAGE-TEXT.md §4): real files the test writes in
 * the real formats (Hub parquet with the Image feature's {bytes, path} struct, PNG, zip) go
 * through the product's readers, and the §4.4 content hashes equal the ones a Python reference
 * computes from the same rows (scripts/fixtures/make_modal_hash_fixtures.py, hashlib):
 * 1. text parquet → labels and texts as stored (Unicode, empty, control characters) → rsb-txt/1;
 * 2. image parquet → PNG bytes → RGB (RGB, RGBA, grey and palette PNGs decode to the same pixels) → rsb-img/1;
 * 3. a zip in Image-CLEF's layout, with a root folder, hidden files, macOS forks and a list file →
 *    label then UTF-8 byte order (not UTF-16's) → rsb-files/1; nonstandard counts are flagged;
 * 4. wrong files fail with the reason: a missing column, a label out of range, a row count or
 *    class count other than the manifest's, two copies of the layout in one pick;
 * 5. CIFAR-10's block order: identity and 'unverified' until pinned; a pin reorders whole blocks.
 */
import { readFileSync } from 'node:fs';
import { encode } from 'fast-png';
import { unzipSync, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { canonicalBlockOrder } from '../../../../src/lib/data/modal/blockOrder.ts';
import {
  filesContentHash,
  imageContentHash,
  textContentHash,
} from '../../../../src/lib/data/modal/contentHash.ts';
import { checkSplitShape, readHubParquet } from '../../../../src/lib/data/modal/hubParquet.ts';
import { HUB_DATASETS, hubFileUrl, type HubDatasetSpec } from '../../../../src/lib/data/modal/hubSources.ts';
import {
  compareUtf8,
  LOCAL_IMAGE_DATASETS,
  readLocalImages,
} from '../../../../src/lib/data/modal/localImages.ts';
import { decodePngRgb } from '../../../../src/lib/data/modal/png.ts';
import { imageParquet, textParquet } from '../../../helpers/hubFiles.ts';

const GOLD = JSON.parse(
  readFileSync(new URL('../../../fixtures/modal/hashes.json', import.meta.url), 'utf8'),
) as {
  text: { id: string; split: string; rows: [number, string][]; sha256: string };
  image: { id: string; split: string; size: number; labels: number[]; sha256: string };
  files: { id: string; domain: string; files: [string, string, string][]; order: string[]; sha256: string };
};

const S = GOLD.image.size;
const pixels = (i: number): Uint8Array => {
  const out = new Uint8Array(S * S * 3);
  for (let r = 0; r < S; r++)
    for (let c = 0; c < S; c++)
      for (let ch = 0; ch < 3; ch++) out[(r * S + c) * 3 + ch] = (i * 37 + r * 7 + c * 3 + ch * 101) % 256;
  return out;
};
const pngOf = (rgb: Uint8Array, size = S) =>
  encode({ width: size, height: size, data: rgb, channels: 3, depth: 8 });

const imageFile = (labels: number[], pngs: Uint8Array[], labelColumn = 'label') =>
  imageParquet(labels, (i) => pngs[i], labelColumn);
const textFile = (rows: [number, string][], textColumn = 'text') =>
  textParquet(
    rows.map((r) => r[0]),
    (i) => rows[i][1],
    textColumn,
  );

/** A small spec like the real one, for shape checks on tiny files. */
const tiny = (base: HubDatasetSpec, rows: number, perClass: number): HubDatasetSpec => ({
  ...base,
  splits: { train: { files: ['x.parquet'], rows, perClass } },
});

describe('Hub sources', () => {
  it('lists the §4.1 files, shapes and class counts', () => {
    expect(hubFileUrl(HUB_DATASETS.cifar10.repo, HUB_DATASETS.cifar10.splits.train.files[0])).toBe(
      'https://huggingface.co/datasets/uoft-cs/cifar10/resolve/main/plain_text/train-00000-of-00001.parquet',
    );
    for (const spec of Object.values(HUB_DATASETS)) {
      expect(spec.classNames).toHaveLength(spec.k);
      expect(new Set(spec.classNames).size).toBe(spec.k);
      for (const s of Object.values(spec.splits)) expect(s.perClass * spec.k).toBe(s.rows);
    }
    expect(HUB_DATASETS.amazon_polarity.splits.train.files).toHaveLength(4);
    expect(HUB_DATASETS.cifar100.labelColumn).toBe('fine_label');
  });
});

describe('text datasets', () => {
  it('reads labels and texts as stored and hashes them as the reference does (rsb-txt/1)', async () => {
    const spec = HUB_DATASETS.ag_news;
    const rows = await readHubParquet(spec, textFile(GOLD.text.rows));
    expect(Array.from(rows.labels)).toEqual(GOLD.text.rows.map((r) => r[0]));
    expect(rows.texts).toEqual(GOLD.text.rows.map((r) => r[1]));
    expect(textContentHash(GOLD.text.id, GOLD.text.split, rows.labels, rows.texts!)).toBe(GOLD.text.sha256);
    // One changed character, or a changed label, changes the hash.
    const t = [...rows.texts!];
    t[1] = t[1].replace('é', 'e');
    expect(textContentHash(GOLD.text.id, GOLD.text.split, rows.labels, t)).not.toBe(GOLD.text.sha256);
    const y = Int32Array.from(rows.labels);
    y[0] = 1;
    expect(textContentHash(GOLD.text.id, GOLD.text.split, y, rows.texts!)).not.toBe(GOLD.text.sha256);
  });

  it('amazon reads its `content` column; a file without it says which columns it has', async () => {
    const amazon = await readHubParquet(HUB_DATASETS.amazon_polarity, textFile([[1, 'great']], 'content'));
    expect(amazon.texts).toEqual(['great']);
    await expect(readHubParquet(HUB_DATASETS.amazon_polarity, textFile([[1, 'great']]))).rejects.toThrow(
      /has no column 'content'; its columns are \["text","label"\]/,
    );
  });
});

describe('image datasets', () => {
  it('reads the Image struct, decodes PNG to RGB and hashes as the reference does (rsb-img/1)', async () => {
    const labels = GOLD.image.labels;
    const file = imageFile(
      labels,
      labels.map((_, i) => pngOf(pixels(i))),
    );
    const rows = await readHubParquet(HUB_DATASETS.cifar10, file, 'train.parquet');
    expect(Array.from(rows.labels)).toEqual(labels);
    const decoded = rows.images!.map((png) => decodePngRgb(png));
    decoded.forEach((d, i) => {
      expect([d.width, d.height]).toEqual([S, S]);
      expect(d.rgb).toEqual(pixels(i));
    });
    expect(imageContentHash(GOLD.image.id, GOLD.image.split, rows.labels, S, (i) => decoded[i].rgb)).toBe(
      GOLD.image.sha256,
    );
    expect(() => imageContentHash('cifar10', 'train', [0], S, () => new Uint8Array(5))).toThrow(
      /row 0 has 5 bytes/,
    );
  });

  it('RGBA, grey and palette PNGs decode to the RGB PIL convert("RGB") gives', () => {
    const rgb = pixels(3).subarray(0, 4 * 4 * 3);
    const rgba = new Uint8Array(16 * 4);
    for (let p = 0; p < 16; p++) rgba.set([rgb[3 * p], rgb[3 * p + 1], rgb[3 * p + 2], p * 16], 4 * p);
    expect(decodePngRgb(encode({ width: 4, height: 4, data: rgba, channels: 4, depth: 8 })).rgb).toEqual(rgb);
    const grey = Uint8Array.from({ length: 16 }, (_, p) => p * 15);
    const greyRgb = decodePngRgb(encode({ width: 4, height: 4, data: grey, channels: 1, depth: 8 })).rgb;
    expect(Array.from(greyRgb.subarray(0, 6))).toEqual([0, 0, 0, 15, 15, 15]);
    const palette: [number, number, number][] = [
      [255, 0, 0],
      [0, 128, 255],
    ];
    const indexed = Uint8Array.from({ length: 16 }, (_, p) => p % 2);
    const pal = decodePngRgb(
      encode({ width: 4, height: 4, data: indexed, channels: 1, depth: 8, palette }),
    ).rgb;
    expect(Array.from(pal.subarray(0, 6))).toEqual([255, 0, 0, 0, 128, 255]);
    expect(() => decodePngRgb(new Uint8Array([1, 2, 3]))).toThrow(/not a readable PNG/);
  });

  it('fails on a label out of range, a cell without image bytes, or counts other than the manifest', async () => {
    const png = pngOf(pixels(0));
    await expect(
      readHubParquet(HUB_DATASETS.cifar10, imageFile([10], [png]), 'train.parquet'),
    ).rejects.toThrow(/train\.parquet row 0: label 10 is not a class id in 0\.\.9/);
    await expect(readHubParquet(HUB_DATASETS.cifar10, new Uint8Array([1, 2, 3]))).rejects.toThrow(
      /not a readable parquet file/,
    );
    const spec = tiny(HUB_DATASETS.cifar10, 20, 2);
    const two = await readHubParquet(
      spec,
      imageFile(
        [...Array(20).keys()].map((i) => i % 10),
        Array(20).fill(png),
      ),
    );
    expect(() => checkSplitShape(spec, 'train', two)).not.toThrow();
    const skewed = await readHubParquet(
      spec,
      imageFile(
        [...Array(20).keys()].map((i) => (i < 3 ? 0 : i % 10)),
        Array(20).fill(png),
      ),
    );
    expect(() => checkSplitShape(spec, 'train', skewed)).toThrow(
      /class 0 \(airplane\) has 4 rows, expected 2/,
    );
    expect(() => checkSplitShape(HUB_DATASETS.cifar10, 'train', two)).toThrow(/20 rows, expected 50000/);
    expect(() => checkSplitShape(spec, 'validation', two)).toThrow(/no split 'validation'/);
  });

  it("CIFAR-10's train blocks: file order and 'unverified' until pinned; a pin reorders whole blocks", () => {
    const none = canonicalBlockOrder(50_000, 10_000, null);
    expect(none.status).toBe('unverified');
    expect(none.rows[12_345]).toBe(12_345);
    const pinned = canonicalBlockOrder(50_000, 10_000, [2, 0, 4, 1, 3]);
    expect(pinned.status).toBe('pinned');
    expect([pinned.rows[0], pinned.rows[9_999], pinned.rows[10_000], pinned.rows[49_999]]).toEqual([
      20_000, 29_999, 0, 39_999,
    ]);
    expect(() => canonicalBlockOrder(50_000, 10_000, [0, 0, 1, 2, 3])).toThrow(/not a permutation/);
    expect(() => canonicalBlockOrder(50_001, 10_000, null)).toThrow(/not whole blocks/);
  });
});

describe('local image datasets (folder or zip)', () => {
  const spec = LOCAL_IMAGE_DATASETS['image-clef'];
  const jpeg = (name: string) => new TextEncoder().encode(`jpeg:${name}`);

  function zipOfLayout(root: string): Uint8Array {
    const files: Record<string, Uint8Array> = {};
    // Reversed, so the canonical order cannot come from the zip's own order.
    for (const [d, cls, name] of [...GOLD.files.files].reverse())
      files[`${root}${d}/${cls}/${name}`] = jpeg(name);
    files[`${root}c/0/.DS_Store`] = new Uint8Array([0]);
    files[`__MACOSX/${root}c/0/._a.jpg`] = new Uint8Array([0]);
    files[`${root}c_list.txt`] = new TextEncoder().encode('c/0/a.jpg 0');
    files[`${root}c/README`] = new Uint8Array([1]);
    return zipSync(files);
  }

  it('orders by label, then file name in UTF-8 byte order, and hashes as the reference does (rsb-files/1)', () => {
    const entries = Object.entries(unzipSync(zipOfLayout('ImageCLEF/'))).map(([path, bytes]) => ({
      path,
      bytes,
    }));
    const ds = readLocalImages(spec, entries);
    expect(ds.root).toBe('ImageCLEF');
    expect(Object.keys(ds.domains)).toEqual(['c']);
    const c = ds.domains.c;
    expect(c.rows.map((r) => r.path)).toEqual(GOLD.files.order);
    expect(c.sha256).toBe(GOLD.files.sha256);
    expect(c.sha256).toBe(filesContentHash('image-clef', 'c', c.rows));
    expect(ds.ignored).toBe(2); // the list file and the README; hidden files are not counted
    expect(c.classCounts.slice(0, 3)).toEqual([6, 1, 2]);
    expect(c.nonstandard).toBe(true); // 10 files, not 600
    // The same files at the top of the pick (no root folder) give the same rows and hash.
    const flat = readLocalImages(
      spec,
      Object.entries(unzipSync(zipOfLayout(''))).map(([path, bytes]) => ({ path, bytes })),
    );
    expect(flat.root).toBe('');
    expect(flat.domains.c.sha256).toBe(GOLD.files.sha256);
  });

  it('UTF-8 byte order differs from UTF-16 order where it should', () => {
    expect(compareUtf8('\u{1F600}', '\uFF21')).toBeGreaterThan(0); // UTF-16: D83D < FF21
    expect('\u{1F600}' < '\uFF21').toBe(true);
    expect(compareUtf8('A', 'a')).toBeLessThan(0);
    expect(compareUtf8('ab', 'a')).toBeGreaterThan(0);
  });

  it('a standard domain is not flagged; two copies of the layout or none at all fail with the reason', () => {
    const entries: { path: string; bytes: Uint8Array }[] = [];
    for (let c = 0; c < 12; c++)
      for (let i = 0; i < 50; i++) entries.push({ path: `x/i/${c}/${i}.jpg`, bytes: jpeg(`${c}-${i}`) });
    const ds = readLocalImages(spec, entries);
    expect(ds.domains.i.rows).toHaveLength(600);
    expect(ds.domains.i.nonstandard).toBe(false);
    expect(() => readLocalImages(spec, [...entries, { path: 'y/p/0/a.jpg', bytes: jpeg('a') }])).toThrow(
      /more than one copy of the layout \(under 'x', 'y'\)/,
    );
    expect(() => readLocalImages(spec, [{ path: 'photos/a.jpg', bytes: jpeg('a') }])).toThrow(
      /no images found/,
    );
    const visda = readLocalImages(LOCAL_IMAGE_DATASETS.visda, [
      { path: 'visda/train/truck/1.png', bytes: jpeg('1') },
      { path: 'visda/train/aeroplane/2.png', bytes: jpeg('2') },
      { path: 'visda/validation/image_list.txt', bytes: jpeg('l') },
    ]);
    expect(visda.domains.train.rows.map((r) => [r.label, r.path])).toEqual([
      [0, 'train/aeroplane/2.png'],
      [11, 'train/truck/1.png'],
    ]);
  });
});
