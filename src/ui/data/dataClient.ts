/** The Data page's one data worker (comlink), shared by the manager and the CSV import. */
import { wrap, type Remote } from 'comlink';
import type { DataWorkerApi } from '../../../workers/data.worker.ts';

export interface DataClient {
  api: Remote<DataWorkerApi>;
  /** A fresh id for load()/fetchCsv(), so cancel() reaches the right one. */
  nextLoadId: () => number;
  stop: () => void;
}

export function startDataClient(): DataClient {
  const worker = new Worker(new URL('../../../workers/data.worker.ts', import.meta.url), { type: 'module' });
  let id = 1;
  return { api: wrap<DataWorkerApi>(worker), nextLoadId: () => id++, stop: () => worker.terminate() };
}

/** What this site uses of the browser's storage (navigator.storage.estimate), or null where unknown. */
export async function storageEstimate(): Promise<{ usage: number; quota: number } | null> {
  try {
    const est = await navigator.storage?.estimate?.();
    return est && est.quota !== undefined ? { usage: est.usage ?? 0, quota: est.quota } : null;
  } catch {
    return null;
  }
}
