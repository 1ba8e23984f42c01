/**
 * The device check's one table (scripts/device/gpu-check.sh → bench.mjs table): built from what
 * the stages left in the work folder, so that a stage that failed or ran out of time shows as such
 * in its row instead of losing the whole report. Files read (all optional):
 *   stages.tsv      name, status (ok | timeout | failed | skipped), seconds, budget, note — per stage
 *   adapter.json    bench.mjs adapter
 *   steps.jsonl     bench.mjs steps, one JSON line per method (StepLine)
 *   torch.json      scripts/bench/deep_step.py (PyTorch on the same GPU, or the CPU in a dry run)
 *   fit.json        rac-bench run of one FT-Transformer cell (its record's timing)
 *   cells.json      rac-bench run of the iris · distribution · 5 cells, or cells.json.journal
 * Written to --out: table.md (what is printed) and result.json (the same, structured).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { agreementTolerance } from '../../src/lib/published/agreement.ts';
import type { PublishedSeries } from '../../src/lib/published/reference.ts';
import rsbPublished from '../../src/lib/published/rsbPublished.json' with { type: 'json' };
import { T_GRID } from '../../src/lib/types.ts';
import type { AdapterReport, StepLine } from './bench.ts';
import { tflops } from './stepFlops.ts';

export interface Stage {
  name: string;
  status: string;
  seconds: number;
  budget: number;
  note: string;
}

export interface TorchSteps {
  runtime: string;
  device: string;
  steps: Record<string, { wallMs: number; cpuMs: number; flops?: number; tflops?: number }>;
}

/** A cell as the CLI writes it (only the fields read here). */
interface CellLike {
  seed: number;
  t_index: number;
  outcome: { status: string; accuracy: number | null };
  timing: { fit_ms: number; predict_ms: number; steps: number };
}

export interface CellsPoint {
  t: number;
  n: number;
  mean: number | null;
  published: number | null;
  publishedStd: number | null;
  tolerance: number | null;
  agrees: boolean | null;
}

/** One method: its WebGPU step (null: not measured) beside PyTorch's on the same device. */
export interface MethodRow {
  method: string;
  dataset: string;
  webgpu: StepLine | null;
  torchMs: number | null;
  torchTflops: number | null;
  /** WebGPU ms ÷ PyTorch ms. */
  ratio: number | null;
}

export interface DeviceReport {
  format: 'rac-bench-device/1';
  dryRun: boolean;
  budgetS: number;
  elapsedS: number | null;
  stages: Stage[];
  adapter: AdapterReport | null;
  torch: { runtime: string; device: string } | null;
  steps: MethodRow[];
  fit: {
    steps: number;
    fitMs: number;
    predictMs: number;
    processS: number | null;
    accuracy: number | null;
  } | null;
  cells: { seeds: number[]; points: CellsPoint[] } | null;
}

export const METHOD_ORDER = [
  'ftt',
  'pseudolabel',
  'pimodel',
  'meanteacher',
  'ict',
  'uda',
  'fixmatch',
  'flexmatch',
  'softmatch',
] as const;

function readJson<T>(path: string): T | null {
  if (!existsSync(path)) return null;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as T;
  } catch {
    return null;
  }
}

/** The last line of a file that parses as JSON (a tool may print progress before its object). */
function lastJsonLine<T>(path: string): T | null {
  if (!existsSync(path)) return null;
  const lines = readFileSync(path, 'utf8').trim().split('\n').reverse();
  for (const l of lines) {
    try {
      return JSON.parse(l) as T;
    } catch {
      // not this one
    }
  }
  return null;
}

function jsonLines<T>(path: string): T[] {
  if (!existsSync(path)) return [];
  const out: T[] = [];
  for (const l of readFileSync(path, 'utf8').split('\n')) {
    if (!l.trim().startsWith('{')) continue;
    try {
      out.push(JSON.parse(l) as T);
    } catch {
      // a line cut by a kill
    }
  }
  return out;
}

export function readStages(path: string): Stage[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => {
      const [name, status, seconds, budget, ...note] = l.split('\t');
      return { name, status, seconds: Number(seconds), budget: Number(budget), note: note.join(' ') };
    });
}

/** Cells of a finished run file, else of its journal (a run cut short by its time budget). */
export function readCells(outPath: string): CellLike[] {
  const run = readJson<{ cells?: CellLike[] }>(outPath);
  if (run?.cells) return run.cells;
  const journal = `${outPath}.journal`;
  if (!existsSync(journal)) return [];
  const cells: CellLike[] = [];
  for (const line of readFileSync(journal, 'utf8').split('\n').slice(1)) {
    try {
      const entry = JSON.parse(line) as { cells?: { result: CellLike | null }[] };
      for (const c of entry.cells ?? []) if (c.result) cells.push(c.result);
    } catch {
      // a torn last line
    }
  }
  return cells;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const popStd = (xs: number[]) => {
  const m = mean(xs);
  return Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / xs.length);
};

