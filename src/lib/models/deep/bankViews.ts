/**
 * Views from a feature bank (PROTOCOL-IMAGE-TEXT.md §7.4): the `features` and `classroom` tiers
 * train a head on cached backbone outputs instead of fresh augmentations. Per step, a labeled row
 * uses weak view k ~ U{0…K_w−1} (for every method, Supervised included); an unlabeled row draws its
 * weak and its strong index independently, and methods with two weak views (PiModel, MeanTeacher)
 * get two distinct weak indices, so their consistency loss compares two different augmentations.
 */
import * as tf from '@tensorflow/tfjs';
import type { MT19937 } from '../../protocol/rng.ts';
import type { View } from './methods/types.ts';
import type { ViewDraw, ViewSource } from './views.ts';

export interface BankFeatures {
  nL: number;
  nU: number;
  dim: number;
  Kw: number;
  Ks: number;
  /**
   * Float32 rows (ids.length × dim) of rows `ids` of L or U, view `view` with per-row index `k`;
   * 'clean' is the test-time view (k ignored). The caller maps L/U rows to bank rows and variants.
   */
  rows(set: 'L' | 'U', ids: Int32Array, view: View | 'clean', k: Int32Array): Float32Array;
}

export function bankViews(f: BankFeatures): ViewSource {
  if (f.Kw < 1) throw new Error(`bank views need K_w ≥ 1; got ${f.Kw}.`);
  return {
    nL: f.nL,
    nU: f.nU,
    dim: f.dim,
    draw(bL, bU, _labeledView, views, rng: MT19937) {
      const out: ViewDraw[] = [];
      // The labeled view is always a weak bank view here (§7.4), whatever the method's raw/weak.
      out.push(Int32Array.from({ length: bL }, () => rng.randint(f.Kw)));
      const weakCount = views.filter((v) => v === 'weak').length;
      if (weakCount > f.Kw)
        throw new Error(`this method needs ${weakCount} distinct weak views; the bank has K_w = ${f.Kw}.`);
      const weak: Int32Array[] = [];
      for (const v of views) {
        if (v === 'strong') {
          if (f.Ks === 0) throw new Error('this method needs strong views; the bank has none (K_s = 0).');
          out.push(Int32Array.from({ length: bU }, () => rng.randint(f.Ks)));
          continue;
        }
        // Distinct from the row's earlier weak indices: draw among the K_w − (taken) others.
        const k = new Int32Array(bU);
        for (let r = 0; r < bU; r++) {
          const taken = weak.map((w) => w[r]).sort((a, b) => a - b);
          let x = rng.randint(f.Kw - taken.length);
          for (const t of taken) if (x >= t) x++;
          k[r] = x;
        }
        weak.push(k);
        out.push(k);
      }
      return out;
    },
    drawsLabeled: () => true,
    labeled: (idx, k) => tf.tensor2d(f.rows('L', idx, 'weak', k as Int32Array), [idx.length, f.dim]),
    unlabeled: (idx, view, k) => tf.tensor2d(f.rows('U', idx, view, k as Int32Array), [idx.length, f.dim]),
  };
}
