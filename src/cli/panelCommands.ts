/**
 * The image and text panels on the command line (PROTOCOL-IMAGE-TEXT.md §5, §7):
 * - `rac-bench bank`: a feature bank of one Hub image split through a frozen backbone loaded from a
 *   safetensors file (clean and weak views of §6.1; grey rows for CIFAR's feature panel);
 * - `rac-bench run --dataset cifar10 …`: the panel's cells in the `features` / `classroom` tier
 *   from those banks, one head per cell, written as an `rsb-run/3` file.
 * What is not built yet is refused with the reason: strong image views (RandAugment + Cutout),
 * ResNet-50 / MobileNetV3 / text backbones, JPEG datasets (Image-CLEF, VisDA).
 */
import { readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { cpus, platform, release } from 'node:os';
import { parseArgs } from 'node:util';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { BankBuilder, readBankFile, type Bank, type BankKey } from '../lib/bank/bankFile.ts';
import { extractBank } from '../lib/bank/extract.ts';
import { viewRng } from '../lib/bank/viewSeed.ts';
import { imageContentHash } from '../lib/data/modal/contentHash.ts';
import { HUB_DATASETS } from '../lib/data/modal/hubSources.ts';
import type { LoadedHubSplit } from '../lib/data/modal/loadHub.ts';
import {
  isPanelDatasetId,
  PANEL_DATASETS,
  panelLabels,
  type PanelDataset,
} from '../lib/data/modal/panels.ts';
import { decodePngRgb } from '../lib/data/modal/png.ts';
import { tinyConvNet } from '../lib/models/backbone/backbone.ts';
import { IMAGENET_MEAN, IMAGENET_STD, normalise, weakCifarView } from '../lib/models/backbone/cifarViews.ts';
import { createMethod } from '../lib/models/deep/methods/index.ts';
import type { PoolFile } from '../lib/protocol/panelSplit.ts';
import { parseLabels, parseSeeds, parseTIndices } from '../lib/suite/selectors.ts';
import { PANEL_METHODS, runPanelCell, type PanelBank, type PanelMethod } from '../lib/suite/panelCell.ts';
import { parseRunV3, RUN_SCHEMA_V3, type ModalCellResult } from '../lib/suite/schemaV3.ts';
import { parseSafetensors } from '../lib/weights/safetensors.ts';
import { T_GRID } from '../lib/types.ts';
import { CliError, required } from './args.ts';
import { checkOutPath } from './files.ts';
import { loadHubSplitNode } from './modalData.ts';
import { cliPanelSettings } from './splitCommand.ts';
import { initNodeBackend, TFJS_VERSION } from './tfNode.ts';

const AUG = 'rsb-aug/1';
const BACKBONE_FEATURE = 'tiny-conv-gap';

/** The §4.4 content hash of a loaded image split (each PNG decoded once, row by row). */
function imageSplitHash(loaded: LoadedHubSplit, size: number): string {
  return imageContentHash(loaded.dataset, loaded.split, loaded.rows.labels, size, (i) =>
    rgbOf(loaded, i, size),
  );
}

function rgbOf(loaded: LoadedHubSplit, row: number, size: number): Uint8Array {
  const img = decodePngRgb(loaded.rows.images![row]);
  if (img.width !== size || img.height !== size)
    throw new CliError(
      `${loaded.dataset} ${loaded.split} row ${row}: a ${img.width}×${img.height} image, expected ${size}×${size}.`,
    );
  return img.rgb;
}

/** §6.1: grey rows copy R into G and B. */
const grey = (rgb: Uint8Array) => Uint8Array.from(rgb, (_, i) => rgb[i - (i % 3)]);

function writeBinaryAtomic(path: string, bytes: Uint8Array): void {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, bytes);
  renameSync(tmp, path);
}

