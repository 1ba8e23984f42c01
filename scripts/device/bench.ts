/**
 * The device kit's measuring program (bundled to .device/app/bench.mjs by scripts/device/kit.mjs;
 * run by scripts/device/gpu-check.sh, one stage per process so that a stage that hangs or runs
 * over its time budget is killed without losing the others):
 *
 *   bench.mjs adapter --backend webgpu [--allow-software]
 *       One JSON object: the adapter (vendor, architecture, device, description), whether it is a
 *       software one, its limits and features, tfjs and Node versions. Exit 3 on a software
 *       adapter without --allow-software: timings of SwiftShader say nothing about a GPU.
 *   bench.mjs steps --backend webgpu --size rsb|tiny|B:D:H:F --dataset letter:16:26 --methods ftt,…
 *                   --reps K [--quick]
 *       One JSON line per method as soon as it is measured (a killed stage keeps what it printed):
 *       the first step's time (pipeline compilation included), ms per step over K steps ended by
 *       one sync, kernels per step (tf.profile), WebGPU programs and bytes uploaded / read back per
 *       step (stepStats.ts), the five kernels that took the most GPU time (timestamp queries,
 *       where the adapter has them), the step's GEMM FLOPs (stepFlops.ts), the achieved TFLOP/s.
 *   bench.mjs table --work DIR --out DIR [--dry-run] [--budget-s S]
 *       Reads what the stages left in DIR and writes table.md and result.json to --out; prints
 *       the table (report.ts).
 *
 * The steps use the same shapes, data sizes and batch as scripts/bench/deepStep.ts (random rows
 * of the dataset's shape: a step's cost does not depend on the values).
 */
import { parseArgs } from 'node:util';
import * as tf from '@tensorflow/tfjs';
import { CliError } from '../../src/cli/args.ts';
import { initNodeBackend, nodeBackendInfo, parseNodeBackend, TFJS_VERSION } from '../../src/cli/tfNode.ts';
import { trainerConfig } from '../../src/lib/models/deep/config.ts';
import { createMethod, DEEP_METHOD_IDS, type DeepMethodId } from '../../src/lib/models/deep/methods/index.ts';
import { DeepTrainer } from '../../src/lib/models/deep/trainer.ts';
import { fixedStreams, settleBackend, stepData } from '../bench/stepFixture.ts';
import { countTransfers } from '../bench/stepStats.ts';
import { writeReport } from './report.ts';
import { parseSize, stepFlops, tflops } from './stepFlops.ts';

/** What an adapter stage reports (report.ts reads it back). */
export interface AdapterReport {
  backend: string;
  adapter: Record<string, string> | null;
  software: boolean;
  limits: Record<string, number>;
  features: string[];
  tfjs: string;
  node: string;
}

/** One method's line of the steps stage. */
export interface StepLine {
  method: string;
  dataset: string;
  size: string;
  backend: string;
  firstStepMs: number;
  msPerStep: number;
  timedSteps: number;
  kernels: number;
  /** The kernels that took the most GPU time in one profiled step (timestamp queries), if known. */
  topKernels: { name: string; count: number; ms: number }[] | null;
  programs: number | null;
  uploadBytes: number;
  readBytes: number;
  flops: number;
  tflops: number;
}

/** The limits worth seeing when a step fails or crawls: buffer sizes and workgroup bounds. */
const LIMITS = [
  'maxBufferSize',
  'maxStorageBufferBindingSize',
  'maxStorageBuffersPerShaderStage',
  'maxComputeWorkgroupStorageSize',
  'maxComputeInvocationsPerWorkgroup',
  'maxComputeWorkgroupSizeX',
  'maxComputeWorkgroupsPerDimension',
] as const;

class UsageError extends Error {}

