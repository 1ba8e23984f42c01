/**
 * The original's published image/text results (Robust-SSL-Benchmark @ c405226,
 * PROTOCOL-IMAGE-TEXT.md §9): the 702 rows of rsb-image-text-published.csv as published series in
 * the shape of the tabular table, one per (panel, pair, setting, algorithm). Pure; the text itself
 * is a lazy chunk (rsbImageTextCsv.ts), loaded by `loadImageTextPublished()`.
 *
 * A series' `dataset` is the panel id our image/text curves carry (modalCurves.ts): the dataset,
 * then ":source->target" where the row has a pair ("image-clef:i->p", "visda:train->validation";
 * "cifar10", "imdb-amazon"). Its `labels` is the panel's labeled total (§5.1). All came from the
 * `finetune` tier (ResNet-50 / RoBERTa-base) over seeds 0–2; std is the population std.
 *
 * @example
 * const table = await loadImageTextPublished();
 * publishedSeries(table, { dataset: 'image-clef:i->p', setting: 'distribution', labels: 100, algorithm: 'fixmatch' });
 */
import { PANEL_DATASETS, isPanelDatasetId } from '../data/modal/panels.ts';
import { SETTINGS, T_GRID, type Setting } from '../types.ts';
import type { PublishedSeries, PublishedTable } from './reference.ts';

/** Our image/text method ids → the original's names (MeanTeacher has no published row). */
export const IMAGE_TEXT_NAMES: Readonly<Record<string, string>> = Object.freeze({
  supervised: 'Supervised',
  pimodel: 'PiModel',
  pseudolabel: 'PseudoLabel',
  ict: 'ICT',
  uda: 'UDA',
  fixmatch: 'FixMatch',
  flexmatch: 'FlexMatch',
  softmatch: 'SoftMatch',
});

const HEADER = 'setting,dataset,source,target,algorithm,t,mean_acc,std_acc,source_file';

/** Bad published text: which line, what is wrong. */
export class PublishedFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PublishedFormatError';
  }
}

/**
 * The published image/text table from the CSV's text. Every row is checked (known panel and
 * pair, t on the grid, mean and std fractions, no (panel, algorithm, t) twice); the first bad row
 * throws a PublishedFormatError naming its line.
 */
export function parseImageTextPublished(text: string): PublishedTable {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  while (lines.length && lines[lines.length - 1] === '') lines.pop();
  if (lines[0] !== HEADER)
    throw new PublishedFormatError(
      `line 1: expected the header "${HEADER}", got "${lines[0]?.slice(0, 100)}".`,
    );
  const series = new Map<string, PublishedSeries>();
  for (let n = 1; n < lines.length; n++) {
    const bad = (why: string) => new PublishedFormatError(`line ${n + 1}: ${why}.`);
    const cols = lines[n].split(',');
    if (cols.length !== 9) throw bad(`expected 9 columns, got ${cols.length}`);
    const [setting, dataset, source, target, algorithm, t, mean, std, file] = cols;
    if (!(SETTINGS as readonly string[]).includes(setting)) throw bad(`unknown setting "${setting}"`);
    if (!isPanelDatasetId(dataset)) throw bad(`unknown dataset "${dataset}"`);
    const panel = PANEL_DATASETS[dataset];
    const labels = panel.labels[setting as Setting];
    if (labels === undefined) throw bad(`${panel.title} has no ${setting} panel`);
    const pair = source || target ? `${source}->${target}` : null;
    if (pair !== null && !panel.pairs?.includes(pair)) throw bad(`${panel.title} has no pair "${pair}"`);
    const i = T_GRID.indexOf(Number(t) as (typeof T_GRID)[number]);
    if (t === '' || i < 0) throw bad(`t "${t}" is not on the grid ${T_GRID.join(', ')}`);
    const m = Number(mean);
    const s = Number(std);
    if (mean === '' || !(m >= 0 && m <= 1)) throw bad(`mean_acc "${mean}" is not a fraction`);
    if (std === '' || !(s >= 0 && s <= 1)) throw bad(`std_acc "${std}" is not a fraction`);
    const id = pair ? `${dataset}:${pair}` : dataset;
    const key = JSON.stringify([id, setting, algorithm]);
    let x = series.get(key);
    if (!x) {
      x = {
        setting: setting as Setting,
        dataset: id,
        family: 'deep',
        labels,
        algorithm,
        mean: T_GRID.map(() => null),
        std: T_GRID.map(() => null),
        source: file,
        defects: [],
      };
      series.set(key, x);
    }
    if (x.mean[i] !== null) throw bad(`${id} · ${setting} · ${algorithm} at t = ${t} appears twice`);
    x.mean[i] = m;
    x.std[i] = s;
  }
  return {
    suite: 'image-text',
    seeds: [0, 1, 2],
    label: 'RSB published · finetune',
    names: IMAGE_TEXT_NAMES,
    provenance: {
      repository: 'YGZWQZD/Robust-SSL-Benchmark',
      commit: 'c405226',
      files:
        'the nine image/text result CSVs (Distribution|Feature|Label/results; each series names its file)',
      statistic:
        'mean and population std of test accuracy over seeds 0–2, tier finetune (ResNet-50 / RoBERTa-base)',
      builtBy: 'scripts/published/make_image_text.mjs from scripts/published/rsb-image-text-published.csv',
      leftOut: [],
    },
    series: [...series.values()],
  };
}

let cached: Promise<PublishedTable> | null = null;

/** The published image/text table (one lazy chunk, parsed once, shared). */
export function loadImageTextPublished(): Promise<PublishedTable> {
  cached ??= import('./rsbImageTextCsv.ts').then((m) => parseImageTextPublished(m.default));
  return cached;
}
