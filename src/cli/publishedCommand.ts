/** `rac-bench published RUN.json`: how a run compares with the original's published tables, per algorithm. */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { isBaselineAlgorithm } from '../lib/models/catalogue.ts';
import {
  loadPublished,
  reproduction,
  publishedSeries,
  reproductionByAlgorithm,
  reproductionSummary,
} from '../lib/published/reference.ts';
import { panelCurves } from '../lib/suite/curves.ts';
import { parseRun } from '../lib/suite/schema.ts';
import { CliError } from './args.ts';

export async function publishedCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { panels: { type: 'boolean', default: false } },
  });
  if (positionals.length !== 1)
    throw new CliError('published needs one result file (rac-bench published RUN.json [--panels]).');
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(positionals[0], 'utf8'));
  } catch (e) {
    throw new CliError(`${positionals[0]}: not a readable JSON file (${(e as Error).message}).`);
  }
  const run = parseRun(json);
  const table = await loadPublished();
  const curves = panelCurves(run.cells, { isBaseline: isBaselineAlgorithm });
  const pp = (x: number) =>
    Number.isFinite(x) ? `${x >= 0 ? '+' : '−'}${Math.abs(x * 100).toFixed(2)} pp` : '–';
  const lines = [
    `Against ${table.provenance.repository} @ ${table.provenance.commit} (a point is within noise at |Δ| ≤ max(2·std, 2 pts); exact: mean and std to 1e-6)`,
    '',
    '| algorithm | points within noise | exact | mean signed difference |',
    '|---|---|---|---|',
    ...reproductionByAlgorithm(curves, table).map(
      ({ algorithm, r }) => `| ${algorithm} | ${r.within}/${r.points} | ${r.exact} | ${pp(r.meanDiff)} |`,
    ),
  ];
  if (values.panels) {
    lines.push(
      '',
      '| panel | algorithm | reproduction | off points (t: ours vs published ± std) |',
      '|---|---|---|---|',
    );
    for (const c of curves) {
      const ref = publishedSeries(table, c);
      if (!ref) continue;
      const r = reproduction(c, ref);
      const off = r.detail
        .filter((d) => !d.exact)
        .map(
          (d) =>
            `${[0, 0.2, 0.4, 0.6, 0.8, 1][d.tIndex]}: ${d.ours.toFixed(4)} vs ${d.published.toFixed(4)}±${d.publishedStd.toFixed(4)}${d.within ? '' : ' ✗'}`,
        );
      lines.push(
        `| ${c.dataset} · ${c.setting} · ${c.labels} | ${c.algorithm} | ${reproductionSummary(r)} | ${off.join('; ')} |`,
      );
    }
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}
