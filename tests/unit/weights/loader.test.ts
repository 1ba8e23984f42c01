import { describe, expect, it } from 'vitest';
import { DatasetError } from '../../../src/lib/data/errors.ts';
import { isSha256Hex, sha256Hex } from '../../../src/lib/weights/hash.ts';
import {
  cacheStorageBytesCache,
  loadHashedFile,
  loadSafetensors,
  loadTokenizer,
  memoryBytesCache,
  type DownloadFn,
} from '../../../src/lib/weights/loader.ts';
import { writeSafetensors } from './helpers.ts';

const URL_W = 'https://huggingface.co/org/model/resolve/main/model.safetensors';

/** A download double serving fixed bytes per URL and counting calls. */
function server(files: Record<string, Uint8Array>) {
  const calls: string[] = [];
  const download: DownloadFn = async (url) => {
    calls.push(url);
    const f = files[url];
    if (!f) throw new Error(`404 ${url}`);
    return f.slice(); // a fresh buffer, as a real download is
  };
  return { calls, download };
}

describe('sha256Hex', () => {
  it('matches the FIPS 180-2 test vector and hashes a view by its own range', async () => {
    const abc = new TextEncoder().encode('abc');
    const want = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';
    expect(await sha256Hex(abc)).toBe(want);
    expect(await sha256Hex(abc.slice().buffer)).toBe(want);
    const padded = new Uint8Array(7);
    padded.set(abc, 2);
    expect(await sha256Hex(padded.subarray(2, 5))).toBe(want);
    expect(isSha256Hex(want)).toBe(true);
    expect(isSha256Hex(want.toUpperCase())).toBe(false);
  });
});

describe('loadHashedFile', () => {
  const bytes = writeSafetensors({ w: { dtype: 'F32', shape: [2], data: [1, 2] } });

  it('downloads, hashes and caches; the second load comes from the cache', async () => {
    const { calls, download } = server({ [URL_W]: bytes });
    const cache = memoryBytesCache();
    const sha = await sha256Hex(bytes);
    const first = await loadHashedFile({ url: URL_W, cache, download });
    expect(first).toMatchObject({ from: 'network', sha256: sha, cacheError: null });
    expect(cache.size).toBe(1);
    const second = await loadHashedFile({ url: URL_W, cache, download, sha256: sha });
    expect(second.from).toBe('cache');
    expect(second.sha256).toBe(sha);
    expect(calls).toEqual([URL_W]);
  });

  it('a pinned hash that does not match is an error, and nothing is cached', async () => {
    const { download } = server({ [URL_W]: bytes });
    const cache = memoryBytesCache();
    const wrong = '0'.repeat(64);
    const err = await loadHashedFile({ url: URL_W, cache, download, sha256: wrong }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DatasetError);
    expect((err as DatasetError).kind).toBe('hash');
    expect((err as Error).message).toMatch(/has SHA-256 [0-9a-f]{12}…, expected 000000000000…/);
    expect(cache.size).toBe(0);
  });

  it('a corrupt cached copy is dropped and downloaded again', async () => {
    const { calls, download } = server({ [URL_W]: bytes });
    const cache = memoryBytesCache();
    const corrupt = bytes.slice();
    corrupt[corrupt.length - 1] ^= 1;
    await cache.put(URL_W, corrupt);
    const sha = await sha256Hex(bytes);
    const got = await loadHashedFile({ url: URL_W, cache, download, sha256: sha });
    expect(got.from).toBe('network');
    expect(calls).toHaveLength(1);
    expect(await sha256Hex((await cache.get(URL_W)) as Uint8Array)).toBe(sha);
  });

  it('a cache that cannot store reports why, and the load still succeeds', async () => {
    const { download } = server({ [URL_W]: bytes });
    const cache = {
      get: async () => null,
      put: async () => {
        throw new Error('QuotaExceededError');
      },
      delete: async () => {},
    };
    const got = await loadHashedFile({ url: URL_W, cache, download });
    expect(got.cacheError).toBe('QuotaExceededError');
  });

  it('by default streams through fetch (fetchWithProgress)', async () => {
    const orig = globalThis.fetch;
    const seen: string[] = [];
    globalThis.fetch = (async (input: RequestInfo | URL) => {
      seen.push(String(input));
      return new Response(bytes.slice(), { headers: { 'content-length': String(bytes.length) } });
    }) as typeof fetch;
    try {
      const progress: number[] = [];
      const got = await loadHashedFile({ url: URL_W, onProgress: (p) => progress.push(p.loaded) });
      expect(got.bytes).toEqual(bytes);
      expect(seen).toEqual([URL_W]);
      expect(progress.at(-1)).toBe(bytes.length);
    } finally {
      globalThis.fetch = orig;
    }
  });
});

describe('loadSafetensors and loadTokenizer', () => {
  it('parses the loaded bytes without copying F32 tensors', async () => {
    const bytes = writeSafetensors({ w: { dtype: 'F32', shape: [2], data: [3, 4] } });
    const { download } = server({ [URL_W]: bytes });
    const { file, sha256, from } = await loadSafetensors({ url: URL_W, download });
    expect(Array.from(file.float32('w'))).toEqual([3, 4]);
    expect(file.float32('w').buffer).toBe(file.bytes.buffer);
    expect(sha256).toBe(await sha256Hex(bytes));
    expect(from).toBe('network');
  });

  it('loads tokenizer.json and tokenizer_config.json and records both hashes', async () => {
    const tj = {
      version: '1.0',
      added_tokens: [
        { id: 0, content: '[PAD]', special: true },
        { id: 1, content: '[UNK]', special: true },
      ],
      normalizer: null,
      pre_tokenizer: { type: 'WhitespaceSplit' },
      post_processor: null,
      decoder: null,
      model: {
        type: 'WordPiece',
        unk_token: '[UNK]',
        continuing_subword_prefix: '##',
        vocab: { '[PAD]': 0, '[UNK]': 1, a: 2, b: 3 },
      },
    };
    const enc = (o: unknown) => new TextEncoder().encode(JSON.stringify(o));
    const files = { 'u/tokenizer.json': enc(tj), 'u/tokenizer_config.json': enc({ pad_token: '[UNK]' }) };
    const { download } = server(files);
    const got = await loadTokenizer({
      url: 'u/tokenizer.json',
      configUrl: 'u/tokenizer_config.json',
      download,
    });
    expect(got.sha256).toBe(await sha256Hex(files['u/tokenizer.json']));
    expect(got.configSha256).toBe(await sha256Hex(files['u/tokenizer_config.json']));
    expect(got.tokenizer.padId).toBe(1); // from the config, not the '[PAD]' guess
    expect(Array.from(got.tokenizer.encode('a b c', { maxLength: 4 }).ids)).toEqual([2, 3, 1, 1]);
  });
});

describe('cacheStorageBytesCache', () => {
  it('stores and reads back bytes through the Cache Storage API', async () => {
    const entries = new Map<string, Response>();
    const cache = {
      match: async (key: string) => entries.get(key)?.clone(),
      put: async (key: string, res: Response) => {
        entries.set(key, res);
      },
      delete: async (key: string) => entries.delete(key),
    };
    const storage = { open: async () => cache } as unknown as CacheStorage;
    const c = cacheStorageBytesCache('test', storage);
    expect(await c.get('k')).toBeNull();
    await c.put('k', Uint8Array.of(1, 2, 3));
    expect(await c.get('k')).toEqual(Uint8Array.of(1, 2, 3));
    await c.delete('k');
    expect(await c.get('k')).toBeNull();
  });
});
