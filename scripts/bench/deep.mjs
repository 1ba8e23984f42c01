#!/usr/bin/env node
/**
 * npm run bench:deep — one training step per deep method at rsb size (8 blocks × 192; 64 labeled
 * + μ·64 unlabeled rows; dropout on; Adam + coupled L2 + EMA) on letter's 16 features / 26 classes
 * and covertype's 54 / 7 (random rows of those shapes: the step's cost does not depend on values),
 * and predicting rows in eval mode: TypeScript on tfjs WASM under Node vs PyTorch CPU (Debian
 * python3-torch), in one invocation, one after the other. Prints wall and CPU time (CPU time is
 * the fairer ratio on a shared machine), the ratio TS / PyTorch, and per step the kernels tfjs
 * dispatched (tf.profile) and the bytes uploaded to / read back from the backend (stepStats.ts);
 * writes bench-results/deep-latest.json. The load average before and after is printed: the times
 * are only comparable on a quiet machine.
 * Threads: the TS side runs one thread (tfjs-wasm without threads), so PyTorch runs one too
 * (--torch-threads 1: torch's and OpenBLAS's pools, deep_step.py). With its default pools
 * (--torch-threads default) Debian's PyTorch ran OpenBLAS on both cores, its CPU time ≈ 2 × its
 * wall time, part of it spin-waiting. At one thread each, CPU time ≈ wall time on a quiet machine;
 * on a shared one the CPU ratio is the fairer (wall time counts time spent descheduled).
 * Relaxed SIMD: the TS side runs under `--experimental-wasm-relaxed-simd` (Chrome ≥ 114 has it on
 * by default, so this is how the page runs); --relaxed-simd off runs without it (plain SIMD).
 * Steps: the median of --reps timed steps (3) after --warmup untimed ones (3), each side. V8
 * compiles tfjs's JavaScript and tiers the wasm kernels up in background threads over the first
 * steps (an FT-T step's main-thread CPU: 780, 600, 580, 460, then 430–440 ms, with up to 90 ms a
 * step on V8's worker threads at first), so with one warm-up the timed steps were still warming
 * up; a 1 000-step fit runs at the settled speed. PyTorch needs no warm-up beyond the first step.
 * Activations: --activations cli (default) runs the TS side with the CLI's activation budget
 * (activationBudget.ts: a 512-row step keeps its block caches where they fit 1 GiB), page with the
 * default a small device gets (384 MiB: such steps recompute each block in the backward pass, ≈ 26 %
 * more products); the table says which each step did, and the wasm heap after it.
 * Options: --datasets letter,covertype  --methods ftt,fixmatch,…  --reps 3  --warmup 3  --predict-rows 4096
 *          --torch-threads 1|default  --relaxed-simd on|off  --activations cli|page
 *          --rounds N (N alternating TS / PyTorch runs, medians over them: steadier on a shared VM)
 *          --torch-blas-core NAME (OpenBLAS's kernels for PyTorch's products, OPENBLAS_CORETYPE:
 *            e.g. Haswell = AVX2 + FMA, Sandybridge = AVX without FMA, Nehalem = SSE, 128-bit as
 *            WebAssembly SIMD; the header names the kernels that ran, by default the CPU's best)
 */
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = new URL('../..', import.meta.url).pathname;
const SHAPES = { letter: 'letter:16:26', covertype: 'covertype:54:7', iris: 'iris:4:3', wine: 'wine:13:3' };
const ALL = 'ftt,pseudolabel,pimodel,meanteacher,ict,uda,fixmatch,flexmatch,softmatch';
const { values: opt } = parseArgs({
  options: {
    datasets: { type: 'string', default: 'letter,covertype' },
    methods: { type: 'string', default: ALL },
    reps: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '3' },
    'predict-rows': { type: 'string', default: '4096' },
    'torch-threads': { type: 'string', default: '1' },
    'relaxed-simd': { type: 'string', default: 'on' },
    activations: { type: 'string', default: 'cli' },
    rounds: { type: 'string', default: '1' },
    'torch-blas-core': { type: 'string' },
  },
});
const ds = opt.datasets
  .split(',')
  .map((d) => SHAPES[d] ?? d)
  .join(',');
const args = [ds, opt.methods, opt.reps, opt['predict-rows']];
const big = { cwd: ROOT, maxBuffer: 1 << 26 };

const load0 = loadavg();
const lastLine = (out) => JSON.parse(out.stdout.trim().split('\n').pop());
const runTs = async () =>
  lastLine(
    await run(
      process.execPath,
      [
        ...(opt['relaxed-simd'] === 'off' ? [] : ['--experimental-wasm-relaxed-simd']),
        '--import',
        'tsx',
        'scripts/bench/deepStep.ts',
        ...args,
        'wasm',
        'auto',
        opt.activations === 'page' ? 'page' : 'cli',
        opt.warmup,
      ],
      big,
    ),
  );
