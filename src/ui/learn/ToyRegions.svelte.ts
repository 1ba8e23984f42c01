/**
 * Page side of the toy worker: asks for the decision regions of (shape, seed, setting, t) and keeps
 * the newest answer in `grid` ($state.raw, replaced whole). One request in flight at a time; while
 * one runs, only the latest wish waits (a dragged slider sends dozens). Answers are cached.
 */
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
  #inFlight: { id: number; key: RegionKey } | null = null;
  #pending: RegionKey | null = null;
  #cache = new Map<string, RegionGrid>();

  request(key: RegionKey): void {
    const hit = this.#cache.get(keyOf(key));
    if (hit) {
      this.#pending = null;
      this.#show(key, hit);
      return;
    }
    if (this.#inFlight) {
      this.#pending = key;
      return;
    }
    this.#send(key);
  }

  #show(key: RegionKey, grid: RegionGrid): void {
    this.grid = grid;
    this.shown = key;
  }

  #ensureWorker(): Worker {
    if (this.#worker) return this.#worker;
    const w = new Worker(new URL('../../../workers/toy.worker.ts', import.meta.url), { type: 'module', name: 'toy' });
    w.onmessage = (e: MessageEvent<ToyReply>) => this.#onReply(e.data);
    w.onerror = (e) => {
      this.error = `The toy worker failed: ${e.message || 'unknown error'}.`;
      this.busy = false;
      this.#inFlight = null;
    };
    this.#worker = w;
    return w;
  }

  #send(key: RegionKey): void {
    const id = this.#nextId++;
    this.#inFlight = { id, key };
    this.busy = true;
    const req: ToyRequest = { type: 'regions', id, res: RES, ...key };
    this.#ensureWorker().postMessage(req);
  }

  #onReply(reply: ToyReply): void {
    const flight = this.#inFlight;
    if (!flight || reply.id !== flight.id) return;
    this.#inFlight = null;
    if (reply.type === 'regions') {
      this.error = null;
      this.lastMs = reply.ms;
      this.#remember(flight.key, reply.grid);
      this.#show(flight.key, reply.grid);
    } else {
      this.error = reply.message;
    }
    const next = this.#pending;
    this.#pending = null;
    if (next && keyOf(next) !== keyOf(flight.key)) this.request(next);
    this.busy = this.#inFlight !== null;
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
