/**
 * The TypeScript side of `npm run bench:deep` (run with tsx under Node): one training step per
 * deep method at rsb size on the tfjs WASM backend, and an eval-mode prediction. Same shapes,
 * batch sizes and loop as scripts/bench/deep_step.py. After the timed steps, one more step is run
 * with host ↔ backend transfers counted and one under tf.profile for its kernel count
 * (stepStats.ts). Prints one JSON object.
 * Usage: node [--experimental-wasm-relaxed-simd] --import tsx scripts/bench/deepStep.ts DATASETS
 *        METHODS REPS PREDICT_ROWS [BACKEND] [auto|simd] [cli|page] [WARMUP]
 * (simd: the plain-SIMD build of the deep wasm kernels even where relaxed SIMD validates.
 *  cli: the activation budget the CLI sets (tfNode.ts), page: the default a small device gets;
 *  each step reports whether it kept its activations or recomputed its blocks, and the wasm heap.)
 */
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { trainerConfig } from '../../src/lib/models/deep/config.ts';
import { createMethod, type DeepMethodId } from '../../src/lib/models/deep/methods/index.ts';
import { DeepTrainer } from '../../src/lib/models/deep/trainer.ts';
import { deepWasmFlavour, preferDeepWasmFlavour } from '../../src/lib/models/deep/batchMatMul.ts';
import {
  DEFAULT_ACTIVATION_BUDGET_BYTES,
  NODE_ACTIVATION_BUDGET_BYTES,
  setActivationBudget,
} from '../../src/lib/models/deep/activationBudget.ts';
import { MT19937 } from '../../src/lib/protocol/rng.ts';
import { fixedStreams, normalRows, settleBackend, stepData } from './stepFixture.ts';
import { countTransfers, profileKernels } from './stepStats.ts';

const [
  dsArg,
  methodsArg,
  repsArg,
  predictArg,
  backend = 'wasm',
  kernels = 'auto',
  budget = 'cli',
  warmupArg = '1',
] = process.argv.slice(2);
// Untimed steps first: V8 compiles tfjs's JavaScript and tiers the wasm kernels up in the
// background over the first few steps (an FT-T step's main-thread CPU went 780, 600, 580, 460, then
// 430–440 ms), and a 1 000-step fit runs at the settled speed.
const warmup = Math.max(1, Number(warmupArg));
setActivationBudget(budget === 'page' ? DEFAULT_ACTIVATION_BUDGET_BYTES : NODE_ACTIVATION_BUDGET_BYTES);
const heapBytes = () =>
  (tf.backend() as unknown as { wasm?: { HEAPU8: Uint8Array } }).wasm?.HEAPU8.length ?? null;
// 'simd': the plain-SIMD build of the deep kernels even where relaxed SIMD validates (A/B runs).
if (kernels === 'simd') preferDeepWasmFlavour('simd');
await tf.setBackend(backend);
await tf.ready();
const out: {
  runtime: string;
  activationBudgetBytes: number;
  steps: Record<
    string,
    {
      wallMs: number;
      cpuMs: number;
      kernels?: number;
      uploadBytes?: number;
      readBytes?: number;
      byName?: Record<string, number>;
      activations?: 'kept' | 'recomputed';
      heapBytes?: number | null;
    }
  >;
  predict: Record<string, { rows: number; ms: number; cpuMs: number }>;
} = {
  runtime: `tfjs ${tf.version.tfjs} ${tf.getBackend()} (Node ${process.version})${
    tf.getBackend() === 'wasm'
      ? deepWasmFlavour() === 'relaxed-simd'
        ? ', deep kernels: WebAssembly relaxed SIMD (batchMatMul.wat, GEMM multiply-adds as FMA)'
        : deepWasmFlavour() === 'simd'
          ? `, deep kernels: WebAssembly SIMD (batchMatMul.wat; ${kernels === 'simd' ? 'relaxed SIMD not used' : 'no relaxed SIMD in this engine'})`
          : ', deep kernels: JavaScript (no WebAssembly SIMD)'
      : ''
  }`,
  activationBudgetBytes: budget === 'page' ? DEFAULT_ACTIVATION_BUDGET_BYTES : NODE_ACTIVATION_BUDGET_BYTES,
  steps: {},
  predict: {},
};
const reps = Number(repsArg),
  predictRows = Number(predictArg);
for (const spec of dsArg.split(',')) {
  const [name, dS, kS] = spec.split(':');
  const d = Number(dS),
    k = Number(kS);
  const rng = new MT19937(0);
  const data = stepData(d, k, rng);
  const mk = (rows: number) => normalRows(rng, rows, d); // predict rows: the draws go on after the step's
  for (const id of methodsArg.split(',') as DeepMethodId[]) {
    const cfg = trainerConfig(d, k, { size: 'rsb', steps: 1000, progressEvery: 1_000_000 });
    const tr = new DeepTrainer(cfg, createMethod(id), data, fixedStreams());
    const times: { wallMs: number; cpuMs: number }[] = [];
    for (let it = 0; it < warmup + reps; it++) {
      const t0 = performance.now(),
        c0 = process.cpuUsage();
      await tr.run({}, it + 1);
      await settleBackend(); // the step's work is done (async backends), nothing read back
      const c = process.cpuUsage(c0);
      times.push({ wallMs: performance.now() - t0, cpuMs: (c.user + c.system) / 1000 });
    }
    const timed = times.slice(warmup).sort((a, b) => a.cpuMs - b.cpuMs);
    const bytes = await countTransfers(() => tr.run({}, warmup + reps + 1));
    const prof = await profileKernels(() => tr.run({}, warmup + reps + 2));
    out.steps[`${name}/${id}`] = {
      ...timed[Math.floor(timed.length / 2)], // median after the warm-up
      kernels: prof.kernels,
      uploadBytes: bytes.uploadBytes,
      readBytes: bytes.readBytes,
      byName: prof.byName,
      activations: tr.recomputedSteps > 0 ? 'recomputed' : 'kept',
      heapBytes: heapBytes(), // the wasm heap never shrinks: the high-water mark so far in this process
    };
    if (predictRows > 0 && id === methodsArg.split(',')[0]) {
      const X = mk(predictRows);
      await tr.predictLogits(mk(64));
      const t0 = performance.now(),
        c0 = process.cpuUsage();
      await tr.predictLogits(X, 512);
      const c = process.cpuUsage(c0);
      out.predict[name] = {
        rows: predictRows,
        ms: performance.now() - t0,
        cpuMs: (c.user + c.system) / 1000,
      };
    }
    tr.dispose();
  }
}
console.log(JSON.stringify(out));
