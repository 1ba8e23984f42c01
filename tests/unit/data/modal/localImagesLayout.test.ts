/**
 * The Image-CLEF / VisDA reader on folder picks and zips (PROTOCOL-IMAGE-TEXT.md §4.2): a good
 * layout reads into canonical rows with counts; each kind of wrong layout fails with the first
 * problem, naming the path; the IndexedDB copy (localStore.ts) reads back as the pick did.
 */
import { describe, expect, it } from 'vitest';
import {
  importLocalImages,
  LOCAL_IMAGE_DATASETS,
  localDomain,
  zipEntries,
  type LocalEntry,
} from '../../../../src/lib/data/modal/localImages.ts';
import {
  deleteLocalDataset,
  loadLocalDataset,
  saveLocalDataset,
} from '../../../../src/lib/data/modal/localStore.ts';
import { imageClefEntries, zipOf } from '../../../helpers/localImageFixtures.ts';

const clef = LOCAL_IMAGE_DATASETS['image-clef'];
const visda = LOCAL_IMAGE_DATASETS.visda;
const good = imageClefEntries(['i', 'p'], 2);
const jpeg = good[0].bytes;

describe('a good layout', () => {
  it('reads a zip and a folder pick alike: domains, counts per class, nonstandard flag, ignored files', () => {
    const extra: LocalEntry[] = [
      { path: 'image_CLEF/list/iList.txt', bytes: new TextEncoder().encode('i/0/x.jpg 0') },
      { path: 'image_CLEF/i/README.txt', bytes: new Uint8Array([1]) }, // a domain's top level: ignored
      { path: 'image_CLEF/b/0/b_0.jpg', bytes: jpeg }, // a domain the benchmark does not use
      { path: 'image_CLEF/p/0/.DS_Store', bytes: new Uint8Array([0]) },
    ];
    const fromZip = importLocalImages(clef, zipEntries(zipOf([...good, ...extra])));
    const fromPick = importLocalImages(clef, [...good, ...extra].reverse());
    for (const ds of [fromZip, fromPick]) {
      expect(ds.root).toBe('image_CLEF');
      expect(Object.keys(ds.domains)).toEqual(['i', 'p']);
      expect(ds.missing).toEqual(['c']);
      expect(ds.ignored).toBe(3);
      expect(ds.domains.i.classCounts).toEqual(new Array(12).fill(2));
      expect(ds.domains.i.rows).toHaveLength(24);
      expect(ds.domains.i.nonstandard).toBe(true); // 24 rows, not 600
      expect(ds.domains.i.rows.slice(0, 3).map((r) => r.path)).toEqual([
        'i/0/i_0_0.jpg',
        'i/0/i_0_1.jpg',
        'i/1/i_1_0.jpg',
      ]);
    }
    expect(fromZip.domains.p.sha256).toBe(fromPick.domains.p.sha256);
    expect(() => localDomain(fromZip, 'c')).toThrow(/has no domain 'c' \(it has i, p\)/);
  });

  it('VisDA: class names, PNG and JPEG files, image_list.txt at a domain top level ignored', () => {
    const ds = importLocalImages(visda, [
      { path: 'visda/train/truck/a.jpg', bytes: jpeg },
      { path: 'visda/train/image_list.txt', bytes: new Uint8Array([1]) },
      { path: 'visda/validation/train/b.jpg', bytes: jpeg }, // the class "train" of the validation domain
    ]);
    expect(ds.domains.train.rows.map((r) => [r.label, r.path])).toEqual([[11, 'train/truck/a.jpg']]);
    expect(ds.domains.validation.rows.map((r) => [r.label, r.path])).toEqual([
      [10, 'validation/train/b.jpg'],
    ]);
    expect(ds.ignored).toBe(1);
  });
});

describe('a wrong layout fails with the first problem, naming its path', () => {
  const cases: [string, LocalEntry[], RegExp][] = [
    [
      'a class folder that is not one of 0…11',
      [...good, { path: 'image_CLEF/p/13/x.jpg', bytes: jpeg }],
      /^image_CLEF\/p\/13\/x\.jpg: class folder 13 is not one of 0…11/,
    ],
    [
      'an image below a class folder',
      [...good, { path: 'image_CLEF/i/3/more/x.jpg', bytes: jpeg }],
      /^image_CLEF\/i\/3\/more\/x\.jpg: images sit directly in their class folder .* inside more under i\/3/,
    ],
    [
      'a file in a class folder that is not an image',
      [...good, { path: 'image_CLEF/i/0/notes.txt', bytes: new TextEncoder().encode('hello') }],
      /^image_CLEF\/i\/0\/notes\.txt: not a JPEG or PNG image \(5 bytes/,
    ],
    [
      'two copies of the layout',
      [...good, { path: 'copy/i/0/x.jpg', bytes: jpeg }],
      /more than one copy of the layout \(under 'copy', 'image_CLEF'\)/,
    ],
    ['no domain at all', [{ path: 'photos/a.jpg', bytes: jpeg }], /no images found in the expected layout/],
  ];
  for (const [what, entries, message] of cases)
    it(what, () => {
      expect(() => importLocalImages(clef, entries)).toThrow(message);
    });

  it('VisDA names its class list in words', () => {
    expect(() => importLocalImages(visda, [{ path: 'v/train/boat/a.jpg', bytes: jpeg }])).toThrow(
      /class folder boat is not one of aeroplane, bicycle, …, truck/,
    );
  });

  it('the first problem in path order, whatever order the pick lists', () => {
    const bad = [
      { path: 'image_CLEF/p/13/x.jpg', bytes: jpeg },
      { path: 'image_CLEF/i/12/y.jpg', bytes: jpeg },
    ];
    expect(() => importLocalImages(clef, bad)).toThrow(/^image_CLEF\/i\/12\/y\.jpg/);
  });

  it('a zip that is not one', () => {
    expect(() => zipEntries(new TextEncoder().encode('not a zip'))).toThrow(/not a readable zip file/);
  });
});

describe('kept in the browser (localStore.ts)', () => {
  it('saves each domain and reads back the same rows and hashes; a new pick replaces the old', async () => {
    const map = new Map<string, Uint8Array>();
    const store = {
      get: async (k: string) => map.get(k) ?? null,
      put: async (k: string, b: Uint8Array) => void map.set(k, b),
      delete: async (k: string) => void map.delete(k),
    };
    const ds = importLocalImages(clef, good);
    await saveLocalDataset(store, ds);
    expect([...map.keys()].sort()).toEqual(['local:image-clef/i', 'local:image-clef/p']);
    const back = (await loadLocalDataset(store, 'image-clef'))!;
    for (const d of ['i', 'p']) {
      expect(back.domains[d].sha256).toBe(ds.domains[d].sha256);
      expect(back.domains[d].rows.map((r) => r.path)).toEqual(ds.domains[d].rows.map((r) => r.path));
    }
    await saveLocalDataset(store, importLocalImages(clef, imageClefEntries(['c'], 1)));
    expect([...map.keys()]).toEqual(['local:image-clef/c']);
    await deleteLocalDataset(store, 'image-clef');
    expect(await loadLocalDataset(store, 'image-clef')).toBeNull();
  });
});
