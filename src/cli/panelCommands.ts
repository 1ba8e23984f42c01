/**
 * The image and text panels on the command line (PROTOCOL-IMAGE-TEXT.md §5, §7):
 * - `rac-bench bank`: a feature bank of one Hub image split through a frozen backbone loaded from a
 *   safetensors file (clean and weak views of §6.1; grey rows for CIFAR's feature panel);
 * - `rac-bench run --dataset cifar10 …`: the panel's cells in the `features` / `classroom` tier
 *   from those banks, one head per cell, written as an `rsb-run/3` file.
 * The work itself is suite/panelRun.ts, which the page's panel worker runs too; this file reads
 * the arguments and the files. What is not built yet is refused with the reason: ResNet-50 /
 * MobileNetV3 / text backbones, JPEG datasets (Image-CLEF, VisDA).
 */
import { readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { cpus, platform, release } from 'node:os';
import { parseArgs } from 'node:util';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { readBankFile, type Bank } from '../lib/bank/bankFile.ts';
import { HUB_DATASETS } from '../lib/data/modal/hubSources.ts';
import { isPanelDatasetId, PANEL_DATASETS, type PanelDataset } from '../lib/data/modal/panels.ts';
import { tinyConvNet } from '../lib/models/backbone/backbone.ts';
import { IMAGENET_MEAN, IMAGENET_STD } from '../lib/models/backbone/cifarViews.ts';
import { parseLabels, parseSeeds, parseTIndices } from '../lib/suite/selectors.ts';
import { PANEL_METHODS, type PanelMethod } from '../lib/suite/panelCell.ts';
import { bankRefusal, describePanelCell, planCaps, type PanelPlan } from '../lib/suite/panelPlan.ts';
import {
  bankVariants,
  extractImageBank,
  imageBankKey,
  imageSplitHash,
  loadImagePanel,
  panelBankOf,
  runPanelPlan,
} from '../lib/suite/panelRun.ts';
import { parseRunV3, RUN_SCHEMA_V3, type ModalCellResult } from '../lib/suite/schemaV3.ts';
import { parseSafetensors } from '../lib/weights/safetensors.ts';
import { CliError, required } from './args.ts';
import { checkOutPath } from './files.ts';
import { loadHubSplitNode } from './modalData.ts';
import { cliPanelSettings } from './splitCommand.ts';
import { initNodeBackend, TFJS_VERSION } from './tfNode.ts';

function writeBinaryAtomic(path: string, bytes: Uint8Array): void {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, bytes);
  renameSync(tmp, path);
}

/** Errors of the shared core as CLI errors (a message, exit code 2, no stack). */
async function asCliError<T>(f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    if (e instanceof CliError || !(e instanceof Error) || e.name !== 'Error') throw e;
    throw new CliError(e.message);
  }
}

