#!/usr/bin/env node
/**
 * Builds src/lib/published/rsbPublished.json from rsb-tabular-published.csv (every tabular row of the
 * Robust-SSL-Benchmark result CSVs, YGZWQZD/Robust-SSL-Benchmark @ c405226; see README.md here):
 * one series per (setting, dataset, family, labels tag, algorithm) with the six per-t means and
 * population stds. The known defects (README.md) are kept as numbers and marked, so the app can
 * leave them out of the comparison and say why. Algorithms the original's README, plots and metrics
 * leave out (Co-Training, MixMatch, ImprovedGAN, TemporalEnsembling) are not shipped.
 *
 *   node scripts/published/make_published.mjs
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const T = [0, 0.2, 0.4, 0.6, 0.8, 1];
const LEFT_OUT = new Set(['Co_Training', 'MixMatch', 'ImprovedGAN', 'TemporalEnsembling']);

const lines = readFileSync(join(here, 'rsb-tabular-published.csv'), 'utf8').trim().split(/\r?\n/);
const header = lines[0].split(',');
const rows = lines.slice(1).map((l) => Object.fromEntries(l.split(',').map((v, i) => [header[i], v])));

const series = new Map();
for (const r of rows) {
  if (LEFT_OUT.has(r.algorithm)) continue;
  const key = [r.setting, r.dataset, r.family, r.labels_per_class_tag, r.algorithm].join('|');
  let s = series.get(key);
  if (!s) {
    s = {
      setting: r.setting.toLowerCase(),
      dataset: r.dataset,
      family: r.family,
      labels: Number(r.labels_per_class_tag),
      algorithm: r.algorithm,
      mean: T.map(() => null),
      std: T.map(() => null),
      source: r.source_file,
      defects: [],
    };
    series.set(key, s);
  }
  const i = T.indexOf(Number(r.t));
  if (i < 0) throw new Error(`unexpected t ${r.t} in ${key}`);
  s.mean[i] = Number(r.mean_acc);
  s.std[i] = Number(r.std_acc);
}

// Equal as printed: the original's files round some rows to 9 digits.
const same = (a, b) => a.every((v, i) => Math.abs(v - b[i]) < 1e-8);
const get = (setting, dataset, family, labels, algorithm) =>
  series.get([setting, dataset, family, labels, algorithm].join('|'));
const all = [...series.values()];
// Known defects, checked against the data itself before they are marked.
for (const s of all.filter(
  (x) => x.setting === 'label' && x.dataset === 'letter' && x.family === 'statistical',
)) {
  const twin = get('Feature', 'letter', 'statistical', s.labels, s.algorithm);
  if (!twin || !same(twin.mean, s.mean))
    throw new Error(`label letter ${s.algorithm} ${s.labels}: not a copy of feature`);
  s.defects.push({
    t: 'all',
    reason: "a byte copy of Feature · letter · statistical (the original's Label file repeats it)",
  });
}
for (const s of all.filter(
  (x) => x.setting === 'label' && x.dataset === 'wine' && x.family === 'statistical' && x.labels === 5,
)) {
  const twin = get('Feature', 'wine', 'statistical', 5, s.algorithm);
  if (!twin || twin.mean[0] !== s.mean[0] || twin.std[0] !== s.std[0])
    throw new Error(`label wine 5 ${s.algorithm}: t=0 is not Feature's`);
  s.defects.push({
    t: 0,
    reason: "repeats Feature · wine · 5 labels' t = 0 row (a copy in the original's file, not a Label run)",
  });
}
for (const s of all.filter(
  (x) => x.setting === 'label' && x.family === 'deep' && x.algorithm === 'SoftMatch',
)) {
  s.defects.push({
    t: 'all',
    reason: 'run with other label counts than its tag says (the original SoftMatch Label rows)',
  });
}

const out = {
  provenance: {
    repository: 'YGZWQZD/Robust-SSL-Benchmark',
    commit: 'c405226',
    files: 'Distribution|Feature|Label/results/*.csv (each series names its file)',
    statistic: 'mean and population std of test accuracy over the 5 seeds of the original run',
    builtBy: 'scripts/published/make_published.mjs from scripts/published/rsb-tabular-published.csv',
    leftOut: [...LEFT_OUT],
  },
  series: all,
};
writeFileSync(join(root, 'src', 'lib', 'published', 'rsbPublished.json'), `${JSON.stringify(out)}\n`);
console.log(`${all.length} series, ${all.filter((s) => s.defects.length).length} with marked defects`);
