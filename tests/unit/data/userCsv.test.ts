import 'fake-indexeddb/auto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openDB } from 'idb';
import { DatasetCache } from '../../../src/lib/data/cache.ts';
import { canonicalSha256 } from '../../../src/lib/data/canonical.ts';
import { openRacDb, RAC_DB_VERSION, STORE } from '../../../src/lib/data/db.ts';
import {
  deleteUserDataset,
  listUserDatasets,
  loadDataset,
  loadDatasetWithReport,
  saveUserCsv,
  verifyStoredDataset,
} from '../../../src/lib/data/index.ts';
import {
  buildUserDataset,
  checkUserCsvSize,
  minRowsPerClass,
  parseUserCsv,
  previewCsv,
  userDatasetId,
  UserCsvError,
  USER_CSV_MAX_BYTES,
  type UserCsvProblem,
} from '../../../src/lib/data/userCsv.ts';
import { UserDatasetStore } from '../../../src/lib/data/userStore.ts';
import { root } from './fakeNet.ts';

/** valid.csv as 'user:my-iris', hashed by make_csv_fixtures.py (Python's struct + hashlib). */
const VALID_SHA = '6b9161b6559eeb5b18d3667ac850e1521f3e9b2e6a457082b682f5828463f4aa';
const csv = (name: string): string => readFileSync(`${root}tests/fixtures/csv/${name}`, 'utf8');
let dbSeq = 0;
const freshName = () => `user-test-${process.pid}-${++dbSeq}`;

function problemOf(fn: () => unknown): UserCsvError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(UserCsvError);
    return e as UserCsvError;
  }
  throw new Error('expected a UserCsvError');
}

describe('user CSV checks: each problem has its own message with row / column / value', () => {
  const cases: [string, string, UserCsvProblem, string, { row?: number; column?: string }][] = [
    ['ragged', 'ragged.csv', 'ragged', 'Row 6 has 3 cells; the header has 4 columns.', { row: 6 }],
    [
      'non-numeric',
      'nonnumeric.csv',
      'non-numeric',
      'Row 8, column "sepal width" is "n/a", not a number.',
      { row: 8, column: 'sepal width' },
    ],
    [
      'one class',
      'oneclass.csv',
      'one-class',
      'The label column "species" holds one class only ("setosa"); a classifier needs at least two.',
      { column: 'species' },
    ],
    [
      'too few',
      'toofew.csv',
      'too-few-rows',
      'Too few rows per class for labels = 10: "c" has 8; each class needs at least 22',
      { column: 'species' },
    ],
    ['empty', 'empty.csv', 'empty', 'The file is empty.', {}],
    ['header only', 'headeronly.csv', 'header-only', 'The file has a header but no data rows.', {}],
    [
      'duplicate columns',
      'dupcols.csv',
      'duplicate-column',
      'Columns 1 and 3 are both named "x"; column names must be unique.',
      { column: 'x' },
    ],
    [
      '> 100 classes',
      'manyclasses.csv',
      'too-many-classes',
      'The label column "id" has 150 distinct values; at most 100 classes are supported.',
      { column: 'id' },
    ],
  ];
  for (const [what, file, problem, message, where] of cases) {
    it(what, () => {
      const e = problemOf(() => parseUserCsv(csv(file), { name: 'x' }));
      expect(e.problem).toBe(problem);
      expect(e.message).toContain(message);
      expect(e.row).toBe(where.row);
      expect(e.column).toBe(where.column);
      expect(e.toInfo()).toEqual({ problem, message: e.message, row: where.row, column: where.column });
    });
  }

  it('too few rows follows the labels tag: 8 rows pass labels 3 (needs 8), fail labels 5 (needs 12)', () => {
    expect(minRowsPerClass(5)).toBe(12);
    expect(parseUserCsv(csv('toofew.csv'), { name: 'x', labels: 3 }).classCounts).toEqual([30, 30, 8]);
    const e = problemOf(() => parseUserCsv(csv('toofew.csv'), { name: 'x', labels: 5 }));
    expect(e.message).toContain('"c" has 8; each class needs at least 12');
    expect(e.message).not.toContain('or choose labels = 5');
  });

  it('an empty feature cell, an empty label, a missing label column and an unnamed column', () => {
    expect(problemOf(() => parseUserCsv('a,b,c\n1,,x\n', { name: 'x' })).message).toBe(
      'Row 2, column "b" is empty. Feature columns take decimal numbers only (like 12, -0.5 or 3e-4), no missing values; if this is the label, choose it as the label column.',
    );
    const noLabel = problemOf(() => parseUserCsv('a,b,c\n1,2,x\n1,3,\n', { name: 'x' }));
    expect([noLabel.problem, noLabel.message]).toEqual([
      'empty-label',
      'Row 3 has no value in the label column "c".',
    ]);
    const missing = problemOf(() => parseUserCsv('a,b\n1,x\n', { name: 'x', labelColumn: 'class' }));
    expect(missing.message).toBe('There is no column "class"; the columns are "a", "b".');
    expect(problemOf(() => parseUserCsv(',a,b\n0,1,x\n', { name: 'x' })).problem).toBe('empty-column-name');
    expect(problemOf(() => parseUserCsv('label\nx\n', { name: 'x' })).problem).toBe('no-features');
  });

  it('size limit: refused by size alone, before reading', () => {
    expect(() => checkUserCsvSize(USER_CSV_MAX_BYTES)).not.toThrow();
    const e = problemOf(() => checkUserCsvSize(USER_CSV_MAX_BYTES + 1, "'big.csv'"));
    expect(e.problem).toBe('too-large');
    expect(e.message).toBe(
      "'big.csv' is 50.0 MiB; the limit is 50.0 MiB. Use a sample of the rows, or drop columns you do not need.",
    );
    expect(problemOf(() => checkUserCsvSize(60 * 1024 * 1024)).message).toMatch(
      /^The file is 60\.0 MiB; the limit is 50\.0 MiB\./,
    );
  });

  it('ids: a slug of the name under user:, within the result schema alphabet', () => {
    expect(userDatasetId('My Iris (v2)!')).toBe('user:my-iris-v2');
    expect(userDatasetId('Café données')).toBe('user:cafe-donnees');
    expect(problemOf(() => userDatasetId('  ')).problem).toBe('bad-name');
    expect(userDatasetId('x'.repeat(100))).toBe(`user:${'x'.repeat(60)}`);
  });
});

