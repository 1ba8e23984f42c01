/**
 * The FT-Transformer's sizes (PROTOCOL.md §7.3), without tfjs: the catalogue and the cost model
 * read them on the page without loading the network code.
 */
export interface FTSize {
  /** Number of transformer blocks (rsb: 8). */
  blocks: number;
  /** Token width (rsb: 192). */
  dToken: number;
  /** Attention heads (rsb: 8; dToken must be a multiple). */
  heads: number;
  /** ReGLU hidden width after gating (rsb: 256; the first FFN linear outputs twice this). */
  ffnHidden: number;
}

export type FTSizeName = 'rsb' | 'tiny';
export const FT_SIZES: Readonly<Record<FTSizeName, Readonly<FTSize>>> = Object.freeze({
  rsb: Object.freeze({ blocks: 8, dToken: 192, heads: 8, ffnHidden: 256 }),
  tiny: Object.freeze({ blocks: 2, dToken: 32, heads: 4, ffnHidden: 64 }),
});

/**
 * Bytes of the block caches one gradient forward of B rows keeps without recomputation (the
 * FT-Transformer's backward pass, ftTransformer.ts; what the activation budget is compared with).
 */
export function blockCacheBytes(s: FTSize & { features: number }, B: number): number {
  const n = s.features + 1;
  const { dToken: D, heads: H, ffnHidden: F } = s;
  const perBlock = (nq: number) =>
    n * B * D * 7 + // h, a, k0, v0, qh, khT, vh
    2 * B * H * nq * n + // p, pd
    nq * B * (3 * D + 3 * F); // merged, x1, l1; f1 (2F), g (F)
  return 4 * (perBlock(n) * (s.blocks - 1) + perBlock(1));
}
