import { statSync } from 'node:fs';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { DATASETS, DATASET_IDS } from '../lib/data/registry.ts';
import { HUB_DATASETS } from '../lib/data/modal/hubSources.ts';
import { PANEL_DATASETS } from '../lib/data/modal/panels.ts';
import { CliError } from './args.ts';
import { findLocalCopy, loadDatasetNodeWithSource, localCopyNames } from './nodeData.ts';

/** What --data-dir holds for a dataset that is not embedded, checked as a run would read it. */
interface LocalCopy {
  status: 'ok' | 'missing' | 'invalid';
  file: string | null;
  sha256?: string;
  message: string;
}

/**
 * The local copy of `id` in `dir`: absent, or read, shape-checked and hashed exactly as `run`
 * would (so "ok" here means a run will accept it), with the reason when it is not.
 */
async function checkLocalCopy(id: string, dir: string): Promise<LocalCopy> {
  const path = findLocalCopy(id, dir);
  if (!path)
    return {
      status: 'missing',
      file: null,
      message: `not found (looked for ${localCopyNames(id).join(', ')})`,
    };
  const file = basename(path);
  try {
    const { ds } = await loadDatasetNodeWithSource(id, dir);
    return {
      status: 'ok',
      file,
      sha256: ds.sha256,
      message: `${file}: OK, SHA-256 ${ds.sha256.slice(0, 12)}…`,
    };
  } catch (e) {
    return { status: 'invalid', file, message: `${file}: ${e instanceof Error ? e.message : String(e)}` };
  }
}

export async function datasetsCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { json: { type: 'boolean' }, 'data-dir': { type: 'string' } },
  });
  const dir = values['data-dir'];
  // Before any work: a folder that is not there is a typo, not "every copy missing".
  if (dir !== undefined && !isDirectory(dir))
    throw new CliError(
      `--data-dir ${dir}: no such folder; give the folder that holds letter.pq or covertype.pq.`,
    );
  const local = new Map<string, LocalCopy>();
  if (dir !== undefined)
    for (const id of DATASET_IDS) if (!DATASETS[id].embedded) local.set(id, await checkLocalCopy(id, dir));
  const rows = DATASET_IDS.map((id) => {
    const d = DATASETS[id];
    return {
      id,
      title: d.title,
      N: d.N,
      d: d.d,
      k: d.k,
      classCounts: d.classCounts,
      embedded: d.embedded,
      sha256: d.sha256,
      sources: d.sources.map((s) => s.url),
      licence: d.licence,
      citation: d.citation,
      origin: d.origin,
      ...(local.has(id) ? { local: local.get(id) } : {}),
    };
  });
  // A copy that is there but would be refused by a run is an error of this check (exit 1).
  const code = [...local.values()].some((c) => c.status === 'invalid') ? 1 : 0;
  if (values.json) {
    process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return code;
  }
  const pad = (s: string | number, n: number) => String(s).padEnd(n);
  process.stdout.write(`${pad('id', 11)}${pad('N x d', 14)}${pad('k', 4)}${pad('where', 10)}licence\n`);
  for (const r of rows) {
    process.stdout.write(
      `${pad(r.id, 11)}${pad(`${r.N} x ${r.d}`, 14)}${pad(r.k, 4)}${pad(r.embedded ? 'embedded' : local.get(r.id)?.status === 'ok' ? 'local' : 'remote', 10)}${r.licence}\n`,
    );
  }
  if (dir !== undefined) {
    process.stdout.write(`\nLocal copies in ${dir}:\n`);
    for (const [id, c] of local) process.stdout.write(`  ${pad(id, 11)}${c.message}\n`);
  }
  process.stdout.write('\nCitations:\n');
  for (const r of rows) process.stdout.write(`  ${r.id}: ${r.citation}\n`);
  // Image and text panels (PROTOCOL-IMAGE-TEXT.md §4, §5): where their rows come from.
  process.stdout.write(
    '\nImage and text panels (rac-bench split now; runs come with the image and text suites):\n',
  );
  for (const p of Object.values(PANEL_DATASETS)) {
    const settings = Object.entries(p.labels)
      .map(([s, n]) => `${s} (${n} labels)`)
      .join(', ');
    const from =
      p.source === 'local'
        ? 'local folder or zip (no CORS host)'
        : p.id === 'imdb-amazon'
          ? `${HUB_DATASETS.imdb.repo} + ${HUB_DATASETS.amazon_polarity.repo}`
          : HUB_DATASETS[p.id].repo;
    process.stdout.write(
      `  ${pad(p.id, 12)}${pad(p.modality, 7)}${pad(`k ${p.k}`, 7)}${settings}; ${from}\n`,
    );
  }
  return code;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
