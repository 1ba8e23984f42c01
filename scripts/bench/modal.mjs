#!/usr/bin/env node
/**
 * npm run bench:modal (also `npm run bench -- --modal`) — the image and text suites' costs
 * (PROTOCOL-IMAGE-TEXT.md §10), TypeScript on tfjs WASM under Node (modalStep.ts) vs PyTorch CPU
 * (modal_step.py, Debian python3-torch) on the same shapes, in one invocation, one after the other:
 * 1. bank extraction throughput: ResNet-50 at 224 px and at 32 px (CIFAR, never resized),
 *    MobileNetV3-small at 224 px (images/s, batches of 32), RoBERTa-base at 256 and MiniLM-L6 at
 *    128 tokens (tokens/s, full rows, batches of 8), random weights of the real shapes;
 * 2. one head-training step per method (Supervised + the 8 methods; text without ICT, §7.6) over
 *    a bank: LAMDA head 2048→256→10 at B = 64 (CIFAR-10) and RobertaClassificationHead 768→768→4
 *    at B = 16 (ag_news), μ = 1, SGD + coupled decay + EMA.
 * Prints wall and CPU time per batch or step (medians after one warm-up; CPU time is the fairer
 * ratio on a shared machine), the ratio TS / PyTorch, the kernels tfjs dispatched per batch or step
 * (tf.profile), and the throughput; writes bench-results/modal-latest.json. The load average
 * before and after is printed: the times are only comparable on a quiet machine.
 * Options: --extract resnet50@224,resnet50@32,mnv3-small@224,roberta-base@256,minilm-l6@128 | none
 *          --heads image,text | none   --methods supervised,fixmatch,… (default: each modality's)
 *          --batches 2 (timed extraction batches)   --reps 10 (timed head steps)
 *          --image-batch 32   --text-batch 8   --backend wasm|cpu   --torch-threads 1|default|N (1: as the TS side, one wasm thread)
 *          --tfjs-matmul (extraction with tfjs-wasm's own batched matmul; by default the SIMD one
 *          is installed first, as the product's extractBank does)
 */
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = new URL('../..', import.meta.url).pathname;
const ALL_EXTRACT = ['resnet50@224', 'resnet50@32', 'mnv3-small@224', 'roberta-base@256', 'minilm-l6@128'];
const IMAGE_METHODS = [
  'supervised',
  'pseudolabel',
  'pimodel',
  'meanteacher',
  'ict',
  'uda',
  'fixmatch',
  'flexmatch',
  'softmatch',
];
const { values: opt } = parseArgs({
  options: {
    extract: { type: 'string', default: ALL_EXTRACT.join(',') },
    heads: { type: 'string', default: 'image,text' },
    methods: { type: 'string' },
    batches: { type: 'string', default: '2' },
    reps: { type: 'string', default: '10' },
    'image-batch': { type: 'string', default: '32' },
    'text-batch': { type: 'string', default: '8' },
    backend: { type: 'string', default: 'wasm' },
    'torch-threads': { type: 'string', default: '1' },
    'tfjs-matmul': { type: 'boolean', default: false },
  },
});

/** A positive integer option, or a message naming it. */
function count(name) {
  const v = Number(opt[name]);
  if (!Number.isInteger(v) || v < 1) {
    console.error(`--${name} must be a positive integer; got '${opt[name]}'.`);
    process.exit(2);
  }
  return v;
}
const list = (s) => (s === 'none' ? [] : s.split(',').filter(Boolean));

