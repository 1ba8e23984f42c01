import { readFileSync } from 'node:fs';
import { parseCanonicalCsv } from './src/lib/data/canonical.ts';
import { DATASETS } from './src/lib/data/registry.ts';
import { LabelPropagation } from './src/lib/models/statistical/labelPropagation.ts';
import { buildCellData, makeSplit } from './src/lib/protocol/index.ts';
import { mt } from './src/lib/protocol/rng.ts';
const [setting, labels, tIndex] = [process.argv[2] ?? 'distribution', Number(process.argv[3] ?? 5), Number(process.argv[4] ?? 0)];
const methods = (process.argv[5] ?? 'leaps,chebyshev').split(',');
const text = readFileSync('tests/fixtures/data/letter.csv', 'utf8');
const letter = { ...parseCanonicalCsv('letter', text, DATASETS.letter.classNames), sha256: '' };
const c = buildCellData(letter, makeSplit(letter, { setting: setting as any, labels, tIndex, seed: 0, mode: 'rsb' }), 'rsb');
console.log('rows L/U', c.Xl.rows, c.Xu.rows);
const Fs: Float64Array[] = [];
for (const method of methods) {
  const m = new LabelPropagation({}, { precision: 'float64', float64MaxRows: 20000, fastPropagationMethod: method as any });
  const cpu0 = process.cpuUsage(); const t0 = performance.now();
  await m.fit(c.Xl, c.yl, c.Xu, 26, { rng: mt(0) });
  const cpu = process.cpuUsage(cpu0);
  const info = m.info();
  console.log(method, 'wall', ((performance.now() - t0) / 1000).toFixed(1), 'cpu', ((cpu.user + cpu.system) / 1e6).toFixed(1), JSON.stringify(info));
  Fs.push(await m.labelDistributions()); m.dispose();
}
if (Fs.length === 2) { let md = 0; for (let i = 0; i < Fs[0].length; i++) md = Math.max(md, Math.abs(Fs[0][i] - Fs[1][i])); console.log('max |dF|', md); }
