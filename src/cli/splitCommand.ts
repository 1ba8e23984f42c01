import { parseArgs } from 'node:util';
import { makeSplit } from '../lib/protocol/index.ts';
import { DATASET_IDS } from '../lib/data/registry.ts';
import { parseLabels, parseNames, parseSeeds, parseSettings, parseTIndices } from '../lib/suite/selectors.ts';
import { T_GRID, type ProtocolMode } from '../lib/types.ts';
import { CliError, required, SELECTOR_OPTIONS } from './args.ts';
import { loadDatasetNode } from './nodeData.ts';

export function parseProtocol(text: string | undefined): ProtocolMode {
  const mode = (text ?? 'rsb').toLowerCase();
  if (mode !== 'rsb' && mode !== 'readme') {
    throw new CliError(`--protocol must be "rsb" or "readme"; got "${text}".`);
  }
  return mode;
}

export async function splitCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: SELECTOR_OPTIONS,
  });
  const mode = parseProtocol(values.protocol);
  const datasets = parseNames('dataset', required(values, 'dataset'), DATASET_IDS);
  const settings = parseSettings(values.setting!);
  const labels = parseLabels(values.labels!);
  const seeds = parseSeeds(values.seeds ?? (mode === 'rsb' ? '0-4' : '0-2'));
  const tIndices = parseTIndices(values.t!);
  const out: unknown[] = [];
  for (const id of datasets) {
    const ds = await loadDatasetNode(id, values['data-dir']);
    for (const setting of settings)
      for (const lab of labels)
        for (const seed of seeds)
          for (const tIndex of tIndices) {
            const s = makeSplit(ds, { setting, labels: lab, tIndex, seed, mode });
            out.push({
              dataset: id,
              setting,
              labels: lab,
              seed,
              t: T_GRID[tIndex],
              protocol: mode,
              labeled: s.labeled,
              unlabeled: s.unlabeled,
              test: s.test,
              maskedColumns: s.maskedColumns ?? s.rowMasks ?? [],
              ...(s.keptClasses ? { keptClasses: s.keptClasses, nUnlabeledOod: s.nUnlabeledOod } : {}),
            });
          }
  }
  // One JSON array, one cell per line: valid JSON and still diff-friendly.
  process.stdout.write(`[\n${out.map((o) => JSON.stringify(o)).join(',\n')}\n]\n`);
  return 0;
}
