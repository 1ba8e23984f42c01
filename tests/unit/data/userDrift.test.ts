import { describe, expect, it } from 'vitest';
import { userDataDrift } from '../../../src/lib/data/userDrift.ts';
import type { UserDatasetMeta } from '../../../src/lib/data/userStore.ts';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);
const cell = (id: string, sha256: string) => ({ dataset: { id, sha256 } });
const meta = (id: string, sha256: string, replaced?: UserDatasetMeta['replaced']): UserDatasetMeta => ({
  id,
  name: id,
  sha256,
  N: 10,
  d: 2,
  k: 2,
  labelColumn: 'y',
  classNames: ['a', 'b'],
  classCounts: [5, 5],
  labels: 5,
  source: 'x.csv',
  fileBytes: 1,
  bytes: 1,
  createdAt: 0,
  ...(replaced ? { replaced } : {}),
});

describe('userDataDrift: a run on an earlier content of user:x says so (issue 12, row 3)', () => {
  it("is silent when the stored content is the run's, and for built-in datasets", () => {
    expect(userDataDrift([cell('user:x', A), cell('iris', B)], [meta('user:x', A)])).toEqual([]);
  });

  it("names both hashes and when the run's content was replaced", () => {
    const notes = userDataDrift(
      [cell('user:x', A), cell('user:x', A)],
      [
        meta('user:x', B, [
          { sha256: A, name: 'x', createdAt: 0, replacedAt: Date.UTC(2026, 10, 26, 6, 40) },
        ]),
      ],
    );
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({
      id: 'user:x',
      runSha256: A,
      storedSha256: B,
      replacedAt: Date.UTC(2026, 10, 26, 6, 40),
    });
    expect(notes[0].message).toBe(
      `This run was made on a different content of user:x (SHA-256 ${A.slice(0, 12)}…) than the one stored now ` +
        `(SHA-256 ${B.slice(0, 12)}…, replaced 2026-11-26 06:40 UTC). Its numbers belong to the earlier content; a re-run would use the stored one.`,
    );
  });

  it('a dataset no longer stored, and a run that mixed two contents of one id', () => {
    expect(userDataDrift([cell('user:gone', A)], [])[0].message).toContain(
      'no dataset user:gone is stored in this browser now',
    );
    const mixed = userDataDrift([cell('user:x', A), cell('user:x', B)], [meta('user:x', B)]);
    expect(mixed.map((n) => n.runSha256)).toEqual([A]);
  });
});
