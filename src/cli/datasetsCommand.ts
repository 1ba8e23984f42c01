import { parseArgs } from 'node:util';
import { DATASETS, DATASET_IDS } from '../lib/data/registry.ts';
import { HUB_DATASETS } from '../lib/data/modal/hubSources.ts';
import { PANEL_DATASETS } from '../lib/data/modal/panels.ts';

export async function datasetsCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { json: { type: 'boolean' }, 'data-dir': { type: 'string' } },
  });
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
    };
  });
  if (values.json) {
    process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return 0;
  }
  const pad = (s: string | number, n: number) => String(s).padEnd(n);
  process.stdout.write(`${pad('id', 11)}${pad('N x d', 14)}${pad('k', 4)}${pad('where', 10)}licence\n`);
  for (const r of rows) {
    process.stdout.write(
      `${pad(r.id, 11)}${pad(`${r.N} x ${r.d}`, 14)}${pad(r.k, 4)}${pad(r.embedded ? 'embedded' : 'remote', 10)}${r.licence}\n`,
    );
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
  return 0;
}