async function adapterStage(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { backend: { type: 'string', default: 'webgpu' }, 'allow-software': { type: 'boolean' } },
  });
  const backend = parseNodeBackend(values.backend);
  await initNodeBackend(backend);
  const info = nodeBackendInfo();
  const report: AdapterReport = {
    backend: tf.getBackend(),
    adapter: (info?.adapter as Record<string, string> | null) ?? null,
    software: info?.software ?? false,
    limits: {},
    features: [],
    tfjs: TFJS_VERSION,
    node: process.version,
  };
  if (backend === 'webgpu') {
    // initNodeBackend put Dawn's navigator.gpu in place; ask it once more for limits and features.
    const gpu = (globalThis as { navigator?: { gpu?: GPU } }).navigator?.gpu;
    const adapter = await gpu?.requestAdapter({ powerPreference: 'high-performance' });
    if (adapter) {
      for (const k of LIMITS) report.limits[k] = Number(adapter.limits[k]);
      report.features = [...adapter.features].map(String).sort();
    }
  }
  console.log(JSON.stringify(report));
  if (report.software && !values['allow-software']) {
    console.error(
      `The adapter is a software one (${info?.adapterText ?? 'unknown'}): its timings say nothing about a GPU. ` +
        'Check the GPU driver and its Vulkan ICD (VK_DRIVER_FILES), or pass --dry-run to accept it.',
    );
    return 3;
  }
  return 0;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Kernels of one step (tf.profile) by name, and, where the adapter has timestamp queries, the
 * GPU time of each: the five slowest names. tf.profile times each kernel on its own, so this step
 * is never the timed one.
 */
async function profileStep(
  f: () => Promise<unknown>,
): Promise<{ kernels: number; top: StepLine['topKernels'] }> {
  const info = await tf.profile(async () => {
    await f();
    return [] as tf.Tensor[];
  });
  const byName = new Map<string, { count: number; ms: number }>();
  let timed = true;
  for (const k of info.kernels) {
    const e = byName.get(k.name) ?? { count: 0, ms: 0 };
    e.count++;
    const ms = (k as { kernelTimeMs?: unknown }).kernelTimeMs;
    if (typeof ms === 'number' && Number.isFinite(ms)) e.ms += ms;
    else timed = false;
    byName.set(k.name, e);
  }
  const top = timed
    ? [...byName]
        .map(([name, e]) => ({ name, ...e }))
        .sort((a, b) => b.ms - a.ms)
        .slice(0, 5)
    : null;
  return { kernels: info.kernels.length, top };
}

