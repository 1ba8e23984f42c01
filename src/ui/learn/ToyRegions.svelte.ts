/**
 * Page side of the toy worker: asks for the decision regions of (shape, seed, setting, t) and keeps
 * the newest answer in `grid` ($state.raw, replaced whole). One request in flight at a time; while
 * one runs, only the latest wish waits (a dragged slider sends dozens). Answers are cached, and
 * when idle the worker fills the cache for the benchmark's six t values of the setting on screen,
 * so stepping through them is instant. A real request overtakes a prefetch (the worker aborts it).
 */
import { T_GRID } from '../../lib/types.ts';
import type { RegionGrid } from '../../lib/toy/regions.ts';
import type { ToyShape } from '../../lib/toy/generate.ts';
import type { Setting } from '../../lib/types.ts';
import type { ToyReply, ToyRequest } from '../../../workers/toy.worker.ts';

export interface RegionKey {
  shape: ToyShape;
  seed: number;
  setting: Setting;
  t: number;
}

const RES = 64;
const CACHE_SIZE = 96;

const keyOf = (k: RegionKey) => `${k.shape}|${k.seed}|${k.setting}|${k.t}`;

export class ToyRegions {
  grid = $state.raw<RegionGrid | null>(null);
  /** The key `grid` belongs to. */
  shown = $state.raw<RegionKey | null>(null);
  busy = $state(false);
  error = $state<string | null>(null);
  /** Milliseconds the last computed answer took in the worker. */
  lastMs = $state<number | null>(null);

  #worker: Worker | null = null;
  #nextId = 1;
  #inFlight: { id: number; key: RegionKey; prefetch: boolean } | null = null;
  #pending: RegionKey | null = null;
  #cache = new Map<string, RegionGrid>();

  request(key: RegionKey): void {
    const hit = this.#cache.get(keyOf(key));
    if (hit) {
      this.#pending = null;
      this.#show(key, hit);
      return;
    }
    if (this.#inFlight && !this.#inFlight.prefetch) {
      this.#pending = key;
      return;
    }
    this.#send(key, false);
  }

  #show(key: RegionKey, grid: RegionGrid): void {
    this.grid = grid;
    this.shown = key;
  }

  #ensureWorker(): Worker {
    if (this.#worker) return this.#worker;
    const w = new Worker(new URL('../../../workers/toy.worker.ts', import.meta.url), {
      type: 'module',
      name: 'toy',
    });
    w.onmessage = (e: MessageEvent<ToyReply>) => this.#onReply(e.data);
    w.onerror = (e) => {
      this.error = `The toy worker failed: ${e.message || 'unknown error'}.`;
      this.busy = false;
      this.#inFlight = null;
    };
    this.#worker = w;
    return w;
  }

  #send(key: RegionKey, prefetch: boolean): void {
    const id = this.#nextId++;
    this.#inFlight = { id, key, prefetch };
    this.busy = !prefetch;
    const req: ToyRequest = { type: 'regions', id, res: RES, ...key };
    this.#ensureWorker().postMessage(req);
  }

  #onReply(reply: ToyReply): void {
    const flight = this.#inFlight;
    if (!flight || reply.id !== flight.id) return;
    this.#inFlight = null;
    if (reply.type === 'regions') {
      this.#remember(flight.key, reply.grid);
      if (!flight.prefetch) {
        this.error = null;
        this.lastMs = reply.ms;
        this.#show(flight.key, reply.grid);
      }
    } else if (!flight.prefetch) {
      this.error = reply.message;
    }
    const next = this.#pending;
    this.#pending = null;
    if (next) this.request(next);
    else this.#prefetch();
    this.busy = this.#realInFlight();
  }

  // A method, not an inline test: TypeScript would keep #inFlight narrowed to null across the calls above.
  #realInFlight(): boolean {
    return this.#inFlight !== null && !this.#inFlight.prefetch;
  }

  /** The first of the six grid t values of the shown (shape, seed, setting) not cached yet. */
  #prefetch(): void {
    const s = this.shown;
    if (!s || this.#inFlight) return;
    const t = T_GRID.find((v) => !this.#cache.has(keyOf({ ...s, t: v })));
    if (t !== undefined) this.#send({ ...s, t }, true);
  }

  #remember(key: RegionKey, grid: RegionGrid): void {
    this.#cache.set(keyOf(key), grid);
    if (this.#cache.size > CACHE_SIZE) this.#cache.delete(this.#cache.keys().next().value as string);
  }

  dispose(): void {
    this.#worker?.terminate();
    this.#worker = null;
    this.#inFlight = null;
    this.#pending = null;
  }
}
