/**
 * The Learn page's toy worker: Label Propagation on the 2-D toy and its decision regions, off the
 * main thread (a fit plus a 64×64 grid takes 0.1–1 s, too long for a slider's frame). The newest
 * request wins: a new one aborts the fit in progress, which stops at its next yield.
 */
import { makeToy, type Toy, type ToyShape } from '../src/lib/toy/generate.ts';
import { toyRegions, type RegionGrid } from '../src/lib/toy/regions.ts';
import type { Setting } from '../src/lib/types.ts';

export interface ToyRequest {
  type: 'regions';
  id: number;
  shape: ToyShape;
  seed: number;
  setting: Setting;
  t: number;
  res: number;
}

export type ToyReply =
  | { type: 'regions'; id: number; grid: RegionGrid; ms: number }
  | { type: 'error'; id: number; message: string };

let toy: Toy | null = null;
let current: AbortController | null = null;

function toyFor(shape: ToyShape, seed: number): Toy {
  if (!toy || toy.shape !== shape || toy.seed !== seed) toy = makeToy({ shape, seed });
  return toy;
}

const post = (reply: ToyReply, transfer: Transferable[] = []) =>
  (self as unknown as Worker).postMessage(reply, transfer);

self.onmessage = async (e: MessageEvent<ToyRequest>) => {
  const req = e.data;
  if (req?.type !== 'regions') return;
  current?.abort();
  const ctrl = new AbortController();
  current = ctrl;
  const t0 = performance.now();
  try {
    const grid = await toyRegions(
      toyFor(req.shape, req.seed),
      req.setting,
      req.t,
      { res: req.res },
      ctrl.signal,
    );
    if (ctrl.signal.aborted) return;
    post({ type: 'regions', id: req.id, grid, ms: performance.now() - t0 }, [
      grid.cls.buffer,
      grid.confidence.buffer,
    ]);
  } catch (err) {
    if (ctrl.signal.aborted) return; // superseded by a newer request
    post({ type: 'error', id: req.id, message: err instanceof Error ? err.message : String(err) });
  } finally {
    if (current === ctrl) current = null;
  }
};