export async function bankCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      dataset: { type: 'string' },
      split: { type: 'string', default: 'train' },
      variants: { type: 'string', default: 'colour' },
      kw: { type: 'string', default: '2' },
      ks: { type: 'string', default: '2' },
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
  const request = {
    loaded,
    contentSha256: imageSplitHash(loaded, size),
    backbone,
    weightsSha256: bytesToHex(sha256(weightsBytes)),
    variants,
    Kw,
    Ks,
    seed: int('seed', values.seed!, 2 ** 24 - 1),
  };
  const key = imageBankKey(request);
  let last = 0;
  const t0 = performance.now();
  try {
    const builder = await extractImageBank(request, {
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
  const bankDir = required(values, 'bank-dir');
  const banks = readdirSync(bankDir)
    .filter((f) => f.endsWith('.bank'))
    .map((f) => readBankFile(new Uint8Array(readFileSync(join(bankDir, f)))));
  for (const id of ids as PanelDataset['id'][]) {
    const panel = PANEL_DATASETS[id];
    if (panel.source === 'local' || panel.modality === 'text')
      throw new CliError(
        `${panel.title}: runs need its bank, and ${panel.modality === 'text' ? 'text banks need the text encoders' : 'its JPEG images a decoder'}, which come with its suite.`,
      );
  }
  const settingsOf = new Map(
    ids.map((id) => [id, cliPanelSettings(id as PanelDataset['id'], values.setting)]),
  );
  const plan: PanelPlan = {
    datasets: ids as PanelDataset['id'][],
    settings: [...new Set([...settingsOf.values()].flat())],
    labels: values.labels ? parseLabels(values.labels) : undefined,
    algorithms: methods,
    seeds: parseSeeds(values.seeds!),
    tIndices: parseTIndices(values.t!),
    tier,
    quirks,
    steps: num('steps'),
    batch: num('batch'),
    lr: num('lr'),
  };
  const backend = await initNodeBackend('wasm');
  const created = new Date().toISOString();
  const cells: ModalCellResult[] = [];
  await asCliError(() =>
    runPanelPlan(plan, {
      async files(id, settings) {
        // The panel's files, loaded and hashed once for all its settings and cells.
        const { labels, hashes, dataset } = await loadImagePanel(id, (f) =>
          loadHubSplitNode(f.dataset, f.split, values['data-dir']),
        );
        const bankFor = (setting: (typeof settings)[number], file: 'train' | 'test'): Bank => {
          const need = bankVariants(setting, file);
          const b = banks.find(
            (x) =>
              x.key.dataset === `${id}/${file}` &&
              x.key.contentSha256 === hashes.get(file) &&
              need.every((v) => x.key.variants.includes(v)),
          );
          if (!b)
            throw new CliError(
              `No bank in ${bankDir} for ${id}/${file} with variants ${need.join(', ')} and this content ` +
                `(${hashes.get(file)!.slice(0, 12)}…): make one with rac-bench bank --dataset ${id} --split ${file} ` +
                `--variants ${need.join(',')} --weights …`,
            );
          return b;
        };
        const perSetting = new Map(
          settings.map((setting) => {
            const train = bankFor(setting, 'train');
            const bank = panelBankOf(train, bankFor(setting, 'test'));
            const refusal = bankRefusal(methods, bank.Kw, bank.Ks);
            if (refusal) throw new CliError(refusal);
            return [setting, bank] as const;
          }),
        );
        const weightsSha256 = bankFor(settings[0]!, 'train').key.weightsSha256;
        return {
          labels,
          dataset,
          bankFor: (setting) => perSetting.get(setting)!,
          backbone: {
            id: 'tiny-conv',
            source: `file:${basename(bankDir)}`,
            weights_sha256: weightsSha256,
            frozen: true,
            feature: 'tiny-conv-gap',
          },
        };
      },
      input: {
        image_size: 32,
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
      onCell(cell, ref) {
        cells.push(cell);
        if (!values.quiet)
          process.stderr.write(
            `[${cells.length}] ${describePanelCell(ref)}: accuracy ${cell.outcome.accuracy?.toFixed(4)}\n`,
          );
      },
      now: () => performance.now(),
      clock: () => new Date().toISOString(),
    }),
  );
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
      settings: [...new Set(cells.map((c) => c.setting))],
      labels: [...new Set(cells.map((c) => c.labels))],
      algorithms: methods,
      seeds: plan.seeds,
      tIndices: plan.tIndices,
      mode: 'rsb',
      quirks,
      options: bankOpts
        ? { bank: { K_w: bankOpts.K_w, K_s: bankOpts.K_s, seed: bankOpts.seed, dtype: 'float16' } }
        : {},
      ...(planCaps(plan) ? { subsample: planCaps(plan) } : {}),
    },
    env: { runtime: `node ${process.version}`, backends: [backend], adapter: null },
    cells,
  });
  writeFileSync(`${out}.tmp-${process.pid}`, `${JSON.stringify(run, null, 1)}\n`);
  renameSync(`${out}.tmp-${process.pid}`, out);
  process.stderr.write(`Wrote ${cells.length} image/text cells (rsb-run/3) to ${out}.\n`);
  return 0;
}
