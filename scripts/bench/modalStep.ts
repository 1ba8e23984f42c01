/**
 * The TypeScript side of `npm run bench:modal` (run with tsx under Node; scripts/bench/modal.mjs
 * starts it and scripts/bench/modal_step.py, the PyTorch side, on the same shapes):
 * 1. bank extraction (PROTOCOL-IMAGE-TEXT.md §7.4): the frozen backbones of the registry built by
 *    build.ts from an in-memory safetensors checkpoint of their real shapes (random values: the
 *    cost does not depend on them, and nothing is downloaded), one batch per call as
 *    bank/extract.ts runs it (upload, eval forward, read-back of the features); images at 224 px
 *    (ResNet-50, MobileNetV3-small) and 32 px (ResNet-50 on CIFAR, never resized, §7.1), texts at
 *    the full max length (RoBERTa-base 256, MiniLM-L6 128 tokens, no padding). Rendering the views
 *    (augmentation, tokenising) is not included.
 * 2. one head-training step per method over a bank (§7.1, §7.2, §7.6): the LAMDA head 2048→256→C
 *    (image, CIFAR-10's C = 10, B = 64) and RobertaClassificationHead 768→768→C (text, ag_news's
 *    C = 4, B = 16, dropout 0.1), μ = 1, SGD + cosine + coupled decay + EMA, views drawn by
 *    bankViews from a bank of random float32 rows, configured as suite/panelCell.ts configures a
 *    features cell.
 * Timings are medians after one warm-up; kernels per batch or step come from a separate tf.profile
 * run (extraction: a batch of one row, the kernel count does not depend on the batch). Prints one
 * JSON object.
 * Usage: tsx scripts/bench/modalStep.ts '<options JSON>' (see modal.mjs: extract, heads, methods,
 * batches, reps, backend).
 */
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { buildBackbone } from '../../src/lib/models/backbone/build.ts';
import { MINILM_L6 } from '../../src/lib/models/backbone/minilm.ts';
import { MOBILENETV3_SMALL_100, mobilenetV3StateShapes } from '../../src/lib/models/backbone/mobilenetv3.ts';
import { RESNET50, resnetStateShapes } from '../../src/lib/models/backbone/resnet.ts';
import { encoderShapes, ROBERTA_BASE, tokenRows } from '../../src/lib/models/backbone/roberta.ts';
import { deepWasmAvailable, installWasmBatchMatMul } from '../../src/lib/models/deep/batchMatMul.ts';
import { bankViews } from '../../src/lib/models/deep/bankViews.ts';
import { mlpHead, robertaHead } from '../../src/lib/models/deep/head.ts';
import { createMethod } from '../../src/lib/models/deep/methods/index.ts';
import { DeepTrainer, type TrainerConfig } from '../../src/lib/models/deep/trainer.ts';
import { MT19937 } from '../../src/lib/protocol/rng.ts';
import { PANEL_METHODS, type PanelMethod } from '../../src/lib/suite/panelPlan.ts';
import { parseSafetensors, type SafetensorsFile } from '../../src/lib/weights/safetensors.ts';
import { cyclicLabels, fixedStreams, settleBackend } from './stepFixture.ts';
import { profileKernels } from './stepStats.ts';

/** An extraction row: which registry backbone, at which input size, in batches of how many rows. */
export interface ExtractSpec {
  backbone: 'resnet50' | 'mnv3-small' | 'roberta-base' | 'minilm-l6';
  /** Image side (px) or tokens per text. */
  size: number;
  batch: number;
}

/** A head row: the features-tier head of one modality (§7.1) and its loop (§7.2). */
export interface HeadSpec {
  modality: 'image' | 'text';
  dim: number;
  classes: number;
  batch: number;
  steps: number;
  methods: PanelMethod[];
}

export interface ModalOptions {
  extract: Record<string, ExtractSpec>;
  heads: Record<string, HeadSpec>;
  /** Timed extraction batches after one warm-up batch. */
  batches: number;
  /** Timed head steps after one warm-up step. */
  reps: number;
  backend: 'wasm' | 'cpu';
  /**
   * Install the trainer's SIMD batched matmul before extraction (what the encoders' extraction would
   * gain from it; the product's extraction runs without it).
   */
  simdMatmul?: boolean;
}

interface Timing {
  wallMs: number;
  cpuMs: number;
}

const options = JSON.parse(process.argv[2] ?? '{}') as ModalOptions;
await tf.setBackend(options.backend ?? 'wasm');
await tf.ready();

/** Median by CPU time (the fairer measure on a shared machine) and the wall time of that sample. */
function median(times: Timing[]): Timing {
  const s = [...times].sort((a, b) => a.cpuMs - b.cpuMs);
  return s[Math.floor(s.length / 2)];
}

async function timed(f: () => Promise<unknown>): Promise<Timing> {
  const t0 = performance.now(),
    c0 = process.cpuUsage();
  await f();
  const c = process.cpuUsage(c0);
  return { wallMs: performance.now() - t0, cpuMs: (c.user + c.system) / 1000 };
}

