/**
 * Source → target pairs in image/text plans (PROTOCOL-IMAGE-TEXT.md §5.2): the cells of each pair,
 * keys that name a pair only when there is one (stored keys of the other panels unchanged), the
 * domain banks shared by the pairs that read a domain, §5.5's sizes asserted, loadPanel's record
 * of a local pair, and the photo views a bank renders (§6.1's pipelines on the decoded file).
 */
import { describe, expect, it } from 'vitest';
import { importLocalImages, LOCAL_IMAGE_DATASETS } from '../../../src/lib/data/modal/localImages.ts';
import {
  datasetPairs,
  describePanelCell,
  panelCellKey,
  panelCells,
  planAmazonPool,
  planPairsRefusal,
  recordPair,
  type PanelPlan,
} from '../../../src/lib/suite/panelPlan.ts';
import {
  checkPairSizes,
  loadPanel,
  localSplit,
  pairBankSpecs,
  photoViewRenderer,
  type LoadedPair,
} from '../../../src/lib/suite/panelRun.ts';
import { normalise, photoClean, photoStrong, photoWeak } from '../../../src/lib/augment/image/index.ts';
import { viewRng } from '../../../src/lib/bank/viewSeed.ts';
import { decodeImageRgb } from '../../../src/lib/data/modal/imageDecode.ts';
import { imageClefEntries } from '../../helpers/localImageFixtures.ts';

const base: PanelPlan = {
  datasets: ['cifar10', 'image-clef', 'imdb-amazon'],
  settings: ['feature', 'distribution'],
  algorithms: ['supervised'],
  seeds: [0],
  tIndices: [2],
  tier: 'features',
  quirks: 'rsb',
};

describe('pairs in a plan', () => {
  it("runs each panel's published pairs by default, in published order; a plan's pairs select among them", () => {
    expect(datasetPairs('cifar10', base)).toEqual([null]);
    expect(datasetPairs('image-clef', base)).toEqual(['i->p', 'i->c', 'p->i', 'p->c', 'c->i', 'c->p']);
    expect(datasetPairs('image-clef', { pairs: ['c->i', 'i->p'] })).toEqual(['i->p', 'c->i']);
    const cells = panelCells(base);
    // cifar10 feature (1) + image-clef 6 pairs + imdb-amazon 1 pair.
    expect(cells.map((c) => `${c.dataset}:${c.pair}:${c.setting}`)).toEqual([
      'cifar10:null:feature',
      ...['i->p', 'i->c', 'p->i', 'p->c', 'c->i', 'c->p'].map((p) => `image-clef:${p}:distribution`),
      'imdb-amazon:imdb->amazon:distribution',
    ]);
    expect(panelCells({ ...base, pairs: ['p->c', 'imdb->amazon'] }).map((c) => c.pair)).toEqual([
      null,
      'p->c',
      'imdb->amazon',
    ]);
  });

  it('keys name the pair only when there is one: the keys stored before pairs existed stay the same', () => {
    const [cifar, clef] = panelCells({ ...base, datasets: ['cifar10', 'image-clef'], pairs: ['i->p'] });
    expect(panelCellKey(cifar)).toBe('cifar10|feature|200|supervised|0|2');
    expect(panelCellKey(clef)).toBe('image-clef|i->p|distribution|100|supervised|0|2');
    expect(describePanelCell(clef)).toBe('image-clef i->p distribution supervised labels 100 t=0.4 seed 0');
    expect(describePanelCell(cifar)).toBe('cifar10 feature supervised labels 200 t=0.4 seed 0');
  });

  it("a record's pair is its cell's: dataset.pair, imdb-amazon's only pair, or none", () => {
    expect(recordPair({ dataset: { id: 'image-clef', pair: { source: 'c', target: 'p' } } })).toBe('c->p');
    expect(recordPair({ dataset: { id: 'imdb-amazon' } })).toBe('imdb->amazon');
    expect(recordPair({ dataset: { id: 'cifar10' } })).toBeNull();
  });

  it('refuses a pair no dataset of the plan has, naming the pairs there are', () => {
    expect(planPairsRefusal({ ...base, pairs: ['i->q'] })).toMatch(
      /"i->q" is not one of Image-CLEF: i->p, i->c, p->i, p->c, c->i, c->p; IMDB → Amazon: imdb->amazon/,
    );
    expect(planPairsRefusal({ datasets: ['image-clef', 'visda'], pairs: ['i->p'] })).toMatch(
      /VisDA-2017: none of the pairs asked for is one of its \(train->validation, validation->train\)/,
    );
    expect(planPairsRefusal({ ...base, pairs: ['i->p', 'imdb->amazon'] })).toBeNull();
  });

  it("amazon's pool: test in classroom, train otherwise, unless the plan says", () => {
    expect(planAmazonPool({ tier: 'classroom' })).toBe('test');
    expect(planAmazonPool({ tier: 'features' })).toBe('train');
    expect(planAmazonPool({ tier: 'classroom', amazonPool: 'train' })).toBe('train');
  });
});

