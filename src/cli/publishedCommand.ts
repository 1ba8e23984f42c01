/**
 * `rac-bench published RUN.json [--panels]`: how a run compares with the original's published
 * curves, per panel and per algorithm, under the rule of lib/published/agreement.ts and in the
 * words the Results page's badge uses. A tabular run is compared with the tabular tables, an
 * image/text run (`rsb-run/3`) with the image/text ones (a tier other than finetune is a
 * different protocol: no verdict). A run in `readme` mode or with overrides is compared with a
 * warning, as the page shows a caveat.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { isBaselineAlgorithm } from '../lib/models/catalogue.ts';
import { EXACT_TEXT, pText, ppText, RULE_TEXT, seedsText } from '../lib/published/agreement.ts';
import { loadImageTextPublished } from '../lib/published/imageText.ts';
import {
  comparability,
  comparePanel,
  comparisonHeadline,
  comparisonSummary,
  curveSummary,
  loadPublished,
  reproductionByAlgorithm,
  type PublishedTable,
} from '../lib/published/reference.ts';
import { ImportError, parseAnyRunFile } from '../lib/share/runFile.ts';
import { groupPanels, panelCurves, type CurveRecord } from '../lib/suite/curves.ts';
import { isModalBaseline, modalCurveCell, modalPanelId } from '../lib/suite/modalCurves.ts';
import { T_GRID } from '../lib/types.ts';
import { CliError } from './args.ts';

interface Loaded {
  table: PublishedTable;
  curves: CurveRecord[];
  nonstandard: Set<string>;
}

async function load(file: string): Promise<Loaded> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new CliError(`${file}: not a readable file (${(e as Error).message}).`);
  }
  let got;
  try {
    got = parseAnyRunFile(text, file);
  } catch (e) {
    if (e instanceof ImportError) throw new CliError(e.message);
    throw e;
  }
  if (got.kind === 'modal') {
    const cells = got.run.cells;
    return {
      table: await loadImageTextPublished(),
      curves: panelCurves(cells.map(modalCurveCell), { isBaseline: isModalBaseline }),
      nonstandard: new Set(cells.filter((c) => c.dataset.nonstandard).map((c) => modalPanelId(c))),
    };
  }
  return {
    table: await loadPublished(),
    curves: panelCurves(got.run.cells, { isBaseline: isBaselineAlgorithm }),
    nonstandard: new Set(),
  };
}

export async function publishedCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { panels: { type: 'boolean', default: false } },
  });
  if (positionals.length !== 1)
    throw new CliError('published needs one result file (rac-bench published RUN.json [--panels]).');
  const { table, curves, nonstandard } = await load(positionals[0]);

  // The page never compares such runs without its caveat; neither does the CLI.
  const warnings = new Set<string>();
  for (const c of curves) {
    const how = comparability(c, table, nonstandard.has(c.dataset));
    how.caveats.forEach((x) => warnings.add(`Warning: ${x}; every verdict below carries this caveat.`));
    if (!how.comparable && how.why)
      warnings.add(`Note: different protocol (${how.why}); no reproduction verdict.`);
  }
  for (const w of warnings) process.stderr.write(`${w}\n`);

  const panelName = (p: { dataset: string; setting: string; labels: number }) =>
    `${p.dataset} · ${p.setting} · ${p.labels} labels`;
  const lines = [
    `Against ${table.provenance.repository} @ ${table.provenance.commit} (${table.label}: ${table.provenance.statistic}).`,
    RULE_TEXT,
    EXACT_TEXT,
    '',
    '| panel | verdict | numbers |',
    '|---|---|---|',
  ];
  const panels = groupPanels(curves);
  for (const p of panels) {
    const pc = comparePanel(p.curves, table, { nonstandard: nonstandard.has(p.dataset) });
    if (pc) lines.push(`| ${panelName(p)} | ${comparisonHeadline(pc)} | ${comparisonSummary(pc)} |`);
  }
  lines.push(
    '',
    '| algorithm | points that agree | sign test | seeds | exactly equal | mean signed difference |',
    '|---|---|---|---|---|---|',
    ...reproductionByAlgorithm(curves, table).map(
      ({ algorithm, r }) =>
        `| ${algorithm} | ${r.agree}/${r.points} | ${r.sign.leans ? 'leans' : 'no lean'} (${pText(r.sign.p)}) | ${seedsText(r)} | ${r.exact ?? 'not checked (other seeds)'} | ${ppText(r.meanDiff)} |`,
    ),
  );
  if (values.panels) {
    lines.push(
      '',
      '| panel | algorithm | reproduction | points (t: ours vs published, tolerance) |',
      '|---|---|---|---|',
    );
    for (const p of panels) {
      const pc = comparePanel(p.curves, table, { nonstandard: nonstandard.has(p.dataset) });
      for (const c of pc?.curves ?? []) {
        const points = (c.r?.detail ?? [])
          .filter((d) => d.exact !== true)
          .map(
            (d) =>
              `${T_GRID[d.tIndex]}: ${d.ours.toFixed(4)} vs ${d.published.toFixed(4)} (|Δ| ${Math.abs(d.diff).toFixed(4)}, tolerance ${d.tolerance.toFixed(4)})${d.agrees ? '' : ' ✗'}`,
          );
        lines.push(`| ${panelName(p)} | ${c.algorithm} | ${curveSummary(c, pc!)} | ${points.join('; ')} |`);
      }
    }
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}