// ---------------------------------------------------------------- a checkpoint of the real shapes

/** xorshift32 in [0, 1): the checkpoint's values (any finite values cost the same). */
function uniforms(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 2 ** 32;
  };
}

/**
 * Per tensor the interval its values are drawn from: BN and LayerNorm gains near 1 (the last BN of
 * a residual branch small, as in trained ResNets), variances in [0.5, 1.5], small shifts, and
 * He-scaled conv and Linear weights, so that activations stay finite through 50 layers.
 */
function rangeOf(name: string, shape: readonly number[]): [number, number] {
  if (name.endsWith('running_var')) return [0.5, 1.5];
  if (name.endsWith('running_mean') || name.endsWith('bias')) return [-0.05, 0.05];
  if (shape.length === 1) return /bn3\.weight$/.test(name) ? [0.1, 0.3] : [0.9, 1.1];
  if (/embeddings/.test(name)) return [-0.05, 0.05];
  const fanIn = shape.slice(1).reduce((a, b) => a * b, 1);
  const b = Math.sqrt(6 / fanIn);
  return [-b, b];
}

/** A safetensors file (F32, the writer's layout: u64 header length, padded JSON, data) of random values. */
function randomCheckpoint(shapes: ReadonlyMap<string, readonly number[]>, seed: number): SafetensorsFile {
  const header: Record<string, { dtype: 'F32'; shape: number[]; data_offsets: [number, number] }> = {};
  let offset = 0;
  for (const [name, shape] of shapes) {
    const bytes = 4 * shape.reduce((a, b) => a * b, 1);
    header[name] = { dtype: 'F32', shape: [...shape], data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (json.length % 8)) % 8);
  const buf = new Uint8Array(8 + json.length + offset);
  new DataView(buf.buffer).setBigUint64(0, BigInt(json.length), true);
  buf.set(new TextEncoder().encode(json), 8);
  const data = new Float32Array(buf.buffer, 8 + json.length, offset / 4);
  const u = uniforms(seed);
  for (const [name, shape] of shapes) {
    const [lo, hi] = rangeOf(name, shape);
    const [a, b] = header[name].data_offsets;
    for (let i = a / 4; i < b / 4; i++) data[i] = lo + (hi - lo) * u();
  }
  return parseSafetensors(buf);
}

function checkpointShapes(id: ExtractSpec['backbone']): Map<string, number[]> {
  switch (id) {
    case 'resnet50':
      return resnetStateShapes(RESNET50);
    case 'mnv3-small':
      return mobilenetV3StateShapes(MOBILENETV3_SMALL_100);
    case 'roberta-base':
      return encoderShapes(ROBERTA_BASE);
    case 'minilm-l6':
      return encoderShapes(MINILM_L6);
  }
}

// ---------------------------------------------------------------- extraction

interface ExtractResult extends Timing {
  backbone: string;
  size: number;
  batch: number;
  /** Images or tokens per second, from the median batch's wall and CPU time. */
  unit: 'images' | 'tokens';
  perSecondWall: number;
  perSecondCpu: number;
  kernels: number;
}

async function extractRow(spec: ExtractSpec): Promise<ExtractResult> {
  const text = spec.backbone === 'roberta-base' || spec.backbone === 'minilm-l6';
  const file = randomCheckpoint(checkpointShapes(spec.backbone), 1);
  const bb = buildBackbone(spec.backbone, file, text ? 0 : spec.size);
  try {
    const rowShape = text ? [2, spec.size] : [spec.size, spec.size, 3];
    const rowSize = rowShape.reduce((a, b) => a * b, 1);
    const rng = new MT19937(7);
    const input = (n: number): Float32Array => {
      if (!text) return Float32Array.from({ length: n * rowSize }, () => rng.normal());
      // Full rows (no padding): ids past the special tokens, attention everywhere.
      const vocab = spec.backbone === 'roberta-base' ? ROBERTA_BASE.vocab : MINILM_L6.vocab;
      const ids = Array.from({ length: n * spec.size }, () => 5 + rng.randint(vocab - 5));
      return tokenRows(ids, new Array<number>(n * spec.size).fill(1), n, spec.size);
    };
    // As extractBank: one upload, the eval forward in a tidy, one read-back of the features.
    const batch = async (x: Float32Array, n: number) => {
      const f = tf.tidy(() => bb.forward(tf.tensor(x, [n, ...rowShape])));
      await f.data();
      f.dispose();
    };
    const x = input(spec.batch);
    const times: Timing[] = [];
    for (let i = 0; i <= options.batches; i++) times.push(await timed(() => batch(x, spec.batch)));
    const m = median(times.slice(1));
    const prof = await profileKernels(() => batch(input(1), 1));
    const items = spec.batch * (text ? spec.size : 1);
    return {
      ...m,
      backbone: spec.backbone,
      size: spec.size,
      batch: spec.batch,
      unit: text ? 'tokens' : 'images',
      perSecondWall: items / (m.wallMs / 1000),
      perSecondCpu: items / (m.cpuMs / 1000),
      kernels: prof.kernels,
    };
  } finally {
    bb.dispose();
  }
}

