/**
 * Where one deep training step's time goes on tfjs-wasm (issue 20): every wasm kernel is wrapped
 * with a timer (the wasm backend runs kernels synchronously, so a kernel's wall time is its cost),
 * one step runs after a warm-up, and the kernels are listed by total time, each with its costliest
 * input shapes. With --predict, the same for an eval prediction of 4 096 rows in batches of 512.
 * Times are wall-clock: on a loaded machine compare the shares, not the milliseconds.
 *
 * Usage: node [--experimental-wasm-relaxed-simd] --import tsx scripts/bench/deepProfile.ts
 *        METHOD [FEATURES CLASSES] [--predict] [--plain-simd] [--recompute true|false] [--warmup N]
 */
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { deepWasmFlavour, preferDeepWasmFlavour } from '../../src/lib/models/deep/batchMatMul.ts';
import { trainerConfig } from '../../src/lib/models/deep/config.ts';
import { createMethod, type DeepMethodId } from '../../src/lib/models/deep/methods/index.ts';
import { DeepTrainer } from '../../src/lib/models/deep/trainer.ts';
import { MT19937 } from '../../src/lib/protocol/rng.ts';
import { fixedStreams, normalRows, settleBackend, stepData } from './stepFixture.ts';

const argv = process.argv.slice(2);
const flag = (name: string) => argv.includes(name);
const option = (name: string) => (argv.indexOf(name) >= 0 ? argv[argv.indexOf(name) + 1] : undefined);
const [id, dS = '16', kS = '26'] = argv.filter(
  (a, i) => !a.startsWith('--') && !['--recompute', '--warmup', '--shapes'].includes(argv[i - 1]),
);
if (flag('--plain-simd')) preferDeepWasmFlavour('simd');
await tf.setBackend('wasm');
await tf.ready();

interface Tally {
  n: number;
  ms: number;
  byShape: Map<string, { n: number; ms: number }>;
}
const tallies = new Map<string, Tally>();
for (const kc of tf.getKernelsForBackend('wasm')) {
  const inner = kc.kernelFunc;
  tf.unregisterKernel(kc.kernelName, 'wasm');
  tf.registerKernel({
    ...kc,
    kernelFunc: ((args: Parameters<tf.KernelFunc>[0]) => {
      const t0 = performance.now();
      const out = inner(args);
      const ms = performance.now() - t0;
      const t = tallies.get(kc.kernelName) ?? { n: 0, ms: 0, byShape: new Map() };
      const shape = Object.values(args.inputs)
        .map((x) => x?.shape.join('×'))
        .join(' ');
      const attrs = JSON.stringify(args.attrs ?? {});
      const key = `${shape} ${attrs.length > 70 ? attrs.slice(0, 67) + '…' : attrs}`;
      const s = t.byShape.get(key) ?? { n: 0, ms: 0 };
      s.n++;
      s.ms += ms;
      t.byShape.set(key, s);
      t.n++;
      t.ms += ms;
      tallies.set(kc.kernelName, t);
      return out;
    }) as tf.KernelFunc,
  });
}

function report(title: string, wallMs: number, cpuMs: number) {
  let total = 0;
  for (const t of tallies.values()) total += t.ms;
  console.log(
    `\n${title}: wall ${wallMs.toFixed(0)} ms, cpu ${cpuMs.toFixed(0)} ms, in kernels ${total.toFixed(0)} ms`,
  );
  for (const [name, t] of [...tallies].sort((a, b) => b[1].ms - a[1].ms).slice(0, 14)) {
    const share = ((100 * t.ms) / total).toFixed(1);
    console.log(
      `${name.padEnd(24)} ${String(t.n).padStart(5)} ${t.ms.toFixed(1).padStart(9)} ms ${share.padStart(5)} %`,
    );
    for (const [key, s] of [...t.byShape]
      .sort((a, b) => b[1].ms - a[1].ms)
      .slice(0, Number(option('--shapes') ?? 4)))
      console.log(`    ${key.padEnd(96)} ${String(s.n).padStart(4)} ${s.ms.toFixed(1).padStart(8)} ms`);
  }
  tallies.clear();
}

const d = Number(dS),
  k = Number(kS);
const rng = new MT19937(0);
const mk = (rows: number) => normalRows(rng, rows, d);
const rec = option('--recompute');
const cfg = trainerConfig(d, k, {
  size: 'rsb',
  steps: 1000,
  progressEvery: 1_000_000,
  ...(rec === 'true' || rec === 'false' ? { recompute: rec === 'true' } : {}), // else 'auto'
});
const tr = new DeepTrainer(cfg, createMethod(id as DeepMethodId), stepData(d, k, rng), fixedStreams());
console.log(`${id} on ${d} features / ${k} classes, rsb size; deep wasm kernels: ${deepWasmFlavour()}`);
const warm = Number(option('--warmup') ?? 1);
await tr.run({}, warm);
await settleBackend();
tallies.clear();
let t0 = performance.now(),
  c0 = process.cpuUsage();
await tr.run({}, warm + 1);
await settleBackend();
let c = process.cpuUsage(c0);
report('one step', performance.now() - t0, (c.user + c.system) / 1000);
if (flag('--predict')) {
  const X = mk(4096);
  await tr.predictLogits(mk(64));
  tallies.clear();
  t0 = performance.now();
  c0 = process.cpuUsage();
  await tr.predictLogits(X, 512);
  c = process.cpuUsage(c0);
  report('predict 4096 rows', performance.now() - t0, (c.user + c.system) / 1000);
}
tr.dispose();