describe('domain banks and sizes', () => {
  const y = (n: number) => Int32Array.from({ length: n }, (_, i) => i % 12);
  const pairOf = (pair: string, nS: number, nT: number): LoadedPair => {
    const [s, t] = pair.split('->');
    return {
      pair,
      labels: { train: y(nS), target: y(nT), k: 12 },
      source: `image-clef/${s}`,
      target: `image-clef/${t}`,
    };
  };

  it('one bank per domain, shared by the pairs that read it; all rows without caps', () => {
    const plan = { ...base, datasets: ['image-clef' as const], pairs: ['i->p', 'p->i', 'p->c'] };
    const specs = pairBankSpecs(
      plan,
      'image-clef',
      [pairOf('i->p', 600, 600), pairOf('p->i', 600, 600), pairOf('p->c', 600, 600)],
      { Kw: 2, Ks: 2 },
    );
    expect(specs.map((s) => s.domain).sort()).toEqual(['image-clef/c', 'image-clef/i', 'image-clef/p']);
    for (const s of specs) expect(s).toMatchObject({ variants: ['colour'], Kw: 2, Ks: 2, rowIds: null });
  });

  it("a capped plan's bank of a domain holds the rows every pair reads of it (its source and target rows)", () => {
    const plan: PanelPlan = {
      ...base,
      datasets: ['image-clef'],
      pairs: ['i->p', 'p->i'],
      tier: 'classroom',
      tIndices: [0, 5],
    };
    const specs = pairBankSpecs(plan, 'image-clef', [pairOf('i->p', 600, 600), pairOf('p->i', 600, 600)], {
      Kw: 2,
      Ks: 1,
    });
    const i = specs.find((s) => s.domain === 'image-clef/i')!;
    // i as source (L 100 + E 250 + U_in 250 at t=0 = all 600) and as target (U_out 250 at t=1).
    expect(i.rowIds!.length).toBe(600);
    const onlyIp = pairBankSpecs(
      { ...plan, pairs: ['i->p'], tIndices: [5] },
      'image-clef',
      [pairOf('i->p', 600, 600)],
      { Kw: 2, Ks: 1 },
    );
    // t = 1: i gives L and E only (350 rows); p gives U_out's 250.
    expect(onlyIp.find((s) => s.domain === 'image-clef/i')!.rowIds!.length).toBe(350);
    expect(onlyIp.find((s) => s.domain === 'image-clef/p')!.rowIds!.length).toBe(250);
  });

  it('§5.5: standard sizes pass, others are named', () => {
    const labels = (nS: number, nT: number) => ({ train: y(nS), target: y(nT), k: 12 });
    expect(() => checkPairSizes('image-clef', 'i->p', labels(600, 600))).not.toThrow();
    expect(() => checkPairSizes('imdb-amazon', 'imdb->amazon', labels(25_000, 400_000))).not.toThrow();
    expect(() => checkPairSizes('visda', 'train->validation', labels(152_397, 55_388))).not.toThrow();
    expect(() => checkPairSizes('visda', 'validation->train', labels(55_388, 152_397))).not.toThrow();
    expect(() => checkPairSizes('imdb-amazon', 'imdb->amazon', labels(24_000, 400_000))).toThrow(
      /IMDB → Amazon imdb->amazon: a source of 24000 rows and a target of 400000 give \|E\| = 11950 and \|U\| = 11950; §5\.5 expects \|E\| = 12450 and \|U\| = 12450/,
    );
  });

  it('loadPanel: a local pair reads its two domains, records the folder, flags nonstandard counts', async () => {
    const ds = importLocalImages(LOCAL_IMAGE_DATASETS['image-clef'], imageClefEntries(['i', 'p'], 2));
    const loaded = await loadPanel('image-clef', async (f) => localSplit(ds, f.split), { pair: 'p->i' });
    expect(loaded.labels.train).toHaveLength(24);
    expect(loaded.labels.target).toHaveLength(24);
    expect(loaded.labels.test).toBeUndefined();
    expect(loaded.hashes.get('train')).toBe(ds.domains.p.sha256);
    expect(loaded.hashes.get('target')).toBe(ds.domains.i.sha256);
    expect(loaded.dataset).toMatchObject({
      id: 'image-clef',
      local: { name: 'image_CLEF', n_files: 48 },
      N: 48,
      nonstandard: true,
      row_order: 'canonical',
    });
    await expect(
      loadPanel('image-clef', async (f) => localSplit(ds, f.split), { pair: 'c->i' }),
    ).rejects.toThrow(/no domain 'c' \(it has i, p\)/);
  });
});

describe('photo views in a bank (Image-CLEF, VisDA)', () => {
  it("are §6.1's pipelines on the decoded file, each from its view's generator (resized once, cropped per view)", () => {
    const ds = importLocalImages(LOCAL_IMAGE_DATASETS['image-clef'], imageClefEntries(['i'], 1));
    const split = localSplit(ds, 'i');
    const render = photoViewRenderer(split, 5);
    for (const row of [7]) {
      const img = decodeImageRgb(split.rows.images![row]);
      expect(render('colour', 'clean', 0, row)).toEqual(normalise(photoClean(img).rgb));
      expect(render('colour', 'weak', 1, row)).toEqual(
        normalise(photoWeak(img, viewRng(5, row, 'weak', 1)).rgb),
      );
      expect(render('colour', 'strong', 0, row)).toEqual(
        normalise(photoStrong(img, viewRng(5, row, 'strong', 0)).rgb),
      );
      expect(render('colour', 'clean', 0, row)).toHaveLength(224 * 224 * 3);
    }
  });

  it('a file that does not decode fails with its path', () => {
    const ds = importLocalImages(LOCAL_IMAGE_DATASETS['image-clef'], imageClefEntries(['i'], 1));
    const split = localSplit(ds, 'i');
    split.rows.images![3] = split.rows.images![3].slice(0, 30);
    expect(() => photoViewRenderer(split, 0)('colour', 'clean', 0, 3)).toThrow(
      /^image_CLEF\/i\/3\/i_3_0\.jpg: not a readable JPEG image/,
    );
  });
});