// ---------------------------------------------------------------- head steps

/** Rows of a bank: `pool` random feature rows, a (row, view, k) picking one by a hash. */
function randomBank(dim: number, modality: HeadSpec['modality']) {
  const poolRows = 512;
  const rng = new MT19937(11);
  // Image features are ReLU'd averages (≥ 0); the `<s>` state is LayerNorm'd (centred).
  const pool = Float32Array.from({ length: poolRows * dim }, () =>
    modality === 'image' ? Math.abs(rng.normal()) : rng.normal(),
  );
  const viewId = { weak: 1, strong: 2, clean: 0 } as const;
  return (set: 'L' | 'U', ids: Int32Array, view: 'weak' | 'strong' | 'clean', k: Int32Array) => {
    const out = new Float32Array(ids.length * dim);
    for (let i = 0; i < ids.length; i++) {
      const h = Math.imul(ids[i] * 8 + viewId[view] * 2 + k[i] + (set === 'U' ? 7 : 0), 0x9e3779b1) >>> 0;
      const p = h % poolRows;
      out.set(pool.subarray(p * dim, (p + 1) * dim), i * dim);
    }
    return out;
  };
}

interface HeadResult extends Timing {
  kernels: number;
  byName: Record<string, number>;
}

async function headRow(spec: HeadSpec, method: PanelMethod): Promise<HeadResult> {
  const nL = 4000,
    nU = 20_000;
  const views = bankViews({ nL, nU, dim: spec.dim, Kw: 2, Ks: 2, rows: randomBank(spec.dim, spec.modality) });
  const network =
    spec.modality === 'image' ? mlpHead(spec.dim, spec.classes) : robertaHead(spec.dim, spec.classes);
  // As suite/panelCell.ts: Supervised is the method-less trainer; every other method μ = 1, λ_u = 1.
  const m = createMethod(
    method === 'supervised' ? 'ftt' : method,
    'rsb',
    method === 'supervised' ? {} : { mu: 1, lambdaU: 1 },
  );
  const cfg: TrainerConfig = {
    network,
    steps: spec.steps,
    batchL: spec.batch,
    optimizer: 'sgd',
    lr: 5e-4,
    cosineFraction: 7 / 16,
    weightDecay: 5e-4,
    emaDecay: 0.999,
    noiseWeak: 0,
    noiseStrong: 0,
    dropoutAttention: 0,
    dropoutFfn: spec.modality === 'text' ? 0.1 : 0,
    initSeed: 0,
    quirks: 'rsb',
    progressEvery: spec.steps,
    checkpointEvery: 0,
    recompute: false,
  };
  const yl = cyclicLabels(nL, spec.classes);
  const tr = new DeepTrainer(cfg, m, { yl, k: spec.classes, views }, fixedStreams());
  try {
    const times: Timing[] = [];
    for (let it = 0; it <= options.reps; it++)
      times.push(
        await timed(async () => {
          await tr.run({}, it + 1);
          // wasm and cpu finish a step inside run(); an async backend must be waited for.
          await settleBackend();
        }),
      );
    const prof = await profileKernels(() => tr.run({}, options.reps + 2));
    return { ...median(times.slice(1)), kernels: prof.kernels, byName: prof.byName };
  } finally {
    tr.dispose();
  }
}

// ---------------------------------------------------------------- main

for (const [name, spec] of Object.entries(options.heads ?? {}))
  for (const method of spec.methods)
    if (!PANEL_METHODS.includes(method))
      throw new Error(`head ${name}: unknown method '${method}' (known: ${PANEL_METHODS.join(', ')}).`);

const out: {
  runtime: string;
  extract: Record<string, ExtractResult>;
  heads: Record<string, HeadResult>;
} = { runtime: '', extract: {}, heads: {} };
// The product's extractBank installs the SIMD batched matmul on wasm before its first batch (the
// encoders' attention); simdMatmul: false measures tfjs-wasm's own instead. Heads: the trainer
// installs it whatever this says, so compare extraction with both settings in separate runs.
const simd = options.simdMatmul !== false && tf.getBackend() === 'wasm' && installWasmBatchMatMul();
for (const [name, spec] of Object.entries(options.extract ?? {})) out.extract[name] = await extractRow(spec);
for (const [name, spec] of Object.entries(options.heads ?? {}))
  for (const method of spec.methods) out.heads[`${name}/${method}`] = await headRow(spec, method);
const backend = tf.getBackend();
out.runtime = `tfjs ${tf.version.tfjs} ${backend} (Node ${process.version})${
  backend === 'wasm'
    ? `, deep kernels: ${deepWasmAvailable() ? 'WebAssembly SIMD (batchMatMul.wat)' : 'JavaScript (no WebAssembly SIMD)'}`
    : ''
}; extraction's batched matmul: ${simd ? 'the SIMD one (as extractBank)' : "tfjs's (--tfjs-matmul)"}`;
console.log(JSON.stringify(out));
