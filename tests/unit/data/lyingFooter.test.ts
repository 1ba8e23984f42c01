/**
 * Issue 21 item 4: a parquet footer that lies about its row count. A letter file claiming 1e9
 * rows was `RangeError: Invalid typed array length`, and 3e7 rows allocated 3.8 GB before the
 * shape check; a Hub file is read whole on the footer's word. The footer is now compared with the
 * registry's (or the manifest's) shape and with its own row groups before anything is allocated.
 */
import { parquetMetadata, type FileMetaData } from 'hyparquet';
import { parquetWriteBuffer, ByteWriter } from 'hyparquet-writer';
import { writeMetadata } from 'hyparquet-writer/src/metadata.js';
import { describe, expect, it } from 'vitest';
import { DatasetError, loadDatasetFromBytes } from '../../../src/lib/data/index.ts';
import { readHubParquet } from '../../../src/lib/data/modal/hubParquet.ts';
import { loadHubSplit } from '../../../src/lib/data/modal/loadHub.ts';
import { HUB_DATASETS } from '../../../src/lib/data/modal/hubSources.ts';
import { textParquet } from '../../helpers/hubFiles.ts';

/** A few rows in OpenML letter's layout (16 DOUBLE features, then a string `class`). */
function letterParquet(rows: number): Uint8Array {
  const names = ['x-box', 'y-box', 'width', 'high', 'onpix', 'x-bar', 'y-bar', 'x2bar'];
  const features = [...names, ...names.map((n) => `${n}-2`)];
  return new Uint8Array(
    parquetWriteBuffer({
      columnData: [
        ...features.map((name, j) => ({
          name,
          data: Array.from({ length: rows }, (_, i) => i + j),
          type: 'DOUBLE' as const,
        })),
        {
          name: 'class',
          data: Array.from({ length: rows }, (_, i) => 'ABC'[i % 3]),
          type: 'STRING' as const,
        },
      ],
    }),
  );
}

/**
 * The same file with its footer rewritten: `num_rows` (the file's claim) and, unless
 * `groupsAgree` is false, each row group's count too, so the lie is consistent within the footer.
 */
function withFooter(bytes: Uint8Array, numRows: number, groupsAgree = true): Uint8Array {
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const meta = parquetMetadata(buffer);
  const lied: FileMetaData = {
    ...meta,
    num_rows: BigInt(numRows),
    row_groups: meta.row_groups.map((g) => ({ ...g, num_rows: BigInt(groupsAgree ? numRows : g.num_rows) })),
  };
  delete (lied as Partial<FileMetaData>).metadata_length;
  const footer = new ByteWriter();
  // hyparquet-writer bundles its own hyparquet: the same footer type, another declaration.
  writeMetadata(footer, lied as unknown as Parameters<typeof writeMetadata>[1]);
  footer.appendUint32(0x31524150); // "PAR1"
  const body = bytes.subarray(0, bytes.byteLength - 8 - meta.metadata_length);
  const tail = new Uint8Array(footer.getBuffer());
  const out = new Uint8Array(body.byteLength + tail.byteLength);
  out.set(body);
  out.set(tail, body.byteLength);
  return out;
}

async function failure(p: Promise<unknown>): Promise<DatasetError> {
  try {
    await p;
  } catch (e) {
    return e as DatasetError;
  }
  throw new Error('expected a rejection');
}

describe('a parquet footer that lies about its rows', () => {
  it('the rewritten footer is read back as written (the helper works)', () => {
    const f = withFooter(letterParquet(3), 3);
    const meta = parquetMetadata(f.buffer as ArrayBuffer);
    expect(Number(meta.num_rows)).toBe(3);
  });

  it.each([1e9, 3e7, 20_001])(
    'letter claiming %d rows is a shape error before any allocation',
    async (claimed) => {
      // Every Float64Array the read allocates, by length: a 3e7-row claim once took 4.8e8 doubles
      // (3.8 GB, reserved lazily, so no clock would notice) before the shape check refused it.
      const lengths: number[] = [];
      const real = globalThis.Float64Array;
      globalThis.Float64Array = new Proxy(real, {
        construct(target, args: unknown[]) {
          if (typeof args[0] === 'number') lengths.push(args[0]);
          return Reflect.construct(target, args) as object;
        },
      });
      let e: DatasetError;
      try {
        e = await failure(loadDatasetFromBytes('letter', withFooter(letterParquet(3), claimed), 'parquet'));
      } finally {
        globalThis.Float64Array = real;
      }
      expect(e).toBeInstanceOf(DatasetError);
      expect(e.kind).toBe('shape');
      expect(e.message).toBe(
        `Dataset 'letter': the file has ${claimed} rows x 16 features; expected 20000 x 16. It is not the registered copy.`,
      );
      expect(Math.max(0, ...lengths)).toBeLessThan(20_000 * 16);
    },
  );

  it('a footer whose row groups do not add up to its row count is a damaged file', async () => {
    const e = await failure(
      loadDatasetFromBytes('letter', withFooter(letterParquet(3), 20_000, false), 'parquet'),
    );
    expect(e.kind).toBe('parse');
    expect(e.message).toBe(
      "Dataset 'letter': the file has a damaged footer: it claims 20000 rows but its row groups hold 3.",
    );
  });

  it('a Hub file claiming more rows than its split is refused before it is read', async () => {
    const spec = HUB_DATASETS.ag_news;
    const file = withFooter(
      textParquet([0, 1, 2], (i) => `text ${i}`),
      1e9,
    );
    const e = await failure(readHubParquet(spec, file, 'data/test-00000-of-00001.parquet'));
    expect(e).toBeInstanceOf(DatasetError);
    expect(e.kind).toBe('shape');
    expect(e.message).toBe(
      "Dataset 'ag_news': data/test-00000-of-00001.parquet claims 1000000000 rows, but at most 120000 fit its split; it is not the file of the manifest.",
    );
    // Through the split loader the bound is the split's own size (ag_news test: 7 600 rows).
    const small = withFooter(
      textParquet([0, 1, 2], (i) => `text ${i}`),
      7_601,
    );
    const viaSplit = await failure(loadHubSplit(spec, 'test', async () => small));
    expect(viaSplit.message).toMatch(/claims 7601 rows, but at most 7600 fit its split/);
  });
});
