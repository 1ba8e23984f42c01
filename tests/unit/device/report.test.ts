/**
 * The device check's table (scripts/device/report.ts) from what the stages leave behind, including
 * the partial cases a time limit produces: a method the steps stage never reached, the cells of a
 * run cut short (its journal), a stage that failed.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  buildReport,
  groupPoints,
  METHOD_ORDER,
  renderReport,
  writeReport,
} from '../../../scripts/device/report.ts';
import type { StepLine } from '../../../scripts/device/bench.ts';

let work: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'rac-device-report-'));
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

const step = (method: string, msPerStep: number, kernels: number): StepLine => ({
  method,
  dataset: 'letter',
  size: 'rsb',
  backend: 'webgpu',
  firstStepMs: 2500,
  msPerStep,
  timedSteps: 5,
  kernels,
  topKernels: [{ name: '_FusedMatMul', count: 43, ms: 1.5 }],
  programs: kernels + 4,
  uploadBytes: 1308,
  readBytes: 0,
  flops: 14_686_175_232,
  tflops: 14.686175232 / msPerStep,
});

const cell = (seed: number, tIndex: number, accuracy: number) => ({
  seed,
  t_index: tIndex,
  outcome: { status: 'ok', accuracy },
  timing: { fit_ms: 8000, predict_ms: 40, steps: 1000 },
});

function writeWork(): void {
  writeFileSync(
    join(work, 'adapter.json'),
    JSON.stringify({
      backend: 'webgpu',
      adapter: { vendor: 'nvidia', architecture: 'hopper', description: 'NVIDIA H100 80GB HBM3' },
      software: false,
      limits: { maxBufferSize: 4294967296 },
      features: ['timestamp-query'],
      tfjs: '4.22.0',
      node: 'v20.20.2',
    }),
  );
  // Every method but the last: the stage was stopped by its time limit (a torn line at the end).
  const lines = METHOD_ORDER.slice(0, -1).map((m, i) => JSON.stringify(step(m, 5 + i, 580 + i)));
  writeFileSync(join(work, 'steps.jsonl'), `${lines.join('\n')}\n{"method":"softm`);
  const torchSteps = Object.fromEntries(
    METHOD_ORDER.map((m) => [`letter/${m}`, { wallMs: 2, cpuMs: 2, flops: 1, tflops: 7.3 }]),
  );
  writeFileSync(
    join(work, 'torch.json'),
    `warming up\n${JSON.stringify({ runtime: 'torch 2.11.0 cuda (H100)', device: 'cuda', steps: torchSteps })}\n`,
  );
  writeFileSync(join(work, 'fit.json'), JSON.stringify({ cells: [cell(0, 0, 1)] }));
  writeFileSync(join(work, 'fit.wall'), '11\n');
  // Cut short: no cells.json, a journal with a header, two entries and a torn last line.
  const entry = (cells: object[]) =>
    JSON.stringify({
      cells: cells.map((result) => ({ key: 'k', status: 'ok', result, error: null, attempts: 1 })),
    });
  writeFileSync(
    join(work, 'cells.json.journal'),
    [
      JSON.stringify({ journal: 'rac-bench-run/1', signature: 's' }),
      entry([0, 1, 2, 3, 4, 5].map((t) => cell(0, t, 0.98))),
      entry([0, 1, 2, 3, 4, 5].map((t) => cell(1, t, 1))),
      entry([0, 1, 2, 3, 4, 5].map((t) => cell(2, t, 0.96))),
      '{"cells":[{"key"',
    ].join('\n'),
  );
  writeFileSync(
    join(work, 'stages.tsv'),
    [
      'adapter\tok\t2\t60\t',
      'steps\ttimeout\t150\t150\tstopped at its 150 s limit',
      'cells\ttimeout\t40\t40\tstopped at its 40 s limit',
    ].join('\n'),
  );
}

describe('device report', () => {
  it('has a row per method with both sides, and says which were not measured', () => {
    writeWork();
    const r = buildReport(work, { dryRun: false, budgetS: 345, elapsedS: 300 });
    expect(r.steps.map((s) => s.method)).toEqual([...METHOD_ORDER]);
    const ftt = r.steps[0];
    expect(ftt.webgpu?.msPerStep).toBe(5);
    expect(ftt.torchMs).toBe(2);
    expect(ftt.ratio).toBeCloseTo(2.5, 12);
    const soft = r.steps[r.steps.length - 1];
    expect(soft.webgpu).toBeNull();
    expect(soft.torchMs).toBe(2);
    expect(soft.ratio).toBeNull();
    const text = renderReport(r);
    expect(text).toContain('WebGPU: nvidia · hopper · NVIDIA H100 80GB HBM3;');
    expect(text).toContain(
      '| step letter/ftt (rsb) | 5.00 ms · 2.94 TFLOP/s | 2.00 ms · 7.30 TFLOP/s | 2.50× | 580 |',
    );
    expect(text).toContain('most GPU time: _FusedMatMul ×43 1.50 ms');
    expect(text).toMatch(
      /\| step letter\/softmatch \| not measured \(stage failed or out of time\) \| 2\.00 ms/,
    );
    expect(text).toContain('- steps: timeout, 150 s of 150 s (stopped at its 150 s limit)');
    expect(text).toContain('whole check 300 s of 345 s');
  });

  it("reads a cut-short run's journal and compares the means with the published ones", () => {
    writeWork();
    const r = buildReport(work, { dryRun: false, budgetS: 345, elapsedS: null });
    expect(r.cells?.seeds).toEqual([0, 1, 2]);
    const p = r.cells!.points[0];
    expect(p.n).toBe(3);
    expect(p.mean).toBeCloseTo(0.98, 12);
    expect(p.published).toBe(0.98);
    // 2·√(s_pub²/n_pub + s_ours²/n_ours) with s² = σ²·n/(n−1): σ_pub 0.016329932 (5 seeds),
    // σ_ours of {0.98, 1, 0.96} = √(0.0008/3).
    const tol = 2 * Math.sqrt(0.016329932 ** 2 / 4 + 0.0008 / 3 / 2) + 1e-6;
    expect(p.tolerance).toBeCloseTo(tol, 12);
    expect(p.agrees).toBe(true);
    const text = renderReport(r);
    // The baseline's six points are one fit per seed drawn flat: one row.
    expect(text).toContain(
      '| iris · distribution · 5 · FT-T, t = 0–1 | 0.9800 (3 seeds) | published 0.9800 ± 0.0163 | Δ 0.0000 |',
    );
    expect(text).toContain('| FT-Transformer fit, iris, 1000 steps | 8.00 s (8.00 ms/step) |');
  });

  it('groups only consecutive equal points', () => {
    const pt = (t: number, mean: number) => ({
      t,
      n: 5,
      mean,
      published: 0.9,
      publishedStd: 0.01,
      tolerance: 0.02,
      agrees: true,
    });
    const g = groupPoints([pt(0, 0.9), pt(0.2, 0.9), pt(0.4, 0.8), pt(0.6, 0.9)]);
    expect(g.map((x) => x.ts)).toEqual([[0, 0.2], [0.4], [0.6]]);
  });

  it('says what never ran, and writes table.md and result.json', () => {
    const out = join(work, 'out');
    const text = writeReport(work, out, { dryRun: true, budgetS: 345, elapsedS: 12 });
    expect(text).toContain('DRY RUN');
    expect(text).toContain('PyTorch: not available');
    expect(text).toContain('| FT-Transformer fit | not run (stage failed or out of time) |');
    expect(text).toContain('| iris · distribution · 5 cells | not run (no time left, or failed) |');
    expect(readFileSync(join(out, 'table.md'), 'utf8')).toBe(text);
    expect(existsSync(join(out, 'result.json'))).toBe(true);
    const json = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as {
      format: string;
      steps: unknown[];
    };
    expect(json.format).toBe('rac-bench-device/1');
    expect(json.steps).toHaveLength(METHOD_ORDER.length);
  });
});
