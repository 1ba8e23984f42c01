/** Test helper: the golden fixtures written by scripts/fixtures/make_split_fixtures.py. */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseCanonicalCsv } from '../../../src/lib/data/canonical.ts';
import type { Dataset } from '../../../src/lib/types.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));

export function readFixture<T>(name: string): T {
  return JSON.parse(readFileSync(`${root}tests/fixtures/splits/${name}`, 'utf8')) as T;
}

export interface FixtureHeader {
  numpy: string;
  sklearn: string;
  protocol: string;
}

export interface SplitCellFixture {
  mode: 'rsb' | 'readme';
  setting: 'distribution' | 'feature' | 'label';
  labels: number;
  tIndex: number;
  seed: number;
  options?: { t0Stream?: 'per-class' | 'shared'; takeZero?: 'one-per-class' | 'empty' };
  L: number[];
  E: number[];
  U: number[];
  ood: number;
  m: number;
  cols?: number[];
  masks?: number[][];
  kept?: number[];
}

const LETTER_CSV = `${root}tests/fixtures/data/letter.csv`;

/** letter from its canonical CSV fixture, or null where that file is absent (hash not needed here). */
export function loadLetter(): Dataset | null {
  if (!existsSync(LETTER_CSV)) return null;
  return { ...parseCanonicalCsv('letter', readFileSync(LETTER_CSV, 'utf8')), sha256: '' };
}

/** A dataset with the given class counts in class blocks and constant features: enough for sizes. */
export function syntheticDataset(id: string, classCounts: readonly number[], d: number): Dataset {
  const N = classCounts.reduce((s, n) => s + n, 0);
  const y = new Int32Array(N);
  let r = 0;
  classCounts.forEach((n, c) => {
    y.fill(c, r, r + n);
    r += n;
  });
  return {
    id,
    N,
    d,
    k: classCounts.length,
    X: new Float64Array(N * d),
    y,
    featureNames: Array.from({ length: d }, (_, f) => `f${f}`),
    classNames: classCounts.map((_, c) => String(c)),
    sha256: '',
  };
}
