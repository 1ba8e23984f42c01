import { parseArgs } from 'node:util';
import { makeSplit } from '../lib/protocol/index.ts';
import { DATASET_IDS } from '../lib/data/registry.ts';
import { parseLabels, parseNames, parseSeeds, parseSettings, parseTIndices } from '../lib/suite/selectors.ts';
import { T_GRID, type ProtocolMode, type Setting } from '../lib/types.ts';
import { CliError, required, SELECTOR_OPTIONS } from './args.ts';
import { loadDatasetNode } from './nodeData.ts';
import { loadHubSplitNode, loadLocalImagesNode } from './modalData.ts';
import {
  isPanelDatasetId,
  panelLabels,
  PANEL_DATASETS,
  panelRuleOf,
  panelSettings,
  type PanelDataset,
} from '../lib/data/modal/panels.ts';
import { panelSplit } from '../lib/protocol/panelSplit.ts';

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
    options: {
      ...SELECTOR_OPTIONS,
      labels: { type: 'string' },
      pair: { type: 'string' },
      'amazon-pool': { type: 'string', default: 'train' },
    },
  });
  const names = required(values, 'dataset')
    .split(',')
    .map((s) => s.trim());
  if (names.some((n) => isPanelDatasetId(n))) {
    if (!names.every((n) => isPanelDatasetId(n)))
      throw new CliError('--dataset: give image/text datasets and tabular datasets in separate calls.');
    return splitPanels(names as PanelDataset['id'][], values);
  }
  const mode = parseProtocol(values.protocol);
  const datasets = parseNames('dataset', required(values, 'dataset'), DATASET_IDS);
  const settings = parseSettings(values.setting!);
  const labels = parseLabels(values.labels ?? '5,10');
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

/**
 * `split` for the image and text panels (PROTOCOL-IMAGE-TEXT.md §5): one JSON line per cell with
 * L, E, U_in and U_out as row ids of the files they index, and their sizes.
 */
async function splitPanels(
  ids: PanelDataset['id'][],
  values: {
    setting?: string;
    labels?: string;
    seeds?: string;
    t?: string;
    pair?: string;
    'amazon-pool'?: string;
    'data-dir'?: string;
  },
): Promise<number> {
  const pool = values['amazon-pool'] ?? 'train';
  if (pool !== 'train' && pool !== 'test')
    throw new CliError(`--amazon-pool must be train or test; got "${pool}".`);
  const seeds = parseSeeds(values.seeds ?? '0-2');
  const tIndices = parseTIndices(values.t ?? 'all');
  const out: unknown[] = [];
  for (const id of ids) {
    const panel = PANEL_DATASETS[id];
    const settings = cliPanelSettings(id, values.setting);
    const pairs = panel.pairs ? (values.pair ? values.pair.split(',') : panel.pairs) : [null];
    const loaded = new Map<string, Int32Array>();
    const local =
      panel.source === 'local' ? loadLocalImagesNode(id as 'image-clef' | 'visda', values['data-dir']) : null;
    const labelsOf = async (f: { dataset: string; split: string }): Promise<Int32Array> => {
      const key = `${f.dataset}/${f.split}`;
      let y = loaded.get(key);
      if (!y) {
        if (local) {
          const d = local.domains[f.split];
          if (!d) throw new CliError(`${panel.title}: the data holds no domain "${f.split}".`);
          y = Int32Array.from(d.rows, (r) => r.label);
        } else y = (await loadHubSplitNode(f.dataset, f.split, values['data-dir'])).rows.labels;
        loaded.set(key, y);
      }
      return y;
    };
    for (const pair of pairs)
      for (const setting of settings) {
        const rule = panelRuleOf(id, setting);
        const y = await panelLabels(id, labelsOf, pair, pool);
        const totals = values.labels ? parseLabels(values.labels) : [panel.labels[setting]!];
        for (const labels of totals)
          for (const seed of seeds)
            for (const tIndex of tIndices) {
              const s = panelSplit(rule, y, labels, T_GRID[tIndex], seed);
              out.push({
                dataset: id,
                ...(pair ? { pair } : {}),
                ...(id === 'imdb-amazon' ? { amazonPool: pool } : {}),
                setting,
                labels,
                seed,
                t: T_GRID[tIndex],
                protocol: 'rsb',
                spec: 'image-text 0.1.0',
                sizes: {
                  labeled: s.labeled.length,
                  test: s.test.length,
                  unlabeledIn: s.unlabeledIn.length,
                  unlabeledOut: s.unlabeledOut.length,
                },
                files: {
                  labeled: s.labeledFrom,
                  test: s.testFrom,
                  unlabeledIn: s.inFrom,
                  unlabeledOut: s.outFrom,
                },
                outVariant: s.outVariant,
                numClasses: s.numClasses,
                labeled: s.labeled,
                test: s.test,
                unlabeledIn: s.unlabeledIn,
                unlabeledOut: s.unlabeledOut,
              });
            }
      }
  }
  process.stdout.write(`[\n${out.map((o) => JSON.stringify(o)).join(',\n')}\n]\n`);
  return 0;
}

/** --setting for a panel ('all' or absent: the panel's own), with a CLI message for one it lacks. */
export function cliPanelSettings(id: PanelDataset['id'], text: string | undefined): Setting[] {
  try {
    return panelSettings(id, text && text !== 'all' ? parseSettings(text) : 'all');
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError((e as Error).message);
  }
}