export async function bankCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      dataset: { type: 'string' },
      split: { type: 'string', default: 'train' },
      variants: { type: 'string', default: 'colour' },
      kw: { type: 'string', default: '2' },
      ks: { type: 'string', default: '0' },
      seed: { type: 'string', default: '0' },
      backbone: { type: 'string', default: 'tiny-conv' },
      weights: { type: 'string' },
      batch: { type: 'string', default: '64' },
      'data-dir': { type: 'string' },
      out: { type: 'string' },
      quiet: { type: 'boolean', default: false },
    },
  });
  const id = required(values, 'dataset');
  const spec = HUB_DATASETS[id];
  if (!spec || spec.modality !== 'image')
    throw new CliError(
      `rac-bench bank takes a Hub image dataset (cifar10, cifar100); got "${id}". Text banks need the text encoders, ` +
        'Image-CLEF and VisDA a JPEG decoder: both come with their suites.',
    );
  if (values.backbone !== 'tiny-conv')
    throw new CliError(
      `--backbone ${values.backbone}: only tiny-conv (a small conv net from --weights) is built; ResNet-50 and ` +
        'MobileNetV3-small come with the image suite.',
    );
  const int = (name: string, text: string, max: number) => {
    const v = Number(text);
    if (!Number.isInteger(v) || v < 0 || v > max)
      throw new CliError(`--${name} must be a whole number in 0..${max}; got "${text}".`);
    return v;
  };
  const Kw = int('kw', values.kw!, 15);
  const Ks = int('ks', values.ks!, 15);
  if (Ks > 0)
    throw new CliError(
      '--ks: strong image views (RandAugment and Cutout, PROTOCOL-IMAGE-TEXT §6.3–6.4) are not built yet; use --ks 0. ' +
        'UDA, FixMatch, FlexMatch and SoftMatch need them; Supervised, PseudoLabel, PiModel, MeanTeacher and ICT do not.',
    );
  const variants = values.variants!.split(',').map((s) => s.trim());
  for (const v of variants)
    if (v !== 'colour' && v !== 'grey')
      throw new CliError(`--variants: image banks hold colour and grey rows; got "${v}".`);
  const out = required(values, 'out');
  checkOutPath(out);
  const weightsPath = required(values, 'weights');
  const weightsBytes = new Uint8Array(readFileSync(weightsPath));
  await initNodeBackend('wasm');
  const backbone = tinyConvNet(parseSafetensors(weightsBytes), spec.imageSize ?? 32);
  const loaded = await loadHubSplitNode(id, values.split!, values['data-dir']);
  const size = spec.imageSize ?? 32;
  const key: BankKey = {
    dataset: `${id}/${values.split}`,
    contentSha256: imageSplitHash(loaded, size),
    weightsSha256: bytesToHex(sha256(weightsBytes)),
    tokenizerSha256: null,
    feature: BACKBONE_FEATURE,
    variants,
    Kw,
    Ks,
    seed: int('seed', values.seed!, 2 ** 24 - 1),
    aug: AUG,
    dtype: 'float16',
    dim: backbone.dim,
    rows: loaded.rows.labels.length,
  };
  const render = (variant: string, view: 'clean' | 'weak' | 'strong', k: number, row: number) => {
    const rgb = rgbOf(loaded, row, size);
    const img = variant === 'grey' ? grey(rgb) : rgb;
    return normalise(view === 'clean' ? img : weakCifarView(img, size, viewRng(key.seed, row, 'weak', k)));
  };
  let last = 0;
  const t0 = performance.now();
  try {
    const builder = await extractBank({
      builder: new BankBuilder(key),
      backbone,
      render,
      batch: int('batch', values.batch!, 100_000) || 64,
      now: () => performance.now(),
      onProgress: (p) => {
        if (values.quiet || performance.now() - last < 2000) return;
        last = performance.now();
        const eta = p.etaSeconds === null ? '' : `, about ${Math.ceil(p.etaSeconds)} s left`;
        process.stderr.write(`bank: ${p.done} of ${p.total} rows${eta}\n`);
      },
    });
    const file = builder.toFile();
    writeBinaryAtomic(out, file.bytes);
    process.stderr.write(
      `Wrote the bank of ${key.dataset} (${key.rows} rows × ${builder.blocks.length} views, ${key.dim} features) to ${out} ` +
        `in ${((performance.now() - t0) / 1000).toFixed(1)} s: SHA-256 ${file.sha256}.\n`,
    );
  } finally {
    backbone.dispose();
  }
  return 0;
}