async function stepsStage(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      backend: { type: 'string', default: 'webgpu' },
      size: { type: 'string', default: 'rsb' },
      dataset: { type: 'string', default: 'letter:16:26' },
      methods: { type: 'string', default: DEEP_METHOD_IDS.join(',') },
      reps: { type: 'string', default: '5' },
      quick: { type: 'boolean', default: false },
    },
  });
  let size: ReturnType<typeof parseSize>;
  try {
    size = parseSize(values.size);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const [name, dS, kS] = values.dataset.split(':');
  const d = Number(dS);
  const k = Number(kS);
  if (!name || !Number.isInteger(d) || d < 1 || !Number.isInteger(k) || k < 2)
    throw new UsageError(
      `--dataset must look like letter:16:26 (name:features:classes); got "${values.dataset}"`,
    );
  const reps = Number(values.reps);
  if (!Number.isInteger(reps) || reps < 1)
    throw new UsageError(`--reps must be a positive integer; got "${values.reps}"`);
  const methods = values.methods.split(',');
  for (const m of methods)
    if (!(DEEP_METHOD_IDS as readonly string[]).includes(m))
      throw new UsageError(`unknown method "${m}"; known: ${DEEP_METHOD_IDS.join(', ')}`);

  await initNodeBackend(parseNodeBackend(values.backend));
  const data = stepData(d, k);
  for (const id of methods as DeepMethodId[]) {
    const cfg = trainerConfig(d, k, { size: size.option, steps: 1000, progressEvery: 1_000_000 });
    const tr = new DeepTrainer(cfg, createMethod(id), data, fixedStreams());
    try {
      let t0 = performance.now();
      await tr.run({}, 1);
      await settleBackend();
      const firstStepMs = performance.now() - t0; // shader compilation included
      // The cost of one idle sync, taken off the timed run (it ends with one).
      const idle: number[] = [];
      for (let i = 0; i < 3; i++) {
        t0 = performance.now();
        await settleBackend();
        idle.push(performance.now() - t0);
      }
      // Several steps queued back to back, then one sync: the GPU's pace, not a round trip's.
      // --quick (dry runs on a software adapter): one step, timed and counted at once.
      let done = 1;
      let msPerStep: number;
      let bytes: Awaited<ReturnType<typeof countTransfers>>;
      if (values.quick) {
        t0 = performance.now();
        bytes = await countTransfers(async () => {
          await tr.run({}, ++done);
          await settleBackend();
        });
        msPerStep = Math.max(0, performance.now() - t0 - median(idle));
      } else {
        // Two more untimed steps: V8 compiles tfjs's JavaScript over the first few steps (on wasm
        // an FT-T step settled only at the fourth or fifth), and a fit runs at the settled pace.
        await tr.run({}, (done += 2));
        await settleBackend();
        t0 = performance.now();
        await tr.run({}, (done += reps));
        await settleBackend();
        msPerStep = Math.max(0, performance.now() - t0 - median(idle)) / reps;
        bytes = await countTransfers(() => tr.run({}, ++done));
      }
      const prof = await profileStep(() => tr.run({}, ++done));
      const flops = stepFlops(id, { ...size.shape, features: d, classes: k }, cfg.batchL);
      const line: StepLine = {
        method: id,
        dataset: name,
        size: size.name,
        backend: tf.getBackend(),
        firstStepMs,
        msPerStep,
        timedSteps: values.quick ? 1 : reps,
        kernels: prof.kernels,
        topKernels: prof.top,
        programs: bytes.programs,
        uploadBytes: bytes.uploadBytes,
        readBytes: bytes.readBytes,
        flops,
        tflops: tflops(flops, msPerStep),
      };
      console.log(JSON.stringify(line));
    } finally {
      tr.dispose();
    }
  }
  return 0;
}

function tableStage(argv: string[]): number {
  const { values } = parseArgs({
    args: argv,
    options: {
      work: { type: 'string' },
      out: { type: 'string' },
      'dry-run': { type: 'boolean' },
      'budget-s': { type: 'string', default: '360' },
      'elapsed-s': { type: 'string' },
    },
  });
  if (!values.work || !values.out) throw new UsageError('table needs --work DIR and --out DIR');
  const text = writeReport(values.work, values.out, {
    dryRun: values['dry-run'] ?? false,
    budgetS: Number(values['budget-s']),
    elapsedS: values['elapsed-s'] === undefined ? null : Number(values['elapsed-s']),
  });
  console.log(text);
  return 0;
}

const STAGES: Record<string, (argv: string[]) => Promise<number> | number> = {
  adapter: adapterStage,
  steps: stepsStage,
  table: tableStage,
};

async function main(argv: string[]): Promise<number> {
  const stage = STAGES[argv[0] ?? ''];
  if (!stage) {
    console.error(
      `bench: the first argument must be a stage: ${Object.keys(STAGES).join(', ')}; got "${argv[0] ?? ''}".`,
    );
    return 2;
  }
  try {
    return await stage(argv.slice(1));
  } catch (err) {
    const e = err as Error;
    // Usage and CLI errors (no adapter, no Dawn) are sentences; anything else needs its stack.
    const words = e instanceof UsageError || e instanceof CliError;
    console.error(`bench ${argv[0]}: ${words ? e.message : (e.stack ?? e.message)}`);
    return e instanceof UsageError ? 2 : 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