/** Our per-t means of the iris · distribution · 5 FT-Transformer cells beside the published ones. */
export function comparePublished(cells: CellLike[]): { seeds: number[]; points: CellsPoint[] } {
  const series = (rsbPublished as unknown as { series: PublishedSeries[] }).series.find(
    (s) =>
      s.dataset === 'iris' &&
      s.setting === 'distribution' &&
      s.labels === 5 &&
      s.algorithm === 'FT_Transformer',
  );
  const ok = cells.filter((c) => c.outcome.status === 'ok' && c.outcome.accuracy !== null);
  const points = T_GRID.map((t, i): CellsPoint => {
    const acc = ok.filter((c) => c.t_index === i).map((c) => c.outcome.accuracy as number);
    const pub = series?.mean[i] ?? null;
    const pubStd = series?.std[i] ?? null;
    const m = acc.length ? mean(acc) : null;
    const tol =
      m !== null && pub !== null && pubStd !== null
        ? agreementTolerance({ publishedStd: pubStd, nPublished: 5, oursStd: popStd(acc), nOurs: acc.length })
        : null;
    return {
      t,
      n: acc.length,
      mean: m,
      published: pub,
      publishedStd: pubStd,
      tolerance: tol,
      agrees: tol === null || m === null || pub === null ? null : Math.abs(m - pub) <= tol,
    };
  });
  return { seeds: [...new Set(ok.map((c) => c.seed))].sort((a, b) => a - b), points };
}

export function buildReport(
  work: string,
  o: { dryRun: boolean; budgetS: number; elapsedS: number | null },
): DeviceReport {
  const adapter = lastJsonLine<AdapterReport>(join(work, 'adapter.json'));
  const lines = jsonLines<StepLine>(join(work, 'steps.jsonl'));
  const torch = lastJsonLine<TorchSteps>(join(work, 'torch.json'));
  const byMethod = new Map(lines.map((l) => [l.method, l]));
  const dataset = lines[0]?.dataset ?? Object.keys(torch?.steps ?? {})[0]?.split('/')[0] ?? 'letter';
  const steps = METHOD_ORDER.map((m): MethodRow => {
    const l = byMethod.get(m) ?? null;
    const p = torch?.steps[`${dataset}/${m}`] ?? null;
    const flops = l?.flops ?? p?.flops ?? null;
    return {
      method: m,
      dataset,
      webgpu: l,
      torchMs: p?.wallMs ?? null,
      torchTflops: p ? (p.tflops ?? (flops === null ? null : tflops(flops, p.wallMs))) : null,
      ratio: l && p && p.wallMs > 0 ? l.msPerStep / p.wallMs : null,
    };
  });
  const fitCell = readCells(join(work, 'fit.json'))[0] ?? null;
  const fitWall = Number(
    existsSync(join(work, 'fit.wall')) ? readFileSync(join(work, 'fit.wall'), 'utf8') : NaN,
  );
  const cells = readCells(join(work, 'cells.json'));
  return {
    format: 'rac-bench-device/1',
    dryRun: o.dryRun,
    budgetS: o.budgetS,
    elapsedS: o.elapsedS,
    stages: readStages(join(work, 'stages.tsv')),
    adapter,
    torch: torch ? { runtime: torch.runtime, device: torch.device } : null,
    steps,
    fit: fitCell
      ? {
          steps: fitCell.timing.steps,
          fitMs: fitCell.timing.fit_ms,
          predictMs: fitCell.timing.predict_ms,
          processS: Number.isFinite(fitWall) ? fitWall : null,
          accuracy: fitCell.outcome.accuracy,
        }
      : null,
    cells: cells.length ? comparePublished(cells) : null,
  };
}

const ms = (x: number) =>
  x >= 1000 ? `${(x / 1000).toFixed(2)} s` : x >= 10 ? `${x.toFixed(1)} ms` : `${x.toFixed(2)} ms`;
const tf = (x: number | null) => (x === null ? '—' : x >= 0.1 ? x.toFixed(2) : x.toPrecision(2));
const bytes = (x: number) =>
  x >= 1 << 20 ? `${(x / (1 << 20)).toFixed(1)} MB` : x >= 1024 ? `${(x / 1024).toFixed(1)} kB` : `${x} B`;

/**
 * Consecutive t with the same numbers on both sides, as one row: the FT-Transformer is a baseline
 * (one fit per seed drawn flat over t), so its six points are usually one.
 */
export function groupPoints(points: CellsPoint[]): { ts: number[]; point: CellsPoint }[] {
  const same = (a: CellsPoint, b: CellsPoint) =>
    a.n === b.n && a.mean === b.mean && a.published === b.published && a.publishedStd === b.publishedStd;
  const groups: { ts: number[]; point: CellsPoint }[] = [];
  for (const p of points) {
    const last = groups[groups.length - 1];
    if (last && same(last.point, p)) last.ts.push(p.t);
    else groups.push({ ts: [p.t], point: p });
  }
  return groups;
}

/** The three kernels that took the most GPU time, e.g. "; GPU time: _FusedMatMul ×43 4.2 s, …". */
function topText(top: StepLine['topKernels']): string {
  if (!top?.length) return '';
  return `; most GPU time: ${top
    .slice(0, 3)
    .map((k) => `${k.name} ×${k.count} ${ms(k.ms)}`)
    .join(', ')}`;
}

