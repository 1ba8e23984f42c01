/**
 * The finetune tier's budget (suite/finetuneBudget.ts) against published figures: torchvision's
 * ResNet-50 has 23 508 032 parameters without its fc (25 557 032 with it), transformers' RobertaModel
 * 124 645 632 with its pooler (590 592 of them); §10's 0.17 / 8.2 GFLOP per ResNet-50 forward at
 * 32 / 224 px, ≈ 46 GFLOP per RoBERTa-base sequence of 256 tokens and ≈ 0.98 PFLOP per CIFAR
 * FixMatch run; §7.3's ≈ 12 GB of activations for RoBERTa-base at 48 × 256 tokens. And the page's
 * gate: RoBERTa-base is refused at WebGPU's default limits with every shortfall in numbers, ResNet-50
 * on CIFAR passes on a device that declares enough, and unknown figures are refusals too.
 */
import { describe, expect, it } from 'vitest';
import { RESNET50, resnetCost } from '../../../src/lib/models/backbone/resnet.ts';
import { ROBERTA_BASE } from '../../../src/lib/models/backbone/roberta.ts';
import {
  cellFlops,
  describeFinetuneBudget,
  encoderModel,
  finetuneGate,
  RESNET50_CIFAR,
  resnetModel,
  ROBERTA_BASE_256,
  stepMemoryBytes,
  trainingRows,
} from '../../../src/lib/suite/finetuneBudget.ts';

describe('finetune budget', () => {
  it('counts parameters as torchvision and transformers do', () => {
    expect(resnetCost(RESNET50, 224).params).toBe(23_508_032);
    // + the LAMDA head 2048→256→10.
    expect(RESNET50_CIFAR(10).params).toBe(23_508_032 + 2048 * 256 + 256 + 256 * 10 + 10);
    // RobertaModel without its pooler, + RobertaClassificationHead 768→768→4.
    expect(encoderModel(ROBERTA_BASE, 256, 4).params).toBe(
      124_645_632 - 590_592 + 768 * 768 + 768 + 768 * 4 + 4,
    );
  });

  it("agrees with §10's arithmetic and §7.3's activation figure", () => {
    expect(RESNET50_CIFAR(10).forwardFlops / 1e9).toBeCloseTo(0.17, 2);
    expect(resnetModel(RESNET50, 224, 12).forwardFlops / 1e9).toBeGreaterThan(8.1);
    expect(resnetModel(RESNET50, 224, 12).forwardFlops / 1e9).toBeLessThan(8.3);
    expect(ROBERTA_BASE_256(4).forwardFlops / 1e9).toBeGreaterThan(45);
    expect(ROBERTA_BASE_256(4).forwardFlops / 1e9).toBeLessThan(47);
    const run = cellFlops(RESNET50_CIFAR(10), { method: 'fixmatch', steps: 10_000, batch: 64, testRows: 0 });
    expect(run / 1e15).toBeGreaterThan(0.95);
    expect(run / 1e15).toBeLessThan(1.0);
    const act = stepMemoryBytes(ROBERTA_BASE_256(4), 48).activations;
    expect(act / 1e9).toBeGreaterThan(11);
    expect(act / 1e9).toBeLessThan(13);
    expect(trainingRows('fixmatch', 16)).toBe(48);
    expect(trainingRows('meanteacher', 16)).toBe(16);
  });

  it('says the work, the memory and the way to split the tier', () => {
    const lines = describeFinetuneBudget(RESNET50_CIFAR(10), [
      { method: 'fixmatch', steps: 10_000, batch: 64, testRows: 0 },
      { method: 'supervised', steps: 10_000, batch: 64, testRows: 0 },
    ]);
    expect(lines[0]).toMatch(
      /^finetune: 2 cells of ResNet-50 at 32 px \(24\.0 M parameters, 0\.17 GFLOP per forward row\): ≈ 1\.3 PFLOP of training/,
    );
    expect(lines[1]).toMatch(/the largest step \(192 rows\) holds ≈ 1\.1 GiB/);
    expect(lines[2]).toMatch(/≈ 14 EFLOP .*--backend webgpu .*--shard i\/n/);
  });

  it('refuses RoBERTa-base at WebGPU default limits, naming each shortfall with its numbers', () => {
    const g = finetuneGate(ROBERTA_BASE_256(4), 48, {
      webgpu: true,
      maxBufferSize: 256 * 2 ** 20,
      maxStorageBufferBindingSize: 128 * 2 ** 20,
      deviceMemoryGiB: 8,
    });
    expect(g.ok).toBe(false);
    expect(g.reasons).toEqual([
      'the parameters need one 475 MiB buffer and the GPU adapter allows 256 MiB (maxBufferSize)',
      'the parameters need one 475 MiB storage binding and the GPU adapter allows 128 MiB (maxStorageBufferBindingSize)',
      'a step of 48 rows needs ≈ 13.8 GiB and the device declares 8 GiB (navigator.deviceMemory)',
    ]);
  });

  it('lets ResNet-50 on CIFAR through where the device declares enough, and refuses unknowns', () => {
    const enough = {
      webgpu: true,
      maxBufferSize: 2 ** 32,
      maxStorageBufferBindingSize: 2 ** 31,
      deviceMemoryGiB: 8,
    };
    expect(finetuneGate(RESNET50_CIFAR(10), 192, enough)).toMatchObject({ ok: true, reasons: [] });
    const none = finetuneGate(RESNET50_CIFAR(10), 192, { webgpu: false, deviceMemoryGiB: null });
    expect(none.ok).toBe(false);
    expect(none.reasons).toEqual([
      'this browser has no WebGPU, and ResNet-50 at 32 px does not train on the CPU in useful time',
      'the browser does not declare the device memory (navigator.deviceMemory)',
    ]);
  });
});
