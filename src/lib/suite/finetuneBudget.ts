/**
 * What the `finetune` tier costs (PROTOCOL-IMAGE-TEXT.md §7.3, §10), for the CLI's pre-start line
 * and the Run page's memory gate (ui/run/FinetuneGate.svelte). No tfjs here.
 *
 * - Work: a training row costs ≈ 3 forwards; per step the FixMatch type trains 3B rows, the other
 *   methods a share of that (§10: Supervised 1/3, PseudoLabel 2/3, PiModel 1, ICT 7/9; MeanTeacher
 *   under quirks `rsb` trains L only and forwards 2B without gradient: 5/9).
 * - Memory: the parameter state is ≈ 6 float32 copies of the parameters (the flat weights, their
 *   named views, the gradient in both layouts, SGD's momentum slot and the EMA shadow), plus the
 *   activations the backward pass keeps for every row of the step's largest forward (3B rows for
 *   the FixMatch type). The per-row activation figures are estimates from the network's shape
 *   (ResNet: conv, BN and ReLU outputs; RoBERTa: ≈ 14·H values per token per layer plus three
 *   heads × L attention maps), which agree with §7.3's ≈ 12 GB for RoBERTa-base at 48 × 256 tokens.
 */
import { RESNET50, resnetCost, type ResNetConfig } from '../models/backbone/resnet.ts';
import { ROBERTA_BASE, type EncoderConfig } from '../models/backbone/roberta.ts';
import type { PanelMethod } from './panelPlan.ts';

export interface FinetuneModel {
  /** For messages: 'ResNet-50 at 32 px', 'RoBERTa-base at 256 tokens'. */
  title: string;
  /** Every trained parameter, head included. */
  params: number;
  /** FLOPs of one forward of one input row (image or sequence). */
  forwardFlops: number;
  /** Bytes the backward pass keeps per input row of a training forward. */
  activationBytes: number;
}

/** The LAMDA head over a d-wide feature (256 hidden, C outputs), §7.1. */
const headParams = (d: number, hidden: number, C: number) => d * hidden + hidden + hidden * C + C;

export function resnetModel(
  cfg: ResNetConfig,
  imageSize: number,
  classes: number,
  title?: string,
): FinetuneModel {
  const c = resnetCost(cfg, imageSize);
  const head = headParams(c.dim, 256, classes);
  return {
    title: title ?? `${cfg === RESNET50 ? 'ResNet-50' : `ResNet (width ${cfg.width})`} at ${imageSize} px`,
    params: c.params + head,
    forwardFlops: 2 * c.macs + 2 * head,
    activationBytes: 4 * c.activations,
  };
}

export function encoderModel(
  c: Pick<
    EncoderConfig,
    'hidden' | 'layers' | 'heads' | 'intermediate' | 'vocab' | 'maxPositions' | 'typeVocab'
  >,
  tokens: number,
  classes: number,
  title?: string,
): FinetuneModel {
  const H = c.hidden,
    I = c.intermediate;
  const perLayer = 4 * H * H + 4 * H + 2 * H * I + I + H + 4 * H;
  const embeddings = (c.vocab + c.maxPositions + c.typeVocab) * H + 2 * H;
  // RobertaClassificationHead: dense H→H, out_proj H→C.
  const head = H * H + H + H * classes + classes;
  const matmuls = c.layers * (4 * H * H + 2 * H * I);
  return {
    title: title ?? `${c === ROBERTA_BASE ? 'RoBERTa-base' : `an encoder (hidden ${H})`} at ${tokens} tokens`,
    params: embeddings + c.layers * perLayer + head,
    forwardFlops: 2 * matmuls * tokens + c.layers * 4 * tokens * tokens * H + 2 * head,
    activationBytes: 4 * c.layers * tokens * (14 * H + 3 * c.heads * tokens),
  };
}

/** The two networks of the published tier (§7.1) at their inputs (§6.1, §6.5). */
export const RESNET50_CIFAR = (classes: number): FinetuneModel => resnetModel(RESNET50, 32, classes);
export const ROBERTA_BASE_256 = (classes: number): FinetuneModel => encoderModel(ROBERTA_BASE, 256, classes);

/** A method's work per step relative to the FixMatch type's 3B trained rows (§10). */
export function methodWork(method: PanelMethod): number {
  switch (method) {
    case 'supervised':
      return 1 / 3;
    case 'pseudolabel':
      return 2 / 3;
    case 'ict':
      return 7 / 9;
    case 'meanteacher':
      return 5 / 9;
    default:
      return 1;
  }
}

/** Rows of the step's largest training forward: 3B for the FixMatch type, B for the others. */
export function trainingRows(method: PanelMethod, B: number): number {
  return ['fixmatch', 'flexmatch', 'softmatch', 'uda'].includes(method) ? 3 * B : B;
}

export interface FinetuneCellCost {
  method: PanelMethod;
  steps: number;
  batch: number;
  testRows: number;
}

/** FLOPs of a cell: S steps of 3B rows × 3 forwards × the method's share, then one forward per test row. */
export function cellFlops(m: FinetuneModel, c: FinetuneCellCost): number {
  return c.steps * 3 * c.batch * 3 * m.forwardFlops * methodWork(c.method) + c.testRows * m.forwardFlops;
}

/** Bytes a training step holds: the parameter state (6 copies) and the kept activations. */
export function stepMemoryBytes(
  m: FinetuneModel,
  rows: number,
): { params: number; activations: number; total: number } {
  const params = 6 * 4 * m.params;
  const activations = rows * m.activationBytes;
  return { params, activations, total: params + activations };
}

