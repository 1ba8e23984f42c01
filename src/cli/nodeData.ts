/** Dataset loading for the CLI: embedded iris/wine from the package, others from --data-dir. */
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { canonicalSha256, parseCanonicalCsv } from '../lib/data/canonical.ts';
import { DATASETS, DATASET_IDS, isBuiltinDatasetId } from '../lib/data/registry.ts';
import type { Dataset } from '../lib/types.ts';
import { CliError } from './args.ts';

const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export function checkDatasetId(id: string): void {
  if (!isBuiltinDatasetId(id)) {
    throw new CliError(`Unknown dataset "${id}". Known datasets: ${DATASET_IDS.join(', ')}.`);
  }
}

/** The file names a local copy of `id` may have in --data-dir, in the order they are tried. */
export function localCopyNames(id: string): string[] {
  const info = DATASETS[id as keyof typeof DATASETS];
  return [`${id}.pq`, `${id}.parquet`, `dataset_${info.origin.replace(/\D+/g, '')}.pq`, `${id}.csv`];
}

/** The path of the local copy of `id` in `dataDir` that a run would read, or null. */
export function findLocalCopy(id: string, dataDir: string): string | null {
  return (
    localCopyNames(id)
      .map((f) => join(dataDir, f))
      .find((p) => existsSync(p)) ?? null
  );
}

export async function loadDatasetNode(id: string, dataDir?: string): Promise<Dataset> {
  return (await loadDatasetNodeWithSource(id, dataDir)).ds;
}

/** The dataset and where it came from, as a record says it (`embedded:data/iris.csv`, `file:letter.pq`). */
export async function loadDatasetNodeWithSource(
  id: string,
  dataDir?: string,
): Promise<{ ds: Dataset; source: string }> {
  checkDatasetId(id);
  const info = DATASETS[id as keyof typeof DATASETS];
  if (info.embedded && info.embeddedPath) {
    const text = readFileSync(join(PACKAGE_ROOT, 'public', info.embeddedPath), 'utf8');
    const ds = parseCanonicalCsv(id, text, info.classNames);
    const sha256 = await canonicalSha256(ds);
    if (info.sha256 && sha256 !== info.sha256) {
      throw new CliError(
        `The embedded copy of ${id} does not match its pinned SHA-256 (${sha256} vs ${info.sha256}).`,
      );
    }
    return { ds: { ...ds, sha256 }, source: `embedded:${info.embeddedPath}` };
  }
  if (!dataDir) {
    throw new CliError(
      `Dataset "${id}" is not embedded. Download it once (OpenML id ${info.origin.replace(/\D+/g, '')}) and pass ` +
        `--data-dir DIR holding ${id}.pq (OpenML parquet) or ${id}.csv.`,
    );
  }
  const found = findLocalCopy(id, dataDir);
  if (!found) {
    throw new CliError(`No file for "${id}" in ${dataDir}; looked for ${localCopyNames(id).join(', ')}.`);
  }
  const bytes = new Uint8Array(readFileSync(found));
  const format = found.endsWith('.csv') ? 'csv' : 'parquet';
  const { loadDatasetFromBytes } = await import('../lib/data/index.ts');
  return { ds: await loadDatasetFromBytes(id, bytes, format), source: `file:${basename(found)}` };
}
