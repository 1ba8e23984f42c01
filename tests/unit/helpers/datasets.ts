/** Test helper: load the embedded datasets from public/data under Node. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { canonicalSha256, parseCanonicalCsv } from '../../../src/lib/data/canonical.ts';
import { DATASETS } from '../../../src/lib/data/registry.ts';
import type { Dataset } from '../../../src/lib/types.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));

export async function loadEmbedded(id: 'iris' | 'wine'): Promise<Dataset> {
  const text = readFileSync(`${root}public/data/${id}.csv`, 'utf8');
  const ds = parseCanonicalCsv(id, text, DATASETS[id].classNames);
  return { ...ds, sha256: await canonicalSha256(ds) };
}