describe('user CSV: decimal numbers only, safe ranges, one label type per column (issue 12, row 9)', () => {
  const rows = (cell: string) => `a,b,y\n1,2,x\n3,${cell},z\n`;
  it.each([
    ['0x1F', 'a hexadecimal literal'],
    ['0b1', 'a binary literal'],
    ['0o7', 'an octal literal'],
    ['-0X1f', 'a hexadecimal literal'],
    ['Infinity', 'not a finite number'],
    ['-inf', 'not a finite number'],
    ['NaN', 'not a finite number'],
    ['1_000', 'not a number'],
    ['1e', 'not a number'],
  ])('refuses %s with row, column and "decimal numbers only"', (cell, kind) => {
    const e = problemOf(() => parseUserCsv(rows(cell), { name: 'x', labels: 0 }));
    expect([e.problem, e.row, e.column]).toEqual(['non-numeric', 3, 'b']);
    expect(e.message).toBe(
      `Row 3, column "b" is ${JSON.stringify(cell)}, ${kind}. Feature columns take decimal numbers only (like 12, -0.5 or 3e-4), ` +
        'no missing values; if this is the label, choose it as the label column.',
    );
  });

  it.each(['1e400', '-1e400', '1e300', '1.0000001e100', '-2e101'])(
    'refuses %s as out of range (|x| ≤ 1e100) before any cell can overflow',
    (cell) => {
      const e = problemOf(() => parseUserCsv(rows(cell), { name: 'x', labels: 0 }));
      expect([e.problem, e.row, e.column]).toEqual(['out-of-range', 3, 'b']);
      expect(e.message).toContain(
        `Row 3, column "b" is ${JSON.stringify(cell)}, outside the supported range |x| ≤ 1e+100`,
      );
      expect(e.message).toContain('decimal numbers');
    },
  );

  it('accepts every decimal form and the range edge: 1e100, -1e100, .5, 5., +3, 1E-5, 1e-320', () => {
    const p = parseUserCsv('a,y\n1e100,x\n-1e100,z\n.5,x\n5.,z\n+3,x\n1E-5,z\n1e-320,x\n', {
      name: 'x',
      labels: 0,
    });
    expect(Array.from(p.dataset.X)).toEqual([1e100, -1e100, 0.5, 5, 3, 1e-5, 1e-320]);
    expect(p.warnings).toEqual([]);
  });

  it('numeric labels that differ only in form ("1", "1.0", "1e0") are one class, with a warning', () => {
    const p = parseUserCsv('f,y\n1,1\n2,1.0\n3,2\n4,1e0\n5,2.00\n6,2\n', { name: 'x', labels: 0 });
    expect(p.dataset.k).toBe(2);
    expect(p.dataset.classNames).toEqual(['1', '2']);
    expect(Array.from(p.dataset.y)).toEqual([0, 0, 1, 0, 1, 1]);
    expect(p.warnings).toEqual([
      'Labels "1" and "1.0" and "1e0"; "2" and "2.00" in the column "y" differ only in form; they were read as one class each ("1", "2"). Write each class one way to silence this warning.',
    ]);
  });

  it('a column that mixes text and numbers compares labels as text, and warns which numbers stay apart', () => {
    const p = parseUserCsv('f,y\n1,1\n2,1.0\n3,cat\n4,1\n5,1.0\n6,cat\n', { name: 'x', labels: 0 });
    expect(p.dataset.classNames).toEqual(['1', '1.0', 'cat']);
    expect(p.warnings).toEqual([
      'The label column "y" holds text (such as "cat") as well as numbers, so its labels are compared as text: "1" and "1.0" are different classes although they are the same number. Write each class one way if they are the same class.',
    ]);
    // Hex-looking labels are text, so they sort as text, not as 31.
    expect(
      parseUserCsv('f,y\n1,0x1F\n2,4\n3,0x1F\n4,4\n', { name: 'x', labels: 0 }).dataset.classNames,
    ).toEqual(['0x1F', '4']);
  });

  it('unified labels hash like the file written one way', async () => {
    const a = await buildUserDataset('f,y\n1,1\n2,1.0\n3,2\n4,2.0\n', { name: 'x', labels: 0 });
    const b = await buildUserDataset('f,y\n1,1\n2,1\n3,2\n4,2\n', { name: 'x', labels: 0 });
    expect(a.dataset.sha256).toBe(b.dataset.sha256);
  });
});

