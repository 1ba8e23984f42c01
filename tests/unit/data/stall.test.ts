/** A stalled download gives up with a clear, retryable message instead of hanging (issue 12 row 8). */
import { describe, expect, it } from 'vitest';
import { DatasetError } from '../../../src/lib/data/errors.ts';
import { fetchWithProgress } from '../../../src/lib/data/fetch.ts';

const URL_ = 'https://example.org/letter.pq';

describe('fetchWithProgress stall timeout', () => {
  it('a body that stops sending fails after the stall limit, saying how much arrived', async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new Uint8Array(2048));
      }, // then nothing, for ever
      cancel() {
        cancelled = true;
      },
    });
    const f = (async () => new Response(body, { headers: { 'content-length': '10000' } })) as typeof fetch;
    const err = await fetchWithProgress(URL_, { fetchImpl: f, datasetId: 'letter', stallMs: 50 }).catch(
      (e) => e,
    );
    expect(err).toBeInstanceOf(DatasetError);
    expect((err as DatasetError).kind).toBe('network');
    expect((err as DatasetError).retryable).toBe(true);
    expect((err as Error).message).toBe(
      "The download of dataset 'letter' from example.org stalled: nothing arrived for 0 s after 2.0 KiB. Check the connection and press Retry.",
    );
    expect(cancelled).toBe(true);
  });

  it('a server that never answers fails too, and its request is aborted', async () => {
    let aborted = false;
    const f = ((_u: string, init?: RequestInit) =>
      new Promise<Response>((_, reject) => {
        init?.signal?.addEventListener('abort', () => {
          aborted = true;
          reject(new DOMException('aborted', 'AbortError'));
        });
      })) as typeof fetch;
    const err = await fetchWithProgress(URL_, {
      fetchImpl: f,
      datasetId: 'letter',
      stallMs: 1000,
      after: (_ms, fn) => {
        setTimeout(fn, 5);
        return () => {};
      },
    }).catch((e) => e);
    expect((err as Error).message).toMatch(
      /^The download of dataset 'letter' from example.org stalled: nothing arrived for 1 s\. /,
    );
    expect(aborted).toBe(true);
  });
});
