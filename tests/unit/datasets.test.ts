import { describe, expect, it } from 'vitest';
import { DATASETS } from '../../src/lib/data/registry.ts';
import { loadEmbedded } from './helpers/datasets.ts';

describe('embedded datasets', () => {
  for (const id of ['iris', 'wine'] as const) {
    it(`${id} matches its registry shape, counts and pinned SHA-256`, async () => {
      const ds = await loadEmbedded(id);
      const info = DATASETS[id];
      expect([ds.N, ds.d, ds.k]).toEqual([info.N, info.d, info.k]);
      const counts = new Array(ds.k).fill(0);
      for (const c of ds.y) counts[c]++;
      expect(counts).toEqual(info.classCounts);
      expect(ds.sha256).toBe(info.sha256);
    });
  }
});
