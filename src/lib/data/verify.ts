/** From a raw table to a canonical Dataset, checked against the registry (PROTOCOL.md §4). */
import type { Dataset } from '../types.ts';
import { canonicalSha256 } from './canonical.ts';
import { DatasetError } from './errors.ts';
import { classCounts, encodeLabels } from './labels.ts';
import type { RawTable } from './parse.ts';
import type { DatasetInfo } from './registry.ts';

/** What a loaded dataset must match: the registry entry, or a test-only override of it. */
export type DatasetSpec = Pick<
  DatasetInfo,
  'id' | 'N' | 'd' | 'k' | 'classCounts' | 'classNames' | 'sha256' | 'labelColumn'
>;

function shapeError(id: string, message: string): DatasetError {
  return new DatasetError({
    kind: 'shape',
    retryable: false,
    datasetId: id,
    message: `Dataset '${id}': ${message}`,
  });
}

/**
 * Encodes labels (sorted distinct raw labels -> 0..k-1) and checks N, d, k, the label set and
 * the class counts against the spec. Raw labels must be the spec's class names, or already the
 * codes 0..k-1 (the canonical CSV form).
 */
export function toCanonical(spec: DatasetSpec, raw: RawTable): Omit<Dataset, 'sha256'> {
  const { id } = spec;
  if (raw.N !== spec.N || raw.d !== spec.d) {
    throw shapeError(
      id,
      `the file has ${raw.N} rows x ${raw.d} features; expected ${spec.N} x ${spec.d}. It is not the registered copy.`,
    );
  }
  const { y, labels } = encodeLabels(raw.rawLabels);
  if (labels.length !== spec.k) {
    throw shapeError(
      id,
      `the file has ${labels.length} distinct labels; expected k = ${spec.k}. Got ${JSON.stringify(labels.slice(0, 30))}.`,
    );
  }
  const named = labels.every((l, i) => l === spec.classNames[i]);
  const coded = labels.every((l, i) => Number(l) === i);
  if (!named && !coded) {
    throw shapeError(
      id,
      `the labels are ${JSON.stringify(labels)}; expected ${JSON.stringify(spec.classNames)} (or codes 0..${spec.k - 1}).`,
    );
  }
  const counts = classCounts(y, spec.k);
  if (counts.some((c, i) => c !== spec.classCounts[i])) {
    throw shapeError(id, `class counts are ${counts.join('/')}; expected ${spec.classCounts.join('/')}.`);
  }
  return {
    id,
    N: raw.N,
    d: raw.d,
    k: spec.k,
    X: raw.X,
    y,
    featureNames: raw.featureNames,
    classNames: spec.classNames.slice(),
  };
}

/** Hashes the canonical content and, where the spec pins a hash, insists on it. */
export async function hashAndVerify(
  spec: DatasetSpec,
  ds: Omit<Dataset, 'sha256'>,
  source?: string,
): Promise<Dataset> {
  const sha256 = await canonicalSha256(ds);
  if (spec.sha256 !== null && sha256 !== spec.sha256) {
    throw new DatasetError({
      kind: 'hash',
      retryable: false,
      datasetId: spec.id,
      url: source,
      message:
        `Dataset '${spec.id}'${source ? ` from ${source}` : ''} has the right shape but different content: ` +
        `SHA-256 ${sha256.slice(0, 12)}…, expected ${spec.sha256.slice(0, 12)}…. It was not used or cached.`,
    });
  }
  return { ...ds, sha256 };
}