const UNITS: [number, string][] = [
  [1e18, 'EFLOP'],
  [1e15, 'PFLOP'],
  [1e12, 'TFLOP'],
  [1e9, 'GFLOP'],
];
export function formatFlops(f: number): string {
  const [scale, unit] = UNITS.find(([s]) => f >= s) ?? [1e9, 'GFLOP'];
  return `${Number((f / scale).toPrecision(2))} ${unit}`;
}

export function formatBytes(b: number): string {
  if (b >= 2 ** 30) return `${(b / 2 ** 30).toFixed(1)} GiB`;
  return `${Math.max(1, Math.round(b / 2 ** 20))} MiB`;
}

export function formatHours(seconds: number): string {
  if (seconds < 90) return `${Math.max(1, Math.round(seconds))} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  if (seconds < 3 * 86_400) return `${(seconds / 3600).toFixed(1)} h`;
  return `${Math.round(seconds / 86_400)} days`;
}

/**
 * The CLI's pre-start lines: the work of these cells, its time at a GPU server's and a browser's
 * sustained rate, the memory of the largest step, and the whole tier's size (§10) with the way to
 * split it.
 */
export function describeFinetuneBudget(m: FinetuneModel, cells: readonly FinetuneCellCost[]): string[] {
  const flops = cells.reduce((a, c) => a + cellFlops(m, c), 0);
  const rows = Math.max(1, ...cells.map((c) => trainingRows(c.method, c.batch)));
  const mem = stepMemoryBytes(m, rows);
  return [
    `finetune: ${cells.length} cell${cells.length === 1 ? '' : 's'} of ${m.title} (${(m.params / 1e6).toFixed(m.params < 1e6 ? 3 : 1)} M parameters, ` +
      `${formatFlops(m.forwardFlops)} per forward row): ≈ ${formatFlops(flops)} of training, ` +
      `≈ ${formatHours(flops / 1e14)} at 100 TFLOP/s sustained (a GPU server), ≈ ${formatHours(flops / 1e12)} at 1 TFLOP/s.`,
    `finetune: the largest step (${rows} rows) holds ≈ ${formatBytes(mem.total)} ` +
      `(${formatBytes(mem.params)} of parameter state, ${formatBytes(mem.activations)} of activations).`,
    'finetune: the whole published grid is ≈ 14 EFLOP (PROTOCOL-IMAGE-TEXT.md §10: hundreds of GPU-hours); ' +
      'run it on GPU servers with --backend webgpu and split it with --shard i/n (or --shard auto in a job array).',
  ];
}

/** What a device declares (WebGPU adapter limits, navigator.deviceMemory), each possibly unknown. */
export interface DeclaredDevice {
  /** GPUAdapter.limits.maxBufferSize, bytes. */
  maxBufferSize?: number | null;
  /** GPUAdapter.limits.maxStorageBufferBindingSize, bytes. */
  maxStorageBufferBindingSize?: number | null;
  /** navigator.deviceMemory, GiB (browsers round it down and cap it at 8). */
  deviceMemoryGiB?: number | null;
  /** Whether the page has WebGPU at all. */
  webgpu: boolean;
}

export interface FinetuneGateResult {
  ok: boolean;
  /** The step's bytes: parameter state, activations, total. */
  need: { params: number; activations: number; total: number };
  /** One sentence per shortfall, with the numbers; empty when ok. */
  reasons: string[];
}

/**
 * Whether a device's declared memory can hold a finetune step of `rows` rows: the flat parameter
 * buffer must fit one WebGPU buffer and one storage binding, and the whole step the declared device
 * memory. Unknown figures are reasons too: the page never starts a fit it cannot size.
 */
export function finetuneGate(m: FinetuneModel, rows: number, d: DeclaredDevice): FinetuneGateResult {
  const need = stepMemoryBytes(m, rows);
  const flat = 4 * m.params;
  const reasons: string[] = [];
  if (!d.webgpu)
    reasons.push(`this browser has no WebGPU, and ${m.title} does not train on the CPU in useful time`);
  else {
    if (d.maxBufferSize == null)
      reasons.push('the GPU adapter does not declare its largest buffer (maxBufferSize)');
    else if (d.maxBufferSize < flat)
      reasons.push(
        `the parameters need one ${formatBytes(flat)} buffer and the GPU adapter allows ${formatBytes(d.maxBufferSize)} (maxBufferSize)`,
      );
    if (d.maxStorageBufferBindingSize == null)
      reasons.push(
        'the GPU adapter does not declare its largest storage binding (maxStorageBufferBindingSize)',
      );
    else if (d.maxStorageBufferBindingSize < flat)
      reasons.push(
        `the parameters need one ${formatBytes(flat)} storage binding and the GPU adapter allows ${formatBytes(d.maxStorageBufferBindingSize)} (maxStorageBufferBindingSize)`,
      );
  }
  if (d.deviceMemoryGiB == null)
    reasons.push('the browser does not declare the device memory (navigator.deviceMemory)');
  else if (d.deviceMemoryGiB * 2 ** 30 < need.total)
    reasons.push(
      `a step of ${rows} rows needs ≈ ${formatBytes(need.total)} and the device declares ${d.deviceMemoryGiB} GiB (navigator.deviceMemory)`,
    );
  return { ok: reasons.length === 0, need, reasons };
}