const extract = {};
for (const key of list(opt.extract)) {
  const m = /^(resnet50|mnv3-small|roberta-base|minilm-l6)@(\d+)$/.exec(key);
  if (!m) {
    console.error(
      `--extract: unknown row '${key}' (rows are backbone@size, e.g. ${ALL_EXTRACT.join(', ')}).`,
    );
    process.exit(2);
  }
  const text = m[1] === 'roberta-base' || m[1] === 'minilm-l6';
  const max = { 'roberta-base': 256, 'minilm-l6': 128 }[m[1]];
  if (text && Number(m[2]) > max) {
    console.error(`--extract ${key}: ${m[1]} takes at most ${max} tokens (its registry maxLength).`);
    process.exit(2);
  }
  extract[key] = { backbone: m[1], size: Number(m[2]), batch: count(text ? 'text-batch' : 'image-batch') };
}
const HEADS = {
  // §7.1 features-tier heads, §7.2 batches: CIFAR-10 (B 64, S 10 000), ag_news (B 16, S 5 000).
  image: { modality: 'image', dim: 2048, classes: 10, batch: 64, steps: 10_000, methods: IMAGE_METHODS },
  text: {
    modality: 'text',
    dim: 768,
    classes: 4,
    batch: 16,
    steps: 5_000,
    methods: IMAGE_METHODS.filter((m) => m !== 'ict'),
  },
};
const heads = {};
for (const h of list(opt.heads)) {
  if (!HEADS[h]) {
    console.error(`--heads: unknown head '${h}' (image, text or none).`);
    process.exit(2);
  }
  heads[h] = opt.methods ? { ...HEADS[h], methods: list(opt.methods) } : HEADS[h];
  const bad = heads[h].methods.find((m) => !IMAGE_METHODS.includes(m));
  if (bad) {
    console.error(`--methods: unknown method '${bad}' (known: ${IMAGE_METHODS.join(', ')}).`);
    process.exit(2);
  }
}
if (!['wasm', 'cpu'].includes(opt.backend)) {
  console.error(`--backend must be wasm or cpu; got '${opt.backend}'.`);
  process.exit(2);
}
const options = {
  extract,
  heads,
  batches: count('batches'),
  reps: count('reps'),
  backend: opt.backend,
  simdMatmul: !opt['tfjs-matmul'],
};
const big = { cwd: ROOT, maxBuffer: 1 << 26 };
const lastLine = (s) => JSON.parse(s.trim().split('\n').pop());

const load0 = loadavg();
const ts = lastLine(
  (await run('npx', ['tsx', 'scripts/bench/modalStep.ts', JSON.stringify(options)], big)).stdout,
);
let py = null;
try {
  py = lastLine(
    (
      await run(
        '/usr/bin/python3',
        ['scripts/bench/modal_step.py', JSON.stringify(options), opt['torch-threads']],
        big,
      )
    ).stdout,
  );
} catch (e) {
  console.error(`PyTorch side skipped: ${e.message.split('\n')[0]}`);
}
const load1 = loadavg();

const f = (x) => (x === undefined ? '—' : x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${x.toFixed(1)} ms`);
const rate = (x) => (x === undefined ? '—' : x >= 100 ? x.toFixed(0) : x.toFixed(1));
const ratio = (a, b) => (a !== undefined && b ? (a / b).toFixed(2) : '—');
console.log(`TS: ${ts.runtime}\nPyTorch: ${py?.runtime ?? 'not run'}`);
console.log(`load average (1 min) ${load0[0].toFixed(2)} before, ${load1[0].toFixed(2)} after\n`);
console.log(
  `${'row (median after 1 warm-up)'.padEnd(30)} ${'TS wall'.padStart(9)} ${'TS cpu'.padStart(9)} ${'Py wall'.padStart(9)} ${'Py cpu'.padStart(9)} ${'ratio cpu'.padStart(9)} ${'ratio wall'.padStart(10)} ${'kernels'.padStart(7)}   throughput TS · Py (wall; per cpu-second)`,
);
const line = (name, t, p, extra = '') =>
  console.log(
    `${name.padEnd(30)} ${f(t.wallMs).padStart(9)} ${f(t.cpuMs).padStart(9)} ${f(p?.wallMs).padStart(9)} ${f(p?.cpuMs).padStart(9)} ${ratio(t.cpuMs, p?.cpuMs).padStart(9)} ${ratio(t.wallMs, p?.wallMs).padStart(10)} ${String(t.kernels ?? '—').padStart(7)}   ${extra}`,
  );
for (const [key, t] of Object.entries(ts.extract)) {
  const p = py?.extract[key];
  line(
    `extract ${key} ×${t.batch}`,
    t,
    p,
    `${rate(t.perSecondWall)} · ${rate(p?.perSecondWall)} ${t.unit}/s (${rate(t.perSecondCpu)} · ${rate(p?.perSecondCpu)})`,
  );
}
for (const [key, t] of Object.entries(ts.heads)) line(`head ${key}`, t, py?.heads[key]);
mkdirSync(join(ROOT, 'bench-results'), { recursive: true });
writeFileSync(
  join(ROOT, 'bench-results', 'modal-latest.json'),
  JSON.stringify(
    { format: 'rac-bench-modal/1', options: opt, load: { before: load0, after: load1 }, ts, python: py },
    null,
    1,
  ),
);