/** `run` on image/text panels: one head per cell over the banks in --bank-dir. */
export async function panelRunCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      dataset: { type: 'string' },
      setting: { type: 'string', default: 'all' },
      labels: { type: 'string' },
      algorithms: { type: 'string', default: 'supervised' },
      seeds: { type: 'string', default: '0-2' },
      t: { type: 'string', default: 'all' },
      tier: { type: 'string', default: 'features' },
      quirks: { type: 'string', default: 'rsb' },
      pair: { type: 'string' },
      steps: { type: 'string' },
      batch: { type: 'string' },
      lr: { type: 'string' },
      'bank-dir': { type: 'string' },
      'data-dir': { type: 'string' },
      out: { type: 'string' },
      quiet: { type: 'boolean', default: false },
    },
  });
  const ids = required(values, 'dataset').split(',');
  for (const id of ids)
    if (!isPanelDatasetId(id)) throw new CliError(`--dataset ${id} is not an image or text panel.`);
  const tier = values.tier;
  if (tier !== 'features' && tier !== 'classroom')
    throw new CliError(
      `--tier must be features or classroom here (finetune runs the whole network: the suites); got "${tier}".`,
    );
  const quirks = values.quirks;
  if (quirks !== 'rsb' && quirks !== 'fixed')
    throw new CliError(`--quirks must be rsb or fixed; got "${quirks}".`);
  const methods = values.algorithms!.split(',').map((s) => s.trim()) as PanelMethod[];
  for (const m of methods)
    if (!PANEL_METHODS.includes(m))
      throw new CliError(`--algorithms: "${m}" is not one of ${PANEL_METHODS.join(', ')}.`);
  const out = required(values, 'out');
  checkOutPath(out);
  const num = (name: 'steps' | 'batch' | 'lr') => {
    const text = values[name];
    if (text === undefined) return undefined;
    const v = Number(text);
    if (!(v > 0) || (name !== 'lr' && !Number.isInteger(v)))
      throw new CliError(`--${name} must be a positive number; got "${text}".`);
    return v;
  };
  const seeds = parseSeeds(values.seeds!);
  const tIndices = parseTIndices(values.t!);
  const bankDir = required(values, 'bank-dir');
  const banks = readdirSync(bankDir)
    .filter((f) => f.endsWith('.bank'))
    .map((f) => readBankFile(new Uint8Array(readFileSync(join(bankDir, f)))));
  const backend = await initNodeBackend('wasm');
  const created = new Date().toISOString();
  const cells: ModalCellResult[] = [];
  const settingsRun = new Set<string>();
  const labelsRun = new Set<number>();
  const pairsRun = new Set<string>();
  for (const id of ids as PanelDataset['id'][]) {
    const panel = PANEL_DATASETS[id];
    if (panel.source === 'local' || panel.modality === 'text')
      throw new CliError(
        `${panel.title}: runs need its bank, and ${panel.modality === 'text' ? 'text banks need the text encoders' : 'its JPEG images a decoder'}, which come with its suite.`,
      );
    const settings = cliPanelSettings(id, values.setting);
    // The panel's files, loaded and hashed once for all its settings and cells.
    const loaded = new Map<string, LoadedHubSplit>();
    const labelsY = await panelLabels(
      id,
      async (f) => {
        const split = await loadHubSplitNode(f.dataset, f.split, values['data-dir']);
        loaded.set(f.split, split);
        return split.rows.labels;
      },
      null,
    );
    const size = HUB_DATASETS[id].imageSize ?? 32;
    const hashes = new Map([...loaded].map(([split, l]) => [split, imageSplitHash(l, size)]));
    const contentSha256 = bytesToHex(
      sha256(new TextEncoder().encode([...hashes].map(([split, h]) => `${split}=${h}\n`).join(''))),
    );
    for (const setting of settings) {
      const needVariants = (file: 'train' | 'test') =>
        file === 'train' && setting === 'feature' ? ['colour', 'grey'] : ['colour'];
      const bankFor = (file: 'train' | 'test'): Bank => {
        const split = file;
        const b = banks.find(
          (x) =>
            x.key.dataset === `${id}/${split}` &&
            x.key.contentSha256 === hashes.get(split) &&
            needVariants(file).every((v) => x.key.variants.includes(v)),
        );
        if (!b)
          throw new CliError(
            `No bank in ${bankDir} for ${id}/${split} with variants ${needVariants(file).join(', ')} and this content ` +
              `(${hashes.get(split)!.slice(0, 12)}…): make one with rac-bench bank --dataset ${id} --split ${split} ` +
              `--variants ${needVariants(file).join(',')} --weights …`,
          );
        return b;
      };
      const [trainBank, testBank] = [bankFor('train'), bankFor('test')];
      if (trainBank.key.weightsSha256 !== testBank.key.weightsSha256)
        throw new CliError(`The ${id} banks come from different weights: make both with the same --weights.`);
      const bank: PanelBank = {
        Kw: trainBank.key.Kw,
        Ks: trainBank.key.Ks,
        dim: trainBank.key.dim,
        seed: trainBank.key.seed,
        sha256: trainBank.sha256,
        plain: 'colour',
        rows: (file: PoolFile, variant, view, k, rowIds) =>
          (file === 'test' ? testBank : trainBank).rows(variant, view, view === 'clean' ? 0 : k, rowIds),
      };
      const labels = values.labels ? parseLabels(values.labels) : [panel.labels[setting]!];
      for (const method of methods) {
        const needsStrong = method !== 'supervised' && createMethod(method).views.includes('strong');
        if (needsStrong && bank.Ks === 0)
          throw new CliError(
            `${method} needs strong views, and the banks have none (K_s = 0: strong image views are not built yet). ` +
              'Supervised, PseudoLabel, PiModel, MeanTeacher and ICT run on weak views.',
          );
        for (const total of labels)
          for (const seed of seeds)
            for (const tIndex of tIndices) {
              const cell = await runPanelCell(
                {
                  dataset: id,
                  pair: null,
                  setting,
                  labels: total,
                  tIndex,
                  seed,
                  method,
                  tier,
                  quirks,
                  steps: num('steps'),
                  batch: num('batch'),
                  lr: num('lr'),
                },
                {
                  labels: labelsY,
                  bank,
                  dataset: {
                    id,
                    files: [...loaded.values()].flatMap((l) => l.files),
                    content_sha256: contentSha256,
                    N: [...loaded.values()].reduce((a, l) => a + l.rows.labels.length, 0),
                    k: panel.k,
                    row_order: [...loaded.values()].some((l) => l.rowOrder === 'unverified')
                      ? 'unverified'
                      : 'canonical',
                    nonstandard: false,
                  },
                  backbone: {
                    id: 'tiny-conv',
                    source: `file:${basename(bankDir)}`,
                    weights_sha256: trainBank.key.weightsSha256,
                    frozen: true,
                    feature: BACKBONE_FEATURE,
                  },
                  input: {
                    image_size: size,
                    normalization: 'imagenet',
                    mean: [...IMAGENET_MEAN],
                    std: [...IMAGENET_STD],
                    decoder: 'fast-png',
                  },
                  env: {
                    backend,
                    float_precision: 'float32',
                    tfjs_version: TFJS_VERSION,
                    app_version: '0.1.0',
                    prng: 'mt19937-numpy-legacy',
                    device: `node ${process.version} ${platform()} ${release()} (${cpus()[0]?.model ?? 'cpu'})`,
                  },
                  createdAt: new Date().toISOString(),
                } as Parameters<typeof runPanelCell>[1],
                { now: () => performance.now() },
              );
              cells.push(cell);
              settingsRun.add(setting);
              labelsRun.add(total);
              if (!values.quiet)
                process.stderr.write(
                  `[${cells.length}] ${id} ${setting} ${method} labels ${total} t=${T_GRID[tIndex]} seed ${seed}: accuracy ${cell.outcome.accuracy?.toFixed(4)}\n`,
                );
            }
      }
    }
  }
  const bankOpts = cells[0]?.feature_bank;
  const run = parseRunV3({
    schema: RUN_SCHEMA_V3,
    id: `cli-${created}`,
    created_at: created,
    finished_at: new Date().toISOString(),
    plan: {
      spec: 'image-text',
      tier,
      preset: null,
      datasets: ids,
      ...(pairsRun.size ? { pairs: [...pairsRun] } : {}),
      settings: [...settingsRun],
      labels: [...labelsRun],
      algorithms: methods,
      seeds,
      tIndices,
      mode: 'rsb',
      quirks,
      options: bankOpts
        ? { bank: { K_w: bankOpts.K_w, K_s: bankOpts.K_s, seed: bankOpts.seed, dtype: 'float16' } }
        : {},
    },
    env: { runtime: `node ${process.version}`, backends: [backend], adapter: null },
    cells,
  });
  writeFileSync(`${out}.tmp-${process.pid}`, `${JSON.stringify(run, null, 1)}\n`);
  renameSync(`${out}.tmp-${process.pid}`, out);
  process.stderr.write(`Wrote ${cells.length} image/text cells (rsb-run/3) to ${out}.\n`);
  return 0;
}