/** The report in words: a head line, the one table, the stages' times. */
export function renderReport(r: DeviceReport): string {
  const a = r.adapter;
  const adapterText = a?.adapter ? Object.values(a.adapter).join(' · ') : 'no adapter report';
  const head = [
    `RAC Bench device check${r.dryRun ? ' (DRY RUN: tiny sizes, software adapter accepted — not a GPU measurement)' : ''}`,
    `WebGPU: ${adapterText}${a?.software ? ' (software)' : ''}; tfjs ${a?.tfjs ?? '?'}, Node ${a?.node ?? '?'}`,
    `PyTorch: ${r.torch?.runtime ?? 'not available (see the stages below)'}`,
  ];
  if (a && Object.keys(a.limits).length)
    head.push(
      `limits: ${Object.entries(a.limits)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`,
    );
  const rows: string[][] = [];
  for (const s of r.steps) {
    const w = s.webgpu;
    rows.push([
      `step ${s.dataset}/${s.method}${w ? ` (${w.size})` : ''}`,
      w ? `${ms(w.msPerStep)} · ${tf(w.tflops)} TFLOP/s` : 'not measured (stage failed or out of time)',
      s.torchMs === null ? '—' : `${ms(s.torchMs)} · ${tf(s.torchTflops)} TFLOP/s`,
      s.ratio === null ? '—' : `${s.ratio.toFixed(2)}×`,
      w ? String(w.kernels) : '—',
      w
        ? `${w.programs ?? '—'} programs, ↑ ${bytes(w.uploadBytes)} ↓ ${bytes(w.readBytes)}, ${(w.flops / 1e9).toFixed(2)} GFLOP, first step ${ms(w.firstStepMs)}${topText(w.topKernels)}`
        : '',
    ]);
  }
  if (r.fit)
    rows.push([
      `FT-Transformer fit, iris, ${r.fit.steps} steps`,
      `${ms(r.fit.fitMs)} (${ms(r.fit.fitMs / Math.max(1, r.fit.steps))}/step)`,
      '—',
      '—',
      '—',
      `predict ${ms(r.fit.predictMs)}; whole process ${r.fit.processS === null ? '?' : `${r.fit.processS.toFixed(1)} s`}; accuracy ${r.fit.accuracy ?? '—'}`,
    ]);
  else rows.push(['FT-Transformer fit', 'not run (stage failed or out of time)', '—', '—', '—', '']);
  if (r.cells)
    for (const g of groupPoints(r.cells.points)) {
      const p = g.point;
      rows.push([
        `iris · distribution · 5 · FT-T, t = ${g.ts.length > 1 ? `${g.ts[0]}–${g.ts[g.ts.length - 1]}` : g.ts[0]}`,
        p.mean === null ? '—' : `${p.mean.toFixed(4)} (${p.n} seed${p.n === 1 ? '' : 's'})`,
        p.published === null
          ? '—'
          : `published ${p.published.toFixed(4)} ± ${(p.publishedStd ?? 0).toFixed(4)}`,
        p.mean === null || p.published === null ? '—' : `Δ ${(p.mean - p.published).toFixed(4)}`,
        '—',
        r.dryRun
          ? 'dry run: a few steps of a tiny network, not comparable'
          : p.agrees === null
            ? ''
            : p.agrees
              ? `agrees (tolerance ${p.tolerance!.toFixed(4)})`
              : `✗ outside ${p.tolerance!.toFixed(4)}`,
      ]);
    }
  else rows.push(['iris · distribution · 5 cells', 'not run (no time left, or failed)', '—', '—', '—', '']);
  const header = [
    'row',
    'WebGPU (Dawn)',
    'PyTorch, same device',
    'WebGPU ÷ PyTorch',
    'kernels / step',
    'detail',
  ];
  const table = [header, header.map(() => '---'), ...rows].map((c) => `| ${c.join(' | ')} |`);
  const stages = r.stages.map(
    (s) =>
      `- ${s.name}: ${s.status}, ${s.seconds.toFixed(0)} s of ${s.budget.toFixed(0)} s${s.note ? ` (${s.note})` : ''}`,
  );
  const total = r.elapsedS === null ? '' : `; whole check ${r.elapsedS.toFixed(0)} s of ${r.budgetS} s`;
  return [
    ...head,
    '',
    ...table,
    '',
    `Stages${total}:`,
    ...stages,
    '',
    'TFLOP/s: GEMM FLOPs of the step counted analytically (scripts/device/stepFlops.ts) over the measured time.',
    '',
  ].join('\n');
}

/** Builds, renders and writes table.md and result.json to `out`; returns the text. */
export function writeReport(
  work: string,
  out: string,
  o: { dryRun: boolean; budgetS: number; elapsedS: number | null },
): string {
  const r = buildReport(work, o);
  const text = renderReport(r);
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'table.md'), text);
  writeFileSync(join(out, 'result.json'), `${JSON.stringify(r, null, 1)}\n`);
  return text;
}
