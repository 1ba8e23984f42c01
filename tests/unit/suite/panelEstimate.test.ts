/**
 * The image/text pre-start estimate (PROTOCOL-IMAGE-TEXT.md §10):
 * - backbone MACs from layer shapes, pinned to an independent count on PyTorch modules
 *   (tests/fixtures/flops/count_flops.py → macs.json: forward hooks on torchvision's ResNet-50 and
 *   MobileNetV3-small; the profiler's matrix products of an explicit transformer encoder). Convention:
 *   MACs of convolutions and matrix products; torchvision publishes ResNet-50 as 4.089 "GFLOPS",
 *   which are these MACs at 224 px with its 1000-way fc.
 * - the preset totals against §10's own arithmetic (finetune 0.48 / 3.5 / 1.3 / 7.1 / 1.8 EF,
 *   features extraction 0.14 / 0.07 / 8.5 / 7.4 PF, head training ≈ 3.8 PF);
 * - the honest wording per tier and device;
 * - `rac-bench estimate` gives the page's numbers (same module, same calibration).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  encoderMacs,
  MINILM_L6_SHAPE,
  MNV3_SMALL_ARCH,
  mobilenetV3SmallMacs,
  resnet50Macs,
  ROBERTA_BASE_SHAPE,
} from '../../../src/lib/models/backbone/backboneFlops.ts';
import { MOBILENETV3_SMALL_100 } from '../../../src/lib/models/backbone/mobilenetv3.ts';
import { RESNET50, resnetCost } from '../../../src/lib/models/backbone/resnet.ts';
import {
  CPU_REFERENCE_GFLOPS,
  deviceSpeed,
  estimatePanelPlan,
  WEBGPU_ASSUMED_GFLOPS,
} from '../../../src/lib/suite/panelEstimate.ts';
import { PANEL_PRESETS, panelPresetPlan, presetPanelPlan } from '../../../src/lib/suite/panelPresets.ts';
import { REFERENCE_BENCH_MS } from '../../../src/lib/suite/costModel.ts';
import { runCli } from '../helpers/cli.ts';

const MACS = JSON.parse(readFileSync('tests/fixtures/flops/macs.json', 'utf8')) as Record<
  string,
  number | { conv: number; linear: number }
>;
const convOf = (k: string) => (MACS[k] as { conv: number }).conv;

const REF = { benchMs: REFERENCE_BENCH_MS };
const wasm = deviceSpeed(REF, 'wasm');
const gpu = deviceSpeed(REF, 'webgpu');

describe('backbone MACs from layer shapes', () => {
  it('ResNet-50 matches torchvision’s conv count at 224 and 32 px (4.089 G with the fc)', () => {
    expect(resnet50Macs(224)).toBe(convOf('resnet50_224'));
    expect(resnet50Macs(32)).toBe(convOf('resnet50_32'));
    expect((resnet50Macs(224) + 2048 * 1000) / 1e9).toBeCloseTo(4.089, 3);
    // The finetune budget (finetuneBudget.ts) counts from the network builder's own table: the same.
    for (const size of [32, 224]) expect(resnet50Macs(size)).toBe(resnetCost(RESNET50, size).macs);
  });

  it('MobileNetV3-small (timm layout) matches torchvision’s convs plus conv_head 576→1024', () => {
    // torchvision's SE layers are convs too; its classifier is Linear(576,1024) + Linear(1024,1000),
    // of which our feature keeps the first (timm's conv_head).
    expect(mobilenetV3SmallMacs(224)).toBe(convOf('mobilenet_v3_small_224') + 576 * 1024);
    expect(mobilenetV3SmallMacs(32)).toBe(convOf('mobilenet_v3_small_32') + 576 * 1024);
    expect(MOBILENETV3_SMALL_100.archDef).toBe(MNV3_SMALL_ARCH); // one table: the cost counts what is built
  });

  it('RoBERTa-base and MiniLM-L6 match the profiler’s matrix products at 45, 128 and 256 tokens', () => {
    for (const L of [45, 128, 256]) {
      expect(encoderMacs(ROBERTA_BASE_SHAPE, L)).toBe(MACS[`roberta_base_${L}`]);
      expect(encoderMacs(MINILM_L6_SHAPE, L)).toBe(MACS[`minilm_l6_${L}`]);
    }
    // §10: ≈ 46 GFLOP per 256-token sequence; MiniLM ≈ 21 MFLOP per token.
    expect((2 * encoderMacs(ROBERTA_BASE_SHAPE, 256)) / 1e9).toBeCloseTo(45.9, 1);
    expect((2 * encoderMacs(MINILM_L6_SHAPE, 1)) / 1e6).toBeCloseTo(21.2, 1);
  });
});

describe('preset estimates', () => {
  const byDataset = (id: keyof typeof PANEL_PRESETS, device = wasm) =>
    Object.fromEntries(
      estimatePanelPlan(PANEL_PRESETS[id].plan, device, { backbone: PANEL_PRESETS[id].backbone }).rows.map(
        (r) => [r.dataset, r],
      ),
    );

  it('finetune: §10’s totals per panel group (within 6 %)', () => {
    const img = byDataset('image-finetune');
    const txt = byDataset('text-finetune');
    const near = (got: number, want: number) => expect(Math.abs(got / want - 1)).toBeLessThan(0.06);
    near(img.cifar10.trainingFlops + img.cifar100.trainingFlops, 0.48e18);
    near(img['image-clef'].trainingFlops, 3.5e18);
    near(img.visda.trainingFlops, 1.3e18);
    near(txt.ag_news.trainingFlops, 7.1e18);
    near(txt['imdb-amazon'].trainingFlops, 1.8e18);
    expect(img.cifar10.cells + img.cifar100.cells).toBe(576);
    expect(img['image-clef'].cells).toBe(864);
    expect(txt.ag_news.cells).toBe(252);
  });

  it('features: §10’s extraction and head training (within 8 %)', () => {
    const img = byDataset('image-features');
    const txt = byDataset('text-features');
    const near = (got: number, want: number) => expect(Math.abs(got / want - 1)).toBeLessThan(0.08);
    near(img.cifar10.extractionFlops + img.cifar100.extractionFlops, 0.14e15);
    near(img['image-clef'].extractionFlops, 0.07e15);
    near(img.visda.extractionFlops, 8.5e15);
    near(txt.ag_news.extractionFlops, 7.4e15);
    // imdb 5.0 PF + amazon 2.8 PF.
    near(txt['imdb-amazon'].extractionFlops, 7.8e15);
    // Head training: a CIFAR-10 run 192 × 3.2 MF × 10⁴ = 6.1 TF at the FixMatch type.
    const fixmatchOnly = estimatePanelPlan(
      {
        ...panelPresetPlan('image-features'),
        datasets: ['cifar10'],
        settings: ['feature'],
        algorithms: ['fixmatch'],
        seeds: [0],
        tIndices: [0],
      },
      wasm,
    );
    near(fixmatchOnly.trainingFlops, 6.1e12);
    // Views: 50 000 × 4 colour + 50 000 × 4 grey + 10 000 clean.
    expect(img.cifar10.views).toBe(410_000);
    expect(img['image-clef'].views).toBe(1_800 * 5);
  });

  it('classroom banks hold only the capped rows of their cells', () => {
    const plan = presetPanelPlan('image-classroom', 'cifar10')!;
    const e = estimatePanelPlan(plan, wasm);
    // Per (setting, seed, t): (L + 1 000) × (K_w + K_s) + 500 clean test rows.
    expect(e.views).toBe(3 * 6 * ((200 + 1000) * 3 + 500) + 3 * 6 * ((100 + 1000) * 3 + 500));
    expect(e.rows[0].steps).toBe(1000);
    expect(e.backbone).toBe('mnv3-small');
  });

  it('says the honest thing per tier and device', () => {
    const text = estimatePanelPlan(PANEL_PRESETS['text-features'].plan, wasm);
    expect(text.verdict).toBe('impractical');
    expect(text.lines.join(' ')).toMatch(
      /RoBERTa-base feature extraction on a CPU is impractical here \(≈ \d+ days\): use the classroom preset, run it with the CLI on a GPU.*import a feature bank/,
    );
    // On a laptop GPU it is hours, not days.
    const onGpu = estimatePanelPlan({ ...PANEL_PRESETS['text-features'].plan, datasets: ['ag_news'] }, gpu);
    expect(onGpu.extractionSeconds / 3600).toBeGreaterThan(1);
    expect(onGpu.extractionSeconds / 3600).toBeLessThan(6);
    const ft = estimatePanelPlan(PANEL_PRESETS['image-finetune'].plan, gpu);
    expect(ft.verdict).toBe('cli');
    expect(ft.gpuHours).toBeGreaterThan(10);
    expect(ft.lines.join(' ')).toMatch(
      /GPU-hours at 100 TFLOP\/s.*does not run it.*--tier finetune.*--shard 1\/N/,
    );
    const cls = estimatePanelPlan(presetPanelPlan('image-classroom', 'cifar10')!, gpu);
    expect(cls.lines[0]).toMatch(
      /^About .* on this device: ≈ .* of one-time feature extraction .* \+ ≈ .* of head training \(288 cells\)\.$/,
    );
    expect(cls.lines.at(-1)).toMatch(/assumed 1\.0 TFLOP\/s/);
  });

  it('scales with the device’s calibration and refuses what it cannot estimate', () => {
    expect(deviceSpeed(REF, 'wasm').gflops).toBe(CPU_REFERENCE_GFLOPS);
    expect(deviceSpeed({ benchMs: REFERENCE_BENCH_MS / 2 }, 'wasm').gflops).toBe(2 * CPU_REFERENCE_GFLOPS);
    expect(deviceSpeed(REF, 'webgpu').gflops).toBe(WEBGPU_ASSUMED_GFLOPS);
    expect(deviceSpeed(REF, 'wasm', 250).basis).toMatch(/as given/);
    expect(() => deviceSpeed(REF, 'wasm', -1)).toThrow(/positive/);
    const plan = presetPanelPlan('image-classroom', 'cifar10')!;
    const slow = estimatePanelPlan(plan, deviceSpeed({ benchMs: 7 }, 'wasm'));
    const fast = estimatePanelPlan(plan, deviceSpeed({ benchMs: 3.5 }, 'wasm'));
    expect(slow.totalSeconds).toBeCloseTo(2 * fast.totalSeconds, 6);
    expect(() => estimatePanelPlan({ ...plan, datasets: ['cifar10', 'ag_news'] }, wasm)).toThrow(
      /one modality/,
    );
    expect(() => estimatePanelPlan(plan, wasm, { backbone: 'tiny-conv' })).toThrow(/no registry shape/);
    expect(() => estimatePanelPlan(plan, wasm, { backbone: 'minilm-l6' })).toThrow(/reads texts/);
  });
});

describe('rac-bench estimate and the page agree', () => {
  it('gives the page’s numbers for a preset and for flags', async () => {
    for (const [args, plan, backbone] of [
      [['--preset', 'image-features'], PANEL_PRESETS['image-features'].plan, 'resnet50'],
      [
        ['--dataset', 'cifar10', '--tier', 'classroom', '--seeds', '0-2'],
        { ...presetPanelPlan('image-classroom', 'cifar10')!, pairs: [] },
        'mnv3-small',
      ],
    ] as const) {
      const r = await runCli(['estimate', ...args, '--bench-ms', '2.5', '--json']);
      expect(r.code, r.stderr).toBe(0);
      const cli = JSON.parse(r.stdout);
      const page = estimatePanelPlan(plan, deviceSpeed({ benchMs: 2.5 }, 'wasm'), { backbone });
      expect(cli.totalSeconds).toBeCloseTo(page.totalSeconds, 6);
      expect(cli.totalFlops).toBeCloseTo(page.totalFlops, -3);
      expect(cli.lines).toEqual(page.lines);
      expect(cli.rows.map((x: { views: number }) => x.views)).toEqual(page.rows.map((x) => x.views));
    }
    const text = await runCli(['estimate', '--preset', 'text-features', '--bench-ms', '3.5']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/RoBERTa-base feature extraction on a CPU is impractical here/);
    const bad = await runCli(['estimate', '--dataset', 'cifar10', '--tier', 'huge']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--tier must be one of finetune, features, classroom; got "huge"/);
  }, 60_000);
});