describe('user CSV parse', () => {
  it('encodes labels like the registry (sorted distinct: numbers numerically, else strings), label column anywhere', () => {
    // labels 0: 2·0+2 = 2 rows per class are enough here.
    const text = 'lab,f1,f2\n10,1,2\n9,3,4\n10,5,6\n2,7,8\n9,0,0\n2,1e3,-0.5\n';
    const p = parseUserCsv(text, { name: 'n', labelColumn: 'lab', labels: 0 });
    expect(p.dataset.classNames).toEqual(['2', '9', '10']);
    expect(Array.from(p.dataset.y)).toEqual([2, 1, 2, 0, 1, 0]);
    expect(Array.from(p.dataset.X)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 1000, -0.5]);
    expect(p.dataset.featureNames).toEqual(['f1', 'f2']);
    const s = parseUserCsv('f,c\n1,b\n2,B\n3,a\n4,a\n5,B\n6,b\n', { name: 'n', labels: 0 });
    expect(s.dataset.classNames).toEqual(['B', 'a', 'b']);
    expect(Array.from(s.dataset.y)).toEqual([2, 0, 1, 1, 0, 2]);
  });

  it('skips blank lines (row numbers still count them), strips a BOM, accepts CRLF and quoted cells', () => {
    const p = parseUserCsv('\ufeff"a, b",c\r\n1,x\r\n\r\n2,y\r\n3,x\r\n4,y\r\n', { name: 'n', labels: 0 });
    expect(p.dataset.featureNames).toEqual(['a, b']);
    expect(p.dataset.N).toBe(4);
    expect(problemOf(() => parseUserCsv('a,c\n1,x\n\n2\n', { name: 'n' })).message).toContain(
      'Row 4 has 1 cells',
    );
  });

  it('preview: header, first rows, last column as the default label', () => {
    const pv = previewCsv(csv('valid.csv'), 3);
    expect(pv.header).toEqual(['sepal length', 'sepal width', 'petal', 'species']);
    expect(pv.rows).toHaveLength(3);
    expect(pv.defaultLabelColumn).toBe('species');
    expect(previewCsv('a,b\n\n1,x\n2,y\n', 5).lines).toEqual([3, 4]);
    expect(previewCsv(csv('ragged.csv'), 8).rows[4]).toHaveLength(3);
  });

  it('valid.csv hashes to the Python golden value', async () => {
    const b = await buildUserDataset(csv('valid.csv'), { name: 'My Iris' });
    expect(b.dataset.id).toBe('user:my-iris');
    expect([b.dataset.N, b.dataset.d, b.dataset.k]).toEqual([72, 3, 3]);
    expect(b.classCounts).toEqual([24, 24, 24]);
    expect(b.dataset.sha256).toBe(VALID_SHA);
  });
});