// OpenBLAS names the kernels it picked on stderr when OPENBLAS_VERBOSE ≥ 2 ("Core: Cooperlake").
const pyEnv = {
  ...process.env,
  OPENBLAS_VERBOSE: '2',
  ...(opt['torch-blas-core'] ? { OPENBLAS_CORETYPE: opt['torch-blas-core'] } : {}),
};
const runPy = async () => {
  try {
    const out = await run(
      '/usr/bin/python3',
      ['scripts/bench/deep_step.py', ...args, opt['torch-threads'], '--warmup', opt.warmup],
      {
        ...big,
        env: pyEnv,
      },
    );
    const res = lastLine(out);
    const core = /Core: (\w+)/.exec(out.stderr)?.[1];
    if (core)
      res.runtime += `, OpenBLAS kernels: ${core}${opt['torch-blas-core'] ? ' (--torch-blas-core)' : ''}`;
    return res;
  } catch (e) {
    console.error(`PyTorch side skipped: ${e.message.split('\n')[0]}`);
    return null;
  }
};
// Rounds alternate the two sides, so that both see the same stretches of a shared machine; each
// step's time is the median over rounds (of each round's median step).
const rounds = Math.max(1, Number(opt.rounds));
const tsRuns = [],
  pyRuns = [];
for (let r = 0; r < rounds; r++) {
  tsRuns.push(await runTs());
  const p = await runPy();
  if (p) pyRuns.push(p);
}
const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
/** The first run's record with each step's and prediction's times replaced by the medians over runs. */
function merged(runs) {
  if (!runs.length) return null;
  const out = structuredClone(runs[0]);
  for (const key of Object.keys(out.steps))
    for (const m of ['wallMs', 'cpuMs']) out.steps[key][m] = med(runs.map((x) => x.steps[key][m]));
  for (const key of Object.keys(out.predict))
    for (const m of ['ms', 'cpuMs']) out.predict[key][m] = med(runs.map((x) => x.predict[key][m]));
  out.rounds = runs.length;
  return out;
}
const ts = merged(tsRuns);
const py = merged(pyRuns);
const f = (x) => (x === undefined ? '—' : x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${x.toFixed(0)} ms`);
const load1 = loadavg();
const kb = (x) =>
  x === undefined ? '—' : x >= 1 << 20 ? `${(x / (1 << 20)).toFixed(1)} MB` : `${(x / 1024).toFixed(1)} kB`;
console.log(`TS: ${ts.runtime}\nPyTorch: ${py?.runtime ?? 'not run'}`);
console.log(
  opt['torch-threads'] === '1'
    ? 'One thread each side: CPU time ≈ wall time on a quiet machine; on a shared one the CPU ratio is the fair one.'
    : `PyTorch threads: ${opt['torch-threads']} (TS: one): the wall ratio compares unequal thread counts; PyTorch's CPU time includes its pools' spin-waiting.`,
);
console.log(`load average (1 min) ${load0[0].toFixed(2)} before, ${load1[0].toFixed(2)} after\n`);
console.log(
  `step (median after ${opt.warmup} warm-up${rounds > 1 ? `; median of ${rounds} rounds` : ''})   TS wall   TS cpu   Py wall   Py cpu   ratio cpu   ratio wall   kernels   uploaded   read back   activations   wasm heap`,
);
for (const [key, t] of Object.entries(ts.steps)) {
  const p = py?.steps[key];
  console.log(
    `${key.padEnd(30)} ${f(t.wallMs).padStart(8)} ${f(t.cpuMs).padStart(8)} ${f(p?.wallMs).padStart(9)} ${f(p?.cpuMs).padStart(8)} ${(p ? (t.cpuMs / p.cpuMs).toFixed(2) : '—').padStart(11)} ${(p ? (t.wallMs / p.wallMs).toFixed(2) : '—').padStart(12)} ${String(t.kernels ?? '—').padStart(9)} ${kb(t.uploadBytes).padStart(10)} ${kb(t.readBytes).padStart(11)} ${(t.activations ?? '—').padStart(13)} ${(t.heapBytes ? `${(t.heapBytes / 2 ** 20).toFixed(0)} MiB` : '—').padStart(11)}`,
  );
}
for (const [name, t] of Object.entries(ts.predict)) {
  const p = py?.predict[name];
  const per100k = (ms) => f((ms / t.rows) * 100_000);
  console.log(
    `predict ${name} ${t.rows} rows: TS ${f(t.ms)} (cpu ${f(t.cpuMs)}; ${per100k(t.ms)} per 100 000 rows), PyTorch ${p ? `${f(p.ms)} (cpu ${f(p.cpuMs)}; ${per100k(p.ms)} per 100 000)` : '—'}`,
  );
}
mkdirSync(join(ROOT, 'bench-results'), { recursive: true });
writeFileSync(
  join(ROOT, 'bench-results', 'deep-latest.json'),
  JSON.stringify(
    {
      format: 'rac-bench-deep/1',
      options: opt,
      load: { before: load0, after: load1 },
      ts,
      python: py,
      runs: { ts: tsRuns, python: pyRuns },
    },
    null,
    1,
  ),
);
