/**
 * The scale-out path as a cluster runs it: two Slurm array tasks (`--shard auto`) and a Kubernetes
 * Indexed Job pod each write their shard, `merge` joins them, and the result equals one
 * unsharded run cell for cell. Also `--backend webgpu` end to end (Dawn on SwiftShader's Vulkan).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { swiftShaderEnv } from '../helpers/probe.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const bin = join(root, 'bin/rac-bench.mjs');

function cli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { cwd: root, env: { ...process.env, ...env }, maxBuffer: 64 << 20 },
      (err, stdout, stderr) => {
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

interface Cell {
  dataset: { id: string };
  setting: string;
  labels: number;
  algorithm: { name: string };
  t_index: number;
  seed: number;
  outcome: { accuracy: number | null; n_correct: number | null };
}
const keyOf = (c: Cell) =>
  `${c.dataset.id}|${c.setting}|${c.labels}|${c.algorithm.name}|${c.t_index}|${c.seed}`;
const cellsOf = (file: string) =>
  new Map((JSON.parse(readFileSync(file, 'utf8')).cells as Cell[]).map((c) => [keyOf(c), c.outcome]));

const PLAN = [
  '--dataset',
  'iris',
  '--setting',
  'distribution,label',
  '--labels',
  '5',
  '--algorithms',
  'xgb,lp,ls',
  '--seeds',
  '0-1',
  '--t',
  '0,0.6,1',
  '--quiet',
];

describe('sharded runs from a scheduler, merged', () => {
  it('two Slurm array tasks and their merge equal one unsharded run, cell for cell', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rac-shard-'));
    const slurm = (id: number) => ({
      SLURM_ARRAY_TASK_ID: String(id),
      SLURM_ARRAY_TASK_MIN: '0',
      SLURM_ARRAY_TASK_MAX: '1',
      SLURM_ARRAY_TASK_COUNT: '2',
    });
    const [a, b, whole] = await Promise.all([
      cli(['run', ...PLAN, '--shard', 'auto', '--out', join(dir, 'shard-0.json')], slurm(0)),
      cli(['run', ...PLAN, '--shard', 'auto', '--out', join(dir, 'shard-1.json')], slurm(1)),
      cli(['run', ...PLAN, '--out', join(dir, 'whole.json')]),
    ]);
    for (const r of [a, b, whole]) expect(r.code, r.stderr).toBe(0);
    const s0 = cellsOf(join(dir, 'shard-0.json'));
    const s1 = cellsOf(join(dir, 'shard-1.json'));
    expect(s0.size).toBeGreaterThan(0);
    expect(s1.size).toBeGreaterThan(0);
    for (const k of s0.keys()) expect(s1.has(k)).toBe(false);
    expect(JSON.parse(readFileSync(join(dir, 'shard-1.json'), 'utf8')).env.shard).toBe('2/2');

    const merged = await cli([
      'merge',
      join(dir, 'shard-0.json'),
      join(dir, 'shard-1.json'),
      '--out',
      join(dir, 'all.json'),
    ]);
    expect(merged.code, merged.stderr).toBe(0);
    const all = cellsOf(join(dir, 'all.json'));
    const ref = cellsOf(join(dir, 'whole.json'));
    expect(ref.size).toBe(2 * 3 * 3 * 2); // settings × algorithms × t × seeds
    expect([...all.keys()].sort()).toEqual([...ref.keys()].sort());
    for (const [k, o] of ref) expect(all.get(k), k).toEqual(o);
  }, 300_000);

  it('a Kubernetes pod takes its shard from JOB_COMPLETION_INDEX and says where it came from', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rac-k8s-'));
    const noCount = await cli(['run', ...PLAN, '--shard', 'auto', '--out', join(dir, 'x.json')], {
      JOB_COMPLETION_INDEX: '1',
    });
    expect(noCount.code).not.toBe(0);
    expect(noCount.stderr).toMatch(/--shard-count N or set RAC_SHARD_COUNT/);
    const args = [
      'run',
      ...PLAN.filter((a) => a !== '--quiet'),
      '--shard',
      'auto',
      '--shard-count',
      '3',
      '--out',
      join(dir, 'x.json'),
    ];
    const r = await cli(args, { JOB_COMPLETION_INDEX: '2' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/shard 3\/3 \(kubernetes\)/);
    expect(JSON.parse(readFileSync(join(dir, 'x.json'), 'utf8')).env.shard).toBe('3/3');
  }, 300_000);

  it('--backend webgpu runs cells on Dawn and records the backend and adapter', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rac-webgpu-'));
    const one = [
      'run',
      '--dataset',
      'wine',
      '--setting',
      'feature',
      '--labels',
      '5',
      '--algorithms',
      'ls,xgb',
      '--seeds',
      '0',
      '--t',
      '0.4',
    ];
    const [gpu, wasm] = await Promise.all([
      cli([...one, '--backend', 'webgpu', '--out', join(dir, 'gpu.json')], swiftShaderEnv()),
      cli([...one, '--out', join(dir, 'wasm.json')]),
    ]);
    expect(gpu.code, gpu.stderr).toBe(0);
    expect(wasm.code, wasm.stderr).toBe(0);
    expect(gpu.stderr).toMatch(/Backend webgpu on .*swiftshader.*\(software adapter: slow\)/i);
    const run = JSON.parse(readFileSync(join(dir, 'gpu.json'), 'utf8'));
    expect(run.env.backends).toEqual(['webgpu']);
    expect(run.env.adapter.vendor).toBeTruthy();
    for (const c of run.cells) expect(c.env.backend).toBe('webgpu');
    // Same cells on wasm: identical predictions (the statistical family is float64 on small cells).
    const a = cellsOf(join(dir, 'gpu.json'));
    for (const [k, o] of cellsOf(join(dir, 'wasm.json'))) expect(a.get(k), k).toEqual(o);
  }, 300_000);
});