describe('user dataset store', () => {
  it('a second dataset with an existing id and other content is refused unless replace; the old hash is kept (issue 12, row 3)', async () => {
    const store = new UserDatasetStore({ dbName: freshName() });
    const text = csv('valid.csv');
    const first = await saveUserCsv(
      text,
      { name: 'My Iris', source: 'valid.csv', fileBytes: text.length, clock: () => 1000 },
      store,
    );
    // Other content (one value changed), a name with the same slug.
    const other = text.replace('0.239', '0.240');
    const e = await saveUserCsv(
      other,
      { name: 'my iris', source: 'other.csv', fileBytes: other.length, clock: () => 2000 },
      store,
    ).then(
      () => {
        throw new Error('expected a refusal');
      },
      (err: unknown) => err,
    );
    expect(e).toBeInstanceOf(UserCsvError);
    const err = e as UserCsvError;
    expect(err.problem).toBe('exists');
    expect(err.message).toContain(
      `A dataset with the id user:my-iris is already stored ('My Iris', SHA-256 ${VALID_SHA.slice(0, 12)}…, 72 rows × 3 features) with different content.`,
    );
    expect(err.existing).toMatchObject({
      id: 'user:my-iris',
      name: 'My Iris',
      sha256: VALID_SHA,
      createdAt: 1000,
    });
    expect(err.existing?.newSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(err.existing?.newSha256).not.toBe(VALID_SHA);
    expect(err.toInfo().existing).toEqual(err.existing);
    // Nothing changed.
    expect(await listUserDatasets(store)).toEqual([first]);
    expect((await loadDataset('user:my-iris', { userStore: store })).sha256).toBe(VALID_SHA);

    // The same content again is no replacement: saved without asking.
    expect(
      (
        await saveUserCsv(
          text,
          { name: 'My Iris', source: 'again.csv', fileBytes: text.length, clock: () => 1500 },
          store,
        )
      ).sha256,
    ).toBe(VALID_SHA);

    // Confirmed: replaced, and the old content's hash is remembered.
    const replaced = await saveUserCsv(
      other,
      { name: 'my iris', source: 'other.csv', fileBytes: other.length, clock: () => 2000, replace: true },
      store,
    );
    expect(replaced.sha256).toBe(err.existing?.newSha256);
    expect(replaced.replaced).toEqual([
      { sha256: VALID_SHA, name: 'My Iris', createdAt: 1500, replacedAt: 2000 },
    ]);
    expect((await listUserDatasets(store))[0].replaced).toEqual(replaced.replaced);
    expect((await loadDataset('user:my-iris', { userStore: store })).sha256).toBe(replaced.sha256);
    await store.close();
  });

  it('round trip: save -> list -> loadDataset by id (no network) -> same hash; delete', async () => {
    const store = new UserDatasetStore({ dbName: freshName() });
    const text = csv('valid.csv');
    const meta = await saveUserCsv(
      text,
      { name: 'My Iris', source: 'valid.csv', fileBytes: text.length, clock: () => 1234 },
      store,
    );
    expect(meta).toMatchObject({
      id: 'user:my-iris',
      name: 'My Iris',
      sha256: VALID_SHA,
      N: 72,
      d: 3,
      k: 3,
      labelColumn: 'species',
      classNames: ['setosa', 'versicolor', 'virginica'],
      classCounts: [24, 24, 24],
      labels: 10,
      source: 'valid.csv',
      createdAt: 1234,
    });
    // The values have 3 decimals: not exact in float32, so X is stored as float64.
    expect(meta.bytes).toBe(72 * 3 * 8 + 72 * 4);
    expect(await listUserDatasets(store)).toEqual([meta]);
    const fetchImpl = (() => {
      throw new Error('no network for user datasets');
    }) as unknown as typeof fetch;
    const r = await loadDatasetWithReport('user:my-iris', { userStore: store, fetchImpl });
    expect(r.origin).toBe('user');
    expect(r.source).toBe('valid.csv');
    expect(r.dataset.sha256).toBe(VALID_SHA);
    expect(await canonicalSha256(r.dataset)).toBe(VALID_SHA);
    expect(r.dataset.featureNames).toEqual(['sepal length', 'sepal width', 'petal']);
    expect((await verifyStoredDataset('user:my-iris', { userStore: store })).status).toBe('ok');
    await deleteUserDataset('user:my-iris', store);
    expect(await listUserDatasets(store)).toEqual([]);
    await expect(loadDataset('user:my-iris', { userStore: store })).rejects.toThrow(
      "There is no user dataset 'user:my-iris' in this browser. Import its CSV on the Data page",
    );
    await store.close();
  });

  it("the runner's call (loadDatasetWithReport(id, { baseUrl }), default stores) finds a user dataset in the rac-bench database", async () => {
    const text = csv('valid.csv');
    await saveUserCsv(text, { name: 'Runner Check', source: 'valid.csv', fileBytes: text.length });
    const r = await loadDatasetWithReport('user:runner-check', { baseUrl: 'http://localhost/' });
    expect([r.origin, r.dataset.id, r.dataset.N, r.dataset.k]).toEqual(['user', 'user:runner-check', 72, 3]);
    expect(await canonicalSha256(r.dataset)).toBe(r.dataset.sha256);
    expect((await listUserDatasets()).map((m) => m.id)).toContain('user:runner-check');
    await deleteUserDataset('user:runner-check');
    expect((await listUserDatasets()).map((m) => m.id)).not.toContain('user:runner-check');
  });

  it('a damaged entry is dropped on read and on re-verify, with a message', async () => {
    const name = freshName();
    const store = new UserDatasetStore({ dbName: name });
    const text = csv('valid.csv');
    await saveUserCsv(text, { name: 'Mine', source: 'valid.csv', fileBytes: text.length }, store);
    const db = await openRacDb(name);
    const rec = await db.get(STORE.userDatasets, 'user:mine');
    rec.y[3] = (rec.y[3] + 1) % 3;
    await db.put(STORE.userDatasets, rec);
    db.close();
    const v = await verifyStoredDataset('user:mine', { userStore: store });
    expect(v.status).toBe('dropped');
    expect(v.message).toBe(
      "The stored copy of your dataset 'Mine' (user:mine) is damaged (checksum mismatch); it was removed. Import the CSV again.",
    );
    expect(await listUserDatasets(store)).toEqual([]);
    expect((await verifyStoredDataset('user:mine', { userStore: store })).status).toBe('absent');
    await store.close();
  });

  it('a full disk gives a quota message naming the dataset and the free space', async () => {
    const store = new UserDatasetStore({
      dbName: freshName(),
      estimate: async () => ({ usage: 900, quota: 1024 }),
    });
    const built = await buildUserDataset(csv('valid.csv'), { name: 'Big' });
    const realPut = IDBObjectStore.prototype.put;
    IDBObjectStore.prototype.put = function () {
      throw new DOMException('full', 'QuotaExceededError');
    };
    try {
      await expect(
        store.put(built.dataset, {
          name: 'Big',
          labelColumn: 'species',
          classCounts: [24, 24, 24],
          labels: 10,
          source: 's',
          fileBytes: 1,
          createdAt: 0,
        }),
      ).rejects.toThrow(
        "The browser has no room to store 'Big' (2.0 KiB needed). About 124 B is free for this site.",
      );
    } finally {
      IDBObjectStore.prototype.put = realPut;
    }
    expect(await store.list()).toEqual([]);
    await store.close();
  });

  it("migrations 2 and 3 add the user, file and bank stores and keep a version-1 database's cached datasets", async () => {
    const name = freshName();
    const v1 = await openDB(name, 1, {
      upgrade(db) {
        db.createObjectStore(STORE.datasets, { keyPath: 'id' });
        db.createObjectStore(STORE.datasetMeta, { keyPath: 'id' });
      },
    });
    await v1.put(STORE.datasetMeta, { id: 'letter', sha256: 'x' });
    v1.close();
    const db = await openRacDb(name);
    expect(db.version).toBe(RAC_DB_VERSION);
    expect(RAC_DB_VERSION).toBe(3);
    expect([...db.objectStoreNames].sort()).toEqual([
      'bank-meta',
      'banks',
      'dataset-meta',
      'datasets',
      'file-meta',
      'files',
      'user-dataset-meta',
      'user-datasets',
    ]);
    expect(await db.get(STORE.datasetMeta, 'letter')).toEqual({ id: 'letter', sha256: 'x' });
    db.close();
  });

  it('re-verify of a cached download hashes in full; absent says to download', async () => {
    const cache = new DatasetCache({ dbName: freshName() });
    expect(await verifyStoredDataset('letter', { cache })).toEqual({
      id: 'letter',
      status: 'absent',
      message: "Dataset 'letter' is not cached in this browser; download it first.",
    });
    await cache.close();
  });
});
